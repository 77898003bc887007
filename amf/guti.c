/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * 5G-TMSI allocation (TS 23.003 2.10, TS 33.501 6.12.3: the 5G-TMSI must be
 * unpredictable and refreshed). A 4-round Feistel network over 32 bits, keyed
 * at start-up from getrandom(), permutes a counter: the outputs are distinct for
 * 2^32 allocations (a permutation) and not guessable from each other without
 * the key. A collision check covers the counter wrapping.
 */
#include <sys/random.h>
#include <string.h>

#include "amf/amf_int.h"
#include "common/log.h"

static uint16_t round_fn(uint16_t r, uint16_t k)
{
	uint32_t h = ((uint32_t)r << 16 | k) * 0x9e3779b1u;

	h ^= h >> 15;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	return (uint16_t)(h ^ (h >> 16));
}

static uint32_t permute(const struct amf *amf, uint32_t x)
{
	uint16_t l = (uint16_t)(x >> 16), r = (uint16_t)x, t;
	int i;

	for (i = 0; i < 4; i++) {
		t = r;
		r = l ^ round_fn(r, amf->tmsi_rk[i]);
		l = t;
	}
	return (uint32_t)l << 16 | r;
}

void amf_tmsi_init(struct amf *amf)
{
	uint8_t seed[12];

	if (getrandom(seed, sizeof(seed), 0) != (ssize_t)sizeof(seed)) {
		/* No entropy source: still unique, only less unpredictable. */
		log_warn("amf", "getrandom failed: 5G-TMSI key from the clock");
		uint64_t t = ev_now_ns(amf->loop) ^ (uintptr_t)amf;
		memcpy(seed, &t, sizeof(t));
		memset(seed + 8, 0x5a, 4);
	}
	memcpy(amf->tmsi_rk, seed, sizeof(amf->tmsi_rk));
	memcpy(&amf->tmsi_ctr, seed + 8, sizeof(amf->tmsi_ctr));
	explicit_bzero(seed, sizeof(seed));
}

uint32_t amf_tmsi_alloc(struct amf *amf)
{
	uint32_t tmsi;

	do {
		tmsi = permute(amf, amf->tmsi_ctr++);
		/* All ones is avoided: some RANs treat it as "no identity". */
	} while (tmsi == UINT32_MAX || amf_ue_by_tmsi(amf, tmsi));
	return tmsi;
}
