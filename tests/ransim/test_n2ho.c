/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * The gNB side of the N2 handover (gnb_n2ho.c, ho_cont.c) against bad input from the network,
 * without a core: each message goes straight into the handlers gnb.c calls. Nothing it does
 * may change a UE's handover or its place; each case is counted (and answered: a HANDOVER
 * FAILURE, an ERROR INDICATION, built and handed to the association, which is down here).
 * The good paths run against the real AMF and SMF in test_ransim.c (test_n2_handover_*).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "common/ev.h"
#include "rs_int.h"

static struct ev_loop *loop;

static struct ransim *mk(void)
{
	struct ransim_cfg c;
	struct ransim_sim sims[2];
	struct ransim *rs;
	int err = 0;

	ransim_cfg_init(&c);
	c.n_gnbs = 2;
	c.n_ues = 2;
	c.handover_mode = RANSIM_HO_N2;
	memset(sims, 0, sizeof(sims));
	snprintf(sims[0].supi, sizeof(sims[0].supi), "imsi-001010123456780");
	snprintf(sims[1].supi, sizeof(sims[1].supi), "imsi-001010123456781");
	rs = ransim_new(loop, &c, sims, 2, &err);
	assert_non_null(rs);
	return rs;
}

static void no_cb(struct ev_loop *l, struct ev_timer *t)
{
	(void)l;
	(void)t;
}

/* UE 1 as a source on gNB 1 with HANDOVER REQUIRED sent towards gNB 0 (state PREP). */
static struct rs_ue *preparing(struct ransim *rs)
{
	struct rs_ue *ue = &rs->ues[1];

	ue->gnb = &rs->gnbs[1];
	ue->ran_id = 1;
	ue->amf_ue_id = 77;
	ue->qfi = 9;
	ue->n2.st = RS_N2HO_PREP;
	ue->n2.src = &rs->gnbs[1];
	ue->n2.tgt = &rs->gnbs[0];
	ue->n2.src_ran_id = 1;
	ue->n2.src_amf_id = 77;
	ev_timer_init(&ue->n2.timer, no_cb, ue);
	ue->n2.timer_init = true;
	return ue;
}

/* TS 38.413 9.3.1.29: the container round trip the target relies on, and what it refuses. */
static void test_containers(void **state)
{
	static const uint32_t idx[] = { 0, 1, 65535, 65536, 4194303 };
	struct rs_s2t s = { .psi = 1, .qfi = 9, .dl_forwarding = true, .plmn = { 0x00, 0xf1, 0x10 },
			    .source_cell = 0x10, .target_cell = 0x11, .time_in_cell_s = 5000 };
	uint8_t buf[128], t2s[32], st[32];
	int n, k, m;

	(void)state;
	for (unsigned i = 0; i < sizeof(idx) / sizeof(idx[0]); i++) {
		s.ue_idx = idx[i];
		n = rs_enc_s2t_container(&s, buf, sizeof(buf));
		assert_true(n > 0);
		assert_int_equal(rs_dec_s2t_ue(buf, (size_t)n), (int)idx[i]);
		/* a cut container never names a UE */
		for (k = 0; k < 8; k++)
			assert_true(rs_dec_s2t_ue(buf, (size_t)k) < 0);
	}
	/* PhysCellId is 0..1007 (TS 38.331): no larger index fits */
	s.ue_idx = 1008u << 16;
	assert_int_equal(rs_enc_s2t_container(&s, buf, sizeof(buf)), -ERANGE);
	/* no room: -ENOSPC, never a partial container */
	s.ue_idx = 3;
	assert_true(rs_enc_s2t_container(&s, buf, 10) < 0);
	/* another container is not a Source to Target one */
	m = rs_enc_t2s_container(1, t2s, sizeof(t2s));
	assert_true(m > 0);
	assert_true(rs_dec_s2t_ue(t2s, (size_t)m) < 0);
	m = rs_enc_ran_status(0xffffffffu, 0, st, sizeof(st));
	assert_true(m > 0);
	assert_true(rs_dec_s2t_ue(st, (size_t)m) < 0);
}

/* TS 38.413 8.4.2.3: a HANDOVER REQUEST the target cannot place (a container naming no UE
 * that is preparing a handover to it, or none at all) gets HANDOVER FAILURE; no UE changes. */
static void test_request_unplaceable(void **state)
{
	struct ransim *rs = mk();
	struct ngap_handover_request r;
	struct rs_s2t s = { .ue_idx = 0, .psi = 1, .qfi = 9, .plmn = { 0x00, 0xf1, 0x10 } };
	uint8_t buf[128], junk[] = { 0xde, 0xad, 0xbe, 0xef };
	int n;

	(void)state;
	memset(&r, 0, sizeof(r));
	r.amf_ue_id = 5;
	n = rs_enc_s2t_container(&s, buf, sizeof(buf));
	r.source_to_target.p = buf;
	r.source_to_target.len = (size_t)n;
	rs_gnb_ho_request(&rs->gnbs[1], &r);       /* UE 0 prepares nothing */
	r.source_to_target.p = junk;
	r.source_to_target.len = sizeof(junk);
	rs_gnb_ho_request(&rs->gnbs[1], &r);       /* no container of ours */
	preparing(rs);
	s.ue_idx = 1;
	n = rs_enc_s2t_container(&s, buf, sizeof(buf));
	r.source_to_target.p = buf;
	r.source_to_target.len = (size_t)n;
	rs_gnb_ho_request(&rs->gnbs[1], &r);       /* UE 1 goes to gNB 0, not 1 */
	assert_int_equal(rs->st.n2ho_failures_sent, 3);
	assert_int_equal(ransim_failures(rs, "n2ho_request_unknown_ue"), 3);
	assert_int_equal(rs->st.n2ho_requests, 0);
	assert_int_equal(rs->ues[0].n2.st, RS_N2HO_NONE);
	assert_int_equal(rs->ues[1].n2.st, RS_N2HO_PREP);
	assert_false(rs->ues[1].n2.tgt_ctx);
	ransim_free(rs);
}

/* TS 38.413 9.3.4.1: a HANDOVER REQUEST for the right UE whose session list or transfer is
 * not what the source asked for: HANDOVER FAILURE, an error, no target context. */
static void test_request_bad_sessions(void **state)
{
	struct ransim *rs = mk();
	struct rs_ue *ue = preparing(rs);
	struct ngap_handover_request r;
	struct rs_s2t s = { .ue_idx = 1, .psi = 1, .qfi = 9, .plmn = { 0x00, 0xf1, 0x10 } };
	uint8_t buf[128], junk[] = { 0x00 };
	int n;

	(void)state;
	memset(&r, 0, sizeof(r));
	r.amf_ue_id = 5;
	n = rs_enc_s2t_container(&s, buf, sizeof(buf));
	r.source_to_target.p = buf;
	r.source_to_target.len = (size_t)n;
	rs_gnb_ho_request(&rs->gnbs[0], &r);       /* no session */
	r.n_sessions = 1;
	r.sessions[0].id = rs->cfg.psi;
	r.sessions[0].transfer.p = junk;
	r.sessions[0].transfer.len = sizeof(junk);
	rs_gnb_ho_request(&rs->gnbs[0], &r);       /* an undecodable transfer */
	assert_int_equal(rs->st.n2ho_requests, 2);
	assert_int_equal(rs->st.n2ho_failures_sent, 2);
	assert_int_equal(rs->st.n2ho_request_acks, 0);
	assert_int_equal(rs->st.n2ho_errors, 2);
	assert_int_equal(ue->n2.st, RS_N2HO_PREP);
	assert_false(ue->n2.tgt_ctx);
	assert_ptr_equal(ue->gnb, &rs->gnbs[1]);
	ransim_free(rs);
}

/* TS 38.413 10.6: HANDOVER COMMAND / PREPARATION FAILURE / CANCEL ACKNOWLEDGE naming a UE
 * NGAP ID pair the source does not hold, a DOWNLINK RAN STATUS TRANSFER for a target context
 * that does not exist: ERROR INDICATION, counted, the UE's handover untouched. */
static void test_unknown_ids(void **state)
{
	struct ransim *rs = mk();
	struct rs_ue *ue = preparing(rs);
	struct ngap_handover_command c;
	struct ngap_handover_preparation_failure f;
	struct ngap_handover_cancel_ack k;
	struct ngap_ran_status_transfer t;

	(void)state;
	memset(&c, 0, sizeof(c));
	c.amf_ue_id = 78;                          /* not the source's AMF UE NGAP ID */
	c.ran_ue_id = 1;
	rs_gnb_ho_command(&rs->gnbs[1], &c);
	c.amf_ue_id = 77;
	rs_gnb_ho_command(&rs->gnbs[0], &c);       /* the target's association, not the source's */
	memset(&f, 0, sizeof(f));
	f.amf_ue_id = 77;
	f.ran_ue_id = 3;                           /* ran_id % 2 = UE 1, not its ID */
	rs_gnb_ho_prep_failure(&rs->gnbs[1], &f);
	memset(&k, 0, sizeof(k));
	k.amf_ue_id = 77;
	k.ran_ue_id = 0;
	rs_gnb_ho_cancel_ack(&rs->gnbs[1], &k);
	memset(&t, 0, sizeof(t));
	t.amf_ue_id = 5;
	t.ran_ue_id = 3;                           /* no target context yet */
	rs_gnb_dl_ran_status(&rs->gnbs[0], &t);
	assert_int_equal(rs->st.n2ho_unexpected, 5);
	assert_int_equal(ransim_failures(rs, "n2ho_unknown_ue_ngap_id"), 5);
	assert_int_equal(rs->st.n2ho_commands + rs->st.n2ho_prep_failures + rs->st.n2ho_cancel_acks, 0);
	assert_int_equal(ue->n2.st, RS_N2HO_PREP);
	assert_ptr_equal(ue->gnb, &rs->gnbs[1]);
	assert_int_equal(ue->ran_id, 1);
	ransim_free(rs);
}

/* TS 38.413 9.3.1.31: the AMF relays the RAN Status Transfer container untouched; one that
 * differs from what the source sent is an error (the UE still arrives: the status is advice). */
static void test_dl_status_changed(void **state)
{
	struct ransim *rs = mk();
	struct rs_ue *ue = preparing(rs);
	struct ngap_ran_status_transfer t;
	uint8_t other[32];
	int n;

	(void)state;
	ue->n2.st = RS_N2HO_EXEC;
	ue->n2.tgt_ctx = true;
	ue->n2.tgt_ran_id = 3;
	ue->n2.tgt_amf_id = 5;
	n = rs_enc_ran_status(100, 200, ue->n2.status, sizeof(ue->n2.status));
	assert_true(n > 0);
	ue->n2.status_len = (uint8_t)n;
	n = rs_enc_ran_status(100, 201, other, sizeof(other));
	memset(&t, 0, sizeof(t));
	t.amf_ue_id = 5;
	t.ran_ue_id = 3;
	t.container.p = other;
	t.container.len = (size_t)n;
	rs_gnb_dl_ran_status(&rs->gnbs[0], &t);
	assert_int_equal(rs->st.n2ho_dl_status, 1);
	assert_int_equal(rs->st.n2ho_errors, 1);
	assert_string_equal(ue->fail, "n2ho_dl_status_changed");
	assert_int_equal(ue->n2.st, RS_N2HO_ARRIVING);
	ransim_free(rs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_containers),
		cmocka_unit_test(test_request_unplaceable),
		cmocka_unit_test(test_request_bad_sessions),
		cmocka_unit_test(test_unknown_ids),
		cmocka_unit_test(test_dl_status_changed),
	};
	int err = 0, rc;

	loop = ev_loop_new(&err);
	if (!loop)
		return 1;
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	ev_loop_free(loop);
	return rc;
}
