/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * udm subscriber store: a fixed pool of subscribers with an intrusive chained
 * hash by SUPI. Sized once at creation (no growth at runtime, O(1) lookups).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/crypto/crypto.h"
#include "common/log.h"
#include "common/hash.h"
#include "udm/udm_int.h"

/* Bytes per SIM held (tests/bench/cp cp-scale): policies must not grow an entry. */
_Static_assert(sizeof(struct udm_subscriber) <= 184, "udm_subscriber grew");

/* SUPIs differ only in their last digits and a power-of-two table takes the low bits:
 * the finalised FNV-1a of common/hash.h. */

/* TS 23.003 2.2: "imsi-" followed by 5..15 digits. */
static bool supi_valid(const char *s)
{
	size_t n;

	if (strncmp(s, "imsi-", 5) != 0)
		return false;
	s += 5;
	for (n = 0; s[n]; n++)
		if (s[n] < '0' || s[n] > '9')
			return false;
	return n >= 5 && n <= 15;
}

/* Entries come from the chain of removed ones (free_head, linked through
 * next), then from the high-water mark: [hwm, cap) was never used. A
 * never-used entry is neither read nor written before it is taken, so the
 * store (sized +25 % above the provisioned SIMs) costs no resident page until
 * used, and a fresh page is faulted in once, by a write (a read first would
 * map the zero page and fault again on the write). */

struct udm *udm_new(uint32_t max_subs, int *err)
{
	struct udm *udm;
	if (max_subs == 0 || max_subs > (1u << 28)) {
		*err = -EINVAL;
		return NULL;
	}
	udm = calloc(1, sizeof(*udm));
	if (!udm) {
		*err = -ENOMEM;
		return NULL;
	}
	udm->cap = max_subs;
	udm->nbuckets = 16;
	while (udm->nbuckets < max_subs)
		udm->nbuckets <<= 1;
	udm->subs = calloc(max_subs, sizeof(*udm->subs));
	udm->buckets = malloc((size_t)udm->nbuckets * sizeof(*udm->buckets));
	if (!udm->subs || !udm->buckets) {
		udm_free(udm);
		*err = -ENOMEM;
		return NULL;
	}
	memset(udm->buckets, 0xff, (size_t)udm->nbuckets * sizeof(*udm->buckets));
	if (udm_pols_init(udm) < 0) {
		udm_free(udm);
		*err = -ENOMEM;
		return NULL;
	}
	udm->hwm = 0;
	udm->free_head = UDM_NIL;
	return udm;
}

void udm_free(struct udm *udm)
{
	if (!udm)
		return;
	udm_sqn_cluster_stop(udm);   /* a generator left running would use freed memory */
	if (udm->subs) {
		/* Wipe keys (STYLE.md 11): every entry ever used is below the mark. */
		explicit_bzero(udm->subs, (size_t)udm->hwm * sizeof(*udm->subs));
		free(udm->subs);
	}
	free(udm->buckets);
	udm_pols_free(udm);
	crypto_keyring_free(udm->owned_keyring);
	free(udm);
}

void udm_set_sqn_sink(struct udm *udm, udm_sqn_sink fn, void *arg)
{
	udm->sqn_sink = fn;
	udm->sqn_arg = arg;
}

void udm_set_keyring(struct udm *udm, const struct crypto_keyring *kr)
{
	udm->keyring = kr;
}

uint32_t udm_count(const struct udm *udm)
{
	return udm->count;
}

uint32_t udm_capacity(const struct udm *udm)
{
	return udm->cap;
}

struct udm_subscriber *udm_find(const struct udm *udm, const char *supi)
{
	uint32_t i = udm->buckets[hash_str(supi) & (udm->nbuckets - 1)];

	while (i != UDM_NIL) {
		struct udm_subscriber *s = &udm->subs[i];

		if (strcmp(s->data.supi, supi) == 0)
			return s;
		i = s->next;
	}
	return NULL;
}

const struct udm_sub_data *udm_get(const struct udm *udm, const char *supi)
{
	const struct udm_subscriber *s = udm_find(udm, supi);

	return s ? &s->data : NULL;
}

int udm_get_sqn(const struct udm *udm, const char *supi, uint64_t *sqn)
{
	const struct udm_subscriber *s = udm_find(udm, supi);

	if (!s)
		return -ENOENT;
	*sqn = s->sqn;
	return 0;
}

void udm_sqn_set(struct udm *udm, struct udm_subscriber *s, uint64_t sqn)
{
	s->sqn = sqn & 0xffffffffffffull;
	if (udm->sqn_sink)
		udm->sqn_sink(udm->sqn_arg, s->data.supi, s->sqn);
}

const char *udm_dnn_intern(struct udm *udm, const char *dnn)
{
	unsigned i;

	if (!dnn || !*dnn || strlen(dnn) > UDM_DNN_MAX)
		return NULL;
	for (i = 0; i < udm->n_dnn_pool; i++)
		if (strcmp(udm->dnn_pool[i], dnn) == 0)
			return udm->dnn_pool[i];
	if (udm->n_dnn_pool == UDM_MAX_DISTINCT_DNNS)
		return NULL;
	strcpy(udm->dnn_pool[udm->n_dnn_pool], dnn);
	return udm->dnn_pool[udm->n_dnn_pool++];
}

uint32_t udm_index(const struct udm *udm, const struct udm_subscriber *s)
{
	return (uint32_t)(s - udm->subs);
}

struct udm_subscriber *udm_slot(struct udm *udm, const char *supi, bool *fresh, int *err)
{
	struct udm_subscriber *s;
	uint32_t idx, b;

	if (!supi_valid(supi)) {
		*err = -EINVAL;
		return NULL;
	}
	s = udm_find(udm, supi);
	*fresh = !s;
	if (s)
		return s;
	if (udm->free_head != UDM_NIL) {
		idx = udm->free_head;
		udm->free_head = udm->subs[idx].next;
	} else if (udm->hwm < udm->cap) {
		idx = udm->hwm++;
	} else {
		*err = -ENOSPC;
		return NULL;
	}
	s = &udm->subs[idx];
	b = hash_str(supi) & (udm->nbuckets - 1);
	s->next = udm->buckets[b];
	udm->buckets[b] = idx;
	memcpy(s->data.supi, supi, strlen(supi) + 1);   /* supi_valid: fits */
	s->pol = 0;
	s->own = 0;
	udm->count++;
	return s;
}

int udm_add(struct udm *udm, const struct udm_sub_in *in)
{
	struct udm_subscriber *s;
	struct udm_sub_data d = in->data;
	uint8_t opc[16];
	bool fresh;
	unsigned i;
	int rc = 0;

	if (memchr(d.supi, 0, sizeof(d.supi)) == NULL || !supi_valid(d.supi) ||
	    d.n_slices > UDM_MAX_SLICES || d.n_dnns > UDM_MAX_DNNS)
		return -EINVAL;
	for (i = 0; i < d.n_dnns; i++) {
		d.dnns[i] = udm_dnn_intern(udm, in->data.dnns[i]);
		if (!d.dnns[i])
			return -EINVAL;
	}
	/* OPc first: a failure leaves the store as it was. */
	if (in->op_is_opc)
		memcpy(opc, in->opc, 16);
	else
		rc = udm_opc_from_op(in->k, in->opc, opc);
	s = rc < 0 ? NULL : udm_slot(udm, d.supi, &fresh, &rc);
	if (s) {
		s->data = d;
		s->ue_ambr_ul = s->ue_ambr_dl = 0;   /* struct udm_sub_in has none: the default */
		s->own = UDM_F_ALL;   /* resolved by the caller: no policy, no defaults */
		udm_pol_link(udm, s, 0, fresh);
		memcpy(s->k, in->k, 16);
		memcpy(s->opc, opc, 16);
		memcpy(s->amf, in->amf, 2);
		s->sqn = in->sqn & 0xffffffffffffull;
	}
	explicit_bzero(opc, sizeof(opc));
	return s ? 0 : rc;
}

int udm_remove(struct udm *udm, const char *supi)
{
	uint32_t *pp = &udm->buckets[hash_str(supi) & (udm->nbuckets - 1)];

	while (*pp != UDM_NIL) {
		uint32_t idx = *pp;
		struct udm_subscriber *s = &udm->subs[idx];

		if (strcmp(s->data.supi, supi) == 0) {
			*pp = s->next;
			udm_pol_unlink(udm, s);
			explicit_bzero(s, sizeof(*s));
			s->pol = UDM_POL_FREE;   /* skipped by policy.c's scan */
			s->next = udm->free_head;
			udm->free_head = idx;
			udm->count--;
			return 0;
		}
		pp = &s->next;
	}
	return -ENOENT;
}

int udm_sweep(struct udm *udm, const char (*keep)[UDM_SUPI_MAX], size_t n)
{
	int removed = 0;

	if (!udm || (n && !keep))
		return -EINVAL;
	for (uint32_t i = 0; i < udm->hwm; i++) {
		const struct udm_subscriber *s = &udm->subs[i];
		size_t lo = 0, hi = n;
		char supi[UDM_SUPI_MAX];

		if (s->pol == UDM_POL_FREE || !s->data.supi[0])
			continue;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			int c = strcmp(keep[mid], s->data.supi);

			if (c == 0)
				break;
			if (c < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < hi)
			continue;
		memcpy(supi, s->data.supi, sizeof(supi));
		if (udm_remove(udm, supi) == 0)
			removed++;
	}
	return removed;
}
