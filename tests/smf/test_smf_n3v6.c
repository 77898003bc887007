/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * The SMF with an IPv6 N3 address (upf.n3_address6, issue 19 item 2): TS 38.414 5.1 / TS 38.413
 * 9.3.2.4 -- a TransportLayerAddress of 32 bits is IPv4, 128 IPv6, 160 both (IPv4 first). Our UL
 * tunnels then carry both addresses (the gNB picks its family); a gNB's DL tunnel is used in IPv4
 * when it gives one, else in IPv6. The same messages without our IPv6 are refused as before
 * (test_smf_mod.c, test_smf_mob.c, test_smf_ho.c).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "smf_fx.h"

#define N3_ADDR6 "2001:db8:3::1"
#define GNB6 "2001:db8:3::2"
#define GNB6_B "2001:db8:3::b"

static void a6(const char *s, uint8_t out[16])
{
	assert_int_equal(inet_pton(AF_INET6, s, out), 1);
}

static void tun(struct ngap_gtp_tunnel *t, const char *v4, const char *v6, uint32_t teid)
{
	memset(t, 0, sizeof(*t));
	if (v4 && v6) {
		uint32_t a = fx_ip(v4);

		memcpy(t->addr, &a, 4);
		a6(v6, t->addr + 4);
		t->addr_bits = 160;
	} else if (v6) {
		a6(v6, t->addr);
		t->addr_bits = 128;
	} else {
		uint32_t a = fx_ip(v4);

		memcpy(t->addr, &a, 4);
		t->addr_bits = 32;
	}
	t->teid[0] = (uint8_t)(teid >> 24);
	t->teid[1] = (uint8_t)(teid >> 16);
	t->teid[2] = (uint8_t)(teid >> 8);
	t->teid[3] = (uint8_t)teid;
}

static int setup_rsp(struct fx *f, uint8_t psi, const char *v4, const char *v6, uint32_t teid)
{
	struct ngap_setup_response_transfer t;
	uint8_t buf[128];
	int n;

	memset(&t, 0, sizeof(t));
	tun(&t.dl_tunnel, v4, v6, teid);
	t.n_flows = 1;
	t.qfis[0] = 1;
	n = ngap_enc_setup_response_transfer(&t, buf, sizeof(buf));
	assert_true(n > 0);
	return smf_n2_rx(f->smf, f->ue1, psi, SMF_N2_SETUP_RSP, buf, (size_t)n, &f->out);
}

/* Our UL tunnel in an N2 transfer: 160 bits, N3 IPv4 then N3 IPv6 (9.3.2.4). */
static void check_ul(const struct ngap_gtp_tunnel *t)
{
	uint32_t n3 = fx_ip(N3_ADDR);
	uint8_t me[16];

	a6(N3_ADDR6, me);
	assert_int_equal(t->addr_bits, 160);
	assert_memory_equal(t->addr, &n3, 4);
	assert_memory_equal(t->addr + 4, me, 16);
}

static void establish(struct fx *f, uint8_t psi)
{
	struct est_opt o = { .psi = psi, .pti = (uint8_t)(psi + 100), .dnn = "internet" };
	struct ngap_setup_request_transfer rq;
	struct nas_msg m;

	assert_int_equal(fx_est(f, f->ue1, &o), 0);
	fx_dec_n1(f, &m, NAS_PDU_SESSION_ESTABLISHMENT_ACCEPT);
	assert_int_equal(f->out.n2_proc, SMF_N2_SETUP);
	assert_int_equal(ngap_dec_setup_request_transfer(f->out.n2, f->out.n2_len, &rq, NULL), 0);
	check_ul(&rq.ul_tunnel);
}

/* TS 23.502 4.3.2.2.1 step 15: a gNB on IPv6 only (128 bits) is served over IPv6; one that gives
 * both (160) over IPv4; an all-zero IPv6 is no address (the session is released, #38). */
static void t_setup(void **state)
{
	struct fx *f = fx_new(16, 15);
	struct smf_sess_info i;
	uint8_t g6[16], zero[16] = { 0 };

	(void)state;
	a6(GNB6, g6);
	establish(f, 1);
	assert_int_equal(setup_rsp(f, 1, NULL, GNB6, 0x6001), 0);
	assert_int_equal(smf_sess_info(f->smf, f->ue1, 1, &i), 0);
	assert_int_equal(i.state, SMF_ST_ACTIVE);
	assert_true(i.up_active);
	assert_int_equal(i.gnb_addr, 0);
	assert_memory_equal(i.gnb_addr6, g6, 16);
	assert_int_equal(i.gnb_teid, 0x6001);

	establish(f, 2);
	assert_int_equal(setup_rsp(f, 2, "192.0.2.2", GNB6, 0x6002), 0);
	assert_int_equal(smf_sess_info(f->smf, f->ue1, 2, &i), 0);
	assert_int_equal(i.gnb_addr, fx_ip("192.0.2.2"));
	assert_memory_equal(i.gnb_addr6, zero, 16);

	/* 160 bits with 0.0.0.0 as the IPv4: the IPv6 part */
	establish(f, 3);
	assert_int_equal(setup_rsp(f, 3, "0.0.0.0", GNB6, 0x6003), 0);
	assert_int_equal(smf_sess_info(f->smf, f->ue1, 3, &i), 0);
	assert_int_equal(i.gnb_addr, 0);
	assert_memory_equal(i.gnb_addr6, g6, 16);

	establish(f, 4);
	assert_int_equal(setup_rsp(f, 4, NULL, "::", 0x6004), 0);
	assert_int_equal(smf_sess_info(f->smf, f->ue1, 4, &i), 0);
	assert_int_not_equal(i.state, SMF_ST_ACTIVE);
	assert_false(i.up_active);
	fx_free(f);
}

/* TS 38.413 8.2.5 (Modify Indication) and 8.4.4 (Path Switch): the DL end moves to an IPv6
 * gNB, then back to IPv4; our UL tunnel in the answers carries both addresses. */
static void t_move(void **state)
{
	static const uint8_t q1[] = { 1 };
	struct fx *f = fx_new(16, 15);
	struct ngap_modify_indication_transfer mi;
	struct ngap_modify_confirm_transfer mc;
	struct ngap_path_switch_request_transfer ps;
	struct ngap_path_switch_request_ack_transfer pa;
	struct smf_sess_info i;
	uint8_t buf[128], gb[16];
	int n;

	(void)state;
	a6(GNB6_B, gb);
	establish(f, 1);
	assert_int_equal(setup_rsp(f, 1, "192.0.2.2", NULL, 0x7001), 0);
	memset(&mi, 0, sizeof(mi));
	tun(&mi.dl_tunnel, NULL, GNB6_B, 0x7002);
	mi.n_flows = 1;
	mi.qfis[0] = 1;
	n = ngap_enc_modify_indication_transfer(&mi, buf, sizeof(buf));
	assert_true(n > 0);
	assert_int_equal(smf_n2_rx(f->smf, f->ue1, 1, SMF_N2_MODIFY_IND, buf, (size_t)n, &f->out), 0);
	assert_int_equal(f->out.n2_proc, SMF_N2_MODIFY_CONFIRM);
	assert_int_equal(ngap_dec_modify_confirm_transfer(f->out.n2, f->out.n2_len, &mc, NULL), 0);
	check_ul(&mc.ul_tunnel);
	assert_int_equal(smf_sess_info(f->smf, f->ue1, 1, &i), 0);
	assert_int_equal(i.gnb_addr, 0);
	assert_memory_equal(i.gnb_addr6, gb, 16);
	assert_int_equal(i.gnb_teid, 0x7002);

	memset(&ps, 0, sizeof(ps));
	tun(&ps.dl_tunnel, "192.0.2.77", NULL, 0x7003);
	ps.n_flows = 1;
	memcpy(ps.qfis, q1, 1);
	n = ngap_enc_path_switch_request_transfer(&ps, buf, sizeof(buf));
	assert_true(n > 0);
	assert_int_equal(smf_path_switch(f->smf, f->ue1, 1, buf, (size_t)n, &f->out), 0);
	assert_int_equal(f->out.n2_proc, SMF_N2_PATH_SWITCH_ACK);
	assert_int_equal(ngap_dec_path_switch_request_ack_transfer(f->out.n2, f->out.n2_len, &pa, NULL), 0);
	check_ul(&pa.ul_tunnel);
	assert_int_equal(smf_sess_info(f->smf, f->ue1, 1, &i), 0);
	assert_int_equal(i.gnb_addr, fx_ip("192.0.2.77"));
	{
		uint8_t zero[16] = { 0 };

		assert_memory_equal(i.gnb_addr6, zero, 16);
	}
	/* and to IPv6 again by path switch */
	tun(&ps.dl_tunnel, NULL, GNB6_B, 0x7004);
	n = ngap_enc_path_switch_request_transfer(&ps, buf, sizeof(buf));
	assert_int_equal(smf_path_switch(f->smf, f->ue1, 1, buf, (size_t)n, &f->out), 0);
	assert_int_equal(smf_sess_info(f->smf, f->ue1, 1, &i), 0);
	assert_int_equal(i.gnb_addr, 0);
	assert_memory_equal(i.gnb_addr6, gb, 16);
	fx_free(f);
}

/* TS 23.502 4.9.1.3: an N2 handover to a target on IPv6; the indirect forwarding tunnel we
 * offer stays IPv4 (the UPF's forwarding tunnels are IPv4). */
static void t_handover(void **state)
{
	struct fx *f = fx_new(16, 15);
	struct ngap_ho_request_ack_transfer ack;
	struct ngap_setup_request_transfer hreq;
	struct ngap_ho_command_transfer cmd;
	struct ngap_ho_required_transfer rq = { 0 };
	struct smf_sess_info i;
	uint8_t b[256], g6[16];
	int n;

	(void)state;
	a6(GNB6, g6);
	establish(f, 1);
	assert_int_equal(setup_rsp(f, 1, "192.0.2.2", NULL, 0x8001), 0);
	n = ngap_enc_ho_required_transfer(&rq, b, sizeof(b));
	assert_true(n > 0);
	assert_int_equal(smf_ho_prepare(f->smf, f->ue1, 1, b, (size_t)n, false, &f->out), 0);
	assert_int_equal(f->out.n2_proc, SMF_N2_HO_REQUEST);
	assert_int_equal(ngap_dec_setup_request_transfer(f->out.n2, f->out.n2_len, &hreq, NULL), 0);
	check_ul(&hreq.ul_tunnel);
	memset(&ack, 0, sizeof(ack));
	tun(&ack.dl_tunnel, NULL, GNB6, 0x8002);
	ack.has_dl_forwarding = true;
	tun(&ack.dl_forwarding, "192.0.2.91", NULL, 0x8003);
	ack.n_flows = 1;
	ack.flows[0].qfi = 1;
	ack.flows[0].forwarding_accepted = true;
	n = ngap_enc_ho_request_ack_transfer(&ack, b, sizeof(b));
	assert_true(n > 0);
	assert_int_equal(smf_ho_admitted(f->smf, f->ue1, 1, b, (size_t)n, &f->out), 0);
	assert_int_equal(f->out.n2_proc, SMF_N2_HO_COMMAND);
	assert_int_equal(ngap_dec_ho_command_transfer(f->out.n2, f->out.n2_len, &cmd, NULL), 0);
	if (cmd.has_dl_forwarding)
		assert_int_equal(cmd.dl_forwarding.addr_bits, 32);
	assert_int_equal(smf_sess_info(f->smf, f->ue1, 1, &i), 0);
	assert_int_equal(i.gnb_addr, fx_ip("192.0.2.2"));   /* the source until the notify */
	assert_int_equal(smf_ho_complete(f->smf, f->ue1, 1), 0);
	assert_int_equal(smf_sess_info(f->smf, f->ue1, 1, &i), 0);
	assert_int_equal(i.gnb_addr, 0);
	assert_memory_equal(i.gnb_addr6, g6, 16);
	assert_int_equal(i.gnb_teid, 0x8002);
	fx_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_setup),
		cmocka_unit_test(t_move),
		cmocka_unit_test(t_handover),
	};

	fx_n3_addr6 = N3_ADDR6;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
