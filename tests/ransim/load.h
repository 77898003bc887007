/* SPDX-License-Identifier: AGPL-3.0-or-later */
/* solocore-load: the load-test front end of ransim (load.c; main.c built with RANSIM_LOAD). */
#ifndef SOLOCORE_TESTS_RANSIM_LOAD_H
#define SOLOCORE_TESTS_RANSIM_LOAD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ransim.h"

enum load_mode { LOAD_CYCLE = 0, LOAD_REGISTER, LOAD_SESSIONS };

/* "cycle" | "register" | "sessions" -> *m and the UE plan in cfg. 0 or -EINVAL. */
int load_mode_apply(const char *name, enum load_mode *m, struct ransim_cfg *cfg);
/* One progress line (rate, completed, errors) on out, rewritten in place ('\r'). */
void load_progress(const struct ransim *rs, double elapsed_s, FILE *out);
/* Final report: NGAP PDUs/s counted on the wire (both directions), cycles/s, mean time per
 * cycle, p50/p90/p99/max per procedure, errors by cause; "key value" lines or JSON. */
void load_report(const struct ransim *rs, enum load_mode m, double elapsed_s, bool json, FILE *out);

#endif
