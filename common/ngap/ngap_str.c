/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * IE to text for log lines (STYLE 5). Keys are never printed: SecurityKey shows as <redacted>.
 * NAS-PDUs and transfers show their length only (the NAS layer logs its own content).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "common/ngap/ngap_int.h"

static const char *const cause_groups[5] = { "radioNetwork", "transport", "nas", "protocol", "misc" };

static int plmn_str(char *b, size_t cap, const struct ngap_plmn *p)
{
	return snprintf(b, cap, "%02x%02x%02x", p->v[0], p->v[1], p->v[2]);
}

int ngap_ie_str(const struct ngap_ie_spec *e, const void *f, const uint8_t *cnt, char *b, size_t cap)
{
	const struct ngap_codec *c = e->codec;
	const struct ngap_bytes *by = f;
	char p[16];

	if (c == &ngap_c_security_key)
		return snprintf(b, cap, "<redacted>");
	if (c == &ngap_c_security_context) /* the NH is a key (TS 33.501 6.9.2): its NCC only */
		return snprintf(b, cap, "ncc=%u nh=<redacted>", ((const struct ngap_security_context *)f)->ncc);
	if (cnt)
		return snprintf(b, cap, "[%u]", *cnt);
	switch (c->kind && c->dec == ngap_dec_simple ? c->kind : 0) {
	case NGAP_K_INT:
	case NGAP_K_BITS:
		switch (c->width) {
		case 1: return snprintf(b, cap, "%u", *(const uint8_t *)f);
		case 2: return snprintf(b, cap, "%u", *(const uint16_t *)f);
		case 4: return snprintf(b, cap, "%" PRIu32, *(const uint32_t *)f);
		default: return snprintf(b, cap, "%" PRIu64, *(const uint64_t *)f);
		}
	case NGAP_K_ENUM:
		return snprintf(b, cap, "%u", *(const uint8_t *)f);
	case NGAP_K_FLAG:
		return snprintf(b, cap, "present");
	case NGAP_K_OCTETS:
	case NGAP_K_RAW:
		return snprintf(b, cap, "<%zu octets>", by->len);
	case NGAP_K_PRINTABLE:
		return snprintf(b, cap, "\"%.*s\"", (int)by->len, (const char *)by->p);
	default:
		break;
	}
	if (c == &ngap_c_cause) {
		const struct ngap_cause *x = f;

		return snprintf(b, cap, "%s/%u", x->group < 5 ? cause_groups[x->group] : "?", x->value);
	}
	if (c == &ngap_c_global_ran_node_id) {
		const struct ngap_global_ran_node_id *x = f;

		plmn_str(p, sizeof(p), &x->plmn);
		return snprintf(b, cap, "gNB %s/0x%" PRIx32 "(%u bits)", p, x->id, x->id_bits);
	}
	if (c == &ngap_c_target_id) {
		const struct ngap_target_id *x = f;

		plmn_str(p, sizeof(p), &x->ran_node_id.plmn);
		return snprintf(b, cap, "gNB %s/0x%" PRIx32 "(%u bits) tac=%02x%02x%02x", p, x->ran_node_id.id,
				x->ran_node_id.id_bits, x->tai.tac[0], x->tai.tac[1], x->tai.tac[2]);
	}
	if (c == &ngap_c_uli) {
		const struct ngap_uli *x = f;

		plmn_str(p, sizeof(p), &x->tai.plmn);
		return snprintf(b, cap, "NR cell=0x%09" PRIx64 " tai=%s/%02x%02x%02x", x->nr_cgi.cell_id, p,
				x->tai.tac[0], x->tai.tac[1], x->tai.tac[2]);
	}
	if (c == &ngap_c_guami) {
		const struct ngap_guami *x = f;

		plmn_str(p, sizeof(p), &x->plmn);
		return snprintf(b, cap, "%s/%u/%u/%u", p, x->region, x->set_id, x->pointer);
	}
	if (c == &ngap_c_s_tmsi || c == &ngap_c_ue_paging_id) {
		const struct ngap_5g_s_tmsi *x = f;

		return snprintf(b, cap, "%u/%u/%02x%02x%02x%02x", x->set_id, x->pointer, x->tmsi[0], x->tmsi[1],
				x->tmsi[2], x->tmsi[3]);
	}
	if (c == &ngap_c_ue_ambr) {
		const struct ngap_ambr *x = f;

		return snprintf(b, cap, "dl=%" PRIu64 " ul=%" PRIu64, x->dl, x->ul);
	}
	if (c == &ngap_c_ue_sec_cap) {
		const struct ngap_ue_sec_cap *x = f;

		return snprintf(b, cap, "nea=%04x nia=%04x eea=%04x eia=%04x", x->nr_enc, x->nr_int, x->eutra_enc,
				x->eutra_int);
	}
	if (c == &ngap_c_crit_diag) {
		const struct ngap_crit_diag *x = f;

		return snprintf(b, cap, "proc=%d ies=%u", x->has_proc ? x->proc : -1, x->n_ies);
	}
	if (c == &ngap_c_ue_ngap_ids) {
		const struct ngap_ue_context_release_command *x = f;

		if (!x->has_ran_ue_id)
			return snprintf(b, cap, "amf=%" PRIu64, x->amf_ue_id);
		return snprintf(b, cap, "amf=%" PRIu64 " ran=%" PRIu32, x->amf_ue_id, x->ran_ue_id);
	}
	if (c == &ngap_c_reset_type) {
		const struct ngap_ng_reset *x = f;

		return x->reset_all ? snprintf(b, cap, "all") : snprintf(b, cap, "part[%u]", x->n_ues);
	}
	if (c == &ngap_c_masked_imeisv)
		return snprintf(b, cap, "<64 bits>");
	return snprintf(b, cap, "{%s}", c->name);
}
