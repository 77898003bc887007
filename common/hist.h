/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * hist - the latency histogram of the tree, with one fixed set of buckets so that every
 * procedure's figures (the SMF's PDU session setup, the AMF's registration) compare and
 * print the same way (web_metrics_hist). Plain counters: no allocation, O(buckets) add.
 */
#ifndef SOLOCORE_COMMON_HIST_H
#define SOLOCORE_COMMON_HIST_H

#include <stdint.h>

/* Observations per bucket, not cumulative; bucket[HIST_N] holds those above the largest
 * bound (+Inf). A zeroed struct is an empty histogram. */
#define HIST_N 14
struct hist {
	uint64_t count;
	uint64_t sum_ns;
	uint64_t bucket[HIST_N + 1];
};

/* Upper bounds of the buckets in microseconds, ascending (0.5 ms .. 10 s); *n = HIST_N. */
const uint32_t *hist_bounds_us(unsigned *n);
/* One observation of ns nanoseconds: into the first bucket whose bound it does not exceed. */
void hist_add(struct hist *h, uint64_t ns);

#endif
