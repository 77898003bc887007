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

int smf_pool_init(struct smf_pool *p, const char *cidr, uint32_t max_alloc)
{
	memset(p, 0, sizeof(*p));
	if (prefix_parse(cidr, &p->base, &p->size) < 0)
		return -EINVAL;
	p->hwm = 1;
	p->cap_stack = p->size - 2 < max_alloc ? p->size - 2 : max_alloc;
	p->stack = calloc(p->cap_stack ? p->cap_stack : 1, sizeof(*p->stack));
	p->inuse = calloc((p->size + 63) / 64, sizeof(*p->inuse));
	if (!p->stack || !p->inuse) {
		smf_pool_fini(p);
		return -ENOMEM;
	}
	return 0;
}

void smf_pool_fini(struct smf_pool *p)
{
	free(p->stack);
	free(p->inuse);
	p->stack = NULL;
	p->inuse = NULL;
}

uint32_t smf_pool_alloc(struct smf_pool *p)
{
	uint32_t off;

	if (p->n_stack)
		off = p->stack[--p->n_stack];
	else if (p->hwm < p->size - 1 && p->used < p->cap_stack)
		off = p->hwm++;
	else
		return 0;
	p->inuse[off / 64] |= 1ull << (off % 64);
	p->used++;
	return htonl(p->base + off);
}

int smf_pool_free(struct smf_pool *p, uint32_t addr)
{
	uint32_t off = ntohl(addr) - p->base;

	if (off == 0 || off >= p->size - 1 || !(p->inuse[off / 64] & (1ull << (off % 64))))
		return -EINVAL;
	if (p->n_stack >= p->cap_stack)
		return -EINVAL;         /* cannot happen: see the top comment */
	p->inuse[off / 64] &= ~(1ull << (off % 64));
	p->stack[p->n_stack++] = off;
	p->used--;
	return 0;
}

/* ---- live DNN list changes (smf.h: smf_dnns_check / smf_dnns_replace) ---- */

static bool same_pool(const char *a, const char *b)
{
	uint32_t ba, bb, sa, sb;

	return prefix_parse(a, &ba, &sa) == 0 && prefix_parse(b, &bb, &sb) == 0 && ba == bb && sa == sb;
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
		if (!same_pool(old->pool, next[j].pool)) {
			snprintf(why, whysz, "DNN \"%s\" has %u PDU session(s) in pool %s, which would change to %s",
				 old->name, cnt[i], old->pool, next[j].pool);
			return -EBUSY;
		}
	}
	return 0;
}

int smf_dnns_replace(struct smf *smf, const struct conf_dnn *next, unsigned n, char *why, size_t whysz)
{
	struct smf_pool np[CONF_MAX_DNNS];
	int8_t map[CONF_MAX_DNNS];       /* old index -> new index, -1: dropped */
	unsigned i, j;
	int rc;

	rc = smf_dnns_check(smf, next, n, why, whysz);
	if (rc < 0)
		return rc;
	/* Prepare: an unchanged pool (same DNN, same prefix) moves with its addresses in use;
	 * any other is made new. Nothing is changed until every allocation succeeded. */
	memset(np, 0, sizeof(np));
	memset(map, -1, sizeof(map));
	for (j = 0; j < n; j++) {
		int old = -1;

		for (i = 0; i < smf->n_dnns && old < 0; i++)
			if (map[i] < 0 && !strcasecmp(smf->dnns[i].name, next[j].name) &&
			    same_pool(smf->dnns[i].pool, next[j].pool))
				old = (int)i;
		if (old >= 0) {
			map[old] = (int8_t)j;
			continue;
		}
		rc = smf_pool_init(&np[j], next[j].pool, smf->n_sess);
		if (rc < 0) {
			snprintf(why, whysz, "DNN \"%s\": pool %s: %s", next[j].name, next[j].pool,
				 rc == -ENOMEM ? "out of memory" : "invalid");
			for (j = 0; j < CONF_MAX_DNNS; j++)
				smf_pool_fini(&np[j]);
			return rc;
		}
	}
	/* Commit, with no return in between: sessions follow their DNN to its new index. */
	for (uint32_t s = 0; s < smf->sess_hwm; s++)
		if (smf->sess[s].in_use && smf->sess[s].dnn < CONF_MAX_DNNS && map[smf->sess[s].dnn] >= 0)
			smf->sess[s].dnn = (uint8_t)map[smf->sess[s].dnn];
	for (i = 0; i < CONF_MAX_DNNS; i++) {
		if (map[i] >= 0)
			np[map[i]] = smf->pools[i];
		else
			smf_pool_fini(&smf->pools[i]);
	}
	memcpy(smf->pools, np, sizeof(np));
	memmove(smf->dnns, next, n * sizeof(*next));
	smf->n_dnns = n;
	memset(smf->dns, 0, sizeof(smf->dns));
	memset(smf->n_dns, 0, sizeof(smf->n_dns));
	for (j = 0; j < n; j++) {
		for (unsigned k = 0; k < smf->dnns[j].n_dns && k < CONF_MAX_DNS; k++) {
			struct in_addr a;

			/* IPv4 servers only, as smf_new (IPv6 ones are for IPv6 sessions). */
			if (inet_pton(AF_INET, smf->dnns[j].dns[k], &a) == 1)
				smf->dns[j][smf->n_dns[j]++] = a.s_addr;
		}
	}
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
