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

/* The simple kinds (ngap_dec_simple): integers, bit strings, enums, flags,
 * octets, printable strings. False for any other codec. */
static bool simple_str(const struct ngap_codec *c, const void *f, char *b, size_t cap, int *n)
{
	const struct ngap_bytes *by = f;

	switch (c->kind && c->dec == ngap_dec_simple ? c->kind : 0) {
	case NGAP_K_INT:
	case NGAP_K_BITS:
		switch (c->width) {
		case 1: *n = snprintf(b, cap, "%u", *(const uint8_t *)f); break;
		case 2: *n = snprintf(b, cap, "%u", *(const uint16_t *)f); break;
		case 4: *n = snprintf(b, cap, "%" PRIu32, *(const uint32_t *)f); break;
		default: *n = snprintf(b, cap, "%" PRIu64, *(const uint64_t *)f); break;
		}
		return true;
	case NGAP_K_ENUM:
		*n = snprintf(b, cap, "%u", *(const uint8_t *)f);
		return true;
	case NGAP_K_FLAG:
		*n = snprintf(b, cap, "present");
		return true;
	case NGAP_K_OCTETS:
	case NGAP_K_RAW:
		*n = snprintf(b, cap, "<%zu octets>", by->len);
		return true;
	case NGAP_K_PRINTABLE:
		*n = snprintf(b, cap, "\"%.*s\"", (int)by->len, (const char *)by->p);
		return true;
	default:
		break;
	}
	return false;
}

/* The IEs that name a node, a place or a UE: RAN node, target, ULI, GUAMI,
 * 5G-S-TMSI (and paging identity), the UE NGAP ID pair. */
static bool id_str(const struct ngap_codec *c, const void *f, char *b, size_t cap, int *n)
{
	char p[16];

	if (c == &ngap_c_global_ran_node_id) {
		const struct ngap_global_ran_node_id *x = f;

		plmn_str(p, sizeof(p), &x->plmn);
		*n = snprintf(b, cap, "gNB %s/0x%" PRIx32 "(%u bits)", p, x->id, x->id_bits);
		return true;
	}
	if (c == &ngap_c_target_id) {
		const struct ngap_target_id *x = f;

		plmn_str(p, sizeof(p), &x->ran_node_id.plmn);
		*n = snprintf(b, cap, "gNB %s/0x%" PRIx32 "(%u bits) tac=%02x%02x%02x", p, x->ran_node_id.id,
				x->ran_node_id.id_bits, x->tai.tac[0], x->tai.tac[1], x->tai.tac[2]);
		return true;
	}
	if (c == &ngap_c_uli) {
		const struct ngap_uli *x = f;

		plmn_str(p, sizeof(p), &x->tai.plmn);
		*n = snprintf(b, cap, "NR cell=0x%09" PRIx64 " tai=%s/%02x%02x%02x", x->nr_cgi.cell_id, p,
				x->tai.tac[0], x->tai.tac[1], x->tai.tac[2]);
		return true;
	}
	if (c == &ngap_c_guami) {
		const struct ngap_guami *x = f;

		plmn_str(p, sizeof(p), &x->plmn);
		*n = snprintf(b, cap, "%s/%u/%u/%u", p, x->region, x->set_id, x->pointer);
		return true;
	}
	if (c == &ngap_c_s_tmsi || c == &ngap_c_ue_paging_id) {
		const struct ngap_5g_s_tmsi *x = f;

		*n = snprintf(b, cap, "%u/%u/%02x%02x%02x%02x", x->set_id, x->pointer, x->tmsi[0], x->tmsi[1],
				x->tmsi[2], x->tmsi[3]);
		return true;
	}
	if (c == &ngap_c_ue_ngap_ids) {
		const struct ngap_ue_context_release_command *x = f;

		if (!x->has_ran_ue_id)
			*n = snprintf(b, cap, "amf=%" PRIu64, x->amf_ue_id);
		else
			*n = snprintf(b, cap, "amf=%" PRIu64 " ran=%" PRIu32, x->amf_ue_id, x->ran_ue_id);
		return true;
	}
	return false;
}

/* The other structured IEs: cause, UE-AMBR, security capabilities,
 * criticality diagnostics, reset type, masked IMEISV. */
static bool misc_str(const struct ngap_codec *c, const void *f, char *b, size_t cap, int *n)
{
	if (c == &ngap_c_cause) {
		const struct ngap_cause *x = f;

		*n = snprintf(b, cap, "%s/%u", x->group < 5 ? cause_groups[x->group] : "?", x->value);
		return true;
	}
	if (c == &ngap_c_ue_ambr) {
		const struct ngap_ambr *x = f;

		*n = snprintf(b, cap, "dl=%" PRIu64 " ul=%" PRIu64, x->dl, x->ul);
		return true;
	}
	if (c == &ngap_c_ue_sec_cap) {
		const struct ngap_ue_sec_cap *x = f;

		*n = snprintf(b, cap, "nea=%04x nia=%04x eea=%04x eia=%04x", x->nr_enc, x->nr_int, x->eutra_enc,
				x->eutra_int);
		return true;
	}
	if (c == &ngap_c_crit_diag) {
		const struct ngap_crit_diag *x = f;

		*n = snprintf(b, cap, "proc=%d ies=%u", x->has_proc ? x->proc : -1, x->n_ies);
		return true;
	}
	if (c == &ngap_c_reset_type) {
		const struct ngap_ng_reset *x = f;

		*n = x->reset_all ? snprintf(b, cap, "all") : snprintf(b, cap, "part[%u]", x->n_ues);
		return true;
	}
	if (c == &ngap_c_masked_imeisv) {
		*n = snprintf(b, cap, "<64 bits>");
		return true;
	}
	return false;
}

int ngap_ie_str(const struct ngap_ie_spec *e, const void *f, const uint8_t *cnt, char *b, size_t cap)
{
	const struct ngap_codec *c = e->codec;
	int n;

	if (c == &ngap_c_security_key)
		return snprintf(b, cap, "<redacted>");
	if (c == &ngap_c_security_context) /* the NH is a key (TS 33.501 6.9.2): its NCC only */
		return snprintf(b, cap, "ncc=%u nh=<redacted>", ((const struct ngap_security_context *)f)->ncc);
	if (cnt)
		return snprintf(b, cap, "[%u]", *cnt);
	if (simple_str(c, f, b, cap, &n) || id_str(c, f, b, cap, &n) || misc_str(c, f, b, cap, &n))
		return n;
	return snprintf(b, cap, "{%s}", c->name);
}
