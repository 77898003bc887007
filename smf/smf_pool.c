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
#include <stdlib.h>
#include <string.h>

#include "smf/smf_int.h"

int smf_pool_init(struct smf_pool *p, const char *cidr, uint32_t max_alloc)
{
	char addr[32];
	const char *slash = strchr(cidr, '/');
	struct in_addr in;
	char *end;
	long plen;
	uint32_t mask;

	memset(p, 0, sizeof(*p));
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
	p->base = ntohl(in.s_addr) & mask;
	p->size = ~mask + 1u;
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
