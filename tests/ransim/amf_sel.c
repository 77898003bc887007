/* SPDX-License-Identifier: AGPL-3.0-or-later */
/* ransim: the gNB's AMF selection (see amf_sel.h). */
#include <errno.h>
#include <string.h>

#include "amf_sel.h"

static const char *const how_names[RS_SEL_HOW_COUNT] = {
	[RS_SEL_GUAMI] = "guami", [RS_SEL_SET] = "set", [RS_SEL_CAPACITY] = "capacity", [RS_SEL_ANY] = "any",
};

const char *rs_amf_how_name(enum rs_amf_how h)
{
	return h < RS_SEL_HOW_COUNT ? how_names[h] : "?";
}

/* TS 23.003 2.10.1: GUAMI = PLMN + AMF Region ID (8) + AMF Set ID (10) + AMF Pointer (6). */
bool rs_guami_same_set(const struct ngap_guami *a, const struct ngap_guami *b)
{
	return !memcmp(a->plmn.v, b->plmn.v, 3) && a->region == b->region && a->set_id == b->set_id;
}

bool rs_guami_eq(const struct ngap_guami *a, const struct ngap_guami *b)
{
	return rs_guami_same_set(a, b) && a->pointer == b->pointer;
}

static bool serves(const struct rs_amf_entry *e, const struct ngap_guami *g, bool whole)
{
	for (unsigned i = 0; i < e->n_guamis && i < NGAP_MAX_GUAMIS; i++)
		if (whole ? rs_guami_eq(&e->guamis[i], g) : rs_guami_same_set(&e->guamis[i], g))
			return true;
	return false;
}

/* Smooth weighted round robin over the entries flagged in cand (weights: Relative AMF
 * Capacity, TS 38.413 9.3.1.32 / TS 23.501 6.3.5 "AMF capacity"). An AMF that announced
 * capacity 0 takes no new UE while another candidate has some; when all have 0 they share
 * equally (a UE is better served than refused). */
static int weighted(struct rs_amf_set *s, const bool *cand)
{
	int64_t total = 0, w[RS_AMF_MAX];
	bool any_cap = false;
	int best = -1;
	unsigned i;

	for (i = 0; i < s->n; i++)
		if (cand[i] && s->e[i].capacity)
			any_cap = true;
	for (i = 0; i < s->n; i++) {
		w[i] = !cand[i] ? 0 : any_cap ? s->e[i].capacity : 1;
		if (!w[i])
			continue;
		s->e[i].credit += w[i];
		total += w[i];
		if (best < 0 || s->e[i].credit > s->e[best].credit)
			best = (int)i;
	}
	if (best >= 0)
		s->e[best].credit -= total;
	return best;
}

int rs_amf_select(struct rs_amf_set *s, const struct ngap_guami *ue_guami, enum rs_amf_how *how)
{
	bool cand[RS_AMF_MAX] = { false };
	bool any = false;
	unsigned i;
	int k;

	if (s->n > RS_AMF_MAX)
		return -EINVAL;
	if (ue_guami) {
		/* TS 23.501 6.3.5: the routing information of the 5G-S-TMSI / GUAMI is usable:
		 * the AMF it points to */
		for (i = 0; i < s->n; i++)
			if (s->e[i].ready && serves(&s->e[i], ue_guami, true)) {
				*how = RS_SEL_GUAMI;
				return (int)i;
			}
		/* TS 23.501 5.21.2.1: that AMF is not available (failed or not connected): another
		 * AMF of the same AMF set, which can reach the UE's context (or at least knows it
		 * has to identify the UE), by capacity */
		for (i = 0; i < s->n; i++)
			if (s->e[i].ready && serves(&s->e[i], ue_guami, false))
				any = cand[i] = true;
		if (any) {
			*how = RS_SEL_SET;
			return weighted(s, cand);
		}
	}
	for (i = 0; i < s->n; i++)
		if (s->e[i].ready)
			any = cand[i] = true;
	if (!any)
		return -ENOENT;
	*how = ue_guami ? RS_SEL_ANY : RS_SEL_CAPACITY;
	k = weighted(s, cand);
	return k;
}
