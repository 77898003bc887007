/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * Issue 32, usage reporting (TS 29.244 5.2.2, 7.5.8.3): the standalone UPF's PFCP server
 * (n4_fix.h: real UDP on loopback, the real XDP program through BPF_PROG_TEST_RUN) sends Volume
 * Threshold, Time Threshold and Measurement Period reports in Session Report Requests (USAR)
 * with Start / End Time, UR-SEQN, Volume and Duration Measurement, retransmitted per 6.4 and
 * bounded in flight; free5GC's two URRs report. tshark decodes the whole exchange at the end.
 * Needs root; skips otherwise. argv: tshark path, build directory (for the pcap).
 */
#include "n4_fix.h"

/* TS 29.244 5.2.2.2.1 / 8.2.13 Volume Threshold and 8.2.18 Measurement Period: a Session Report
 * Request (7.5.8, Report Type USAR) when the volume since the last report reaches the
 * threshold, and one per period with Start / End Time (8.2.83 / 8.2.84) the period apart, the
 * volume of that period, UR-SEQN rising; not answered: sent again after T1, the same bytes
 * and sequence number (6.4). Nothing was ever sent before (reported at deletion only). */
static void t_reports(void **state)
{
	struct pfcp_urr u = VOLUM;
	uint64_t t0, seid;
	uint32_t seq, seqn;

	(void)state;
	associate();
	u.has |= PFCP_URR_PERIOD | PFCP_URR_VOL_THRESH;
	u.triggers = PFCP_RT_PERIO | PFCP_RT_VOLTH;
	u.period = 60;
	u.vol_thresh = (struct pfcp_volume){ .flags = PFCP_VOL_ULVOL, .ul = 3000 };
	t0 = mono_ns();
	seid = est(2, &u);
	traffic(2, 1000);
	upf_n4_tick(N, t0 + 1000000000ull);   /* 2000 < 3000 */
	assert_false(report_rx());
	traffic(1, 1000);
	upf_n4_tick(N, t0 + 2000000000ull);
	assert_true(report_rx());
	assert_int_equal(R.h.seid, 0x7002);
	assert_int_equal(R.rep.type, PFCP_RPT_USAR);
	assert_int_equal(R.rep.n_usage, 1);
	assert_int_equal(R.rep.usage[0].trigger, PFCP_URT_VOLTH);
	assert_int_equal(R.rep.usage[0].volume.ul, 3000);
	assert_int_equal(R.rep.usage[0].volume.dl, 240);
	seq = R.h.seq;
	seqn = R.rep.usage[0].seqn;
	/* unanswered: again after T1 (3 s), the same sequence number */
	upf_n4_tick(N, t0 + 5100000000ull);
	assert_true(report_rx());
	assert_int_equal(R.h.seq, seq);
	assert_int_equal(R.rep.usage[0].seqn, seqn);
	report_answer();
	/* the period: a report 60 s after the establishment, with what passed since the last */
	traffic(1, 100);
	upf_n4_tick(N, t0 + 59000000000ull);
	assert_false(report_rx());   /* heartbeats only */
	upf_n4_tick(N, t0 + 61000000000ull);
	assert_true(report_rx());
	assert_int_equal(R.rep.usage[0].trigger, PFCP_URT_PERIO);
	assert_int_equal(R.rep.usage[0].volume.ul, 100);
	assert_true(R.rep.usage[0].seqn > seqn);
	assert_true(R.rep.usage[0].end - R.rep.usage[0].start >= 58 && R.rep.usage[0].end - R.rep.usage[0].start <= 60);
	report_answer();
	/* deleted (7.5.7.2: its last report, TERMR): no report after that */
	sess_req(PFCP_SESS_DEL_REQ, 3, seid);
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	assert_int_equal(R.rsp.usage[0].trigger, PFCP_URT_TERMR);
	upf_n4_tick(N, t0 + 200000000000ull);
	assert_false(report_rx());
}

/* Issue 32, free5GC's shape (upf_n4_shapes t_free5gc): URR 1 with a Measurement Period of 100 s,
 * URR 2 with a 100 MB UL / DL Volume Threshold, both on both PDRs: the periodic report of URR 1
 * now arrives after 100 s (5.2.2.2.1), URR 2 stays quiet below its threshold. Before: nothing
 * until the deletion. */
static void t_free5gc_reports(void **state)
{
	uint64_t t0 = mono_ns();
	int got = 0;

	(void)state;
	associate();
	free5gc_est(2, 0x8100, 3, 1000000, 1000000);
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	for (int i = 0; i < 3; i++)
		assert_int_equal(ul(3, 9, 700), XDP_REDIRECT);
	upf_n4_tick(N, t0 + 50000000000ull);
	assert_false(report_rx());
	upf_n4_tick(N, t0 + 101000000000ull);
	while (report_rx()) {
		assert_int_equal(R.rep.n_usage, 1);
		assert_int_equal(R.rep.usage[0].urr_id, 1);
		assert_int_equal(R.rep.usage[0].trigger, PFCP_URT_PERIO);
		assert_int_equal(R.rep.usage[0].volume.ul, 2100);
		got++;
	}
	assert_int_equal(got, 1);
}

/* TS 29.244 8.2.40 DURAT and 8.2.14 Time Threshold (TIMTH): a report when the measurement has
 * lasted the threshold, with its Duration Measurement (8.2.45); the refusals of what is not
 * measured here (EVENT, a trigger such as START, a Measurement Period 0) in an Update URR:
 * cause 73 with the URR as Failed Rule ID, the URR unchanged (it reports on). DURAT and TIMTH
 * were refused before. */
static void t_duration(void **state)
{
	struct pfcp_urr u = VOLUM;
	uint64_t t0, seid;
	static const struct { uint32_t has; uint8_t method; uint32_t triggers; uint32_t period; } bad[] = {
		{ PFCP_URR_METHOD, PFCP_MM_EVENT, 0, 0 },
		{ PFCP_URR_TRIGGERS, 0, PFCP_RT_START, 0 },
		{ PFCP_URR_PERIOD, 0, 0, 0 },
	};

	(void)state;
	associate();
	u.method = PFCP_MM_VOLUM | PFCP_MM_DURAT;
	u.has |= PFCP_URR_TIME_THRESH;
	u.triggers = PFCP_RT_TIMTH;
	u.time_thresh = 10;
	t0 = mono_ns();
	seid = est(2, &u);
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		sess_req(PFCP_SESS_MOD_REQ, 3 + i, seid);
		Q.mod.has = PFCP_SMR_UPD_URR;
		Q.mod.n_upd_urr = 1;
		Q.mod.upd_urr[0] = (struct pfcp_urr){ .has = PFCP_URR_ID | bad[i].has, .urr_id = 1,
						      .method = bad[i].method, .triggers = bad[i].triggers,
						      .period = bad[i].period };
		xchg();
		assert_int_equal(R.rsp.cause, PFCP_CAUSE_RULE_FAILURE);
		assert_int_equal(R.rsp.offending_ie, PFCP_IE_UPDATE_URR);
		assert_int_equal(R.rsp.failed_rule.type, PFCP_RULE_URR);
		assert_int_equal(R.rsp.failed_rule.id, 1);
	}
	traffic(1, 300);
	upf_n4_tick(N, t0 + 5000000000ull);
	assert_false(report_rx());
	upf_n4_tick(N, t0 + 11000000000ull);
	assert_true(report_rx());
	assert_int_equal(R.rep.usage[0].trigger, PFCP_URT_TIMTH);
	assert_true(R.rep.usage[0].has & PFCP_UR_DURATION);
	assert_true(R.rep.usage[0].duration >= 10 && R.rep.usage[0].duration <= 11);
	assert_int_equal(R.rep.usage[0].volume.ul, 300);
	report_answer();
}

/* The Session Report Requests the server sent since the last call, counting those with a
 * sequence number not seen before (retransmissions are not new) */
static unsigned reports_new(uint8_t *seen, size_t n_seen)
{
	unsigned fresh = 0;

	while (report_rx()) {
		assert_true(R.h.seq < n_seen);
		fresh += !seen[R.h.seq];
		seen[R.h.seq] = 1;
	}
	return fresh;
}


/* TS 29.244 6.4: our requests in flight are bounded (1,024 Session Report Requests awaiting
 * their response, each kept for its retransmission); with 15 sessions reporting every second
 * and a CP that answers nothing, the 69th second finds 4 places left: 4 reports go, the other
 * 11 wait (their URRs stay due), none is lost or overwritten; once the CP answers, all 15 go
 * at the next tick. */
static void t_reports_bounded(void **state)
{
	static uint8_t seen[4096];
	struct pfcp_urr u = VOLUM;
	uint64_t t0 = mono_ns();

	(void)state;
	memset(seen, 0, sizeof(seen));
	associate();
	u.has |= PFCP_URR_PERIOD;
	u.triggers = PFCP_RT_PERIO;
	u.period = 1;
	for (uint8_t k = 0; k < 15; k++)
		est_k(2u + k, &u, k);
	for (int i = 1; i <= 1024 / 15; i++) {
		upf_n4_tick(N, t0 + (uint64_t)i * 1000000000ull + 100000000ull);
		assert_int_equal(reports_new(seen, sizeof(seen)), 15);
	}
	upf_n4_tick(N, t0 + (1024 / 15 + 1) * 1000000000ull + 100000000ull);
	assert_int_equal(reports_new(seen, sizeof(seen)), 1024 % 15);
	for (size_t q = 1; q < sizeof(seen); q++) {   /* the CP answers them all now */
		if (!seen[q])
			continue;
		R.h.seq = (uint32_t)q;
		report_answer();
	}
	upf_n4_tick(N, t0 + (1024 / 15 + 2) * 1000000000ull + 100000000ull);
	assert_int_equal(reports_new(seen, sizeof(seen)), 15);
}

/* The exchange through tshark's PFCP dissector: nothing malformed; the IEs asserted */
static int group_teardown(void **state)
{
	static const char *const want[] = {
		"pfcp.msg_type == 56 && pfcp.report_type.usar == 1 && pfcp.ur_seqn",
		"pfcp.msg_type == 56 && pfcp.start_time && pfcp.end_time",
		"pfcp.msg_type == 57 && pfcp.cause == 1",
		"pfcp.msg_type == 56 && pfcp.usage_report_trigger_flags.timth == 1 && pfcp.duration_measurement == 10",
	};
	int rc;

	(void)state;
	rc = n4_fix_group_teardown(want, sizeof(want) / sizeof(want[0]));
	if (rc)
		fprintf(stderr, "group teardown failed: the tshark checks above\n");
	teardown_failed = rc != 0;
	return rc;
}

int main(int argc, char **argv)
{
	int rc = tn_require_root_bpf("upf_n4_urr");

	if (rc)
		return rc;
	tshark_path = argc > 1 ? argv[1] : "tshark";
	rc = tshark_require(tshark_path, "check the N4 exchange");
	if (rc)
		return rc;
	snprintf(pcap_path, sizeof(pcap_path), "%s/upf_n4_urr.pcap", argc > 2 ? argv[2] : ".");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(t_reports, setup, teardown),
		cmocka_unit_test_setup_teardown(t_free5gc_reports, setup, teardown),
		cmocka_unit_test_setup_teardown(t_duration, setup, teardown),
		cmocka_unit_test_setup_teardown(t_reports_bounded, setup_slow_t1, teardown),
	};

	rc = cmocka_run_group_tests(tests, n4_fix_group_setup, group_teardown);
	return rc ? rc : teardown_failed;
}
