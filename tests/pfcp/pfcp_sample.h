/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * Full PFCP sample messages for the tests and the fuzzer seeds: every IE of
 * the message's table (TS 29.244 7.4 / 7.5), repeated IEs twice, each grouped
 * IE with every IE of its own table, values that exercise each flag.
 */
#ifndef SOLOCORE_TESTS_PFCP_SAMPLE_H
#define SOLOCORE_TESTS_PFCP_SAMPLE_H

#include "common/pfcp/pfcp.h"

/* Fills m as a full message of this type; -ENOMSG for a type the codec lacks. */
int pfcp_sample(uint8_t type, struct pfcp_msg *m);
/* The message types of the codec, in table order, and their number. */
extern const uint8_t pfcp_sample_types[];
extern const unsigned pfcp_sample_ntypes;
/* 1 if every IE of m's tables is present in every grouped IE of m (the "every IE"
 * check of a decoded sample); otherwise 0 and the missing IE is printed. */
int pfcp_sample_all_present(const struct pfcp_msg *m);

#endif
