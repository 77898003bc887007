/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * The SMF with several UPFs over PFCP (upf.mode pfcp, smf_upf.c): the SMF's N4 client
 * (upf_n4c) and two PFCP servers of `solocore upf` (upf_n4, no data path: rules checked and
 * answered, installed nowhere), in this process without sockets; the test carries the
 * datagrams. upfA (127.0.0.1, N3 192.0.2.10) serves "internet", upfB (127.0.0.3, N3
 * 192.0.2.11) "ims" (or both in the round-robin case).
 *   - TS 23.501 6.3.3: a session goes to a ready UPF that serves its DNN; its UL F-TEID is
 *     on that UPF's N3 address; none ready -> PDU SESSION ESTABLISHMENT REJECT #26.
 *   - round robin among the UPFs that serve the DNN.
 *   - TS 23.527 4.4 / TS 24.501 6.3.3: the UPF restarts (new Recovery Time Stamp): its
 *     sessions are released by the network with #39 "reactivation requested"; a session
 *     the UPF refuses is released with #26.
 * No root needed.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/ngap/ngap.h"
#include "common/pfcp/pfcp.h"
#include "smf/smf.h"
#include "upf/upf.h"
#include "upf/upf_n4.h"
#include "smf_fx.h"

#define SMF_N4 "127.0.0.2"
static const char *const srv_addr[2] = { "127.0.0.1", "127.0.0.3" };
static const char *const srv_n3[2] = { "192.0.2.10", "192.0.2.11" };

static struct fx *F;
static struct upf_n4 *S[2];
static struct upf_n4c *C;
static struct upf *P[2];
static uint32_t recovery[2] = { 3900000000u, 3900000500u };
static uint32_t srv_pool = 0;   /* 0: 10.45.0.0/15 (both DNN pools) */

#define QMAX 256
static struct dgram { int to_srv; int srv; uint16_t len; uint8_t b[2048]; } q[QMAX];
static unsigned qn;

static int srv_of(uint32_t addr)
{
	return addr == fx_ip(srv_addr[0]) ? 0 : addr == fx_ip(srv_addr[1]) ? 1 : -1;
}

static void push(int to_srv, int srv, const uint8_t *b, size_t len)
{
	assert_true(qn < QMAX && len <= sizeof(q[0].b));
	q[qn].to_srv = to_srv;
	q[qn].srv = srv;
	q[qn].len = (uint16_t)len;
	memcpy(q[qn].b, b, len);
	qn++;
}

static void c_send(void *arg, uint32_t addr, uint16_t port, const uint8_t *b, size_t len)
{
	(void)arg;
	(void)port;
	assert_true(srv_of(addr) >= 0);
	push(1, srv_of(addr), b, len);
}

static void s_send(void *arg, uint32_t addr, uint16_t port, const uint8_t *b, size_t len)
{
	(void)addr;
	(void)port;
	push(0, (int)(intptr_t)arg, b, len);
}

static void deliver(void)
{
	static struct dgram d;

	while (qn) {
		d = q[0];
		memmove(q, q + 1, (qn - 1) * sizeof(q[0]));
		qn--;
		if (d.to_srv)
			upf_n4_input(S[d.srv], fx_ip(SMF_N4), PFCP_PORT, d.b, d.len);
		else
			upf_n4c_input(C, fx_ip(srv_addr[d.srv]), PFCP_PORT, d.b, d.len);
	}
}

static bool nothing(struct fx *f)
{
	(void)f;
	deliver();
	return false;
}

static int sends_before;

static bool sent_one(struct fx *f)
{
	deliver();
	return f->sends > sends_before;
}

/* Until the SMF sends something of its own (a release command); bounded, not a timing check */
static void until_sent(void)
{
	sends_before = F->sends;
	assert_true(fx_run_until(F, sent_one, 2000));
}

static void pump(unsigned ms)
{
	fx_run_until(F, nothing, ms);
	deliver();
}

static void srv_open(int i)
{
	struct upf_n4_params np = {
		.addr = fx_ip(srv_addr[i]), .no_socket = true, .send = s_send, .send_arg = (void *)(intptr_t)i,
		.n3_addr = fx_ip(srv_n3[i]), .ue_pool_addr = srv_pool ? srv_pool : fx_ip("10.44.0.0"),
		.ue_pool_plen = 14, .max_sessions = 64, .max_teid = 64, .recovery_ts = recovery[i],
	};

	assert_int_equal(upf_n4_open(&np, &S[i]), 0);
}

static void on_lost(void *smf, uint32_t id, enum upf_lost_reason why)
{
	smf_upf_session_lost(smf, id, (int)why);
}

/* dnns[i]: the DNN names UPF i serves */
static void start(const char *a_dnns, const char *b_dnns)
{
	struct upf_n4c_params cp = {
		.loop = F->loop, .addr = fx_ip(SMF_N4), .max_sessions = 64, .heartbeat_ms = 40, .t1_ms = 20,
		.n1 = 2, .recovery_ts = 3900000100u, .no_socket = true, .send = c_send,
	};
	const char *dn[2] = { a_dnns, b_dnns };

	assert_int_equal(upf_n4c_open(&cp, &C), 0);
	for (int i = 0; i < 2; i++) {
		struct conf_upf_peer pe = { 0 };
		struct upf_n4c_peer pp = { .addr = fx_ip(srv_addr[i]), .n3_addr = fx_ip(srv_n3[i]),
					   .on_dl_data = smf_upf_dl_data, .on_session_lost = on_lost,
					   .cb_arg = F->smf };
		char buf[64], *save = NULL;

		snprintf(pe.name, sizeof(pe.name), "upf%c", 'A' + i);
		pp.name = pe.name;
		snprintf(buf, sizeof(buf), "%s", dn[i]);
		for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save))
			snprintf(pe.dnns[pe.n_dnns++], CONF_DNN_NAME, "%s", t);
		srv_open(i);
		assert_int_equal(upf_n4c_peer_add(C, &pp, &P[i]), 0);
		assert_int_equal(smf_add_upf(F->smf, P[i], &pe), 0);
	}
}

static int setup(void **state)
{
	(void)state;
	qn = 0;
	srv_pool = 0;
	F = fx_new(64, 15);
	return F ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	smf_set_upf(F->smf, NULL);
	upf_n4c_close(C);
	qn = 0;
	for (int i = 0; i < 2; i++)
		upf_n4_close(S[i]);
	fx_free(F);
	C = NULL;
	return 0;
}

static uint32_t ul_addr(void)
{
	struct ngap_setup_request_transfer t;
	uint32_t a;

	assert_int_equal(F->out.n2_proc, SMF_N2_SETUP);
	assert_int_equal(ngap_dec_setup_request_transfer(F->out.n2, F->out.n2_len, &t, NULL), 0);
	assert_int_equal(t.ul_tunnel.addr_bits, 32);
	memcpy(&a, t.ul_tunnel.addr, 4);
	return a;
}

static void establish(struct smf_ue *ue, uint8_t psi, const char *dnn, int on)
{
	struct est_opt o = { .psi = psi, .pti = (uint8_t)(psi + 10), .dnn = dnn };
	struct nas_msg m;

	assert_int_equal(fx_est(F, ue, &o), 0);
	fx_dec_n1(F, &m, NAS_PDU_SESSION_ESTABLISHMENT_ACCEPT);
	assert_int_equal(ul_addr(), fx_ip(srv_n3[on]));   /* the F-TEID of the UPF it is on */
	assert_int_equal(fx_setup_rsp(F, ue, psi, 0x100u + psi), 0);
	pump(5);
}

/* TS 23.501 6.3.3: placement by DNN; #26 while no UPF serving it is ready */
static void t_place(void **state)
{
	struct est_opt o = { .psi = 1, .pti = 1, .dnn = "internet" };
	struct smf_stats st;
	struct nas_msg m;

	(void)state;
	start("internet", "ims");
	assert_int_equal(fx_est(F, F->ue1, &o), 0);   /* nothing associated yet */
	fx_dec_n1(F, &m, NAS_PDU_SESSION_ESTABLISHMENT_REJECT);
	assert_int_equal(m.pdu_est_rej.cause, NAS_5GSM_INSUFFICIENT_RESOURCES);
	/* issue 32, TS 24.501 6.4.1.4.2: with T3396 (upf.no_upf_backoff, 30 s by default), so the
	 * UE does not ask again at once while no UPF is ready */
	assert_true(m.pdu_est_rej.has_backoff_timer);
	assert_int_equal(nas_gprs_timer3_secs(m.pdu_est_rej.backoff_timer), 30);
	pump(5);
	assert_true(upf_ready(P[0]) && upf_ready(P[1]));
	establish(F->ue1, 1, "internet", 0);
	establish(F->ue1, 2, "ims", 1);
	establish(F->ue2, 1, "internet", 0);
	assert_int_equal(upf_n4_sessions(S[0]), 2);
	assert_int_equal(upf_n4_sessions(S[1]), 1);
	smf_get_stats(F->smf, &st);
	assert_int_equal(st.upf_none_ready, 1);
	assert_int_equal(st.upf_errors, 0);
	/* deactivation and release reach the session's own UPF */
	assert_int_equal(smf_up_deactivate(F->smf, F->ue1), 2);
	pump(5);
	assert_int_equal(smf_ue_detach(F->smf, F->ue1), 2);
	pump(5);
	assert_int_equal(upf_n4_sessions(S[0]), 1);
	assert_int_equal(upf_n4_sessions(S[1]), 0);
}

/* Round robin among the UPFs that serve the DNN */
static void t_round_robin(void **state)
{
	(void)state;
	start("internet", "internet,ims");
	pump(5);
	establish(F->ue1, 1, "internet", 0);
	establish(F->ue1, 2, "internet", 1);
	establish(F->ue1, 3, "internet", 0);
	establish(F->ue1, 4, "ims", 1);
	establish(F->ue1, 5, "internet", 0);   /* the ims session took B's turn */
	assert_int_equal(upf_n4_sessions(S[0]), 3);
	assert_int_equal(upf_n4_sessions(S[1]), 2);
}

static void rel_cmd_cause(uint8_t psi, uint8_t cause)
{
	struct nas_msg m;
	struct nas_err err;

	assert_true(F->s_n1_len > 0);
	assert_int_equal(nas_decode(F->s_n1, F->s_n1_len, &m, &err), 0);
	assert_int_equal(m.type, NAS_PDU_SESSION_RELEASE_COMMAND);
	assert_int_equal(m.psi, psi);
	assert_int_equal(m.pti, 0);   /* 6.3.3.2: network-requested */
	assert_int_equal(m.pdu_rel_cmd.cause, cause);
}

/* TS 23.527 4.4, TS 24.501 6.3.3: the UPF restarted -> its sessions released with #39; the
 * other UPF's are untouched */
static void t_upf_restart(void **state)
{
	struct smf_stats st;

	(void)state;
	start("internet", "ims");
	pump(5);
	establish(F->ue1, 1, "internet", 0);
	establish(F->ue1, 2, "ims", 1);
	upf_n4_close(S[0]);
	recovery[0]++;
	srv_open(0);
	until_sent();   /* the next heartbeat answer has the new Recovery Time Stamp */
	rel_cmd_cause(1, NAS_5GSM_REACTIVATION_REQUESTED);
	smf_get_stats(F->smf, &st);
	assert_int_equal(st.upf_lost, 1);
	assert_true(upf_ready(P[0]));   /* associated again */
	/* the UE completes the release; the session goes, a new one goes to the new upfA */
	assert_int_equal(fx_n2(F, F->ue1, 1, SMF_N2_RELEASE_RSP), 0);
	assert_int_equal(fx_gsm(F, F->ue1, NAS_PDU_SESSION_RELEASE_COMPLETE, 1, 0, 0), 0);
	pump(5);
	assert_int_equal(smf_ue_psi_map(F->ue1), 1u << 2);
	establish(F->ue1, 1, "internet", 0);
	assert_int_equal(upf_n4_sessions(S[0]), 1);
	assert_int_equal(upf_n4_sessions(S[1]), 1);
}

/* A rule set the UPF refuses (the UE address outside its pool): released with #26 */
static void t_refused(void **state)
{
	struct est_opt o = { .psi = 3, .pti = 3, .dnn = "internet" };
	struct nas_msg m;

	(void)state;
	srv_pool = fx_ip("10.99.0.0");
	start("internet", "ims");
	pump(5);
	assert_int_equal(fx_est(F, F->ue1, &o), 0);   /* accepted: the answer comes later */
	fx_dec_n1(F, &m, NAS_PDU_SESSION_ESTABLISHMENT_ACCEPT);
	until_sent();
	rel_cmd_cause(3, NAS_5GSM_INSUFFICIENT_RESOURCES);
	assert_int_equal(upf_n4_sessions(S[0]), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(t_place, setup, teardown),
		cmocka_unit_test_setup_teardown(t_round_robin, setup, teardown),
		cmocka_unit_test_setup_teardown(t_upf_restart, setup, teardown),
		cmocka_unit_test_setup_teardown(t_refused, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
