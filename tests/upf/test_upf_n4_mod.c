/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * Issue 32, rules in a Session Modification (TS 29.244 7.5.4): the standalone UPF's PFCP server
 * (n4_fix.h: real UDP on loopback, the real XDP program through BPF_PROG_TEST_RUN) takes Create /
 * Update / Remove of PDR, FAR, QER and URR in a modification, all or nothing (a refusal carries
 * the Failed Rule ID, 8.2.80, and changes nothing), Query URR / QAURR answered with the volumes
 * the data path forwarded, PFCPSMReq-Flags SNDEM / DROBU. tshark decodes the whole exchange at
 * the end. Needs root; skips otherwise. argv: tshark path, build directory (for the pcap).
 */
#include "n4_fix.h"

/* TS 29.244 7.5.4.5 / 7.5.4.8 Create / Remove QER, 7.5.4.4 / 7.5.4.9 Create / Remove URR and
 * 7.5.4.2 Update PDR naming them, 7.5.4.10 Query URR: a second QER with a lower MBR polices the
 * uplink once the PDR names it, and no more once removed; a URR created in a modification
 * measures from then; Query URR answers with what the data path forwarded (IMMER), Remove URR
 * with its last report (TERMR, 8.2.41), QAURR with every URR. Refused (cause 73) before. */
static void t_mod_rules(void **state)
{
	static const uint32_t both_q[] = { 1, 2 }, both_u[] = { 1, 2 };
	const struct pfcp_usage_report *u;
	uint64_t seid;
	uint32_t seqn1;

	(void)state;
	associate();
	seid = est(2, &VOLUM);
	traffic(3, 500);
	assert_int_equal(ul_burst(3, 0), 0);   /* 1 Gbit/s: nothing policed */
	/* Create QER 2 (8 kbit/s) and URR 2; both PDRs name them; Query URR 1 */
	sess_req(PFCP_SESS_MOD_REQ, 3, seid);
	Q.mod.has = PFCP_SMR_QER | PFCP_SMR_URR | PFCP_SMR_UPD_PDR | PFCP_SMR_QUERY_URR;
	Q.mod.n_qer = 1;
	Q.mod.qer[0] = (struct pfcp_qer){ .has = PFCP_QER_ID | PFCP_QER_GATE | PFCP_QER_MBR, .qer_id = 2,
					  .mbr = { 8, 8 } };
	Q.mod.n_urr = 1;
	Q.mod.urr[0] = VOLUM;
	Q.mod.urr[0].urr_id = 2;
	Q.mod.n_upd_pdr = 2;
	for (int i = 0; i < 2; i++) {
		Q.mod.upd_pdr[i].has = PFCP_PDR_ID;
		Q.mod.upd_pdr[i].pdr_id = (uint16_t)(1 + i);
		refs(&Q.mod.upd_pdr[i], 2, both_q, 2, both_u);
	}
	Q.mod.n_query_urr = 1;
	Q.mod.query_urr[0] = (struct pfcp_rm){ PFCP_RM_ID, 1 };
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	assert_int_equal(R.rsp.n_usage, 1);
	u = usage_of(R.rsp.usage, R.rsp.n_usage, 1);
	assert_int_equal(u->trigger, PFCP_URT_IMMER);
	assert_int_equal(u->volume.ul, 3 * 500 + 50 * 1000);
	assert_int_equal(u->volume.dl, 3 * 80);
	assert_int_equal(u->volume.ul_pkts, 53);
	assert_true((u->has & PFCP_UR_START) && (u->has & PFCP_UR_END) && u->end >= u->start);
	seqn1 = u->seqn;
	/* the 8 kbit/s QER now polices the uplink (5.4.1) */
	assert_true(ul_burst(3, 0) > 0);
	/* Remove QER 2 and URR 2 (the PDRs no longer name them); QAURR (8.2.31) */
	sess_req(PFCP_SESS_MOD_REQ, 4, seid);
	Q.mod.has = PFCP_SMR_RM_QER | PFCP_SMR_RM_URR | PFCP_SMR_FLAGS;
	Q.mod.n_rm_qer = Q.mod.n_rm_urr = 1;
	Q.mod.rm_qer[0] = Q.mod.rm_urr[0] = (struct pfcp_rm){ PFCP_RM_ID, 2 };
	Q.mod.flags = PFCP_SMF_QAURR;
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	assert_int_equal(R.rsp.n_usage, 2);
	u = usage_of(R.rsp.usage, R.rsp.n_usage, 2);
	assert_int_equal(u->trigger, PFCP_URT_TERMR);
	assert_true(u->volume.ul_pkts > 0);   /* the burst's packets that passed the policer */
	assert_int_equal(usage_of(R.rsp.usage, R.rsp.n_usage, 1)->trigger, PFCP_URT_IMMER);
	/* 8.2.54: UR-SEQN orders the reports of one URR */
	assert_int_equal(usage_of(R.rsp.usage, R.rsp.n_usage, 1)->seqn, seqn1 + 1);
	/* (the uplink's AMBR state keeps the debt the 8 kbit/s QER left: its next packets wait) */
	/* Update URR 1: a Volume Threshold from now on (8.2.13), here on the downlink's 80-byte packets */
	sess_req(PFCP_SESS_MOD_REQ, 5, seid);
	Q.mod.has = PFCP_SMR_UPD_URR;
	Q.mod.n_upd_urr = 1;
	Q.mod.upd_urr[0] = (struct pfcp_urr){ .has = PFCP_URR_ID | PFCP_URR_TRIGGERS | PFCP_URR_VOL_THRESH, .urr_id = 1,
					      .triggers = PFCP_RT_VOLTH,
					      .vol_thresh = { .flags = PFCP_VOL_DLVOL, .dl = 4000 } };
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	for (int i = 0; i < 50; i++) {
		uint32_t got;

		assert_int_equal(dl(&got), XDP_REDIRECT);
	}
	upf_n4_tick(N, mono_ns());
	assert_true(report_rx());
	assert_int_equal(R.rep.type, PFCP_RPT_USAR);
	assert_int_equal(R.rep.usage[0].trigger, PFCP_URT_VOLTH);
	report_answer();
}

/* TS 29.244 7.5.4 / 7.5.5.1 / 8.2.80: a modification with a rule that cannot be applied is
 * refused as a whole, cause 73 with the Offending IE and the Failed Rule ID, and changes
 * nothing (the QER created next to it is not there); the same in an establishment (7.5.3.1).
 * Failed Rule ID was never sent before. */
static void t_refused(void **state)
{
	uint64_t seid;

	(void)state;
	associate();
	seid = est(2, &VOLUM);
	/* Create QER 2 (fine) with Create URR 1 (exists): nothing applied */
	sess_req(PFCP_SESS_MOD_REQ, 3, seid);
	Q.mod.has = PFCP_SMR_QER | PFCP_SMR_URR;
	Q.mod.n_qer = 1;
	Q.mod.qer[0] = (struct pfcp_qer){ .has = PFCP_QER_ID | PFCP_QER_GATE | PFCP_QER_MBR, .qer_id = 2,
					  .mbr = { 8, 8 } };
	Q.mod.n_urr = 1;
	Q.mod.urr[0] = VOLUM;
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_RULE_FAILURE);
	assert_int_equal(R.rsp.offending_ie, PFCP_IE_CREATE_URR);
	assert_true(R.rsp.has & PFCP_SRSP_FAILED_RULE);
	assert_int_equal(R.rsp.failed_rule.type, PFCP_RULE_URR);
	assert_int_equal(R.rsp.failed_rule.id, 1);
	/* QER 2 was not created: an Update QER of it is refused, naming it */
	sess_req(PFCP_SESS_MOD_REQ, 4, seid);
	Q.mod.has = PFCP_SMR_UPD_QER;
	Q.mod.n_upd_qer = 1;
	Q.mod.upd_qer[0] = (struct pfcp_qer){ .has = PFCP_QER_ID | PFCP_QER_MBR, .qer_id = 2, .mbr = { 8, 8 } };
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_RULE_FAILURE);
	assert_int_equal(R.rsp.offending_ie, PFCP_IE_UPDATE_QER);
	assert_int_equal(R.rsp.failed_rule.type, PFCP_RULE_QER);
	assert_int_equal(R.rsp.failed_rule.id, 2);
	/* Update PDR naming a URR that does not exist; Create PDR (not supported in a modification) */
	sess_req(PFCP_SESS_MOD_REQ, 5, seid);
	Q.mod.has = PFCP_SMR_UPD_PDR;
	Q.mod.n_upd_pdr = 1;
	Q.mod.upd_pdr[0].has = PFCP_PDR_ID;
	Q.mod.upd_pdr[0].pdr_id = 2;
	refs(&Q.mod.upd_pdr[0], 0, NULL, 1, (const uint32_t[]){ 9 });
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_RULE_FAILURE);
	assert_int_equal(R.rsp.failed_rule.type, PFCP_RULE_PDR);
	assert_int_equal(R.rsp.failed_rule.id, 2);
	sess_req(PFCP_SESS_MOD_REQ, 6, seid);
	Q.mod.has = PFCP_SMR_RM_PDR;
	Q.mod.n_rm_pdr = 1;
	Q.mod.rm_pdr[0] = (struct pfcp_rm){ PFCP_RM_ID, 2 };   /* the downlink PDR, none created */
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_RULE_FAILURE);
	assert_int_equal(R.rsp.offending_ie, PFCP_IE_REMOVE_PDR);
	assert_int_equal(R.rsp.failed_rule.type, PFCP_RULE_PDR);
	assert_int_equal(R.rsp.failed_rule.id, 2);
	/* the session unchanged: one URR, measuring; the uplink not policed */
	assert_int_equal(ul_burst(3, 0), 0);
	sess_req(PFCP_SESS_MOD_REQ, 7, seid);
	Q.mod.has = PFCP_SMR_FLAGS;
	Q.mod.flags = PFCP_SMF_QAURR;
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	assert_int_equal(R.rsp.n_usage, 1);
	assert_int_equal(R.rsp.usage[0].volume.ul_pkts, 50);
	/* an establishment: event measurement (not supported) names its URR */
	est_head(8, 0x7008);
	Q.est.n_pdr = 0;
	{
		struct pfcp_urr u = VOLUM;

		u.urr_id = 5;
		u.method = PFCP_MM_EVENT;
		memset(&Q, 0, sizeof(Q));
		est_head(8, 0x7008);
		struct pfcp_pdr *d = add_pdr(2, 255, PFCP_IF_CORE, 2);

		ue_ip(d, true);
		d->pdi.ue_ip.ipv4[3] = 9;
		refs(d, 0, NULL, 1, (const uint32_t[]){ 5 });
		far_gnb(&Q.est.far[Q.est.n_far++], 2, 0x78);
		Q.est.n_urr = 1;
		Q.est.urr[0] = u;
	}
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_RULE_FAILURE);
	assert_int_equal(R.rsp.offending_ie, PFCP_IE_CREATE_URR);
	assert_int_equal(R.rsp.failed_rule.type, PFCP_RULE_URR);
	assert_int_equal(R.rsp.failed_rule.id, 5);
	assert_int_equal(upf_n4_sessions(N), 1);
}

/* A Create FAR (id) of the modification in Q toward the gNB's TEID, or BUFF|NOCP (teid 0) */
static void mod_far(uint32_t id, uint32_t teid)
{
	struct pfcp_far *f = &Q.mod.far[Q.mod.n_far++];

	Q.mod.has |= PFCP_SMR_FAR;
	if (teid) {
		far_gnb(f, id, teid);
		return;
	}
	*f = (struct pfcp_far){ .has = PFCP_FAR_ID | PFCP_FAR_APPLY | PFCP_FAR_FWD, .far_id = id,
				.apply = PFCP_AA_BUFF | PFCP_AA_NOCP,
				.fwd = { .has = PFCP_FWD_DEST_IF, .dest_if = PFCP_IF_ACCESS } };
}

static void mod_upd_pdr_far(uint16_t pdr, uint32_t far)
{
	struct pfcp_pdr *d = &Q.mod.upd_pdr[Q.mod.n_upd_pdr++];

	Q.mod.has |= PFCP_SMR_UPD_PDR;
	d->has = PFCP_PDR_ID | PFCP_PDR_FAR_ID;
	d->pdr_id = pdr;
	d->far_id = far;
}

static void mod_rm(struct pfcp_rm *a, uint8_t *n, uint32_t bit, uint32_t id)
{
	Q.mod.has |= bit;
	a[(*n)++] = (struct pfcp_rm){ PFCP_RM_ID, id };
}

/* TS 29.244 7.5.4.6 Remove PDR + 7.5.2.2 Create PDR in a modification: the uplink PDR re-created
 * with CHOOSE (a new TEID in the Created PDR, 7.5.5.1; the old TEID no longer forwards; the URR's
 * measurement goes on across the rebuilt data path rule), the downlink PDR re-created; 7.5.4.3
 * Create FAR + Update PDR to it + 7.5.4.7 Remove FAR: a FAR replaced (FORW to a new Outer Header
 * Creation with SNDEM, 8.2.31: an End Marker on the old tunnel, TS 29.281 7.3.2; FORW -> BUFF ->
 * FORW with DROBU: what was buffered dropped, not sent); a second uplink PDR and the removal of a
 * FAR a PDR still names refused with their Failed Rule ID, nothing changed. All cause 73 before. */
static void t_pdr_far(void **state)
{
	static const uint32_t one[] = { 1 };
	struct pfcp_pdr *d, ulp;
	uint32_t got, teid;
	uint64_t em, rel;

	(void)state;
	associate();
	uint64_t seid = est(2, &VOLUM);

	traffic(2, 1000);
	/* the uplink PDR re-created with CHOOSE */
	sess_req(PFCP_SESS_MOD_REQ, 3, seid);
	mod_rm(Q.mod.rm_pdr, &Q.mod.n_rm_pdr, PFCP_SMR_RM_PDR, 1);
	Q.mod.has |= PFCP_SMR_PDR;
	d = &Q.mod.pdr[Q.mod.n_pdr++];
	d->has = PFCP_PDR_ID | PFCP_PDR_PRECEDENCE | PFCP_PDR_PDI | PFCP_PDR_FAR_ID | PFCP_PDR_OHR;
	d->pdr_id = 11;
	d->precedence = 255;
	d->pdi.has = PFCP_PDI_SRC_IF | PFCP_PDI_F_TEID;
	d->pdi.src_if = PFCP_IF_ACCESS;
	d->pdi.fteid.flags = PFCP_FTEID_V4 | PFCP_FTEID_CH;
	d->ohr.desc = PFCP_OHR_GTPU_UDP_IPV4;
	d->far_id = 1;
	refs(d, 1, one, 1, one);
	ulp = *d;
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	assert_int_equal(R.rsp.n_created, 1);
	assert_int_equal(R.rsp.created[0].pdr_id, 11);
	teid = R.rsp.created[0].fteid.teid;
	assert_true(teid != 0 && teid != 3);
	assert_int_not_equal(ul(3, 0, 1000), XDP_REDIRECT);
	assert_int_equal(ul(teid, 0, 1000), XDP_REDIRECT);
	/* Query URR 1: 3000 octets uplink, across the rebuilt rule */
	sess_req(PFCP_SESS_MOD_REQ, 4, seid);
	mod_rm(Q.mod.query_urr, &Q.mod.n_query_urr, PFCP_SMR_QUERY_URR, 1);
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	assert_int_equal(R.rsp.usage[0].volume.ul, 3000);
	assert_int_equal(R.rsp.usage[0].volume.dl, 160);
	/* FAR 2 replaced by FAR 3 toward TEID 0x99, SNDEM: an End Marker on the old tunnel */
	em = upcnt(UPF_STAT_END_MARKER_SENT);
	sess_req(PFCP_SESS_MOD_REQ, 5, seid);
	mod_far(3, 0x99);
	mod_upd_pdr_far(2, 3);
	mod_rm(Q.mod.rm_far, &Q.mod.n_rm_far, PFCP_SMR_RM_FAR, 2);
	Q.mod.has |= PFCP_SMR_FLAGS;
	Q.mod.flags = PFCP_SMF_SNDEM;
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	assert_int_equal(dl(&got), XDP_REDIRECT);
	assert_int_equal(got, 0x99);
	assert_int_equal(upcnt(UPF_STAT_END_MARKER_SENT), em + 1);
	/* refused: a second uplink PDR; removing FAR 3 that PDR 2 names. Nothing changed. */
	sess_req(PFCP_SESS_MOD_REQ, 6, seid);
	Q.mod.has = PFCP_SMR_PDR;
	Q.mod.pdr[Q.mod.n_pdr++] = ulp;
	Q.mod.pdr[0].pdr_id = 12;
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_RULE_FAILURE);
	assert_int_equal(R.rsp.offending_ie, PFCP_IE_CREATE_PDR);
	assert_int_equal(R.rsp.failed_rule.type, PFCP_RULE_PDR);
	assert_int_equal(R.rsp.failed_rule.id, 12);
	sess_req(PFCP_SESS_MOD_REQ, 7, seid);
	mod_rm(Q.mod.rm_far, &Q.mod.n_rm_far, PFCP_SMR_RM_FAR, 3);
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_RULE_FAILURE);
	assert_int_equal(R.rsp.offending_ie, PFCP_IE_REMOVE_FAR);
	assert_int_equal(R.rsp.failed_rule.type, PFCP_RULE_FAR);
	assert_int_equal(R.rsp.failed_rule.id, 3);
	assert_int_equal(dl(&got), XDP_REDIRECT);
	assert_int_equal(got, 0x99);
	assert_int_equal(ul(teid, 0, 100), XDP_REDIRECT);
	/* FAR 3 replaced by FAR 4, BUFF: the downlink held */
	sess_req(PFCP_SESS_MOD_REQ, 8, seid);
	mod_far(4, 0);
	mod_upd_pdr_far(2, 4);
	mod_rm(Q.mod.rm_far, &Q.mod.n_rm_far, PFCP_SMR_RM_FAR, 3);
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	assert_int_not_equal(dl(&got), XDP_REDIRECT);
	upf_process(U);
	(void)report_rx();   /* its Downlink Data Report (NOCP) */
	report_answer();
	/* FAR 4 to FORW, TEID 0xaa, with DROBU: the held packet dropped, not sent */
	rel = upcnt(UPF_STAT_BUF_RELEASED);
	sess_req(PFCP_SESS_MOD_REQ, 9, seid);
	Q.mod.has = PFCP_SMR_UPD_FAR | PFCP_SMR_FLAGS;
	Q.mod.flags = PFCP_SMF_DROBU;
	Q.mod.n_upd_far = 1;
	far_gnb(&Q.mod.upd_far[0], 4, 0xaa);
	Q.mod.upd_far[0].fwd.has &= ~(uint32_t)PFCP_FWD_DEST_IF;
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	assert_int_equal(upcnt(UPF_STAT_BUF_RELEASED), rel);
	assert_int_equal(dl(&got), XDP_REDIRECT);
	assert_int_equal(got, 0xaa);
	assert_int_equal(ul(teid, 0, 100), XDP_REDIRECT);
	/* the downlink PDR re-created (same UE address, FAR 4) */
	sess_req(PFCP_SESS_MOD_REQ, 10, seid);
	mod_rm(Q.mod.rm_pdr, &Q.mod.n_rm_pdr, PFCP_SMR_RM_PDR, 2);
	Q.mod.has |= PFCP_SMR_PDR;
	d = &Q.mod.pdr[Q.mod.n_pdr++];
	d->has = PFCP_PDR_ID | PFCP_PDR_PRECEDENCE | PFCP_PDR_PDI | PFCP_PDR_FAR_ID;
	d->pdr_id = 12;
	d->precedence = 255;
	d->pdi.has = PFCP_PDI_SRC_IF;
	d->pdi.src_if = PFCP_IF_CORE;
	ue_ip(d, true);
	d->far_id = 4;
	refs(d, 1, one, 1, one);
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	assert_int_equal(dl(&got), XDP_REDIRECT);
	assert_int_equal(got, 0xaa);
}

/* The exchange through tshark's PFCP dissector: nothing malformed; the IEs asserted */
static int group_teardown(void **state)
{
	static const char *const want[] = {
		"pfcp.msg_type == 52 && pfcp.qer_id == 2 && pfcp.urr_id == 2",
		"pfcp.msg_type == 53 && pfcp.cause == 1 && pfcp.urr_id == 1 && pfcp.volume_measurement.ulvol == 51500",
		"pfcp.msg_type == 53 && pfcp.cause == 73 && pfcp.urr_id == 1",   /* Failed Rule ID: URR 1 */
		"pfcp.msg_type == 51 && pfcp.cause == 73 && pfcp.urr_id == 5",
		"pfcp.msg_type == 52 && pfcp.smreq_flags.qaurr == 1",
		"pfcp.msg_type == 53 && pfcp.cause == 1 && pfcp.pdr_id == 11 && pfcp.f_teid.teid",   /* Created PDR */
		"pfcp.msg_type == 52 && pfcp.smreq_flags.sndem == 1 && pfcp.outer_hdr_creation.teid == 0x99",
		"pfcp.msg_type == 52 && pfcp.smreq_flags.drobu == 1",
		"pfcp.msg_type == 53 && pfcp.cause == 73 && pfcp.far_id == 3",
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
	int rc = tn_require_root_bpf("upf_n4_mod");

	if (rc)
		return rc;
	tshark_path = argc > 1 ? argv[1] : "tshark";
	rc = tshark_require(tshark_path, "check the N4 exchange");
	if (rc)
		return rc;
	snprintf(pcap_path, sizeof(pcap_path), "%s/upf_n4_mod.pcap", argc > 2 ? argv[2] : ".");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(t_mod_rules, setup, teardown),
		cmocka_unit_test_setup_teardown(t_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(t_pdr_far, setup, teardown),
	};

	rc = cmocka_run_group_tests(tests, n4_fix_group_setup, group_teardown);
	return rc ? rc : teardown_failed;
}
