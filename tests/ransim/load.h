/* SPDX-License-Identifier: AGPL-3.0-or-later */
/* solocore-load: the load-test front end of ransim (load.c; main.c built with RANSIM_LOAD). */
#ifndef SOLOCORE_TESTS_RANSIM_LOAD_H
#define SOLOCORE_TESTS_RANSIM_LOAD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ransim.h"

enum load_mode { LOAD_CYCLE = 0, LOAD_REGISTER, LOAD_SESSIONS, LOAD_HANDOVER };

/* "cycle" | "register" | "sessions" | "handover" -> *m and the UE plan in cfg. 0 or -EINVAL. */
int load_mode_apply(const char *name, enum load_mode *m, struct ransim_cfg *cfg);
/* One progress line (rate, completed, errors) on out, rewritten in place ('\r'). */
void load_progress(const struct ransim *rs, double elapsed_s, FILE *out);
/* Final report: NGAP PDUs/s counted on the wire (both directions), cycles/s, mean time per
 * cycle, p50/p90/p99/max per procedure, errors by cause, the handovers of ho (NULL: none;
 * load_ho_report); "key value" lines or JSON. */
struct load_ho;
void load_report(const struct ransim *rs, enum load_mode m, struct load_ho *ho, double elapsed_s, bool json,
		 FILE *out);


/* ---- handover (load_ho.c): paced handovers of UEs holding a PDU session ---- */
struct load_ho_stats {
	uint64_t attempted;          /* requests due (rate * secs once done) */
	uint64_t acked;              /* Xn: PATH SWITCH REQUEST ACKNOWLEDGE; N2: HANDOVER NOTIFY sent */
	uint64_t failed;             /* answered with a failure, or an answer that failed a check */
	uint64_t timeout;            /* no answer within --ue-timeout of the last request */
	uint64_t send_errors;        /* due but not sent (no UE could move, a send error) */
	uint64_t busy;               /* UEs passed over: their previous handover still running */
	uint64_t prepared;           /* N2: HANDOVER COMMANDs */
	uint64_t dl_measured, ul_measured; /* interruptions measured (with --traffic) */
	uint64_t dl_open, ul_open;   /* handovers whose first G-PDU through the target never came */
	uint64_t dl_no_source, ul_no_source; /* ... came, but none through the source before */
	uint64_t superseded;         /* the UE's next handover came before its interruption closed */
	double seconds;              /* first request -> last answer */
};
/* rate handovers per second for secs seconds (rate * secs requests) on rs (2+ gNBs); it
 * observes rs (rs_int.h struct rs_ho_obs). NULL with *err = -errno. */
struct load_ho *load_ho_new(struct ransim *rs, unsigned rate, unsigned secs, int *err);
/* Call each loop iteration; sessions_held: every UE holds its session (ransim_done()).
 * True while the handovers, their answers or their interruption measures are still running. */
bool load_ho_step(struct load_ho *h, bool sessions_held);
void load_ho_get_stats(const struct load_ho *h, struct load_ho_stats *out);
/* 0 when every request was sent and acknowledged; else -1 and the reason in why. */
int load_ho_status(const struct load_ho *h, char *why, size_t cap);
/* Counts, handovers/s, latency and interruption p50/p90/p99/max with their common/hist.h
 * histograms, lost packets: "key value" lines, or JSON members each followed by a comma.
 * Sorts the samples (call once, at the end). */
void load_ho_report(struct load_ho *h, bool json, FILE *out);
/* Accepts NULL. Before ransim_free(). */
void load_ho_free(struct load_ho *h);

#endif
