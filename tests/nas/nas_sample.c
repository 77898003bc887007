/* SPDX-License-Identifier: AGPL-3.0-or-later */
/* Sample values per IE codec, chosen to be valid for Wireshark's dissector too. */
#include "nas_sample.h"

#include "common/nas/nas_int.h"

#include <string.h>

static const uint8_t zeros[256];
static const uint8_t bytes16[16] = { 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,
				     0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xf1, 0x02 };
static const uint8_t dnn_internet[] = { 8, 'i', 'n', 't', 'e', 'r', 'n', 'e', 't' };
static const uint8_t eap_success[] = { 0x03, 0x01, 0x00, 0x04 };   /* RFC 3748 4.2 */
static const uint8_t abba[] = { 0x00, 0x00 };
static const uint8_t msin_bcd[] = { 0x00, 0x00, 0x00, 0x00, 0x10 }; /* MSIN 0000000001 */
static const uint8_t gsm_status[] = { 0x2e, 0x05, 0x00, 0xd6, 0x1f }; /* 5GSM status, cause 31 */
/* plain registration request with a 5G-GUTI, for NAS message containers */
static const uint8_t inner_reg_req[] = { 0x7e, 0x00, 0x41, 0x79, 0x00, 0x0b, 0xf2, 0x00, 0xf1, 0x10, 0x01,
					 0x00, 0x40, 0x00, 0x00, 0x00, 0x01, 0x2e, 0x02, 0x80, 0x20 };
/* one QoS rule: id 1, create, DQR, one match-all filter, precedence 255, QFI 1 */
static const uint8_t qos_rules[] = { 0x01, 0x00, 0x06, 0x31, 0x31, 0x01, 0x01, 0xff, 0x01 };
/* one QoS flow description: QFI 1, create, E=1, 5QI 9 */
static const uint8_t qos_flows[] = { 0x01, 0x20, 0x41, 0x01, 0x01, 0x09 };
/* ePCO: DNS IPv4 8.8.8.8 and MTU 1400 */
static const uint8_t epco[] = { 0x80, 0x00, 0x0d, 0x04, 8, 8, 8, 8, 0x00, 0x10, 0x02, 0x05, 0x78 };
/* one Operator-defined access category... not sampled: empty list is valid */
static const uint8_t tai_001_01[] = { 0x00, 0xf1, 0x10, 0x00, 0x00, 0x01 };
static const uint8_t plmns[] = { 0x00, 0xf1, 0x10 };
static const uint8_t nw_feat[] = { 0x01, 0x00 };
static const uint8_t ms_cm2[] = { 0x57, 0x58, 0x00 };
static const uint8_t codecs[] = { 0x04, 0x02, 0x60, 0x04 };
static const uint8_t int_rate[] = { 0xff, 0xff };
static const uint8_t ut_tz[] = { 0x62, 0x11, 0x92, 0x32, 0x00, 0x00, 0x40 };
static const uint8_t rej_nssai[] = { 0x12, 0x01 };         /* 9.11.3.46: len 1, cause 1, SST 1 */
static const uint8_t emerg[] = { 0x03, 0x01, 0x11, 0xf2 };  /* police, "112" */
static const uint8_t eps_detach_accept[] = { 0x07, 0x46 };   /* TS 24.301 EMM, plain */
static const uint8_t mapped_nssai[] = { 0x01, 0x01 };
static const uint8_t tai_part[] = { 0x00, 0x00, 0xf1, 0x10, 0x00, 0x00, 0x01 }; /* one TAI, type 0 */
static const uint8_t ladn[] = { 0x08, 'i', 'n', 't', 'e', 'r', 'n', 'e', 't', 0x07,
				0x00, 0x00, 0xf1, 0x10, 0x00, 0x00, 0x01 };
static const uint8_t ext_emerg[] = { 0x00, 0x02, 0x21, 0xf3, 0x01, 0x41 };
static const uint8_t sor_ack[17] = { 0x01 };                /* SOR data type 1: acknowledgement */
static const uint8_t cag[] = { 0x04, 0x00, 0xf1, 0x10, 0x00 };
static const uint8_t react_err[] = { 0x05, 0x5b };          /* PSI 5, cause 91 */
static const uint8_t iid[] = { 0x02, 1, 2, 3, 4, 5, 6, 7, 8 };
static const uint8_t ckd[] = { 0x00, 0x01, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc,
			       0xdd, 0xee, 0xff, 0x00, 0x00, 0x00, 0x00, 0x62, 0x11, 0x92, 0x32, 0x00, 0x00, 0x01, 0x00 };

struct named { const char *name; const uint8_t *p; size_t n; };
#define NB(nm, a) { nm, a, sizeof(a) }
static const struct named named[] = {
	NB("eap", eap_success), NB("abba", abba), NB("payload", gsm_status), NB("payload_container", gsm_status),
	NB("nas_container", inner_reg_req), NB("qos_rules", qos_rules), NB("qos_flows", qos_flows),
	NB("epco", epco), NB("last_visited_tai", tai_001_01), NB("equivalent_plmns", plmns),
	NB("nw_feature_support", nw_feat), NB("ms_classmark2", ms_cm2), NB("supported_codecs", codecs),
	NB("integrity_max_rate", int_rate), NB("universal_time", ut_tz), NB("rejected_nssai", rej_nssai),
	NB("emergency_numbers", emerg), NB("eps_nas_container", eps_detach_accept),
	NB("requested_mapped_nssai", mapped_nssai), NB("pending_nssai", mapped_nssai),
	NB("service_area_list", tai_part), NB("forbidden_tais_roaming", tai_part),
	NB("forbidden_tais_service", tai_part), NB("ladn_info", ladn), NB("ext_emergency_numbers", ext_emerg),
	NB("sor_container", sor_ack), NB("cag_info_list", cag), NB("ext_cag_info_list", cag),
	NB("reactivation_error", react_err), NB("suggested_iid", iid), NB("ciphering_key_data", ckd),
};

int nas_sample_types(uint8_t *types, int max)
{
	int n = 0;

	for (unsigned t = 0; t < 256; t++)
		if (nas_msg_desc_get((uint8_t)t) && n < max)
			types[n++] = (uint8_t)t;
	return n;
}

static void set_buf(struct nas_buf *b, const uint8_t *p, size_t n) { b->p = p; b->len = (uint16_t)n; }

static void sample_buf(const struct nas_ie_desc *d, struct nas_buf *b)
{
	size_t n = d->min;

	if (n > d->max)
		n = d->max;
	set_buf(b, zeros, n);
	if (d->str == NAS_S_DNN) {
		set_buf(b, dnn_internet, sizeof(dnn_internet));
		return;
	}
	if (!strcmp(d->name, "rand") || !strcmp(d->name, "autn") || !strcmp(d->name, "res_star") ||
	    !strcmp(d->name, "auts")) {
		set_buf(b, bytes16, d->min);
		return;
	}
	for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++)
		if (!strcmp(d->name, named[i].name))
			set_buf(b, named[i].p, named[i].n);
}

static void sample_mobid(const char *nm, struct nas_mobile_id *id)
{
	memset(id, 0, sizeof(*id));
	if (strstr(nm, "guti")) {
		id->type = NAS_MOBID_5G_GUTI;
		id->guti = (struct nas_guti){ { 1, 1, 0 }, 0xca, 0x3f8, 1, 0x12345678 };
	} else if (!strcmp(nm, "s_tmsi")) {
		id->type = NAS_MOBID_5G_S_TMSI;
		id->guti.amf_set_id = 0x3f8;
		id->guti.amf_pointer = 1;
		id->guti.tmsi = 0x12345678;
	} else if (!strcmp(nm, "imeisv")) {
		id->type = NAS_MOBID_IMEISV;
		strcpy(id->digits.d, "3548750612345601");
		id->digits.n = 16;
	} else if (!strcmp(nm, "non_imeisv_pei")) {
		id->type = NAS_MOBID_IMEI;
		strcpy(id->digits.d, "354875061234560");
		id->digits.n = 15;
	} else {
		id->type = NAS_MOBID_SUCI;
		id->suci.plmn = (struct nas_plmn){ 1, 1, 0 };
		memcpy(id->suci.rid, (uint8_t[4]){ 0, 0xf, 0xf, 0xf }, 4);
		id->suci.scheme = NAS_SUCI_NULL;
		set_buf(&id->suci.output, msin_bcd, sizeof(msin_bcd));
	}
}

static void sample_ie(const struct nas_ie_desc *d, struct nas_msg *m)
{
	void *f = (uint8_t *)m + d->off;

	switch (d->codec) {
	case NAS_C_U4: *(uint8_t *)f = 1; break;
	case NAS_C_U8:
		*(uint8_t *)f = d->str == NAS_S_MMCAUSE ? NAS_5GMM_PLMN_NOT_ALLOWED
			      : d->str == NAS_S_SMCAUSE ? NAS_5GSM_MISSING_OR_UNKNOWN_DNN
			      : d->str == NAS_S_TIMER2 || d->str == NAS_S_TIMER3 ? 0x21 : 1;
		break;
	case NAS_C_BUF: sample_buf(d, f); break;
	case NAS_C_MOBID: sample_mobid(d->name, f); break;
	case NAS_C_SNSSAI: *(struct nas_snssai *)f = (struct nas_snssai){ .sst = 1, .has_sd = 1, .sd = 0x010203 }; break;
	case NAS_C_NSSAI: {
		struct nas_nssai *s = f;
		s->n = 2;
		s->s[0] = (struct nas_snssai){ .sst = 1, .has_sd = 1, .sd = 0x010203 };
		s->s[1] = (struct nas_snssai){ .sst = 2 };
		break;
	}
	case NAS_C_UESEC:
		*(struct nas_ue_sec_cap *)f = (struct nas_ue_sec_cap){ .ea = 0xf0, .ia = 0x70, .has_eps = 1, .eea = 0xf0, .eia = 0x70 };
		break;
	case NAS_C_TAIL: {
		struct nas_tai_list *t = f;
		memset(t, 0, sizeof(*t));
		t->n = 2;
		t->tai[0] = (struct nas_tai){ { 1, 1, 0 }, 1 };
		t->tai[1] = (struct nas_tai){ { 1, 1, 0 }, 2 };
		break;
	}
	case NAS_C_PSIMAP: *(uint16_t *)f = 0x0420; break;
	case NAS_C_AMBR: *(struct nas_session_ambr *)f = (struct nas_session_ambr){ 6, 1000, 6, 500 }; break;
	case NAS_C_PDUADDR:
		*(struct nas_pdu_address *)f = (struct nas_pdu_address){ .type = NAS_PDU_IPV4, .ipv4 = { 10, 45, 0, 2 } };
		break;
	case NAS_C_NETNAME: {
		static uint8_t text[16];
		nas_network_name_set_ascii(f, "solocore", text, sizeof(text));
		break;
	}
	default: break;
	}
}

static int fill(struct nas_msg *m, uint8_t type, int all_opt, int only)
{
	const struct nas_msg_desc *md = nas_msg_desc_get(type);
	int k = 0;

	memset(m, 0, sizeof(*m));
	if (!md)
		return -ENOMSG;
	m->type = type;
	m->epd = md->epd;
	if (md->epd == NAS_EPD_5GSM) {
		m->psi = 5;
		m->pti = 1;
	}
	for (unsigned i = 0; i < md->n_ies; i++) {
		const struct nas_ie_desc *d = &md->ies[i];
		if (d->has < 0) {
			sample_ie(d, m);
			continue;
		}
		if (all_opt || k == only) {
			sample_ie(d, m);
			*(bool *)((uint8_t *)m + d->has) = true;
		}
		k++;
	}
	return 0;
}

int nas_sample_fill(struct nas_msg *m, uint8_t type, int all_opt) { return fill(m, type, all_opt, -1); }
int nas_sample_fill_one(struct nas_msg *m, uint8_t type, int k) { return fill(m, type, 0, k); }

int nas_sample_n_opt(uint8_t type)
{
	const struct nas_msg_desc *md = nas_msg_desc_get(type);
	int k = 0;

	for (unsigned i = 0; md && i < md->n_ies; i++)
		k += md->ies[i].has >= 0;
	return k;
}
