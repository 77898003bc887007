/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * NGAP IE codecs of the UE mobility messages, TS 38.413 9.3 (ASN.1 in 9.4.5): Security Context (the
 * {NCC, NH} pair of TS 33.501 6.9.2 for the target gNB), Target ID, Handover Type. Same conventions
 * as ngap_ie.c.
 */
#include <errno.h>
#include <string.h>

#include "common/ngap/ngap_int.h"

#define NCC_MAX 7      /* NextHopChainingCount ::= INTEGER (0..7) */
#define NH_BITS 256    /* nextHopNH SecurityKey ::= BIT STRING (SIZE(256)) */

/* 9.3.1.88 SecurityContext ::= SEQUENCE { nextHopChainingCount, nextHopNH, iE-Extensions OPTIONAL, ... } */
static int d_security_context(const struct ngap_codec *c, struct aper_r *r, void *f, uint8_t *cnt)
{
	struct ngap_security_context *s = f;
	uint32_t mask;
	bool ext;
	int64_t v;
	size_t n;

	(void)c, (void)cnt;
	memset(s, 0, sizeof(*s));
	ngap_seq_dec(r, 1, &mask, &ext);
	if (aper_get_cint(r, 0, NCC_MAX, false, &v))
		return r->err;
	s->ncc = (uint8_t)v;
	if (aper_get_bitstr(r, NH_BITS, NH_BITS, false, s->nh, sizeof(s->nh), &n))
		return r->err;
	return ngap_seq_end(r, 1, mask, ext);
}

static int e_security_context(const struct ngap_codec *c, struct aper_w *w, const void *f, const uint8_t *cnt)
{
	const struct ngap_security_context *s = f;

	(void)c, (void)cnt;
	if (s->ncc > NCC_MAX)
		return aper_w_fail(w, -EINVAL, "NextHopChainingCount above 7");
	aper_put_seq(w, true, 1, 0);
	aper_put_cint(w, 0, NCC_MAX, false, s->ncc);
	return aper_put_bitstr(w, NH_BITS, NH_BITS, false, s->nh, NH_BITS);
}

const struct ngap_codec ngap_c_security_context = { d_security_context, e_security_context, "SecurityContext", 0,
						    0, false, 0, 0 };

/* TargetID ::= CHOICE { targetRANNodeID TargetRANNodeID, targeteNB-ID, choice-Extensions };
 * TargetRANNodeID ::= SEQUENCE { globalRANNodeID, selectedTAI, iE-Extensions OPTIONAL, ... } */
static int d_target_id(const struct ngap_codec *c, struct aper_r *r, void *f, uint8_t *cnt)
{
	struct ngap_target_id *t = f;
	unsigned idx;
	uint32_t mask;
	bool ext;

	(void)cnt;
	memset(t, 0, sizeof(*t));
	if (aper_get_choice(r, 3, false, &idx))
		return r->err;
	if (idx != 0) /* handover to E-UTRAN (5GS to EPS) is not coded */
		return aper_r_fail(r, -ENOTSUP, "TargetID: only targetRANNodeID is supported");
	ngap_seq_dec(r, 1, &mask, &ext);
	if (ngap_c_global_ran_node_id.dec(&ngap_c_global_ran_node_id, r, &t->ran_node_id, NULL))
		return r->err;
	ngap_dec_tai(r, &t->tai);
	(void)c;
	return ngap_seq_end(r, 1, mask, ext);
}

static int e_target_id(const struct ngap_codec *c, struct aper_w *w, const void *f, const uint8_t *cnt)
{
	const struct ngap_target_id *t = f;

	(void)c, (void)cnt;
	aper_put_choice(w, 3, false, 0);
	aper_put_seq(w, true, 1, 0);
	if (ngap_c_global_ran_node_id.enc(&ngap_c_global_ran_node_id, w, &t->ran_node_id, NULL))
		return w->err;
	return ngap_enc_tai(w, &t->tai);
}

const struct ngap_codec ngap_c_target_id = { d_target_id, e_target_id, "TargetID", 0, 0, false, 0, 0 };

/* HandoverType ::= ENUMERATED { intra5gs, fivegs-to-eps, eps-to-5gs, ..., fivegs-to-utran } */
const struct ngap_codec ngap_c_handover_type = { ngap_dec_simple, ngap_enc_simple, "HandoverType", NGAP_K_ENUM, 1,
						 true, 0, 3 };
