/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * Lists up to the specification's maxima (TS 38.413 9.4.7) without allocating: a decoded message keeps
 * the first items in its fixed arrays and the list's raw APER octets; these iterators walk every item
 * from those octets, and the encoders build such octets for ngap_encode (the *_raw fields).
 *  - SupportedTAList (NG Setup Request, RAN Configuration Update): maxnoofTACs 256 TAs, maxnoofBPLMNs
 *    12 PLMNs per TA, maxnoofSliceItems 1024 slices per PLMN; walked as flat (TA, PLMN, slice) entries.
 *  - UE-associatedLogicalNG-connectionList (NG Reset, NG Reset Acknowledge):
 *    maxnoofNGConnectionsToReset 65536 items, the count fragmented from 16K on (X.691 11.9.3.8).
 * The raw octets of a list start octet-aligned in their open type, so decoding them on their own sees
 * the same alignment as inside the message.
 */
#include <errno.h>
#include <string.h>

#include "common/ngap/ngap_int.h"

static void r_load(struct aper_r *r, const uint8_t *buf, size_t len, size_t pos)
{
	aper_r_init(r, buf, len);
	r->pos = pos;
}

/* ---- SupportedTAList ---- */

int ngap_ta_iter_init(struct ngap_ta_iter *it, struct ngap_bytes raw)
{
	struct aper_r r;
	size_t n = 0;

	memset(it, 0, sizeof(*it));
	it->buf = raw.p;
	it->len = raw.p ? raw.len : 0;
	if (!it->len)
		return 0;
	r_load(&r, it->buf, it->len, 0);
	if (aper_get_count(&r, 1, NGAP_MAXNOOF_TACS, &n))
		return it->err = r.err;
	it->n_tas = (uint16_t)n;
	it->pos = r.pos;
	return (int)n;
}

int ngap_ta_iter_next(struct ngap_ta_iter *it, struct ngap_ta_entry *e)
{
	struct aper_r r;
	size_t n;

	if (it->err)
		return it->err;
	if (it->ta >= it->n_tas)
		return 0;
	r_load(&r, it->buf, it->len, it->pos);
	if (it->plmn == 0 && it->slice == 0) { /* SupportedTAItem head: tAC, broadcastPLMNList count */
		ngap_seq_dec(&r, 1, &it->ta_mask, &it->ta_ext);
		ngap_fixed_octets(&r, it->tac, 3);
		if (!aper_get_count(&r, 1, NGAP_MAXNOOF_BPLMNS, &n))
			it->n_plmns = (uint8_t)n;
	}
	if (it->slice == 0) { /* BroadcastPLMNItem head: pLMNIdentity, tAISliceSupportList count */
		ngap_seq_dec(&r, 1, &it->plmn_mask, &it->plmn_ext);
		ngap_dec_plmn(&r, &it->cur_plmn);
		if (!aper_get_count(&r, 1, NGAP_MAXNOOF_SLICE_ITEMS, &n))
			it->n_slices = (uint16_t)n;
	}
	memset(e, 0, sizeof(*e));
	ngap_dec_slice_item(&r, &e->slice);
	e->ta_idx = it->ta;
	memcpy(e->tac, it->tac, 3);
	e->plmn_idx = it->plmn;
	e->plmn = it->cur_plmn;
	e->slice_idx = it->slice;
	if (++it->slice == it->n_slices) { /* the PLMN item's tail, and the TA item's after its last PLMN */
		it->slice = 0;
		ngap_seq_end(&r, 1, it->plmn_mask, it->plmn_ext);
		if (++it->plmn == it->n_plmns) {
			it->plmn = 0;
			ngap_seq_end(&r, 1, it->ta_mask, it->ta_ext);
			it->ta++;
		}
	}
	it->pos = r.pos;
	if (r.err)
		return it->err = r.err;
	return 1;
}

/* Entries [i, end) with the same key as e[i] (the TA when plmn is false, else also the PLMN). */
static size_t run_end(const struct ngap_ta_entry *e, size_t i, size_t n, bool plmn)
{
	size_t j = i + 1;

	while (j < n && e[j].ta_idx == e[i].ta_idx && (!plmn || e[j].plmn_idx == e[i].plmn_idx))
		j++;
	return j;
}

int ngap_enc_ta_list(const struct ngap_ta_entry *e, size_t n, uint8_t *buf, size_t cap)
{
	struct aper_w w;
	size_t n_tas = 0, i, j, k;

	if (!n)
		return -EINVAL;
	for (i = 0; i < n; i = run_end(e, i, n, false))
		n_tas++;
	aper_w_init(&w, buf, cap);
	if (n_tas > NGAP_MAXNOOF_TACS)
		return aper_w_fail(&w, -EINVAL, "more than maxnoofTACs");
	aper_put_count(&w, 1, NGAP_MAXNOOF_TACS, n_tas);
	for (i = 0; i < n && !w.err; i = j) {
		size_t ta_end = run_end(e, i, n, false), n_plmns = 0;

		for (k = i; k < ta_end; k = run_end(e, k, n, true))
			n_plmns++;
		if (n_plmns > NGAP_MAXNOOF_BPLMNS)
			return aper_w_fail(&w, -EINVAL, "more than maxnoofBPLMNs");
		aper_put_seq(&w, true, 1, 0);
		aper_put_octets(&w, 3, 3, false, e[i].tac, 3);
		aper_put_count(&w, 1, NGAP_MAXNOOF_BPLMNS, n_plmns);
		for (j = i; j < ta_end && !w.err; j = k) {
			k = run_end(e, j, n, true);
			if (k - j > NGAP_MAXNOOF_SLICE_ITEMS)
				return aper_w_fail(&w, -EINVAL, "more than maxnoofSliceItems");
			aper_put_seq(&w, true, 1, 0);
			ngap_enc_plmn(&w, &e[j].plmn);
			aper_put_count(&w, 1, NGAP_MAXNOOF_SLICE_ITEMS, k - j);
			for (size_t s = j; s < k && !w.err; s++)
				ngap_enc_slice_item(&w, &e[s].slice);
		}
	}
	return aper_w_len(&w);
}

/* ---- UE-associatedLogicalNG-connectionList ---- */

/* The next length determinant of the list: a 16K-multiple fragment (more) or the last part. */
static int assoc_len(struct ngap_ue_assoc_iter *it, struct aper_r *r)
{
	size_t n;

	if (aper_get_len(r, 0, APER_UNBOUNDED, &n, &it->more))
		return r->err;
	if (n > NGAP_MAXNOOF_NG_CONNECTIONS_TO_RESET - it->total)
		return aper_r_fail(r, -ERANGE, "more than maxnoofNGConnectionsToReset items");
	it->left = (uint32_t)n;
	it->total += (uint32_t)n;
	return 0;
}

int ngap_ue_assoc_iter_init(struct ngap_ue_assoc_iter *it, struct ngap_bytes raw)
{
	struct ngap_ue_assoc_iter probe;
	struct ngap_ue_assoc u;
	struct aper_r r;
	int rc;

	memset(it, 0, sizeof(*it));
	it->buf = raw.p;
	it->len = raw.p ? raw.len : 0;
	if (!it->len)
		return 0;
	r_load(&r, it->buf, it->len, 0);
	if (assoc_len(it, &r))
		return it->err = r.err;
	it->pos = r.pos;
	if (!it->more)
		return (int)it->total;
	/* fragmented: the total is known only after the last fragment, so count on a copy */
	probe = *it;
	while ((rc = ngap_ue_assoc_iter_next(&probe, &u)) > 0)
		;
	return rc < 0 ? (it->err = rc) : (int)probe.total;
}

int ngap_ue_assoc_iter_next(struct ngap_ue_assoc_iter *it, struct ngap_ue_assoc *u)
{
	struct aper_r r;

	if (it->err)
		return it->err;
	r_load(&r, it->buf, it->len, it->pos);
	while (!it->left && it->more)
		if (assoc_len(it, &r))
			return it->err = r.err;
	if (!it->left) {
		it->pos = r.pos;
		return 0;
	}
	ngap_dec_ue_assoc_item(&r, u);
	it->left--;
	it->pos = r.pos;
	if (r.err)
		return it->err = r.err;
	return 1;
}

int ngap_enc_ue_assoc_list(const struct ngap_ue_assoc *u, size_t n, uint8_t *buf, size_t cap)
{
	struct aper_w w;
	size_t i = 0;

	aper_w_init(&w, buf, cap);
	if (n < 1 || n > NGAP_MAXNOOF_NG_CONNECTIONS_TO_RESET)
		return aper_w_fail(&w, -EINVAL, "list size outside 1..maxnoofNGConnectionsToReset");
	while (n - i >= APER_FRAG && !w.err) { /* X.691 11.9.3.8: fragments of 1..4 times 16K items */
		size_t m = (n - i) / APER_FRAG > 4 ? 4 : (n - i) / APER_FRAG;

		aper_w_align(&w);
		aper_put_bits(&w, 0xc0 | m, 8);
		for (size_t end = i + m * APER_FRAG; i < end && !w.err; i++)
			ngap_enc_ue_assoc_item(&w, &u[i]);
	}
	aper_put_len(&w, 0, APER_UNBOUNDED, n - i); /* the last part, 0 when n is a 16K multiple */
	for (; i < n && !w.err; i++)
		ngap_enc_ue_assoc_item(&w, &u[i]);
	return aper_w_len(&w);
}
