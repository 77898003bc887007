/* SPDX-License-Identifier: AGPL-3.0-or-later */
/* Sample NAS messages built from the codec's own message tables, so every
 * message and every optional IE is exercised (tests, fuzz seeds, bench). */
#ifndef SOLOCORE_TESTS_NAS_SAMPLE_H
#define SOLOCORE_TESTS_NAS_SAMPLE_H

#include "common/nas/nas.h"

/* All message types the codec knows, in table order; returns the count. */
int nas_sample_types(uint8_t *types, int max);

/* Fill m with a valid sample of this message type: mandatory IEs always,
 * every optional IE when all_opt. Values point into static memory. 0 or -ENOMSG. */
int nas_sample_fill(struct nas_msg *m, uint8_t type, int all_opt);

/* Number of optional IEs of a message type (for per-IE tests). */
int nas_sample_n_opt(uint8_t type);
/* Fill mandatory IEs plus only the optional IE number k (0-based). */
int nas_sample_fill_one(struct nas_msg *m, uint8_t type, int k);

#endif
