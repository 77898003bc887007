/* SPDX-License-Identifier: AGPL-3.0-or-later */
/* hist - see hist.h. */
#include "common/hist.h"

/* A procedure takes a few ms in a lab, up to seconds when the radio side is slow. */
static const uint32_t bounds_us[HIST_N] = {
	500, 1000, 2500, 5000, 10000, 25000, 50000, 100000, 250000, 500000,
	1000000, 2500000, 5000000, 10000000,
};

const uint32_t *hist_bounds_us(unsigned *n)
{
	*n = HIST_N;
	return bounds_us;
}

void hist_add(struct hist *h, uint64_t ns)
{
	unsigned i = 0;

	while (i < HIST_N && ns > (uint64_t)bounds_us[i] * 1000u)
		i++;
	h->bucket[i]++;
	h->count++;
	h->sum_ns += ns;
}
