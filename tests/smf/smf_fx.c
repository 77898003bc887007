/* SPDX-License-Identifier: AGPL-3.0-or-later */
#include <arpa/inet.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "smf_fx.h"
#include "upf/upf.h"

uint32_t fx_ip(const char *s)
{
	struct in_addr a;

	assert_int_equal(inet_pton(AF_INET, s, &a), 1);
	return a.s_addr;
}

static int on_send(void *arg, void *cookie, const struct smf_out *o)
{
	struct fx *f = arg;

	f->sends++;
	f->s_cookie = cookie;
	f->s_proc = o->n2_proc;
	f->s_psi = o->psi;
	f->s_n1_len = o->n1_len;
	f->s_n2_len = o->n2_len;
	assert_true(o->n1_len <= sizeof(f->s_n1) && o->n2_len <= sizeof(f->s_n2));
	memcpy(f->s_n1, o->n1, o->n1_len);
	memcpy(f->s_n2, o->n2, o->n2_len);
	return f->send_rc;
}

static void on_dl(void *arg, void *cookie, uint8_t psi)
{
	struct fx *f = arg;

	f->dl_data++;
	f->dl_psi = psi;
	f->dl_cookie = cookie;
}

static void add_sub(struct udm *udm, const char *supi, bool ims)
{
	struct udm_sub_in in;

	memset(&in, 0, sizeof(in));
	snprintf(in.data.supi, sizeof(in.data.supi), "%s", supi);
	in.data.slices[0] = (struct udm_snssai){ 1, 0x010203 };
	in.data.n_slices = 1;
	in.data.dnns[0] = "internet";
	in.data.n_dnns = 1;
	if (ims) {
		in.data.dnns[1] = "ims";
		in.data.n_dnns = 2;
		in.data.ambr_ul_bps = 100000000;
		in.data.ambr_dl_bps = 200000000;
		in.data.qi5 = 7;
		in.data.arp = 3;
	}
	memset(in.k, 0x11, 16);
	memset(in.opc, 0x22, 16);
	in.op_is_opc = true;
	assert_int_equal(udm_add(udm, &in), 0);
}

struct fx *fx_new(uint32_t max_sessions, uint8_t max_per_ue)
{
	return fx_new_ho(max_sessions, max_per_ue, 0);
}

void (*fx_conf_edit)(struct conf *c);
const char *fx_n3_addr6;

struct fx *fx_new_ho(uint32_t max_sessions, uint8_t max_per_ue, uint32_t ho_fwd_guard_ms)
{
	struct fx *f = calloc(1, sizeof(*f));
	struct conf *c;
	int err = 0;

	assert_non_null(f);
	c = &f->conf;
	assert_int_equal(conf_defaults(c), 0);
	c->n_dnns = 2;
	snprintf(c->dnns[0].name, sizeof(c->dnns[0].name), "internet");
	snprintf(c->dnns[0].pool, sizeof(c->dnns[0].pool), "10.45.0.0/16");
	snprintf(c->dnns[0].dns[0], sizeof(c->dnns[0].dns[0]), "8.8.8.8");
	snprintf(c->dnns[0].dns[1], sizeof(c->dnns[0].dns[1]), "2001:db8::1");  /* IPv6: not offered */
	snprintf(c->dnns[0].dns[2], sizeof(c->dnns[0].dns[2]), "1.1.1.1");
	c->dnns[0].n_dns = 3;
	c->dnns[0].mtu = 1400;
	snprintf(c->dnns[1].name, sizeof(c->dnns[1].name), "ims");
	snprintf(c->dnns[1].pool, sizeof(c->dnns[1].pool), "10.46.0.0/29");  /* 6 addresses */
	c->dnns[1].n_dns = 0;
	c->dnns[1].mtu = 1280;
	c->n_slices = 2;
	c->slices[0] = (struct conf_slice){ 1, true, 0x010203 };
	c->slices[1] = (struct conf_slice){ 2, false, 0 };

	f->loop = ev_loop_new(&err);
	assert_non_null(f->loop);
	f->udm = udm_new(8, &err);
	assert_non_null(f->udm);
	add_sub(f->udm, SUPI1, true);
	add_sub(f->udm, SUPI2, false);

	struct smf_params p = {
		.conf = c,
		.loop = f->loop,
		.udm = f->udm,
		.upf = NULL,
		.n3_addr = fx_ip(N3_ADDR),
		.max_sessions = max_sessions,
		.max_ues = 4,
		.max_per_ue = max_per_ue,
		.t3591_ms = 5,
		.t3592_ms = 5,
		.ho_fwd_guard_ms = ho_fwd_guard_ms,
	};
	struct smf_amf_ops ops = { .send = on_send, .dl_data = on_dl, .arg = f };

	if (fx_conf_edit)
		fx_conf_edit(c);
	if (fx_n3_addr6)
		assert_int_equal(inet_pton(AF_INET6, fx_n3_addr6, p.n3_addr6), 1);
	f->smf = smf_new(&p, &err);
	assert_int_equal(err, 0);
	assert_non_null(f->smf);
	smf_set_amf_ops(f->smf, &ops);
	assert_int_equal(smf_ue_attach(f->smf, SUPI1, &f->cookie1, &f->ue1), 0);
	assert_int_equal(smf_ue_attach(f->smf, SUPI2, &f->cookie2, &f->ue2), 0);
	smf_out_init(&f->out, f->n1, sizeof(f->n1), f->n2, sizeof(f->n2));
	return f;
}

void fx_free(struct fx *f)
{
	if (!f)
		return;
	smf_free(f->smf);
	udm_free(f->udm);
	ev_loop_free(f->loop);
	free(f);
}

int fx_n1(struct fx *f, struct smf_ue *ue, uint8_t psi, const uint8_t *buf, size_t len)
{
	struct nas_ul_nas_transport ul;

	memset(&ul, 0, sizeof(ul));
	ul.payload_type = NAS_PAYLOAD_N1_SM;
	ul.payload = (struct nas_buf){ buf, (uint16_t)len };
	ul.has_psi = true;
	ul.psi = psi;
	return smf_n1_rx(f->smf, ue, &ul, &f->out);
}

int fx_gsm(struct fx *f, struct smf_ue *ue, uint8_t type, uint8_t psi, uint8_t pti, uint8_t cause)
{
	struct nas_msg m;
	uint8_t buf[64];
	int n;

	memset(&m, 0, sizeof(m));
	m.type = type;
	m.psi = psi;
	m.pti = pti;
	if (type == NAS_5GSM_STATUS)
		m.gsm_status.cause = cause;
	else if (type == NAS_PDU_SESSION_MODIFICATION_COMMAND_REJECT)
		m.pdu_mod_cmd_rej.cause = cause;
	n = nas_encode(&m, buf, sizeof(buf), NULL);
	assert_true(n > 0);
	return fx_n1(f, ue, psi, buf, (size_t)n);
}

int fx_est(struct fx *f, struct smf_ue *ue, const struct est_opt *o)
{
	static const uint8_t imr[2] = { 0xff, 0xff };
	struct nas_msg m;
	struct nas_ul_nas_transport ul;
	struct nas_pco pco = { .octet3 = 0x80 };
	uint8_t buf[256], epco[32], dnn[80];
	int n;

	memset(&m, 0, sizeof(m));
	m.type = NAS_PDU_SESSION_ESTABLISHMENT_REQUEST;
	m.psi = o->psi;
	m.pti = o->pti;
	m.pdu_est_req.integrity_max_rate = (struct nas_buf){ imr, 2 };
	if (!o->no_type) {
		m.pdu_est_req.has_pdu_session_type = true;
		m.pdu_est_req.pdu_session_type = o->type ? o->type : NAS_PDU_IPV4;
	}
	if (o->ssc) {
		m.pdu_est_req.has_ssc_mode = true;
		m.pdu_est_req.ssc_mode = o->ssc;
	}
	if (o->always_on) {
		m.pdu_est_req.has_always_on_requested = true;
		m.pdu_est_req.always_on_requested = 1;
	}
	if (!o->no_epco) {
		assert_int_equal(nas_pco_add(&pco, NAS_PCO_DNS_IPV4, NULL, 0), 0);
		assert_int_equal(nas_pco_add(&pco, NAS_PCO_IPV4_LINK_MTU, NULL, 0), 0);
		assert_int_equal(nas_pco_add(&pco, NAS_PCO_IP_ALLOC_VIA_NAS, NULL, 0), 0);
		if (o->dns6)
			assert_int_equal(nas_pco_add(&pco, NAS_PCO_DNS_IPV6, NULL, 0), 0);
		n = nas_pco_enc(&pco, epco, sizeof(epco));
		assert_true(n > 0);
		m.pdu_est_req.has_epco = true;
		m.pdu_est_req.epco = (struct nas_buf){ epco, (uint16_t)n };
	}
	n = nas_encode(&m, buf, sizeof(buf), NULL);
	assert_true(n > 0);

	memset(&ul, 0, sizeof(ul));
	ul.payload_type = NAS_PAYLOAD_N1_SM;
	ul.payload = (struct nas_buf){ buf, (uint16_t)n };
	ul.has_psi = true;
	ul.psi = o->wrong_ul_psi ? (uint8_t)(o->psi + 1) : o->psi;
	ul.has_request_type = true;
	ul.request_type = o->req_type ? o->req_type : NAS_REQ_INITIAL;
	if (!o->no_snssai) {
		ul.has_snssai = true;
		ul.snssai.sst = o->sst ? o->sst : 1;
		uint32_t sd = o->sst ? o->sd : 0x010203;
		if (sd != UDM_SD_NONE) {
			ul.snssai.has_sd = 1;
			ul.snssai.sd = sd;
		}
	}
	if (!o->no_dnn) {
		n = nas_dnn_enc(o->dnn ? o->dnn : "internet", dnn, sizeof(dnn));
		assert_true(n > 0);
		ul.has_dnn = true;
		ul.dnn = (struct nas_buf){ dnn, (uint16_t)n };
	}
	return smf_n1_rx(f->smf, ue, &ul, &f->out);
}

void fx_dec_n1(struct fx *f, struct nas_msg *m, uint8_t type)
{
	struct nas_err err;

	assert_true(f->out.n1_len > 0);
	assert_int_equal(nas_decode(f->out.n1, f->out.n1_len, m, &err), 0);
	assert_int_equal(m->epd, NAS_EPD_5GSM);
	assert_int_equal(m->type, type);
}

int fx_setup_rsp(struct fx *f, struct smf_ue *ue, uint8_t psi, uint32_t teid)
{
	struct ngap_setup_response_transfer t;
	uint32_t a = fx_ip(GNB_ADDR);
	uint8_t buf[128];
	int n;

	memset(&t, 0, sizeof(t));
	memcpy(t.dl_tunnel.addr, &a, 4);
	t.dl_tunnel.addr_bits = 32;
	t.dl_tunnel.teid[0] = (uint8_t)(teid >> 24);
	t.dl_tunnel.teid[1] = (uint8_t)(teid >> 16);
	t.dl_tunnel.teid[2] = (uint8_t)(teid >> 8);
	t.dl_tunnel.teid[3] = (uint8_t)teid;
	t.n_flows = 1;
	t.qfis[0] = 1;
	n = ngap_enc_setup_response_transfer(&t, buf, sizeof(buf));
	assert_true(n > 0);
	return smf_n2_rx(f->smf, ue, psi, SMF_N2_SETUP_RSP, buf, (size_t)n, &f->out);
}

int fx_n2(struct fx *f, struct smf_ue *ue, uint8_t psi, enum smf_n2_msg kind)
{
	uint8_t buf[128];
	int n;

	if (kind == SMF_N2_RELEASE_RSP) {
		struct ngap_release_response_transfer t = { 0 };
		n = ngap_enc_release_response_transfer(&t, buf, sizeof(buf));
	} else if (kind == SMF_N2_SETUP_FAIL) {
		struct ngap_setup_unsuccessful_transfer t = { .cause = { NGAP_CAUSE_RADIO_NETWORK, 0 } };
		n = ngap_enc_setup_unsuccessful_transfer(&t, buf, sizeof(buf));
	} else {
		struct ngap_modify_response_transfer t = { 0 };
		n = ngap_enc_modify_response_transfer(&t, buf, sizeof(buf));
	}
	assert_true(n > 0);
	return smf_n2_rx(f->smf, ue, psi, kind, buf, (size_t)n, &f->out);
}

void fx_establish(struct fx *f, struct smf_ue *ue, uint8_t psi, const char *dnn, struct smf_sess_info *info)
{
	struct est_opt o = { .psi = psi, .pti = (uint8_t)(psi + 100), .dnn = dnn };
	struct nas_msg m;

	assert_int_equal(fx_est(f, ue, &o), 0);
	fx_dec_n1(f, &m, NAS_PDU_SESSION_ESTABLISHMENT_ACCEPT);
	assert_int_equal(f->out.n2_proc, SMF_N2_SETUP);
	assert_int_equal(fx_setup_rsp(f, ue, psi, 0x1000u + psi), 0);
	assert_int_equal(smf_sess_info(f->smf, ue, psi, info), 0);
	assert_int_equal(info->state, SMF_ST_ACTIVE);
	assert_true(info->up_active);
}

bool fx_run_until(struct fx *f, bool (*cond)(struct fx *f), unsigned max_ms)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!cond(f)) {
		ev_run_once(f->loop, 1);
		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 >= (long)max_ms)
			return cond(f);
	}
	return true;
}

struct upf *fx_upf_open(const char *n3, int *rc)
{
	struct upf_params p = {
		.xdp_mode = UPF_XDP_NONE,
		.n3_addr = fx_ip(n3),
		.ue_pool_addr = fx_ip("10.45.0.0"),
		.ue_pool_plen = 16,
		.max_sessions = 64,
		.buffer_per_session = 4,
		.buffer_total = 16,
	};
	struct upf *u = NULL;

	*rc = upf_open(&p, &u);
	return u;
}

void fx_resubscribe(struct fx *f, const char *supi, uint8_t qi5, uint64_t ambr, bool two_slices)
{
	struct udm_sub_in in;

	memset(&in, 0, sizeof(in));
	snprintf(in.data.supi, sizeof(in.data.supi), "%s", supi);
	in.data.slices[0] = (struct udm_snssai){ 1, 0x010203 };
	in.data.n_slices = 1;
	if (two_slices) {
		in.data.slices[1] = (struct udm_snssai){ 2, UDM_SD_NONE };
		in.data.n_slices = 2;
	}
	in.data.dnns[0] = "internet";
	in.data.n_dnns = 1;
	in.data.ambr_ul_bps = ambr;
	in.data.ambr_dl_bps = 2 * ambr;
	in.data.qi5 = qi5;
	in.data.arp = 3;
	memset(in.k, 0x11, 16);
	memset(in.opc, 0x22, 16);
	in.op_is_opc = true;
	assert_int_equal(udm_add(f->udm, &in), 0);
}
