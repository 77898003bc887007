/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * IPv4 pools, one per DNN. O(1) allocate and free, no allocation after init:
 * never-used offsets come from a high-water mark, freed ones from a LIFO
 * stack; a bitmap catches double frees. The stack holds at most as many
 * entries as addresses were ever in use at once, so it is sized
 * min(pool size, max sessions) however large the prefix is.
 * The network (offset 0) and broadcast (last) addresses are never handed out.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "smf/smf_int.h"

/* "a.b.c.d/len" (8 <= len <= 30) -> network address (host order) and prefix size. */
static int prefix_parse(const char *cidr, uint32_t *base, uint32_t *size)
{
	char addr[32];
	const char *slash = strchr(cidr, '/');
	struct in_addr in;
	char *end;
	long plen;
	uint32_t mask;

	if (!slash || (size_t)(slash - cidr) >= sizeof(addr))
		return -EINVAL;
	memcpy(addr, cidr, (size_t)(slash - cidr));
	addr[slash - cidr] = 0;
	if (inet_pton(AF_INET, addr, &in) != 1)
		return -EINVAL;
	plen = strtol(slash + 1, &end, 10);
	if (*end || plen < 8 || plen > 30)
		return -EINVAL;
	mask = ~0u << (32 - plen);
	*base = ntohl(in.s_addr) & mask;
	*size = ~mask + 1u;
	return 0;
}

/* Offsets first..limit-1 handed out; the stack and the bitmap of both families. */
static int offsets_init(struct smf_pool *p, uint32_t first, uint32_t limit, uint32_t max_alloc)
{
	p->first = first;
	p->limit = limit;
	p->hwm = first;
	p->cap_stack = limit - first < max_alloc ? limit - first : max_alloc;
	p->stack = calloc(p->cap_stack ? p->cap_stack : 1, sizeof(*p->stack));
	p->inuse = calloc((p->size + 63) / 64, sizeof(*p->inuse));
	if (!p->stack || !p->inuse) {
		smf_pool_fini(p);
		return -ENOMEM;
	}
	return 0;
}

int smf_pool_init(struct smf_pool *p, const char *cidr, uint32_t max_alloc)
{
	memset(p, 0, sizeof(*p));
	if (prefix_parse(cidr, &p->base, &p->size) < 0)
		return -EINVAL;
	return offsets_init(p, 1, p->size - 1, max_alloc);
}

void smf_pool_fini(struct smf_pool *p)
{
	free(p->stack);
	free(p->inuse);
	p->stack = NULL;
	p->inuse = NULL;
}

/* The one allocator of both families: an offset, or -ENOSPC. */
static int64_t off_alloc(struct smf_pool *p)
{
	uint32_t off;

	if (p->n_stack)
		off = p->stack[--p->n_stack];
	else if (p->hwm < p->limit && p->used < p->cap_stack)
		off = p->hwm++;
	else
		return -ENOSPC;
	p->inuse[off / 64] |= 1ull << (off % 64);
	p->used++;
	return off;
}

uint32_t smf_pool_alloc(struct smf_pool *p)
{
	int64_t off = off_alloc(p);

	return off < 0 ? 0 : htonl(p->base + (uint32_t)off);
}

int smf_pool_free(struct smf_pool *p, uint32_t addr)
{
	uint32_t off = ntohl(addr) - p->base;

	if (off < p->first || off >= p->limit || !(p->inuse[off / 64] & (1ull << (off % 64))))
		return -EINVAL;
	if (p->n_stack >= p->cap_stack)
		return -EINVAL;         /* cannot happen: see the top comment */
	p->inuse[off / 64] &= ~(1ull << (off % 64));
	p->stack[p->n_stack++] = off;
	p->used--;
	return 0;
}

/* ---- IPv6: /64s ---- */

int smf_pool6_init(struct smf_pool *p, const char *cidr6, uint32_t max_alloc)
{
	uint8_t net[16], plen;

	memset(p, 0, sizeof(*p));
	if (conf_pool6_parse(cidr6, net, &plen) < 0 || plen < 44 || plen > 64)
		return -EINVAL;
	memcpy(p->prefix6, net, 8);
	p->size = 1u << (64 - plen);
	return offsets_init(p, 0, p->size, max_alloc);   /* every /64 is a session's */
}

/* The /64 at offset off: the offset is in the low (64 - plen) <= 20 bits of the prefix */
static void pfx_of(const struct smf_pool *p, uint32_t off, uint8_t pfx[8])
{
	memcpy(pfx, p->prefix6, 8);
	pfx[5] |= (uint8_t)(off >> 16);
	pfx[6] |= (uint8_t)(off >> 8);
	pfx[7] |= (uint8_t)off;
}

int smf_pool6_alloc(struct smf_pool *p, uint8_t pfx[8])
{
	int64_t off = p->size ? off_alloc(p) : -ENOSPC;

	if (off < 0)
		return -ENOSPC;
	pfx_of(p, (uint32_t)off, pfx);
	return 0;
}

int smf_pool6_free(struct smf_pool *p, const uint8_t pfx[8])
{
	uint32_t off = (uint32_t)pfx[5] << 16 | (uint32_t)pfx[6] << 8 | pfx[7];
	uint8_t want[8];

	if (!p->size)
		return -EINVAL;
	off &= p->size - 1;
	pfx_of(p, off, want);
	if (memcmp(want, pfx, 8))
		return -EINVAL;
	return smf_pool_free(p, htonl(off));
}

/* ---- live DNN list changes (smf.h: smf_dnns_check / smf_dnns_replace) ---- */

static bool same_pool(const char *a, const char *b)
{
	uint32_t ba, bb, sa, sb;

	return prefix_parse(a, &ba, &sa) == 0 && prefix_parse(b, &bb, &sb) == 0 && ba == bb && sa == sb;
}

/* Both families: a session keeps its /64 as it keeps its address */
static bool same_pools(const struct conf_dnn *a, const struct conf_dnn *b)
{
	uint8_t na[16], nb[16], la, lb;

	if (!same_pool(a->pool, b->pool))
		return false;
	if (!a->pool6[0] || !b->pool6[0])
		return !a->pool6[0] && !b->pool6[0];
	return conf_pool6_parse(a->pool6, na, &la) == 0 && conf_pool6_parse(b->pool6, nb, &lb) == 0 &&
	       la == lb && !memcmp(na, nb, 16);
}

int smf_dnn_find(const struct conf_dnn *dnns, unsigned n, const char *name)
{
	for (unsigned j = 0; j < n; j++)
		if (!strcasecmp(dnns[j].name, name))
			return (int)j;
	return -1;
}

static void count_sessions(const struct smf *smf, uint32_t cnt[CONF_MAX_DNNS])
{
	memset(cnt, 0, CONF_MAX_DNNS * sizeof(*cnt));
	for (uint32_t i = 0; i < smf->sess_hwm; i++)
		if (smf->sess[i].in_use && smf->sess[i].dnn < CONF_MAX_DNNS)
			cnt[smf->sess[i].dnn]++;
}

int smf_dnns_check(const struct smf *smf, const struct conf_dnn *next, unsigned n, char *why,
		   size_t whysz)
{
	uint32_t cnt[CONF_MAX_DNNS];
	uint32_t base, size;

	if (!n || n > CONF_MAX_DNNS) {
		snprintf(why, whysz, "1..%u DNNs", CONF_MAX_DNNS);
		return -EINVAL;
	}
	for (unsigned j = 0; j < n; j++) {
		if (prefix_parse(next[j].pool, &base, &size) < 0) {
			snprintf(why, whysz, "DNN \"%s\": bad pool \"%s\"", next[j].name, next[j].pool);
			return -EINVAL;
		}
	}
	/* A session keeps its DNN's pool: its UE address, the UPF's downlink rule and the
	 * UE's routes come from it (TS 23.501 5.8.2.2). So a DNN with sessions stays, with
	 * the same pool; its DNS servers and MTU may change (sent to new sessions only). */
	count_sessions(smf, cnt);
	for (unsigned i = 0; i < smf->n_dnns; i++) {
		const struct conf_dnn *old = &smf->dnns[i];
		int j;

		if (!cnt[i])
			continue;
		j = smf_dnn_find(next, n, old->name);
		if (j < 0) {
			snprintf(why, whysz, "DNN \"%s\" has %u PDU session(s) and would be removed",
				 old->name, cnt[i]);
			return -EBUSY;
		}
		if (!same_pools(old, &next[j])) {
			snprintf(why, whysz, "DNN \"%s\" has %u PDU session(s) in pool %s%s%s, which would change to %s%s%s",
				 old->name, cnt[i], old->pool, old->pool6[0] ? " / " : "", old->pool6, next[j].pool,
				 next[j].pool6[0] ? " / " : "", next[j].pool6);
			return -EBUSY;
		}
	}
	return 0;
}

int smf_dnns_replace(struct smf *smf, const struct conf_dnn *next, unsigned n, char *why, size_t whysz)
{
	struct smf_pool np[CONF_MAX_DNNS], np6[CONF_MAX_DNNS];
	int8_t map[CONF_MAX_DNNS];       /* old index -> new index, -1: dropped */
	unsigned i, j;
	int rc;

	rc = smf_dnns_check(smf, next, n, why, whysz);
	if (rc < 0)
		return rc;
	/* Prepare: an unchanged pool (same DNN, same prefix) moves with its addresses in use;
	 * any other is made new. Nothing is changed until every allocation succeeded. */
	memset(np, 0, sizeof(np));
	memset(np6, 0, sizeof(np6));
	memset(map, -1, sizeof(map));
	for (j = 0; j < n; j++) {
		int old = -1;

		for (i = 0; i < smf->n_dnns && old < 0; i++)
			if (map[i] < 0 && !strcasecmp(smf->dnns[i].name, next[j].name) &&
			    same_pools(&smf->dnns[i], &next[j]))
				old = (int)i;
		if (old >= 0) {
			map[old] = (int8_t)j;
			continue;
		}
		rc = smf_pool_init(&np[j], next[j].pool, smf->n_sess);
		if (rc == 0 && next[j].pool6[0])
			rc = smf_pool6_init(&np6[j], next[j].pool6, smf->n_sess);
		if (rc < 0) {
			snprintf(why, whysz, "DNN \"%s\": pool %s%s%s: %s", next[j].name, next[j].pool,
				 next[j].pool6[0] ? " / " : "", next[j].pool6, rc == -ENOMEM ? "out of memory" : "invalid");
			for (j = 0; j < CONF_MAX_DNNS; j++) {
				smf_pool_fini(&np[j]);
				smf_pool_fini(&np6[j]);
			}
			return rc;
		}
	}
	/* Commit, with no return in between: sessions follow their DNN to its new index. */
	for (uint32_t s = 0; s < smf->sess_hwm; s++)
		if (smf->sess[s].in_use && smf->sess[s].dnn < CONF_MAX_DNNS && map[smf->sess[s].dnn] >= 0)
			smf->sess[s].dnn = (uint8_t)map[smf->sess[s].dnn];
	for (i = 0; i < CONF_MAX_DNNS; i++) {
		if (map[i] >= 0) {
			np[map[i]] = smf->pools[i];
			np6[map[i]] = smf->pools6[i];
		} else {
			smf_pool_fini(&smf->pools[i]);
			smf_pool_fini(&smf->pools6[i]);
		}
	}
	memcpy(smf->pools, np, sizeof(np));
	memcpy(smf->pools6, np6, sizeof(np6));
	memmove(smf->dnns, next, n * sizeof(*next));
	smf->n_dnns = n;
	for (j = 0; j < n; j++)
		smf_parse_dns(smf, j);
	log_info(MOD, "DNN list replaced: %u DNN(s)", n);
	return 0;
}

int smf_set_slices(struct smf *smf, const struct conf_slice *s, unsigned n)
{
	if (!n || n > CONF_MAX_SLICES || !s)
		return -EINVAL;
	memcpy(smf->slices, s, n * sizeof(*s));
	smf->n_slices = n;
	return 0;
}
