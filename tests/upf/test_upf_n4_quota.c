/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * Issue 32 item 1: FAR DROP on the session's own uplink / downlink PDR (TS 29.244 8.2.26,
 * 5.2.1) and Volume / Time Quota (8.2.50 / 8.2.51, 5.2.2.2; Reporting Triggers VOLQU / TIMQU
 * 8.2.19, Usage Report Trigger 8.2.41) on the standalone UPF's PFCP server (n4_fix.h: real UDP
 * on loopback, the real XDP program through BPF_PROG_TEST_RUN): the drop is UPF_RULE_DROP in the
 * data path's rule, counted per session (ul_drops / dl_drops) and drop_far. tshark decodes the
 * exchange at the end. Needs root; skips otherwise. argv: tshark path, build directory.
 */
#include "n4_fix.h"

static struct upf_session_stats sstats(uint64_t seid)
{
	struct upf_session_stats st;

	assert_int_equal(upf_session_stats(U, (uint32_t)(seid & 0xffffffffu) - 1, &st), 0);
	return st;
}

/* An Update FAR of FAR id with Apply Action aa only */
static void upd_far(unsigned i, uint32_t id, uint32_t aa)
{
	Q.mod.has |= PFCP_SMR_UPD_FAR;
	Q.mod.n_upd_far = i + 1;
	Q.mod.upd_far[i] = (struct pfcp_far){ .has = PFCP_FAR_ID | PFCP_FAR_APPLY, .far_id = id, .apply = aa };
}

/* 8.2.26 / 5.2.1: an Update FAR with Apply Action DROP on the uplink FAR and on the downlink
 * FAR drops both directions in XDP, counted per session and drop_far; an Update FAR back to
 * FORW (the downlink keeps its tunnel) forwards again. Refused before (cause 73). DROP with
 * FORW is refused (8.2.26: one of them); the uplink FAR alone DROP leaves the downlink. */
static void t_far_drop(void **state)
{
	uint32_t teid;
	uint64_t seid, d0 = upcnt(UPF_CNT_DROP_FAR);
	struct upf_session_stats st;

	(void)state;
	associate();
	seid = est(2, &VOLUM);
	traffic(1, 200);
	sess_req(PFCP_SESS_MOD_REQ, 3, seid);
	upd_far(0, 1, PFCP_AA_DROP);
	upd_far(1, 2, PFCP_AA_DROP);
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	assert_int_equal(ul(3, 0, 300), XDP_DROP);
	assert_int_equal(ul(3, 0, 300), XDP_DROP);
	assert_int_equal(dl(&teid), XDP_DROP);
	assert_int_equal(upcnt(UPF_CNT_DROP_FAR), d0 + 3);
	st = sstats(seid);
	assert_int_equal(st.ul_drops, 2);
	assert_int_equal(st.dl_drops, 1);
	assert_int_equal(st.ul_pkts, 1);
	assert_int_equal(st.buffered, 0);   /* dropped, not buffered */
	/* back to FORW: forwarded again, on the tunnel it had */
	sess_req(PFCP_SESS_MOD_REQ, 4, seid);
	upd_far(0, 1, PFCP_AA_FORW);
	upd_far(1, 2, PFCP_AA_FORW);
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	traffic(1, 200);
	assert_int_equal(upcnt(UPF_CNT_DROP_FAR), d0 + 3);
	/* 8.2.26: DROP and FORW together: cause 73, Apply Action; nothing changed */
	sess_req(PFCP_SESS_MOD_REQ, 5, seid);
	upd_far(0, 2, PFCP_AA_DROP | PFCP_AA_FORW);
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_RULE_FAILURE);
	assert_int_equal(R.rsp.offending_ie, PFCP_IE_APPLY_ACTION);
	traffic(1, 200);
	/* the uplink FAR alone DROP: the downlink still forwards */
	sess_req(PFCP_SESS_MOD_REQ, 8, seid);
	upd_far(0, 1, PFCP_AA_DROP);
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	assert_int_equal(ul(3, 0, 300), XDP_DROP);
	assert_int_equal(dl(&teid), XDP_REDIRECT);   /* the downlink FAR still forwards */
}

/* 5.2.2.2 / 8.2.50: a Volume Quota of 2000 octets (total) with trigger VOLQU: below it traffic
 * flows and nothing is reported; the sweep that finds it reached sends a Session Report Request
 * (USAR, Usage Report Trigger VOLQU, the volume) and both directions of the PDRs carrying the
 * URR drop (drop_far); an Update URR with a new quota forwards again, counted from then.
 * Refused before (cause 73). */
static void t_vol_quota(void **state)
{
	struct pfcp_urr u = VOLUM;
	uint64_t t0, seid, d0 = upcnt(UPF_CNT_DROP_FAR);
	uint32_t teid;

	(void)state;
	associate();
	u.has |= PFCP_URR_VOL_QUOTA;
	u.triggers = PFCP_RT_VOLQU;
	u.vol_quota = (struct pfcp_volume){ .flags = PFCP_VOL_TOVOL, .total = 2000 };
	t0 = mono_ns();
	seid = est(2, &u);
	traffic(1, 1000);                      /* 1080 octets */
	upf_n4_tick(N, t0 + 1000000000ull);
	assert_false(report_rx());
	traffic(1, 1000);                      /* 2160: at the quota */
	upf_n4_tick(N, t0 + 2000000000ull);
	assert_true(report_rx());
	assert_int_equal(R.rep.type, PFCP_RPT_USAR);
	assert_int_equal(R.rep.n_usage, 1);
	assert_int_equal(R.rep.usage[0].trigger, PFCP_URT_VOLQU);
	assert_int_equal(R.rep.usage[0].volume.total, 2160);
	report_answer();
	assert_int_equal(ul(3, 0, 300), XDP_DROP);
	assert_int_equal(dl(&teid), XDP_DROP);
	assert_int_equal(upcnt(UPF_CNT_DROP_FAR), d0 + 2);
	/* reached once: no further report */
	upf_n4_tick(N, t0 + 3000000000ull);
	assert_false(report_rx());
	/* a new quota: forwarded again; 5.2.2.2: counted from the update */
	sess_req(PFCP_SESS_MOD_REQ, 3, seid);
	Q.mod.has = PFCP_SMR_UPD_URR;
	Q.mod.n_upd_urr = 1;
	Q.mod.upd_urr[0] = (struct pfcp_urr){ .has = PFCP_URR_ID | PFCP_URR_VOL_QUOTA, .urr_id = 1,
					      .vol_quota = { .flags = PFCP_VOL_TOVOL, .total = 1500 } };
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	traffic(1, 1000);
	upf_n4_tick(N, t0 + 4000000000ull);
	assert_false(report_rx());
	traffic(1, 1000);
	upf_n4_tick(N, t0 + 5000000000ull);
	assert_true(report_rx());
	assert_int_equal(R.rep.usage[0].trigger, PFCP_URT_VOLQU);
	report_answer();
	assert_int_equal(ul(3, 0, 300), XDP_DROP);
}

/* 5.2.2.2 / 8.2.51: a Time Quota of 10 s with trigger TIMQU: traffic flows for 10 s, then a
 * report TIMQU and both directions drop; an Update URR with Time Quota 0 (no quota) lifts it. */
static void t_time_quota(void **state)
{
	struct pfcp_urr u = VOLUM;
	uint64_t t0, seid;
	uint32_t teid;

	(void)state;
	associate();
	u.method = PFCP_MM_VOLUM | PFCP_MM_DURAT;
	u.has |= PFCP_URR_TIME_QUOTA;
	u.triggers = PFCP_RT_TIMQU;
	u.time_quota = 10;
	t0 = mono_ns();
	seid = est(2, &u);
	traffic(1, 500);
	upf_n4_tick(N, t0 + 5000000000ull);
	assert_false(report_rx());
	traffic(1, 500);
	upf_n4_tick(N, t0 + 11000000000ull);
	assert_true(report_rx());
	assert_int_equal(R.rep.usage[0].trigger, PFCP_URT_TIMQU);
	assert_true(R.rep.usage[0].has & PFCP_UR_DURATION);
	assert_int_equal(R.rep.usage[0].volume.ul, 1000);
	report_answer();
	assert_int_equal(ul(3, 0, 300), XDP_DROP);
	assert_int_equal(dl(&teid), XDP_DROP);
	sess_req(PFCP_SESS_MOD_REQ, 3, seid);
	Q.mod.has = PFCP_SMR_UPD_URR;
	Q.mod.n_upd_urr = 1;
	Q.mod.upd_urr[0] = (struct pfcp_urr){ .has = PFCP_URR_ID | PFCP_URR_TIME_QUOTA, .urr_id = 1,
					      .time_quota = 0 };
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	traffic(1, 500);
	upf_n4_tick(N, t0 + 30000000000ull);
	assert_false(report_rx());
	traffic(1, 500);
}

static int group_teardown(void **state)
{
	static const char *const want[] = {
		"pfcp.msg_type == 52 && pfcp.apply_action.drop == 1",
		"pfcp.msg_type == 50 && pfcp.volume_quota_flags.tovol == 1 && pfcp.reporting_triggers_flags.volqu == 1",
		"pfcp.msg_type == 50 && pfcp.time_quota == 10 && pfcp.reporting_triggers_flags.timqu == 1",
		"pfcp.msg_type == 56 && pfcp.report_type.usar == 1 && pfcp.usage_report_trigger_flags.volqu == 1",
		"pfcp.msg_type == 56 && pfcp.usage_report_trigger_flags.timqu == 1",
		"pfcp.msg_type == 52 && pfcp.volume_quota_flags.tovol == 1",
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
	int rc = tn_require_root_bpf("upf_n4_quota");

	if (rc)
		return rc;
	tshark_path = argc > 1 ? argv[1] : "tshark";
	rc = tshark_require(tshark_path, "check the N4 exchange");
	if (rc)
		return rc;
	snprintf(pcap_path, sizeof(pcap_path), "%s/upf_n4_quota.pcap", argc > 2 ? argv[2] : ".");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(t_far_drop, setup, teardown),
		cmocka_unit_test_setup_teardown(t_vol_quota, setup, teardown),
		cmocka_unit_test_setup_teardown(t_time_quota, setup, teardown),
	};

	rc = cmocka_run_group_tests(tests, n4_fix_group_setup, group_teardown);
	return rc ? rc : teardown_failed;
}
