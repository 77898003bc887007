/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * upf_tidx - the index of the sessions' downlink tunnels, (gNB address, gNB TEID) -> session
 * id, for the Error Indication lookup (TS 29.281 7.3.1; upf_exc.c). The gNB chooses its TEIDs,
 * so no rule map is keyed by them; before this index the lookup scanned the session table.
 *
 * An open-addressing table with linear probing, allocated once at upf_open for max_sessions
 * (a power of two >= 2 x max_sessions entries of 4 bytes: 8 MB for 1,048,576 sessions, its
 * pages touched only as they are used), no allocation per session or per packet. An entry is
 * a session id + 1 (0: empty); its key is read from the session's rule (upf_sess.r), so the
 * caller removes a session's entry before changing its tunnel and adds it after. Removal
 * shifts the following entries back (no tombstones: the probe length never grows with churn).
 * The hash is keyed with a random seed: gNBs choose TEIDs, and a chosen set should not cluster.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "upf/upf_int.h"

static uint32_t key_hash(const struct upf *u, uint32_t addr, const uint8_t addr6[16], uint32_t teid)
{
	uint64_t h = u->tidx_seed ^ teid;

	if (addr) {
		h ^= (uint64_t)addr << 32;
	} else {
		uint64_t a, b;

		memcpy(&a, addr6, 8);
		memcpy(&b, addr6 + 8, 8);
		h ^= a * 0x9e3779b97f4a7c15ull ^ b;
	}
	/* a 64-bit finaliser (splitmix64): every input bit moves the index */
	h ^= h >> 30;
	h *= 0xbf58476d1ce4e5b9ull;
	h ^= h >> 27;
	h *= 0x94d049bb133111ebull;
	h ^= h >> 31;
	return (uint32_t)h & u->tidx_mask;
}

static uint32_t home(const struct upf *u, uint32_t id)
{
	const struct upf_session_rule *r = &u->sess[id].r;

	return key_hash(u, r->gnb_addr, r->gnb_addr6, r->gnb_teid);
}

int upf_tidx_setup(struct upf *u)
{
	uint64_t n = 16;

	while (n < 2ull * u->p.max_sessions)
		n <<= 1;
	u->tidx = calloc(n, sizeof(*u->tidx));
	if (!u->tidx)
		return -ENOMEM;
	u->tidx_mask = (uint32_t)(n - 1);
	if (getrandom(&u->tidx_seed, sizeof(u->tidx_seed), GRND_NONBLOCK) != sizeof(u->tidx_seed))
		u->tidx_seed = (uint64_t)time(NULL) * 0x9e3779b97f4a7c15ull;
	return 0;
}

void upf_tidx_add(struct upf *u, uint32_t id)
{
	uint32_t i;

	if (!upf_rule_has_gnb(&u->sess[id].r))
		return;
	/* at most max_sessions entries in 2 x max_sessions places: an empty one is always found */
	for (i = home(u, id); u->tidx[i]; i = (i + 1) & u->tidx_mask)
		;
	u->tidx[i] = id + 1;
}

void upf_tidx_del(struct upf *u, uint32_t id)
{
	uint32_t i, k, m = u->tidx_mask;

	if (!upf_rule_has_gnb(&u->sess[id].r))
		return;
	for (i = home(u, id); u->tidx[i] != id + 1; i = (i + 1) & m)
		if (!u->tidx[i])
			return;   /* not there (never added) */
	/* backward shift: an entry after the hole moves into it unless its home lies in between */
	for (k = (i + 1) & m; u->tidx[k]; k = (k + 1) & m) {
		uint32_t h = home(u, u->tidx[k] - 1);

		if (((k - h) & m) >= ((k - i) & m)) {
			u->tidx[i] = u->tidx[k];
			i = k;
		}
	}
	u->tidx[i] = 0;
}

int upf_tidx_find(const struct upf *u, uint32_t addr, const uint8_t addr6[16], uint32_t teid)
{
	for (uint32_t i = key_hash(u, addr, addr6, teid); u->tidx[i]; i = (i + 1) & u->tidx_mask) {
		uint32_t id = u->tidx[i] - 1;
		const struct upf_sess *s = &u->sess[id];

		if (!s->used || s->r.gnb_teid != teid || s->r.dl_state != UPF_DL_ACTIVE)
			continue;
		if (addr ? s->r.gnb_addr == addr : !s->r.gnb_addr && memcmp(s->r.gnb_addr6, addr6, 16) == 0)
			return (int)id;
	}
	return -ENOENT;
}
