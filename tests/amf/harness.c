/* SPDX-License-Identifier: AGPL-3.0-or-later */
/* In-process gNB + UE harness for the AMF scenario tests (see harness.h). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/log.h"
#include "harness.h"
#include "testlib.h"

/* NAS connection identifier of 3GPP access = BEARER of NIA/NEA (TS 33.501 6.4.3.1). */
#define H_NAS_BEARER 1

/* Addresses in the pcap: 10.0.0.1 = gNB, 10.0.0.2 = AMF. */
#define PCAP_GNB 0x0a000001u
#define PCAP_AMF 0x0a000002u

const uint8_t h_k1[16] = { 0x46, 0x5b, 0x5c, 0xe8, 0xb1, 0x99, 0xb4, 0x9f,
			   0xaa, 0x5f, 0x0a, 0x2e, 0xe2, 0x38, 0xa6, 0xbc };
const uint8_t h_opc1[16] = { 0xcd, 0x63, 0xcb, 0x71, 0x95, 0x4a, 0x9f, 0x4e,
			     0x48, 0xa5, 0x99, 0x4e, 0x37, 0xa0, 0x2b, 0xaf };

static const uint8_t plmn00101[3] = { 0x00, 0xf1, 0x10 };

static int cap_send(void *arg, uint32_t assoc, uint16_t stream, const uint8_t *buf, size_t len)
{
	struct h *h = arg;
	struct h_pdu *p;

	assert_true(h->q_len < H_TXQ);
	assert_true(len <= H_PDU_MAX);
	if (h->pcap)
		assert_int_equal(pcapw_sctp(h->pcap, PCAP_AMF, PCAP_GNB, 38412, (uint16_t)(40000 + assoc),
					    stream, 60, buf, len), 0);
	p = &h->q[(h->q_head + h->q_len) % H_TXQ];
	p->assoc = assoc;
	p->stream = stream;
	p->len = len;
	memcpy(p->buf, buf, len);
	h->q_len++;
	h->n_down++;
	return 0;
}

void h_cfg(struct amf_cfg *cfg)
{
	amf_cfg_default(cfg);
	/* The scenario tests name their algorithms: NEA0 first, so the harness reads the
	 * NAS in clear unless a test asks for NEA2 (test_amf_sec checks the default). */
	memcpy(cfg->ciph_prio, (uint8_t[]){ 0, 2, 1, 3 }, 4);
	cfg->n_ciph = 4;
	cfg->max_ues = 64;
	cfg->max_gnbs = 8;
	/* Short NAS timers so expiry tests run in milliseconds (driven by the loop). */
	cfg->t3550_ms = 20;
	cfg->t3560_ms = 20;
	cfg->t3570_ms = 20;
	cfg->t3522_ms = 20;
	cfg->t3555_ms = 20;
	cfg->release_guard_ms = 20;
	cfg->ho_prep_ms = 30;      /* N2 handover guards (test_amf_ho) */
	cfg->ho_overall_ms = 40;
	cfg->network_full_name[0] = '\0';
	cfg->network_short_name[0] = '\0';
	cfg->send_tz = false;
}

static void cap_close(void *arg, uint32_t assoc)
{
	struct h *h = arg;

	h->n_closed++;
	h->closed_assoc = assoc;
	h->closed_graceful = false;
}

static void cap_shutdown(void *arg, uint32_t assoc)
{
	struct h *h = arg;

	h->n_closed++;
	h->closed_assoc = assoc;
	h->closed_graceful = true;
}

void h_init(struct h *h, const struct amf_cfg *cfg)
{
	struct amf_n2_ops ops = { .send = cap_send, .close = cap_close, .shutdown = cap_shutdown, .arg = h };
	int err = 0;

	memset(h, 0, sizeof(*h));
	if (!getenv("AMF_TEST_DEBUG"))
		log_set_level(LOGL_WARN);
	else
		log_set_level(LOGL_DEBUG);
	h->cfg = *cfg;
	h->loop = ev_loop_new(&err);
	assert_non_null(h->loop);
	h->udm = udm_new(cfg->max_ues > 64 ? cfg->max_ues : 64, &err);
	assert_non_null(h->udm);
	h->ausf = ausf_new(h->udm, &err);
	assert_non_null(h->ausf);
	h->amf = amf_new(h->loop, cfg, h->ausf, h->udm, &ops, &err);
	assert_non_null(h->amf);
	snprintf(h->snn, sizeof(h->snn), "5G:mnc001.mcc001.3gppnetwork.org");
}

void h_fini(struct h *h)
{
	amf_free(h->amf);
	ausf_free(h->ausf);
	udm_free(h->udm);
	ev_loop_free(h->loop);
	crypto_thread_cleanup();
}

void h_add_sub(struct h *h, const char *supi, uint8_t sst, uint32_t sd, uint64_t sqn)
{
	struct udm_sub_in in;
	static const char *const dnn = "internet";

	memset(&in, 0, sizeof(in));
	snprintf(in.data.supi, sizeof(in.data.supi), "%s", supi);
	in.data.n_slices = 1;
	in.data.slices[0].sst = sst;
	in.data.slices[0].sd = sd;
	in.data.n_dnns = 1;
	in.data.dnns[0] = dnn;
	memcpy(in.k, h_k1, 16);
	memcpy(in.opc, h_opc1, 16);
	in.op_is_opc = true;
	in.amf[0] = 0x80;
	in.sqn = sqn;
	assert_int_equal(udm_add(h->udm, &in), 0);
}

void h_send(struct h *h, uint32_t assoc, uint16_t stream, const struct ngap_msg *m)
{
	uint8_t buf[H_PDU_MAX];
	int n = ngap_encode(m, buf, sizeof(buf));

	assert_true(n > 0);
	h->n_up++;
	if (h->pcap)
		assert_int_equal(pcapw_sctp(h->pcap, PCAP_GNB, PCAP_AMF, (uint16_t)(40000 + assoc), 38412,
					    stream, 60, buf, (size_t)n), 0);
	/* As the loop does before each callback: timers start from the real now. */
	{
		uint64_t t0 = ev_update_now(h->loop);

		amf_n2_rx(h->amf, assoc, stream, buf, (size_t)n);
		h->amf_ns += ev_update_now(h->loop) - t0;
		h->amf_calls++;
	}
}

unsigned h_pending(const struct h *h)
{
	return h->q_len;
}

bool h_pop(struct h *h)
{
	struct ngap_dec_info info;
	int rc;

	if (!h->q_len)
		return false;
	h->cur = h->q[h->q_head];
	h->q_head = (h->q_head + 1) % H_TXQ;
	h->q_len--;
	memset(&info, 0, sizeof(info));
	rc = ngap_decode(h->cur.buf, h->cur.len, &h->m, &info);
	if (rc < 0)
		fprintf(stderr, "decode of AMF output failed rc=%d why=%s\n", rc, info.why ? info.why : "-");
	assert_int_equal(rc, 0);
	return true;
}

void h_expect(struct h *h, uint8_t type, uint8_t proc)
{
	if (!h_pop(h))
		fail_msg("expected %s, nothing sent", ngap_msg_name(type, proc));
	if (h->m.type != type || h->m.proc != proc)
		fail_msg("expected %s, got %s", ngap_msg_name(type, proc), ngap_msg_name(h->m.type, h->m.proc));
}

void h_run_until_tx(struct h *h, unsigned max_ms)
{
	uint64_t end = ev_update_now(h->loop) + (uint64_t)max_ms * 1000000ull;

	while (!h->q_len && ev_update_now(h->loop) < end)
		ev_run_once(h->loop, 5);
}

static void fill_ta(struct ngap_supported_ta *ta, uint32_t tac, uint8_t sst, uint32_t sd)
{
	memset(ta, 0, sizeof(*ta));
	ta->tac[0] = (uint8_t)(tac >> 16);
	ta->tac[1] = (uint8_t)(tac >> 8);
	ta->tac[2] = (uint8_t)tac;
	ta->n_plmns = 1;
	memcpy(ta->plmns[0].plmn.v, plmn00101, 3);
	ta->plmns[0].n_slices = 1;
	ta->plmns[0].slices[0].sst = sst;
	ta->plmns[0].slices[0].has_sd = true;
	ta->plmns[0].slices[0].sd[0] = (uint8_t)(sd >> 16);
	ta->plmns[0].slices[0].sd[1] = (uint8_t)(sd >> 8);
	ta->plmns[0].slices[0].sd[2] = (uint8_t)sd;
}

void h_ng_setup(struct h *h, uint32_t assoc)
{
	h_ng_setup_tac(h, assoc, 1);
}

void h_ng_setup_tac(struct h *h, uint32_t assoc, uint32_t tac)
{
	h_ng_setup_slices(h, assoc, tac, false);
}

void h_ng_setup_slices(struct h *h, uint32_t assoc, uint32_t tac, bool two)
{
	static struct ngap_msg m;
	static const char name[] = "test-gnb";

	amf_n2_assoc_up(h->amf, assoc, 16, 16);
	memset(&m, 0, sizeof(m));
	m.type = NGAP_INITIATING;
	m.proc = NGAP_PROC_NG_SETUP;
	m.u.ng_setup_request.ran_node_id.kind = NGAP_RAN_GNB;
	memcpy(m.u.ng_setup_request.ran_node_id.plmn.v, plmn00101, 3);
	m.u.ng_setup_request.ran_node_id.id = 0x100 + assoc;
	m.u.ng_setup_request.ran_node_id.id_bits = 22;
	m.u.ng_setup_request.ran_node_name.p = (const uint8_t *)name;
	m.u.ng_setup_request.ran_node_name.len = sizeof(name) - 1;
	m.u.ng_setup_request.n_tas = 1;
	fill_ta(&m.u.ng_setup_request.tas[0], tac, 1, 0x010203);
	if (two)
		m.u.ng_setup_request.tas[0].plmns[0].slices[m.u.ng_setup_request.tas[0].plmns[0].n_slices++] =
			(struct ngap_snssai){ .sst = 2 };
	m.u.ng_setup_request.default_paging_drx = 1;
	h_send(h, assoc, 0, &m);
	h_expect(h, NGAP_SUCCESSFUL, NGAP_PROC_NG_SETUP);
	assert_int_equal(h->cur.stream, 0);
	assert_int_equal(h->m.u.ng_setup_response.n_guamis, 1);
	assert_int_equal(h->m.u.ng_setup_response.guamis[0].guami.region, h->cfg.amf_region_id);
}

/* ---- UE side ---- */

void sue_init(struct sue *ue, const char *msin, uint32_t assoc, uint32_t ran_id)
{
	memset(ue, 0, sizeof(*ue));
	ue->msin = msin;
	snprintf(ue->supi, sizeof(ue->supi), "imsi-00101%s", msin);
	memcpy(ue->k, h_k1, 16);
	memcpy(ue->opc, h_opc1, 16);
	ue->ea = 0xf0;    /* EA0..EA3 */
	ue->ia = 0xf0;    /* IA0..IA3 */
	ue->assoc = assoc;
	ue->ran_id = ran_id;
	ue->amf_id = UINT64_MAX;
	ue->ngksi = 7;
	ue->mcc = 1;
	ue->mnc = 1;
	ue->requested.n = 1;
	ue->requested.s[0].sst = 1;
	ue->requested.s[0].has_sd = 1;
	ue->requested.s[0].sd = 0x010203;
}

static uint8_t msin_bcd[8];

void sue_reg_req(struct sue *ue, struct nas_msg *m, bool guti)
{
	struct nas_registration_request *r = &m->reg_req;
	size_t i, n = strlen(ue->msin);

	memset(m, 0, sizeof(*m));
	m->type = NAS_REGISTRATION_REQUEST;
	r->reg_type = 0x09;   /* initial registration, follow-on request pending */
	r->ngksi = ue->ngksi;
	if (guti && ue->has_guti) {
		r->mobile_id = ue->guti;
	} else {
		/* Null-scheme SUCI: MSIN in BCD, low nibble first (TS 24.501 9.11.3.4). */
		memset(msin_bcd, 0xff, sizeof(msin_bcd));
		for (i = 0; i < n; i++) {
			uint8_t d = (uint8_t)(ue->msin[i] - '0');

			if (i & 1)
				msin_bcd[i / 2] = (uint8_t)((msin_bcd[i / 2] & 0x0f) | d << 4);
			else
				msin_bcd[i / 2] = (uint8_t)(0xf0 | d);
		}
		r->mobile_id.type = NAS_MOBID_SUCI;
		r->mobile_id.suci.supi_format = 0;
		r->mobile_id.suci.plmn.mcc = ue->mcc;
		r->mobile_id.suci.plmn.mnc = ue->mnc;
		r->mobile_id.suci.plmn.mnc3 = 0;
		r->mobile_id.suci.rid[0] = 0;
		r->mobile_id.suci.rid[1] = 0xf;
		r->mobile_id.suci.rid[2] = 0xf;
		r->mobile_id.suci.rid[3] = 0xf;
		r->mobile_id.suci.scheme = NAS_SUCI_NULL;
		r->mobile_id.suci.hn_key_id = 0;
		r->mobile_id.suci.output.p = msin_bcd;
		r->mobile_id.suci.output.len = (uint16_t)((n + 1) / 2);
	}
	r->has_ue_sec_cap = true;
	r->ue_sec_cap.ea = ue->ea;
	r->ue_sec_cap.ia = ue->ia;
	if (ue->requested.n) {
		r->has_requested_nssai = true;
		r->requested_nssai = ue->requested;
	}
}

/* The ULI of the UE's cell: TAC ue->tac (0: TAC 1). */
static void ngap_uli(struct ngap_uli *uli, const struct sue *ue)
{
	uint32_t tac = ue->tac ? ue->tac : 1;

	memset(uli, 0, sizeof(*uli));
	memcpy(uli->nr_cgi.plmn.v, plmn00101, 3);
	uli->nr_cgi.cell_id = 0x000000010;
	memcpy(uli->tai.plmn.v, plmn00101, 3);
	uli->tai.tac[0] = (uint8_t)(tac >> 16);
	uli->tai.tac[1] = (uint8_t)(tac >> 8);
	uli->tai.tac[2] = (uint8_t)tac;
}

/* Encode m and protect it per sht with the UE's context; returns the length. */
/* nas_encode, plus ue->reg_tail after a REGISTRATION REQUEST (IEs our encoder refuses). */
static int sue_encode(const struct sue *ue, const struct nas_msg *m, uint8_t *out, size_t cap)
{
	struct nas_err err;
	int n = nas_encode(m, out, cap, &err);

	assert_true(n > 0);
	if (m->type == NAS_REGISTRATION_REQUEST && ue->reg_tail_len) {
		assert_true((size_t)n + ue->reg_tail_len <= cap);
		memcpy(out + n, ue->reg_tail, ue->reg_tail_len);
		n += (int)ue->reg_tail_len;
	}
	return n;
}

static size_t sue_wrap(struct sue *ue, const struct nas_msg *m, uint8_t sht, uint8_t *out, bool badmac)
{
	uint8_t mac[4];
	int n;

	if (sht == NAS_SHT_PLAIN)
		return (size_t)sue_encode(ue, m, out, H_PDU_MAX);
	assert_true(ue->sec);
	n = sue_encode(ue, m, out + NAS_SEC_HDR_LEN, H_PDU_MAX - NAS_SEC_HDR_LEN);
	if ((sht == NAS_SHT_INTEGRITY_CIPHERED || sht == NAS_SHT_INTEGRITY_CIPHERED_NEW_CTX) && ue->nea)
		assert_int_equal(crypto_nea(ue->nea, ue->kenc, ue->ul, H_NAS_BEARER, CRYPTO_DIR_UPLINK,
					    out + NAS_SEC_HDR_LEN, out + NAS_SEC_HDR_LEN, (size_t)n * 8), 0);
	out[NAS_SEC_MAC_OFF] = (uint8_t)ue->ul;
	assert_int_equal(crypto_nia(ue->nia, ue->kint, ue->ul, H_NAS_BEARER, CRYPTO_DIR_UPLINK, out + NAS_SEC_MAC_OFF,
				    ((size_t)n + 1) * 8, mac), 0);
	if (badmac)
		mac[3] ^= 0x5a;
	assert_int_equal(nas_sec_hdr_enc(out, NAS_SEC_HDR_LEN, sht,
					 (uint32_t)mac[0] << 24 | (uint32_t)mac[1] << 16 |
					 (uint32_t)mac[2] << 8 | mac[3], (uint8_t)ue->ul),
			 NAS_SEC_HDR_LEN);
	if (!badmac)
		ue->ul++;
	return (size_t)n + NAS_SEC_HDR_LEN;
}

void sue_initial(struct h *h, struct sue *ue, const struct nas_msg *m, uint8_t sht)
{
	static struct ngap_msg g;
	static uint8_t nas[H_PDU_MAX];
	size_t n = sue_wrap(ue, m, sht, nas, false);

	memset(&g, 0, sizeof(g));
	g.type = NGAP_INITIATING;
	g.proc = NGAP_PROC_INITIAL_UE_MESSAGE;
	g.u.initial_ue_message.ran_ue_id = ue->ran_id;
	g.u.initial_ue_message.nas.p = nas;
	g.u.initial_ue_message.nas.len = n;
	ngap_uli(&g.u.initial_ue_message.uli, ue);
	g.u.initial_ue_message.rrc_cause = 3;
	h_send(h, ue->assoc, 1, &g);
}

static void sue_ul_ex(struct h *h, struct sue *ue, const struct nas_msg *m, uint8_t sht, bool badmac)
{
	static struct ngap_msg g;
	static uint8_t nas[H_PDU_MAX];
	size_t n = sue_wrap(ue, m, sht, nas, badmac);

	assert_true(ue->amf_id != UINT64_MAX);
	memset(&g, 0, sizeof(g));
	g.type = NGAP_INITIATING;
	g.proc = NGAP_PROC_UPLINK_NAS_TRANSPORT;
	g.u.uplink_nas_transport.amf_ue_id = ue->amf_id;
	g.u.uplink_nas_transport.ran_ue_id = ue->ran_id;
	g.u.uplink_nas_transport.nas.p = nas;
	g.u.uplink_nas_transport.nas.len = n;
	ngap_uli(&g.u.uplink_nas_transport.uli, ue);
	h_send(h, ue->assoc, 1, &g);
}

void sue_ul(struct h *h, struct sue *ue, const struct nas_msg *m, uint8_t sht)
{
	sue_ul_ex(h, ue, m, sht, false);
}

void sue_ul_badmac(struct h *h, struct sue *ue, const struct nas_msg *m)
{
	sue_ul_ex(h, ue, m, NAS_SHT_INTEGRITY_CIPHERED, true);
}

uint8_t sue_dl(struct h *h, struct sue *ue, struct nas_msg *out)
{
	struct ngap_bytes nas;
	struct nas_sec_hdr hdr;
	struct nas_err err;
	uint8_t epd, sht, mac[4], proc;
	uint32_t wmac;

	if (!h_pop(h))
		fail_msg("expected a NAS PDU, nothing sent");
	proc = h->m.proc;
	assert_int_equal(h->m.type, NGAP_INITIATING);
	assert_int_equal(h->cur.assoc, ue->assoc);
	if (proc == NGAP_PROC_DOWNLINK_NAS_TRANSPORT) {
		nas = h->m.u.downlink_nas_transport.nas;
		ue->amf_id = h->m.u.downlink_nas_transport.amf_ue_id;
		assert_int_equal(h->m.u.downlink_nas_transport.ran_ue_id, ue->ran_id);
	} else if (proc == NGAP_PROC_INITIAL_CONTEXT_SETUP) {
		nas = h->m.u.initial_context_setup_request.nas;
		ue->amf_id = h->m.u.initial_context_setup_request.amf_ue_id;
		assert_int_equal(h->m.u.initial_context_setup_request.ran_ue_id, ue->ran_id);
	} else if (proc == NGAP_PROC_PDU_SESSION_RESOURCE_SETUP) {
		/* TS 38.413 9.2.1.1: the NAS-PDU of the (first) session item. */
		nas = h->m.u.pdu_session_resource_setup_request.sessions[0].nas;
		ue->amf_id = h->m.u.pdu_session_resource_setup_request.amf_ue_id;
	} else if (proc == NGAP_PROC_PDU_SESSION_RESOURCE_RELEASE) {
		nas = h->m.u.pdu_session_resource_release_command.nas;
		ue->amf_id = h->m.u.pdu_session_resource_release_command.amf_ue_id;
	} else if (proc == NGAP_PROC_PDU_SESSION_RESOURCE_MODIFY) {
		nas = h->m.u.pdu_session_resource_modify_request.sessions[0].nas;
		ue->amf_id = h->m.u.pdu_session_resource_modify_request.amf_ue_id;
	} else {
		fail_msg("expected a NAS carrier, got %s", ngap_msg_name(h->m.type, proc));
		return 0;
	}
	assert_true(nas.len > 0);
	assert_int_equal(nas_peek(nas.p, nas.len, &epd, &sht), 0);
	ue->last_sht = sht;
	if (sht == NAS_SHT_PLAIN) {
		assert_int_equal(nas_decode(nas.p, nas.len, out, &err), 0);
		return proc;
	}
	assert_int_equal(nas_sec_decode(nas.p, nas.len, &hdr, &err), 0);
	if (sht == NAS_SHT_INTEGRITY_NEW_CTX) {
		/* SECURITY MODE COMMAND: read the algorithms, derive the NAS keys (TS 33.501 A.8). */
		assert_int_equal(nas_decode(hdr.msg.p, hdr.msg.len, out, &err), 0);
		assert_int_equal(out->type, NAS_SECURITY_MODE_COMMAND);
		ue->nia = out->smc.algs & 0x0f;
		ue->nea = out->smc.algs >> 4;
		assert_int_equal(crypto_kdf_alg_key(ue->kamf, CRYPTO_N_NAS_INT, ue->nia, ue->kint), 0);
		assert_int_equal(crypto_kdf_alg_key(ue->kamf, CRYPTO_N_NAS_ENC, ue->nea, ue->kenc), 0);
		ue->sec = true;
		ue->ul = 0;
	}
	assert_true(ue->sec);
	/* Test flows stay below 256 downlink messages: COUNT = SQN. */
	assert_int_equal(crypto_nia(ue->nia, ue->kint, hdr.sqn, H_NAS_BEARER, CRYPTO_DIR_DOWNLINK, hdr.mac_input.p,
				    (size_t)hdr.mac_input.len * 8, mac), 0);
	wmac = (uint32_t)mac[0] << 24 | (uint32_t)mac[1] << 16 | (uint32_t)mac[2] << 8 | mac[3];
	assert_int_equal(wmac, hdr.mac);
	if (sht == NAS_SHT_INTEGRITY_CIPHERED && ue->nea) {
		assert_int_equal(crypto_nea(ue->nea, ue->kenc, hdr.sqn, H_NAS_BEARER, CRYPTO_DIR_DOWNLINK, hdr.msg.p,
					    h->nasplain, (size_t)hdr.msg.len * 8), 0);
		assert_int_equal(nas_decode(h->nasplain, hdr.msg.len, out, &err), 0);
	} else {
		assert_int_equal(nas_decode(hdr.msg.p, hdr.msg.len, out, &err), 0);
	}
	return proc;
}

int sue_aka(struct h *h, struct sue *ue, const struct nas_msg *ar, uint8_t res_star[16], uint8_t auts[14])
{
	struct crypto_ue_aka_out o;
	uint8_t kseaf[32];
	int rc;

	assert_int_equal(ar->type, NAS_AUTHENTICATION_REQUEST);
	assert_true(ar->auth_req.has_rand && ar->auth_req.rand.len == 16);
	assert_true(ar->auth_req.has_autn && ar->auth_req.autn.len == 16);
	rc = crypto_aka_ue_check(ue->k, ue->opc, ar->auth_req.rand.p, ar->auth_req.autn.p, h->snn,
				 &ue->usim, &o);
	if (rc == -ESTALE) {
		memcpy(auts, o.auts, 14);
		return rc;
	}
	if (rc < 0)
		return rc;
	memcpy(res_star, o.res_star, 16);
	assert_int_equal(crypto_kdf_kseaf(o.kausf, h->snn, kseaf), 0);
	assert_int_equal(crypto_kdf_kamf(kseaf, ue->supi, ar->auth_req.abba.p, ar->auth_req.abba.len,
					 ue->kamf), 0);
	ue->ngksi = ar->auth_req.ngksi & 7;
	return 0;
}

void sue_auth_resp(struct h *h, struct sue *ue, const uint8_t res[16])
{
	struct nas_msg m;

	memset(&m, 0, sizeof(m));
	m.type = NAS_AUTHENTICATION_RESPONSE;
	m.auth_resp.has_res_star = true;
	m.auth_resp.res_star.p = res;
	m.auth_resp.res_star.len = 16;
	sue_ul(h, ue, &m, NAS_SHT_PLAIN);
}

void sue_to_smc(struct h *h, struct sue *ue, struct nas_msg *smc)
{
	struct nas_msg m, dl;
	uint8_t res[16], auts[14];

	sue_reg_req(ue, &m, false);
	sue_initial(h, ue, &m, NAS_SHT_PLAIN);
	assert_int_equal(sue_dl(h, ue, &dl), NGAP_PROC_DOWNLINK_NAS_TRANSPORT);
	assert_int_equal(dl.type, NAS_AUTHENTICATION_REQUEST);
	assert_int_equal(sue_aka(h, ue, &dl, res, auts), 0);
	sue_auth_resp(h, ue, res);
	assert_int_equal(sue_dl(h, ue, smc), NGAP_PROC_DOWNLINK_NAS_TRANSPORT);
	assert_int_equal(smc->type, NAS_SECURITY_MODE_COMMAND);
}

void sue_dereg(struct h *h, struct sue *ue, uint8_t dereg_type)
{
	struct nas_msg m;

	memset(&m, 0, sizeof(m));
	m.type = NAS_DEREGISTRATION_REQUEST_UE_ORIG;
	m.dereg_req.dereg_type = dereg_type;
	m.dereg_req.ngksi = ue->ngksi;
	m.dereg_req.mobile_id = ue->guti;
	sue_ul(h, ue, &m, NAS_SHT_INTEGRITY_CIPHERED);
}

void sue_register(struct h *h, struct sue *ue, uint8_t nia, uint8_t nea)
{
	struct nas_msg m, dl, full;
	uint8_t kgnb[32];
	static uint8_t container[H_PDU_MAX];
	int n;

	sue_to_smc(h, ue, &dl);
	assert_int_equal(ue->last_sht, NAS_SHT_INTEGRITY_NEW_CTX);
	assert_int_equal(ue->nia, nia);
	assert_int_equal(ue->nea, nea);
	/* TS 24.501 5.4.2.2: replayed capabilities equal what the UE sent. */
	assert_int_equal(dl.smc.replayed_ue_sec_cap.ea, ue->ea);
	assert_int_equal(dl.smc.replayed_ue_sec_cap.ia, ue->ia);
	assert_int_equal(dl.smc.ngksi & 7, ue->ngksi);

	/* SECURITY MODE COMPLETE with IMEISV and the full initial message. */
	sue_reg_req(ue, &full, false);
	n = sue_encode(ue, &full, container, sizeof(container));
	memset(&m, 0, sizeof(m));
	m.type = NAS_SECURITY_MODE_COMPLETE;
	m.smc_cpl.has_imeisv = true;
	m.smc_cpl.imeisv.type = NAS_MOBID_IMEISV;
	m.smc_cpl.imeisv.digits.n = 16;
	memcpy(m.smc_cpl.imeisv.digits.d, "3534900698733019", 17);
	m.smc_cpl.has_nas_container = true;
	m.smc_cpl.nas_container.p = container;
	m.smc_cpl.nas_container.len = (uint16_t)n;
	sue_ul(h, ue, &m, NAS_SHT_INTEGRITY_CIPHERED_NEW_CTX);

	/* REGISTRATION ACCEPT inside INITIAL CONTEXT SETUP REQUEST. */
	assert_int_equal(sue_dl(h, ue, &dl), NGAP_PROC_INITIAL_CONTEXT_SETUP);
	assert_int_equal(dl.type, NAS_REGISTRATION_ACCEPT);
	assert_int_equal(ue->last_sht, NAS_SHT_INTEGRITY_CIPHERED);
	/* TS 33.501 A.9: K_gNB from K_AMF and the uplink COUNT of SECURITY MODE COMPLETE (0). */
	assert_int_equal(crypto_kdf_kgnb(ue->kamf, 0, CRYPTO_ACCESS_3GPP, kgnb), 0);
	assert_memory_equal(h->m.u.initial_context_setup_request.security_key, kgnb, 32);
	/* Allowed = requested ∩ subscribed ∩ served: the tests subscribe what they request. */
	assert_int_equal(h->m.u.initial_context_setup_request.n_allowed_nssai, ue->requested.n ? ue->requested.n : 1);
	assert_int_equal(h->m.u.initial_context_setup_request.allowed_nssai[0].sst,
			 ue->requested.n ? ue->requested.s[0].sst : 1);
	assert_int_equal(h->m.u.initial_context_setup_request.guami.set_id, h->cfg.amf_set_id);
	/* NR encryption bits: NEA1..3 supported (first three bits of the 16-bit string). */
	assert_int_equal(h->m.u.initial_context_setup_request.ue_sec_cap.nr_enc,
			 (uint16_t)(((ue->ea << 1) & 0xfe) << 8));
	assert_int_equal(h->m.u.initial_context_setup_request.ue_sec_cap.nr_int,
			 (uint16_t)(((ue->ia << 1) & 0xfe) << 8));
	assert_true(dl.reg_acc.has_guti);
	assert_int_equal(dl.reg_acc.guti.type, NAS_MOBID_5G_GUTI);
	assert_true(dl.reg_acc.has_tai_list);
	assert_int_equal(dl.reg_acc.tai_list.n, 1);
	assert_true(dl.reg_acc.has_allowed_nssai);
	assert_int_equal(dl.reg_acc.allowed_nssai.n, ue->requested.n ? ue->requested.n : 1);
	if (!ue->requested.n || ue->requested.s[0].has_sd)
		assert_int_equal(dl.reg_acc.allowed_nssai.s[0].sd,
				 ue->requested.n ? ue->requested.s[0].sd : 0x010203);
	assert_true(dl.reg_acc.has_t3512);
	assert_true(dl.reg_acc.has_nw_feature_support);
	ue->has_guti = true;
	ue->guti = dl.reg_acc.guti;

	/* INITIAL CONTEXT SETUP RESPONSE, then REGISTRATION COMPLETE. */
	{
		static struct ngap_msg g;

		memset(&g, 0, sizeof(g));
		g.type = NGAP_SUCCESSFUL;
		g.proc = NGAP_PROC_INITIAL_CONTEXT_SETUP;
		g.u.initial_context_setup_response.amf_ue_id = ue->amf_id;
		g.u.initial_context_setup_response.ran_ue_id = ue->ran_id;
		h_send(h, ue->assoc, 1, &g);
	}
	memset(&m, 0, sizeof(m));
	m.type = NAS_REGISTRATION_COMPLETE;
	sue_ul(h, ue, &m, NAS_SHT_INTEGRITY_CIPHERED);
	if (h->cfg.cuc_after_reg || h->cfg.network_full_name[0] || h->cfg.network_short_name[0] ||
	    h->cfg.send_tz) {
		/* TS 24.501 5.4.4.2: CONFIGURATION UPDATE COMMAND, acknowledgement requested. */
		assert_int_equal(sue_dl(h, ue, &dl), NGAP_PROC_DOWNLINK_NAS_TRANSPORT);
		assert_int_equal(dl.type, NAS_CONFIGURATION_UPDATE_COMMAND);
		assert_int_equal(ue->last_sht, NAS_SHT_INTEGRITY_CIPHERED);
		assert_true(dl.cuc.has_cfg_update_ind);
		assert_int_equal(dl.cuc.cfg_update_ind & 1, 1);
		assert_false(dl.cuc.has_guti);
		h->cuc = dl;
		h->n_cuc++;
		memset(&m, 0, sizeof(m));
		m.type = NAS_CONFIGURATION_UPDATE_COMPLETE;
		sue_ul(h, ue, &m, NAS_SHT_INTEGRITY_CIPHERED);
	}
}

void sue_release_complete(struct h *h, struct sue *ue)
{
	static struct ngap_msg g;

	memset(&g, 0, sizeof(g));
	g.type = NGAP_SUCCESSFUL;
	g.proc = NGAP_PROC_UE_CONTEXT_RELEASE;
	g.u.ue_context_release_complete.amf_ue_id = ue->amf_id;
	g.u.ue_context_release_complete.ran_ue_id = ue->ran_id;
	h_send(h, ue->assoc, 1, &g);
	/* Contexts are freed by a deferred call (STYLE.md 8): let it run. */
	ev_run_once(h->loop, 0);
}

void sue_expect_reg_reject(struct h *h, struct sue *ue, uint8_t cause)
{
	struct nas_msg dl;

	assert_int_equal(sue_dl(h, ue, &dl), NGAP_PROC_DOWNLINK_NAS_TRANSPORT);
	assert_int_equal(dl.type, NAS_REGISTRATION_REJECT);
	assert_int_equal(dl.reg_rej.cause, cause);
	h_expect(h, NGAP_INITIATING, NGAP_PROC_UE_CONTEXT_RELEASE);
	sue_release_complete(h, ue);
}
