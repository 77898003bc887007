/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * libFuzzer target: plain 5GMM/5GSM decoder (nas_decode, and nas_decode_ex
 * with NAS_DEC_LENIENT) and what the AMF and
 * SMF do next with a decoded message: to_str, re-encode, nested payloads,
 * QoS rules / QoS flow descriptions / ePCO parsing. Properties checked
 * beyond "no crash": a decoded message re-encodes, the re-encoding decodes,
 * and encoding that again is byte-stable.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/nas/nas.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint8_t out1[70000], out2[70000], out3[70000];
static char str[16384];

static void sm_ies(const struct nas_msg *m)
{
	struct nas_qos_rules r;
	struct nas_qos_flows f;
	struct nas_pco p;
	const struct nas_buf *rules = NULL, *flows = NULL, *epco = NULL;

	switch (m->type) {
	case NAS_PDU_SESSION_ESTABLISHMENT_ACCEPT:
		rules = &m->pdu_est_acc.qos_rules;
		flows = m->pdu_est_acc.has_qos_flows ? &m->pdu_est_acc.qos_flows : NULL;
		epco = m->pdu_est_acc.has_epco ? &m->pdu_est_acc.epco : NULL;
		break;
	case NAS_PDU_SESSION_ESTABLISHMENT_REQUEST:
		epco = m->pdu_est_req.has_epco ? &m->pdu_est_req.epco : NULL;
		break;
	case NAS_PDU_SESSION_MODIFICATION_COMMAND:
		rules = m->pdu_mod_cmd.has_qos_rules ? &m->pdu_mod_cmd.qos_rules : NULL;
		flows = m->pdu_mod_cmd.has_qos_flows ? &m->pdu_mod_cmd.qos_flows : NULL;
		break;
	case NAS_PDU_SESSION_MODIFICATION_REQUEST:
		rules = m->pdu_mod_req.has_qos_rules ? &m->pdu_mod_req.qos_rules : NULL;
		flows = m->pdu_mod_req.has_qos_flows ? &m->pdu_mod_req.qos_flows : NULL;
		break;
	default:
		return;
	}
	/* spare bits are not kept, so the property is: encoding is stable */
	if (rules && nas_qos_rules_dec(rules->p, rules->len, &r, NULL) == 0) {
		int n = nas_qos_rules_enc(&r, out2, sizeof(out2));
		nas_qos_rules_to_str(&r, str, sizeof(str));
		if (n != rules->len || nas_qos_rules_dec(out2, (size_t)n, &r, NULL) != 0 ||
		    nas_qos_rules_enc(&r, out3, sizeof(out3)) != n || memcmp(out2, out3, (size_t)n))
			abort();
	}
	if (flows && nas_qos_flows_dec(flows->p, flows->len, &f, NULL) == 0) {
		int n = nas_qos_flows_enc(&f, out2, sizeof(out2));
		nas_qos_flows_to_str(&f, str, sizeof(str));
		if (n != flows->len || nas_qos_flows_dec(out2, (size_t)n, &f, NULL) != 0 ||
		    nas_qos_flows_enc(&f, out3, sizeof(out3)) != n || memcmp(out2, out3, (size_t)n))
			abort();
	}
	if (epco && nas_pco_dec(epco->p, epco->len, &p, NULL) == 0) {
		nas_pco_to_str(&p, str, sizeof(str));
		if (nas_pco_enc(&p, out2, sizeof(out2)) != epco->len || memcmp(out2, epco->p, epco->len))
			abort();        /* ePCO has no spare bits outside octet 3, kept as is */
	}
}

static void one(const uint8_t *data, size_t size, int depth)
{
	struct nas_msg m, m2;
	struct nas_err e;
	int n1, n2;

	/* lenient decoding (TS 24.501 7.5) first: it must not crash either */
	int lr = nas_decode_ex(data, size, &m2, &e, NAS_DEC_LENIENT);
	if (lr == 0)
		nas_msg_to_str(&m2, str, sizeof(str));
	if ((lr < 0 || e.ignored) && (!e.reason || e.off > size))
		abort();
	if (nas_decode(data, size, &m, &e) < 0) {
		if (!e.reason || e.off > size)
			abort();        /* every error names a reason and an offset inside the input */
		return;
	}
	if (lr < 0)
		abort();                /* lenient accepts whatever strict accepts */
	nas_msg_to_str(&m, str, sizeof(str));
	sm_ies(&m);
	n1 = nas_encode(&m, out1, sizeof(out1), &e);
	if (n1 < 0)
		abort();                /* what we accepted we can send back */
	if (nas_decode(out1, (size_t)n1, &m2, &e) < 0)
		abort();
	n2 = nas_encode(&m2, out2, sizeof(out2), &e);
	if (n2 != n1 || memcmp(out1, out2, (size_t)n1))
		abort();
	if (depth == 0 && m.type == NAS_UL_NAS_TRANSPORT)
		one(m.ul_nas.payload.p, m.ul_nas.payload.len, 1);
	if (depth == 0 && m.type == NAS_DL_NAS_TRANSPORT)
		one(m.dl_nas.payload.p, m.dl_nas.payload.len, 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	one(data, size, 0);
	return 0;
}
