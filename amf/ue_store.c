/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * UE context store: a pool of contexts sized by max_ues and intrusive chained
 * hash indexes over pool indices — (gNB, RAN UE NGAP ID), SUPI, 5G-TMSI (current
 * and previous), AMF UE NGAP ID and the AMF UE NGAP ID of an N2 handover leg.
 *
 * AMF UE NGAP IDs (TS 38.413 9.3.3.1, INTEGER 0..2^40-1) are 40 random bits from the
 * kernel CSPRNG, unique among live UEs and legs (issue 31 point 6): a gNB that knows
 * its own UEs' IDs learns nothing about another gNB's, so a PATH SWITCH REQUEST (which
 * names its UE by this ID alone, TS 38.413 8.4.4.2) cannot be aimed at a neighbour of a
 * known ID. With n live UEs a blind guess hits one with probability n / 2^40. The
 * earlier "generation << index bits | pool index" made a neighbour's ID one subtraction
 * away. Lookup stays O(1): a hash of the ID (random, so the chains stay short whatever
 * IDs a peer sends), and a stale ID never matches a reused slot (it is compared whole).
 * Random octets come in batches (AMF_IDRND_BATCH): no syscall and no allocation per UE.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>

#include "amf/amf_int.h"
#include "common/hash.h"
#include "udm/udm.h"
#include "common/log.h"


static uint32_t ran_hash(uint32_t assoc, uint32_t ran_id)
{
	return hash_mix32(assoc * 0x9e3779b1u ^ ran_id);
}

/* Bucket heads hold ~idx so that zero-filled memory is an empty table (AMF_NIL = ~0):
 * the tables and the pool come from anonymous mappings whose untouched pages cost
 * nothing, and nothing is walked at start-up (1M UEs: no 1.5 GB of page faults). */
static inline uint32_t bk_get(const uint32_t *b)
{
	return ~*b;
}

static inline void bk_set(uint32_t *b, uint32_t idx)
{
	*b = ~idx;
}

static void *map_zero(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

int amf_store_init(struct amf *amf)
{
	uint32_t n = amf->cfg.max_ues, nb = 16, nk = n;
	int t;

	if (n == 0 || n > (1u << 24))
		return -EINVAL;
	/* Buckets for the UEs there can be (a context per subscriber, the UDM's
	 * fixed capacity), not for max_ues: the chains are hit at random, so
	 * 3 x 8 MB of buckets for the default 10^6 would all become resident
	 * with a few hundred UEs. Chained: more UEs only lengthen the chains. */
	if (amf->udm && udm_capacity(amf->udm) < n)
		nk = udm_capacity(amf->udm);
	while (nb < nk * 2)
		nb <<= 1;
	amf->ht_mask = nb - 1;
	amf->idrnd_pos = sizeof(amf->idrnd);   /* drawn at the first ID */
	amf->ues_bytes = (size_t)n * sizeof(*amf->ues);
	amf->ues = map_zero(amf->ues_bytes);
	if (!amf->ues)
		return -ENOMEM;
	for (t = 0; t < AMF_H_TABLES; t++) {
		amf->ht[t] = map_zero((size_t)nb * sizeof(uint32_t));
		if (!amf->ht[t])
			return -ENOMEM;
	}
	/* Free slots: the chain of released ones, then [ues_hw, max_ues) never used. */
	amf->free_head = AMF_NIL;
	amf->ues_hw = 0;
	amf->gnbs = calloc(amf->cfg.max_gnbs, sizeof(*amf->gnbs));
	if (!amf->gnbs)
		return -ENOMEM;
	memset(amf->gnb_buckets, 0xff, sizeof(amf->gnb_buckets));
	return 0;
}

void amf_store_fini(struct amf *amf)
{
	int t;

	if (amf->ues) {
		for (uint32_t i = 0; i < amf->ues_hw; i++)
			if (amf->ues[i].in_use)
				free(amf->ues[i].radio_cap);
		/* Keys: wiped by amf_ue_free, and for live contexts by amf_free. */
		munmap(amf->ues, amf->ues_bytes);
		amf->ues = NULL;
	}
	for (t = 0; t < AMF_H_TABLES; t++) {
		if (amf->ht[t])
			munmap(amf->ht[t], (size_t)(amf->ht_mask + 1) * sizeof(uint32_t));
		amf->ht[t] = NULL;
	}
	free(amf->gnbs);
	amf->gnbs = NULL;
}

static bool h_match(const struct amf_ue *ue, enum amf_htab t, const void *key, uint32_t k2)
{
	switch (t) {
	case AMF_H_RAN:
		return ue->gnb == key && ue->ran_ue_ngap_id == k2;
	case AMF_H_SUPI:
		return strcmp(ue->supi, key) == 0;
	case AMF_H_TMSI:
		return ue->tmsi == k2;
	case AMF_H_TMSI_OLD:
		return ue->tmsi_old == k2;
	case AMF_H_NGAP:
		return ue->amf_ue_ngap_id == *(const uint64_t *)key;
	case AMF_H_LEG:
		return ue->ho.leg_amf_id == *(const uint64_t *)key;
	}
	return false;
}

static void h_insert(struct amf *amf, enum amf_htab t, struct amf_ue *ue, uint32_t h)
{
	uint32_t *b = &amf->ht[t][h & amf->ht_mask];

	ue->hnext[t] = bk_get(b);
	bk_set(b, ue->idx);
}

static void h_remove(struct amf *amf, enum amf_htab t, struct amf_ue *ue, uint32_t h)
{
	uint32_t *b = &amf->ht[t][h & amf->ht_mask];
	uint32_t i = bk_get(b), prev = AMF_NIL;

	while (i != AMF_NIL) {
		if (i == ue->idx) {
			if (prev == AMF_NIL)
				bk_set(b, ue->hnext[t]);
			else
				amf->ues[prev].hnext[t] = ue->hnext[t];
			ue->hnext[t] = AMF_NIL;
			return;
		}
		prev = i;
		i = amf->ues[i].hnext[t];
	}
}

static struct amf_ue *h_find(const struct amf *amf, enum amf_htab t, uint32_t h,
			     const void *key, uint32_t k2)
{
	uint32_t i = bk_get(&amf->ht[t][h & amf->ht_mask]);

	while (i != AMF_NIL) {
		struct amf_ue *ue = &amf->ues[i];

		if (h_match(ue, t, key, k2))
			return ue;
		i = ue->hnext[t];
	}
	return NULL;
}

const char *amf_ue_logpfx(const struct amf_ue *ue)
{
	/* logpfx is a formatting buffer, not state: writable through a const context. */
	char *buf = ((struct amf_ue *)ue)->logpfx;

	snprintf(buf, sizeof(ue->logpfx), "ue=%u gmm{%s}", ue->idx, amf_gmm_sub_name((enum amf_gmm_sub)ue->state));
	return buf;
}

struct amf_ue *amf_ue_alloc(struct amf *amf)
{
	struct amf_ue *ue;
	uint32_t idx = amf->free_head;

	if (idx != AMF_NIL) {
		ue = &amf->ues[idx];
		amf->free_head = ue->hnext[0];
	} else if (amf->ues_hw < amf->cfg.max_ues) {
		idx = amf->ues_hw++;
		ue = &amf->ues[idx];
	} else {
		return NULL;
	}
	memset(ue, 0, sizeof(*ue));
	ue->idx = idx;
	ue->amf = amf;
	ue->in_use = true;
	for (unsigned t = 0; t < AMF_H_TABLES; t++)
		ue->hnext[t] = AMF_NIL;
	ue->amf_ue_ngap_id = AMF_NIL64;
	ue->ngksi = 7;   /* TS 24.501 9.11.3.32: 7 = no key is available */
	ue->state = AMF_GMM_DEREGISTERED;
	amf_timers_init(ue);
	amf->st.ues++;
	return ue;
}

int amf_ue_radio_cap_set(struct amf_ue *ue, struct ngap_bytes cap, struct ngap_bytes pcap)
{
	size_t n = cap.len + pcap.len;
	uint8_t *b;

	if (n > AMF_RADIO_CAP_MAX)
		return -EMSGSIZE;
	/* Once per connection at most: not the per-message path. */
	b = n ? realloc(ue->radio_cap, n) : NULL;
	if (n && !b)
		return -ENOMEM;
	if (!n) {
		free(ue->radio_cap);
		ue->radio_cap = NULL;
	}
	ue->radio_cap = b;
	if (cap.len)
		memcpy(b, cap.p, cap.len);
	if (pcap.len)
		memcpy(b + cap.len, pcap.p, pcap.len);
	ue->radio_cap_len = (uint16_t)cap.len;
	ue->radio_pcap_len = (uint16_t)pcap.len;
	return 0;
}

void amf_ue_free(struct amf_ue *ue)
{
	struct amf *amf = ue->amf;
	uint32_t idx = ue->idx;

	if (!ue->in_use)
		return;
	amf_ho_abort(ue);    /* a handover running ends with the context (ngap_ho_exec.c) */
	amf_ho_leg_clear(ue);   /* and no leg stays indexed (AMF_H_LEG) in a freed slot */
	amf_sm_detach(ue);   /* sessions of a context that goes: released locally */
	amf_tmr_stop_all(ue);
	amf_ue_unbind(ue);
	if (ue->supi_indexed)
		h_remove(amf, AMF_H_SUPI, ue, hash_str(ue->supi));
	if (ue->tmsi_indexed)
		h_remove(amf, AMF_H_TMSI, ue, hash_mix32(ue->tmsi));
	amf_ue_drop_old_tmsi(ue);
	if (amf_gmm_registered(ue) && amf->st.registered)
		amf->st.registered--;
	free(ue->radio_cap);
	explicit_bzero(ue, sizeof(*ue));
	ue->idx = idx;
	ue->amf = amf;
	ue->hnext[0] = amf->free_head;
	amf->free_head = idx;
	amf->st.ues--;
}

static uint32_t id_hash(uint64_t id)
{
	return hash_mix32((uint32_t)id ^ (uint32_t)(id >> 32));
}

/* 40 bits from the batch, refilled by one getrandom() per AMF_IDRND_BATCH octets. */
static uint64_t id_random(struct amf *amf)
{
	const uint8_t *p;

	if (amf->idrnd_pos + 5u > sizeof(amf->idrnd)) {
		ssize_t got = getrandom(amf->idrnd, sizeof(amf->idrnd), 0);

		if (got != (ssize_t)sizeof(amf->idrnd)) {
			/* Not seen on Linux >= 3.17 once the pool is initialised: still unique
			 * (checked by the caller), only guessable. Said loudly. */
			uint64_t t = ev_now_ns(amf->loop);

			log_rl(LOGL_ERROR, "amf", NULL, "getrandom failed (%zd): AMF UE NGAP IDs are predictable", got);
			for (size_t i = 0; i < sizeof(amf->idrnd); i++)
				amf->idrnd[i] = (uint8_t)hash_mix32((uint32_t)(t >> (i % 4 * 8)) ^ (uint32_t)i);
		}
		amf->idrnd_pos = 0;
	}
	p = &amf->idrnd[amf->idrnd_pos];
	amf->idrnd_pos += 5;
	return (uint64_t)p[0] << 32 | (uint64_t)p[1] << 24 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 8 | p[4];
}

uint64_t amf_ue_ngap_id_new(struct amf_ue *ue)
{
	struct amf *amf = ue->amf;
	uint64_t id;

	/* Unique among live connections and legs (TS 38.413 9.3.3.1: "uniquely identify the UE
	 * association over the NG interface within the AMF"). With n live IDs a draw is taken
	 * with probability n / 2^40: the loop almost never runs twice. */
	do
		id = id_random(amf);
	while (amf_ue_by_amf_id(amf, id) || amf_ue_by_leg_id(amf, id));
	return id;
}

int amf_ue_bind(struct amf_ue *ue, struct amf_gnb *gnb, uint32_t ran_ue_ngap_id)
{
	return amf_ue_bind_id(ue, gnb, ran_ue_ngap_id, amf_ue_ngap_id_new(ue));
}

int amf_ue_bind_id(struct amf_ue *ue, struct amf_gnb *gnb, uint32_t ran_ue_ngap_id, uint64_t amf_ue_ngap_id)
{
	struct amf *amf = ue->amf;

	amf_ue_unbind(ue);
	ue->gnb = gnb;
	ue->ran_ue_ngap_id = ran_ue_ngap_id;
	ue->amf_ue_ngap_id = amf_ue_ngap_id;
	h_insert(amf, AMF_H_RAN, ue, ran_hash(gnb->assoc, ran_ue_ngap_id));
	h_insert(amf, AMF_H_NGAP, ue, id_hash(amf_ue_ngap_id));
	ue->gnb_prev = NULL;
	ue->gnb_next = gnb->ue_head;
	if (gnb->ue_head)
		gnb->ue_head->gnb_prev = ue;
	gnb->ue_head = ue;
	gnb->n_ues++;
	amf->st.connected++;
	/* UE-associated signalling spread over streams 1..n-1 (TS 38.412 7). */
	if (gnb->out_streams > 1) {
		ue->stream = (uint16_t)(1 + gnb->next_stream);
		gnb->next_stream = (uint16_t)((gnb->next_stream + 1) % (gnb->out_streams - 1));
	} else {
		ue->stream = 0;
	}
	return 0;
}

void amf_ue_unbind(struct amf_ue *ue)
{
	struct amf_gnb *gnb = ue->gnb;

	if (!gnb)
		return;
	h_remove(ue->amf, AMF_H_RAN, ue, ran_hash(gnb->assoc, ue->ran_ue_ngap_id));
	h_remove(ue->amf, AMF_H_NGAP, ue, id_hash(ue->amf_ue_ngap_id));
	if (ue->gnb_prev)
		ue->gnb_prev->gnb_next = ue->gnb_next;
	else
		gnb->ue_head = ue->gnb_next;
	if (ue->gnb_next)
		ue->gnb_next->gnb_prev = ue->gnb_prev;
	gnb->n_ues--;
	ue->amf->st.connected--;
	ue->gnb = NULL;
	ue->gnb_prev = ue->gnb_next = NULL;
	ue->amf_ue_ngap_id = AMF_NIL64;
	ue->ics_sent = false;
	ue->release_pending = false;
}

int amf_ue_set_supi(struct amf_ue *ue, const char *supi)
{
	struct amf *amf = ue->amf;

	if (strlen(supi) >= sizeof(ue->supi))
		return -EINVAL;
	if (ue->supi_indexed)
		h_remove(amf, AMF_H_SUPI, ue, hash_str(ue->supi));
	memmove(ue->supi, supi, strlen(supi) + 1);   /* supi may be ue->supi */
	ue->has_supi = true;
	ue->supi_indexed = true;
	h_insert(amf, AMF_H_SUPI, ue, hash_str(ue->supi));
	return 0;
}

int amf_ue_set_supi_pending(struct amf_ue *ue, const char *supi)
{
	if (strlen(supi) >= sizeof(ue->supi))
		return -EINVAL;
	if (ue->supi_indexed)
		h_remove(ue->amf, AMF_H_SUPI, ue, hash_str(ue->supi));
	memmove(ue->supi, supi, strlen(supi) + 1);
	ue->has_supi = true;
	ue->supi_indexed = false;
	return 0;
}

int amf_ue_set_tmsi(struct amf_ue *ue, uint32_t tmsi)
{
	struct amf *amf = ue->amf;

	if (ue->tmsi_indexed)
		h_remove(amf, AMF_H_TMSI, ue, hash_mix32(ue->tmsi));
	ue->tmsi = tmsi;
	ue->has_guti = true;
	ue->tmsi_indexed = true;
	h_insert(amf, AMF_H_TMSI, ue, hash_mix32(tmsi));
	return 0;
}

void amf_ue_drop_old_tmsi(struct amf_ue *ue)
{
	if (!ue->tmsi_old_indexed)
		return;
	h_remove(ue->amf, AMF_H_TMSI_OLD, ue, hash_mix32(ue->tmsi_old));
	ue->tmsi_old_indexed = false;
}

int amf_ue_new_tmsi(struct amf_ue *ue, uint32_t tmsi)
{
	struct amf *amf = ue->amf;

	if (ue->tmsi_indexed) {
		amf_ue_drop_old_tmsi(ue);
		h_remove(amf, AMF_H_TMSI, ue, hash_mix32(ue->tmsi));
		ue->tmsi_indexed = false;
		ue->tmsi_old = ue->tmsi;
		ue->tmsi_old_indexed = true;
		h_insert(amf, AMF_H_TMSI_OLD, ue, hash_mix32(ue->tmsi_old));
	}
	return amf_ue_set_tmsi(ue, tmsi);
}

void amf_ue_take_tmsi(struct amf_ue *ue, struct amf_ue *old)
{
	struct amf *amf = ue->amf;

	if (ue->tmsi_indexed || !old->tmsi_indexed)
		return;
	h_remove(amf, AMF_H_TMSI, old, hash_mix32(old->tmsi));
	old->tmsi_indexed = false;
	amf_ue_drop_old_tmsi(old);
	amf_ue_set_tmsi(ue, old->tmsi);
}

struct amf_ue *amf_ue_by_ran(struct amf *amf, const struct amf_gnb *gnb, uint32_t ran_ue_ngap_id)
{
	return h_find(amf, AMF_H_RAN, ran_hash(gnb->assoc, ran_ue_ngap_id), gnb, ran_ue_ngap_id);
}

struct amf_ue *amf_ue_by_amf_id(struct amf *amf, uint64_t id)
{
	if (id > AMF_UE_NGAP_ID_MAX)
		return NULL;
	return h_find(amf, AMF_H_NGAP, id_hash(id), &id, 0);
}

struct amf_ue *amf_ue_by_leg_id(struct amf *amf, uint64_t id)
{
	if (id > AMF_UE_NGAP_ID_MAX)
		return NULL;
	return h_find(amf, AMF_H_LEG, id_hash(id), &id, 0);
}

void amf_ue_leg_reindex(struct amf_ue *ue, uint64_t old)
{
	if (old != AMF_NIL64)
		h_remove(ue->amf, AMF_H_LEG, ue, id_hash(old));
	if (ue->ho.leg_amf_id != AMF_NIL64)
		h_insert(ue->amf, AMF_H_LEG, ue, id_hash(ue->ho.leg_amf_id));
}

struct amf_ue *amf_ue_by_supi(const struct amf *amf, const char *supi)
{
	return h_find(amf, AMF_H_SUPI, hash_str(supi), supi, 0);
}

struct amf_ue *amf_ue_by_tmsi(struct amf *amf, uint32_t tmsi)
{
	struct amf_ue *ue = h_find(amf, AMF_H_TMSI, hash_mix32(tmsi), NULL, tmsi);

	/* TS 24.501 5.5.1.2.4 / 5.5.1.2.8 c): the 5G-GUTI before the last accept. */
	return ue ? ue : h_find(amf, AMF_H_TMSI_OLD, hash_mix32(tmsi), NULL, tmsi);
}

/* ---- gNBs: a fixed array with a small chained hash by association id ---- */
struct amf_gnb *amf_gnb_by_assoc(const struct amf *amf, uint32_t assoc)
{
	uint32_t i = amf->gnb_buckets[hash_mix32(assoc) & 255];

	while (i != AMF_NIL) {
		if (amf->gnbs[i].assoc == assoc)
			return &amf->gnbs[i];
		i = amf->gnbs[i].hnext;
	}
	return NULL;
}

struct amf_gnb *amf_gnb_add(struct amf *amf, uint32_t assoc)
{
	uint32_t i, *b;

	for (i = 0; i < amf->cfg.max_gnbs; i++)
		if (!amf->gnbs[i].in_use)
			break;
	if (i == amf->cfg.max_gnbs)
		return NULL;
	memset(&amf->gnbs[i], 0, sizeof(amf->gnbs[i]));
	amf->gnbs[i].in_use = true;
	amf->gnbs[i].amf = amf;
	amf->gnbs[i].assoc = assoc;
	amf->gnbs[i].out_streams = 1;
	b = &amf->gnb_buckets[hash_mix32(assoc) & 255];
	amf->gnbs[i].hnext = *b;
	*b = i;
	return &amf->gnbs[i];
}

void amf_gnb_del(struct amf *amf, struct amf_gnb *gnb)
{
	uint32_t gi = (uint32_t)(gnb - amf->gnbs);
	uint32_t *pp = &amf->gnb_buckets[hash_mix32(gnb->assoc) & 255];

	amf_gnb_guard_stop(amf, gnb);
	while (*pp != AMF_NIL) {
		if (*pp == gi) {
			*pp = gnb->hnext;
			break;
		}
		pp = &amf->gnbs[*pp].hnext;
	}
	if (gnb->setup_done && amf->st.gnbs)
		amf->st.gnbs--;
	memset(gnb, 0, sizeof(*gnb));
}
