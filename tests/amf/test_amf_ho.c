/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * Intra-AMF N2 handover in process (issue 17 item 3; TS 23.502 4.9.1.3.2 / 4.9.1.3.3, TS 38.413
 * 8.4.1-8.4.3, 8.4.5-8.4.7, TS 33.501 6.9.2.3.3): the sm_fx AMF + SMF (real code) with gNB A
 * (ASSOC) and gNB B (ASSOC_B) after NG Setup, a UE with two sessions on A. The success path is
 * checked message by message, IE by IE: HANDOVER REQUEST on a new UE-associated connection with
 * NCC 2 and the NH computed here (A.10), the transfers decoded, the transparent containers
 * copied byte for byte, HANDOVER COMMAND, RAN status, NOTIFY, the source's release that leaves
 * the sessions on B, the UE's next NAS over B. Then every refusal and failure path, each its
 * own test, and the security rule (foreign IDs, the wrong association: nothing changes).
 * Built a second time with -DAMF_HO_TSHARK (amf_ho_tshark): tshark decodes what the AMF sent.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "amf/amf_int.h"
#include "mob_fx.h"
#include "testlib.h"
#include "tests/ngap/ngap_samples.h"

#ifndef TSHARK
#define TSHARK "/nonexistent/tshark"
#endif

#define RAN_A 2                 /* the UE's RAN UE NGAP ID on A after two_sessions */
#define GNB_ID_B (0x100 + ASSOC_B)

static const struct ngap_plmn PLMN = { { 0x00, 0xf1, 0x10 } };
static const uint8_t both[2] = { 1, 2 }, one[1] = { 1 }, two_only[1] = { 2 };

/* Valid transparent containers (tests/ngap samples), so tshark dissects them cleanly. */
static uint8_t s2t[128], t2s[64], rst[64];
static size_t s2t_len, t2s_len, rst_len;

static void keep(struct ngap_bytes b, uint8_t *dst, size_t cap, size_t *len)
{
	assert_true(b.len > 0 && b.len <= cap);
	memcpy(dst, b.p, b.len);
	*len = b.len;
}

static void containers(void)
{
	static struct ngap_msg m;

	for (int i = 0; i < ngap_sample_count(); i++) {
		ngap_sample(i, true, &m);
		if (m.type == NGAP_INITIATING && m.proc == NGAP_PROC_HANDOVER_PREPARATION)
			keep(m.u.handover_required.source_to_target, s2t, sizeof(s2t), &s2t_len);
		else if (m.type == NGAP_SUCCESSFUL && m.proc == NGAP_PROC_HANDOVER_RESOURCE_ALLOCATION)
			keep(m.u.handover_request_ack.target_to_source, t2s, sizeof(t2s), &t2s_len);
		else if (m.type == NGAP_INITIATING && m.proc == NGAP_PROC_UPLINK_RAN_STATUS_TRANSFER)
			keep(m.u.uplink_ran_status_transfer.container, rst, sizeof(rst), &rst_len);
	}
	assert_true(s2t_len && t2s_len && rst_len);
}

static struct ngap_msg G;

static struct ngap_msg *msg(uint8_t type, uint8_t proc)
{
	memset(&G, 0, sizeof(G));
	G.type = type;
	G.proc = proc;
	return &G;
}

/* HANDOVER REQUIRED (TS 38.413 9.2.3.1) on assoc with the given IDs, towards gnb_id / tac. */
static void required_ex(uint32_t assoc, uint64_t aid, uint32_t rid, uint32_t gnb_id, uint8_t tac, uint8_t type,
			const uint8_t *psis, unsigned n)
{
	static uint8_t tr[8][16];
	struct ngap_handover_required *r = &msg(NGAP_INITIATING, NGAP_PROC_HANDOVER_PREPARATION)->u.handover_required;
	struct ngap_ho_required_transfer t = { 0 };

	r->amf_ue_id = aid;
	r->ran_ue_id = rid;
	r->handover_type = type;
	r->cause = (struct ngap_cause){ NGAP_CAUSE_RADIO_NETWORK, 16 };   /* handover-desirable-for-radio-reason */
	r->target.ran_node_id = (struct ngap_global_ran_node_id){ NGAP_RAN_GNB, PLMN, gnb_id, 22 };
	r->target.tai.plmn = PLMN;
	r->target.tai.tac[2] = tac;
	r->n_sessions = (uint8_t)n;
	for (unsigned i = 0; i < n; i++) {
		int len = ngap_enc_ho_required_transfer(&t, tr[i], sizeof(tr[i]));

		assert_true(len > 0);
		r->sessions[i].id = psis[i];
		r->sessions[i].transfer = (struct ngap_bytes){ tr[i], (size_t)len };
	}
	r->source_to_target = (struct ngap_bytes){ s2t, s2t_len };
	h_send(&H, assoc, 1, &G);
}

static void required(const struct sue *ue, const uint8_t *psis, unsigned n)
{
	required_ex(ue->assoc, ue->amf_id, ue->ran_id, GNB_ID_B, 1, NGAP_HO_INTRA_5GS, psis, n);
}

/* The HANDOVER REQUEST just popped, every IE (TS 38.413 9.2.3.4): returns the leg's AMF UE NGAP ID. */
static uint64_t expect_request(const struct sue *ue, uint8_t ncc, const uint8_t nh[32], const uint8_t *psis,
			       unsigned n)
{
	static const uint8_t masked[8] = { 0x35, 0x34, 0x90, 0x06, 0x98, 0xff, 0xff, 0x19 };
	const struct ngap_handover_request *r = &H.m.u.handover_request;
	struct ngap_setup_request_transfer st;
	struct smf_sess_info si;

	h_expect(&H, NGAP_INITIATING, NGAP_PROC_HANDOVER_RESOURCE_ALLOCATION);
	assert_int_equal(H.cur.assoc, ASSOC_B);
	assert_true(H.cur.stream > 0);                     /* UE-associated: not stream 0 */
	assert_int_not_equal(r->amf_ue_id, ue->amf_id);   /* a connection of its own */
	assert_int_equal(r->handover_type, NGAP_HO_INTRA_5GS);
	assert_int_equal(r->cause.group, NGAP_CAUSE_RADIO_NETWORK);
	assert_int_equal(r->cause.value, 16);
	assert_true(r->ue_ambr.ul == mob_ics_ambr.ul && r->ue_ambr.dl == mob_ics_ambr.dl && r->ue_ambr.dl);
	assert_int_equal(r->ue_sec_cap.nr_enc, 0xe000);
	assert_int_equal(r->ue_sec_cap.nr_int, 0xe000);
	assert_int_equal(r->security_context.ncc, ncc);    /* TS 33.501 6.9.2.3.3 */
	assert_memory_equal(r->security_context.nh, nh, 32);
	assert_int_equal(r->n_sessions, n);
	for (unsigned i = 0; i < n; i++) {
		assert_int_equal(r->sessions[i].id, psis[i]);
		sess(ue, psis[i], &si);
		assert_true(r->sessions[i].has_snssai);
		assert_memory_equal(&r->sessions[i].snssai, &si.snssai, sizeof(si.snssai));
		assert_int_equal(ngap_dec_setup_request_transfer(r->sessions[i].transfer.p, r->sessions[i].transfer.len,
								 &st, NULL), 0);
		assert_memory_equal(st.ul_tunnel.addr, &(uint32_t){ ip4(N3_ADDR) }, 4);   /* the same UPF */
	}
	assert_int_equal(r->n_allowed_nssai, 2);
	assert_int_equal(r->allowed_nssai[0].sst, 1);
	assert_int_equal(r->allowed_nssai[1].sst, 2);
	assert_true(r->has_masked_imeisv);                 /* 9.3.1.54: SNR digits 11-14 all ones */
	assert_memory_equal(r->masked_imeisv, masked, 8);
	assert_int_equal(r->source_to_target.len, s2t_len);
	assert_memory_equal(r->source_to_target.p, s2t, s2t_len);
	assert_memory_equal(r->guami.plmn.v, PLMN.v, 3);
	assert_int_equal(r->guami.region, H.cfg.amf_region_id);
	assert_int_equal(r->guami.set_id, H.cfg.amf_set_id);
	return r->amf_ue_id;
}

/* HANDOVER REQUEST ACKNOWLEDGE from B (9.2.3.5): adm admitted (DL tunnel GNB_B 0xb00 + psi, the
 * default flow), fail refused (radio-resources-not-available). */
static uint8_t ack_bits = 32;   /* the DL tunnels' address length (128: IPv6, refused by our IPv4 N3) */

static void ack(uint64_t leg, uint32_t ran, const uint8_t *adm, unsigned n_adm, const uint8_t *fail, unsigned n_fail)
{
	static uint8_t tr[8][96];
	struct ngap_handover_request_ack *k = &msg(NGAP_SUCCESSFUL, NGAP_PROC_HANDOVER_RESOURCE_ALLOCATION)->u.handover_request_ack;
	uint32_t a = ip4(GNB_B);
	unsigned i;

	k->amf_ue_id = leg;
	k->ran_ue_id = ran;
	for (i = 0; i < n_adm; i++) {
		struct ngap_ho_request_ack_transfer t;
		int len;

		memset(&t, 0, sizeof(t));
		memcpy(t.dl_tunnel.addr, &a, 4);
		t.dl_tunnel.addr_bits = ack_bits;
		if (ack_bits == 128)
			memset(t.dl_tunnel.addr, 0x20, 16);
		t.dl_tunnel.teid[2] = 0x0b;
		t.dl_tunnel.teid[3] = adm[i];
		t.n_flows = 1;
		t.flows[0].qfi = 1;
		len = ngap_enc_ho_request_ack_transfer(&t, tr[i], sizeof(tr[i]));
		assert_true(len > 0);
		k->admitted[k->n_admitted].id = adm[i];
		k->admitted[k->n_admitted++].transfer = (struct ngap_bytes){ tr[i], (size_t)len };
	}
	for (i = 0; i < n_fail; i++) {
		struct ngap_ho_resource_alloc_unsuccessful_transfer t = { .cause = { NGAP_CAUSE_RADIO_NETWORK, 22 } };
		int len = ngap_enc_ho_resource_alloc_unsuccessful_transfer(&t, tr[4 + i], sizeof(tr[4 + i]));

		assert_true(len > 0);
		k->failed[k->n_failed].id = fail[i];
		k->failed[k->n_failed++].transfer = (struct ngap_bytes){ tr[4 + i], (size_t)len };
	}
	k->target_to_source = (struct ngap_bytes){ t2s, t2s_len };
	h_send(&H, ASSOC_B, 1, &G);
}

/* HANDOVER COMMAND to A (9.2.3.2): the UE's IDs, n handed over, n_rel to release, container copied. */
static void expect_command(const struct sue *ue, unsigned n, unsigned n_rel)
{
	const struct ngap_handover_command *c = &H.m.u.handover_command;
	struct ngap_ho_command_transfer ct;

	h_expect(&H, NGAP_SUCCESSFUL, NGAP_PROC_HANDOVER_PREPARATION);
	assert_int_equal(H.cur.assoc, ASSOC);
	assert_int_equal(c->amf_ue_id, ue->amf_id);
	assert_int_equal(c->ran_ue_id, ue->ran_id);
	assert_int_equal(c->handover_type, NGAP_HO_INTRA_5GS);
	assert_int_equal(c->n_sessions, n);
	for (unsigned i = 0; i < n; i++)
		assert_int_equal(ngap_dec_ho_command_transfer(c->sessions[i].transfer.p, c->sessions[i].transfer.len,
							      &ct, NULL), 0);
	assert_int_equal(c->n_release, n_rel);
	assert_int_equal(c->target_to_source.len, t2s_len);
	assert_memory_equal(c->target_to_source.p, t2s, t2s_len);
}

/* HANDOVER PREPARATION FAILURE to the UE on A with cause (9.2.3.3). */
static void expect_prep_failure(const struct sue *ue, uint8_t group, uint8_t value)
{
	const struct ngap_handover_preparation_failure *f = &H.m.u.handover_preparation_failure;

	h_expect(&H, NGAP_UNSUCCESSFUL, NGAP_PROC_HANDOVER_PREPARATION);
	assert_int_equal(H.cur.assoc, ue->assoc);
	assert_int_equal(f->amf_ue_id, ue->amf_id);
	assert_int_equal(f->ran_ue_id, ue->ran_id);
	assert_int_equal(f->cause.group, group);
	assert_int_equal(f->cause.value, value);
}

/* UE CONTEXT RELEASE COMMAND on assoc for (aid, rid; has_ran) with radioNetwork cause (9.2.2.5). */
static void expect_release_cmd(uint32_t assoc, uint64_t aid, bool has_ran, uint32_t rid, uint8_t cause)
{
	const struct ngap_ue_context_release_command *c = &H.m.u.ue_context_release_command;

	h_expect(&H, NGAP_INITIATING, NGAP_PROC_UE_CONTEXT_RELEASE);
	assert_int_equal(H.cur.assoc, assoc);
	assert_int_equal(c->amf_ue_id, aid);
	assert_int_equal(c->has_ran_ue_id, has_ran);
	if (has_ran)
		assert_int_equal(c->ran_ue_id, rid);
	assert_int_equal(c->cause.group, NGAP_CAUSE_RADIO_NETWORK);
	assert_int_equal(c->cause.value, cause);
}

static void expect_error_ind(uint32_t assoc, uint8_t group, uint8_t value)
{
	h_expect(&H, NGAP_INITIATING, NGAP_PROC_ERROR_INDICATION);
	assert_int_equal(H.cur.assoc, assoc);
	assert_true(H.m.u.error_indication.has_cause);
	assert_int_equal(H.m.u.error_indication.cause.group, group);
	assert_int_equal(H.m.u.error_indication.cause.value, value);
}

static void release_complete(uint32_t assoc, uint64_t aid, uint32_t rid)
{
	struct ngap_ue_context_release_complete *c = &msg(NGAP_SUCCESSFUL, NGAP_PROC_UE_CONTEXT_RELEASE)->u.ue_context_release_complete;

	c->amf_ue_id = aid;
	c->ran_ue_id = rid;
	h_send(&H, assoc, 1, &G);
	ev_run_once(H.loop, 0);
}

static void notify(uint32_t assoc, uint64_t aid, uint32_t rid)
{
	struct ngap_handover_notify *n = &msg(NGAP_INITIATING, NGAP_PROC_HANDOVER_NOTIFICATION)->u.handover_notify;

	n->amf_ue_id = aid;
	n->ran_ue_id = rid;
	n->uli.nr_cgi.plmn = PLMN;
	n->uli.nr_cgi.cell_id = 0x300001;
	n->uli.tai.plmn = PLMN;
	n->uli.tai.tac[2] = 1;
	h_send(&H, assoc, 1, &G);
}

static void cancel_from(uint32_t assoc, uint64_t aid, uint32_t rid)
{
	struct ngap_handover_cancel *c = &msg(NGAP_INITIATING, NGAP_PROC_HANDOVER_CANCEL)->u.handover_cancel;

	c->amf_ue_id = aid;
	c->ran_ue_id = rid;
	c->cause = (struct ngap_cause){ NGAP_CAUSE_RADIO_NETWORK, 10 };   /* tngrelocprep-expiry */
	h_send(&H, assoc, 1, &G);
}

static void expect_cancel_ack(uint32_t assoc, uint64_t aid, uint32_t rid)
{
	h_expect(&H, NGAP_SUCCESSFUL, NGAP_PROC_HANDOVER_CANCEL);
	assert_int_equal(H.cur.assoc, assoc);
	assert_int_equal(H.m.u.handover_cancel_ack.amf_ue_id, aid);
	assert_int_equal(H.m.u.handover_cancel_ack.ran_ue_id, rid);
}

static void ul_status(uint32_t assoc, uint64_t aid, uint32_t rid)
{
	struct ngap_ran_status_transfer *s = &msg(NGAP_INITIATING, NGAP_PROC_UPLINK_RAN_STATUS_TRANSFER)->u.uplink_ran_status_transfer;

	s->amf_ue_id = aid;
	s->ran_ue_id = rid;
	s->container = (struct ngap_bytes){ rst, rst_len };
	h_send(&H, assoc, 1, &G);
}

static struct amf_stats stats(void)
{
	struct amf_stats st;

	amf_get_stats(H.amf, &st);
	return st;
}

/* The common start: B with both slices, the UE with two sessions on A, NH_2 computed. */
static void start(struct sue *ue, bool b_two, uint8_t nh2[32])
{
	uint8_t kgnb[32], nh1[32];

	containers();
	h_ng_setup_slices(&H, ASSOC_B, 1, b_two);
	two_sessions(ue, kgnb);
	nh_ref(ue->kamf, kgnb, nh1);
	nh_ref(ue->kamf, nh1, nh2);
}

/* HANDOVER REQUIRED for both sessions, the REQUEST checked (NCC ncc, NH nh), both admitted by B,
 * the COMMAND checked: the handover is prepared. Returns the leg's AMF UE NGAP ID. */
static uint64_t prepared(const struct sue *ue, uint8_t ncc, const uint8_t nh[32])
{
	uint64_t leg;

	required(ue, both, 2);
	leg = expect_request(ue, ncc, nh, both, 2);
	ack(leg, RAN_B, both, 2, NULL, 0);
	expect_command(ue, 2, 0);
	return leg;
}

/* The handover went nowhere: the UE, its connection and tunnels are on A as before. */
static void still_on_a(struct sue *ue)
{
	dl_tunnel_is(ue, 1, GNB_ADDR, 0x201);
	dl_tunnel_is(ue, 2, GNB_ADDR, 0x202);
	ue_on(ue, ASSOC, RAN_A);
	assert_int_equal(h_pending(&H), 0);
	nas_reaches(ue);
}

/* The whole success path (TS 23.502 4.9.1.3.2 + 4.9.1.3.3, TS 38.413 8.4.1-8.4.3, 8.4.6-8.4.7). */
static void test_success(void **state)
{
	struct sue ue;
	uint8_t nh2[32];
	uint64_t leg, src_id;
	struct amf_ue_info info;
	struct amf_stats st;

	(void)state;
	start(&ue, true, nh2);
	required(&ue, both, 2);
	leg = expect_request(&ue, 2, nh2, both, 2);
	assert_int_equal(h_pending(&H), 0);
	ack(leg, RAN_B, both, 2, NULL, 0);
	expect_command(&ue, 2, 0);
	assert_int_equal(h_pending(&H), 0);
	/* 8.4.6 / 8.4.7: the PDCP status goes to the target leg, as it came */
	ul_status(ASSOC, ue.amf_id, ue.ran_id);
	h_expect(&H, NGAP_INITIATING, NGAP_PROC_DOWNLINK_RAN_STATUS_TRANSFER);
	assert_int_equal(H.cur.assoc, ASSOC_B);
	assert_int_equal(H.m.u.downlink_ran_status_transfer.amf_ue_id, leg);
	assert_int_equal(H.m.u.downlink_ran_status_transfer.ran_ue_id, RAN_B);
	assert_int_equal(H.m.u.downlink_ran_status_transfer.container.len, rst_len);
	assert_memory_equal(H.m.u.downlink_ran_status_transfer.container.p, rst, rst_len);
	/* until NOTIFY the downlink stays with the source */
	dl_tunnel_is(&ue, 1, GNB_ADDR, 0x201);
	ue_on(&ue, ASSOC, RAN_A);

	notify(ASSOC_B, leg, RAN_B);
	/* 4.9.1.3.3 step 21a: the source's context goes, cause successful-handover */
	expect_release_cmd(ASSOC, ue.amf_id, true, RAN_A, 2);
	assert_int_equal(h_pending(&H), 0);
	dl_tunnel_is(&ue, 1, GNB_B, 0xb01);
	dl_tunnel_is(&ue, 2, GNB_B, 0xb02);
	assert_int_equal(amf_ue_info_by_supi(H.amf, ue.supi, &info), 0);
	assert_int_equal(info.amf_ue_ngap_id, leg);          /* the leg is the UE's connection now */
	assert_int_equal(info.assoc, ASSOC_B);
	assert_int_equal(info.ran_ue_ngap_id, RAN_B);
	src_id = ue.amf_id;
	/* the source's RELEASE COMPLETE frees that leg only: sessions stay active on B */
	release_complete(ASSOC, src_id, RAN_A);
	assert_int_equal(h_pending(&H), 0);
	dl_tunnel_is(&ue, 1, GNB_B, 0xb01);
	dl_tunnel_is(&ue, 2, GNB_B, 0xb02);
	assert_int_equal(amf_gnb_ue_count(H.amf, ASSOC), 0);
	ue.assoc = ASSOC_B;
	ue.ran_id = RAN_B;
	ue.amf_id = leg;
	ue_on(&ue, ASSOC_B, RAN_B);
	nas_reaches(&ue);                                     /* the next NAS goes over B */
	st = stats();
	assert_int_equal(st.ho_required, 1);
	assert_int_equal(st.ho_commands, 1);
	assert_int_equal(st.ho_notified, 1);
	assert_int_equal(st.ho_prep_failed, 0);
	assert_int_equal(st.ho_cancelled, 0);
	/* the old source IDs are gone: a late message on them changes nothing */
	cancel_from(ASSOC, src_id, RAN_A);
	expect_error_ind(ASSOC, NGAP_CAUSE_RADIO_NETWORK, 14);
	assert_int_equal(h_pending(&H), 0);
}

/* Security rule (TS 38.413 10.6): HANDOVER REQUIRED, NOTIFY, CANCEL and RAN STATUS with foreign
 * IDs or from the wrong association get an Error Indication and change nothing. */
static void test_foreign_ids(void **state)
{
	struct sue ue;
	uint8_t nh2[32];
	uint64_t leg;

	(void)state;
	start(&ue, true, nh2);
	/* REQUIRED: wrong RAN UE NGAP ID on A; the UE's IDs from B; an ID never given */
	required_ex(ASSOC, ue.amf_id, RAN_A + 1, GNB_ID_B, 1, NGAP_HO_INTRA_5GS, both, 2);
	expect_error_ind(ASSOC, NGAP_CAUSE_RADIO_NETWORK, 15);
	required_ex(ASSOC_B, ue.amf_id, RAN_A, GNB_ID_B, 1, NGAP_HO_INTRA_5GS, both, 2);
	expect_error_ind(ASSOC_B, NGAP_CAUSE_RADIO_NETWORK, 14);
	required_ex(ASSOC, 999999, RAN_A, GNB_ID_B, 1, NGAP_HO_INTRA_5GS, both, 2);
	expect_error_ind(ASSOC, NGAP_CAUSE_RADIO_NETWORK, 14);
	assert_int_equal(h_pending(&H), 0);
	assert_int_equal(stats().ho_required, 0);
	/* RAN STATUS and CANCEL with no handover, NOTIFY naming the UE: nothing happens */
	ul_status(ASSOC, ue.amf_id, ue.ran_id);
	expect_error_ind(ASSOC, NGAP_CAUSE_PROTOCOL, 3);   /* 8.4.6: not in this state */
	notify(ASSOC_B, ue.amf_id, RAN_B);
	expect_error_ind(ASSOC_B, NGAP_CAUSE_RADIO_NETWORK, 14);

	/* a real handover: the same checks while it runs */
	required(&ue, both, 2);
	leg = expect_request(&ue, 2, nh2, both, 2);
	notify(ASSOC_B, leg, RAN_B);                       /* before the acknowledge */
	expect_error_ind(ASSOC_B, NGAP_CAUSE_PROTOCOL, 3);
	ack(leg, RAN_B, both, 2, NULL, 0);
	expect_command(&ue, 2, 0);
	notify(ASSOC, leg, RAN_B);                         /* the leg's ID from the wrong gNB */
	expect_error_ind(ASSOC, NGAP_CAUSE_RADIO_NETWORK, 14);
	notify(ASSOC_B, leg, RAN_B + 1);                   /* the wrong RAN UE NGAP ID */
	expect_error_ind(ASSOC_B, NGAP_CAUSE_RADIO_NETWORK, 15);
	cancel_from(ASSOC_B, leg, RAN_B);                  /* the target cannot cancel */
	expect_error_ind(ASSOC_B, NGAP_CAUSE_RADIO_NETWORK, 14);
	cancel_from(ASSOC, ue.amf_id, RAN_A + 7);
	expect_error_ind(ASSOC, NGAP_CAUSE_RADIO_NETWORK, 15);
	ul_status(ASSOC_B, leg, RAN_B);                    /* status from the target */
	expect_error_ind(ASSOC_B, NGAP_CAUSE_RADIO_NETWORK, 14);
	ack(leg, RAN_B, both, 2, NULL, 0);                 /* a second acknowledge */
	expect_error_ind(ASSOC_B, NGAP_CAUSE_PROTOCOL, 3);
	assert_int_equal(h_pending(&H), 0);
	dl_tunnel_is(&ue, 1, GNB_ADDR, 0x201);
	ue_on(&ue, ASSOC, RAN_A);
	assert_true(stats().ho_refused >= 10);
	/* none of it changed the handover: it completes */
	notify(ASSOC_B, leg, RAN_B);
	expect_release_cmd(ASSOC, ue.amf_id, true, RAN_A, 2);
	dl_tunnel_is(&ue, 1, GNB_B, 0xb01);
	dl_tunnel_is(&ue, 2, GNB_B, 0xb02);
}

/* TS 38.413 8.4.1.3 / 9.3.1.2: an unknown target (unknown-targetID), a TAI the target does not
 * serve and a handover to EPS (ho-target-not-allowed): PREPARATION FAILURE, nothing sent to B,
 * the NH chain not advanced. */
static void test_unknown_target(void **state)
{
	struct sue ue;
	uint8_t nh2[32];

	(void)state;
	start(&ue, true, nh2);
	required_ex(ue.assoc, ue.amf_id, ue.ran_id, 0x3abc, 1, NGAP_HO_INTRA_5GS, both, 2);
	expect_prep_failure(&ue, NGAP_CAUSE_RADIO_NETWORK, 12);
	required_ex(ue.assoc, ue.amf_id, ue.ran_id, GNB_ID_B, 2, NGAP_HO_INTRA_5GS, both, 2);
	expect_prep_failure(&ue, NGAP_CAUSE_RADIO_NETWORK, 8);
	required_ex(ue.assoc, ue.amf_id, ue.ran_id, GNB_ID_B, 1, NGAP_HO_5GS_TO_EPS, both, 2);
	expect_prep_failure(&ue, NGAP_CAUSE_RADIO_NETWORK, 8);
	assert_int_equal(stats().ho_prep_failed_target, 3);
	still_on_a(&ue);
	required(&ue, both, 2);
	expect_request(&ue, 2, nh2, both, 2);   /* NCC 2: the failures took nothing from the chain */
}

/* TS 23.502 4.9.1.3.2: a UE mid-registration (no AS security) and a UE whose release runs are
 * refused with message-not-compatible-with-receiver-state; so is a second HANDOVER REQUIRED while
 * one is being prepared (which goes on). */
static void test_ue_state(void **state)
{
	struct sue ue, u2;
	struct nas_msg smc;
	uint8_t nh2[32];
	uint64_t leg;

	(void)state;
	start(&ue, true, nh2);
	sue_init(&u2, "0000000002", ASSOC, 9);
	sue_to_smc(&H, &u2, &smc);
	required(&u2, one, 1);
	expect_prep_failure(&u2, NGAP_CAUSE_PROTOCOL, 3);
	required(&ue, both, 2);
	leg = expect_request(&ue, 2, nh2, both, 2);
	required(&ue, both, 2);
	expect_prep_failure(&ue, NGAP_CAUSE_PROTOCOL, 3);
	assert_int_equal(h_pending(&H), 0);
	ack(leg, RAN_B, both, 2, NULL, 0);
	expect_command(&ue, 2, 0);
	assert_int_equal(stats().ho_prep_failed_state, 2);
}

/* No session to hand over (unknown-PDU-session-ID), a PSI listed twice (TS 38.413 8.4.1.4:
 * multiple-PDU-session-ID-instances): PREPARATION FAILURE, nothing to B. */
static void test_no_session(void **state)
{
	static const uint8_t twice[2] = { 1, 1 }, unknown[1] = { 5 };
	struct sue ue, u2;
	uint8_t nh2[32];

	(void)state;
	start(&ue, true, nh2);
	registered(&u2, "0000000002", 9);
	required(&u2, one, 1);
	expect_prep_failure(&u2, NGAP_CAUSE_RADIO_NETWORK, 26);
	required(&ue, twice, 2);
	expect_prep_failure(&ue, NGAP_CAUSE_RADIO_NETWORK, 28);
	required(&ue, unknown, 1);   /* a PSI the UE does not have: none preparable */
	expect_prep_failure(&ue, NGAP_CAUSE_RADIO_NETWORK, 7);
	assert_int_equal(stats().ho_prep_failed_sessions, 1);
	gnb_release_req(&u2);
	still_on_a(&ue);
}

/* TS 23.502 4.9.1.3.2 step 4 (as 4.9.1.2.2 step 1b): B serves slice 1 only. psi 2 is left out of
 * HANDOVER REQUEST, listed in ToReleaseListHOCmd (slice-not-supported) and released by the network
 * over B once the UE is there; psi 1 moves. Only psi 2 asked for: PREPARATION FAILURE. */
static void test_slice_left_out(void **state)
{
	const struct ngap_handover_command *c = &H.m.u.handover_command;
	struct ngap_cause_transfer ct;
	struct sue ue;
	struct nas_msg dl, gsm;
	struct smf_sess_info si;
	uint8_t nh2[32], nh3[32];
	uint64_t leg;

	(void)state;
	start(&ue, false, nh2);
	nh_ref(ue.kamf, nh2, nh3);
	required(&ue, two_only, 1);
	expect_prep_failure(&ue, NGAP_CAUSE_RADIO_NETWORK, 39);
	assert_int_equal(h_pending(&H), 0);
	required(&ue, both, 2);
	leg = expect_request(&ue, 2, nh2, one, 1);
	ack(leg, RAN_B, one, 1, NULL, 0);
	expect_command(&ue, 1, 1);
	assert_int_equal(c->sessions[0].id, 1);
	assert_int_equal(c->release[0].id, 2);
	assert_int_equal(ngap_dec_cause_transfer(c->release[0].transfer.p, c->release[0].transfer.len, &ct, NULL), 0);
	assert_int_equal(ct.cause.value, 39);
	notify(ASSOC_B, leg, RAN_B);
	expect_release_cmd(ASSOC, ue.amf_id, true, RAN_A, 2);
	ue.assoc = ASSOC_B;
	ue.ran_id = RAN_B;
	ue.amf_id = leg;
	/* the network's release of psi 2 reaches the UE over B (N1 only: B holds nothing for it) */
	assert_int_equal(sue_dl(&H, &ue, &dl), NGAP_PROC_DOWNLINK_NAS_TRANSPORT);
	inner_gsm(&dl, 2, &gsm);
	assert_int_equal(gsm.type, NAS_PDU_SESSION_RELEASE_COMMAND);
	assert_int_equal(gsm.pdu_rel_cmd.cause, NAS_5GSM_INSUFFICIENT_RESOURCES_SLICE);
	sess(&ue, 2, &si);
	assert_false(si.up_active);
	dl_tunnel_is(&ue, 1, GNB_B, 0xb01);
	(void)nh3;
}

/* ho-prep (TS 23.502 4.9.1.3.2; the AMF's side of TNGRELOCprep): B never answers. PREPARATION
 * FAILURE, the sessions as before; the late acknowledge gets a UE CONTEXT RELEASE COMMAND
 * (handover-cancelled) and its RELEASE COMPLETE changes nothing. */
static void test_prep_guard(void **state)
{
	struct sue ue;
	uint8_t nh2[32];
	uint64_t leg;

	(void)state;
	start(&ue, true, nh2);
	required(&ue, both, 2);
	leg = expect_request(&ue, 2, nh2, both, 2);
	h_run_until_tx(&H, 1000);
	expect_prep_failure(&ue, NGAP_CAUSE_RADIO_NETWORK, 7);
	assert_int_equal(stats().ho_guard_expired, 1);
	assert_int_equal(stats().ho_prep_failed_guard, 1);
	ack(leg, RAN_B, both, 2, NULL, 0);
	expect_release_cmd(ASSOC_B, leg, true, RAN_B, 5);
	release_complete(ASSOC_B, leg, RAN_B);
	still_on_a(&ue);
	nh_ref(ue.kamf, nh2, nh2);
	prepared(&ue, 3, nh2);   /* the SMF had let the sessions go (smf_ho_cancel): a new one runs */
}

/* TS 38.413 8.4.2.3 / 8.4.1.3: HANDOVER FAILURE from B: smf_ho_cancel, PREPARATION FAILURE to A
 * with B's cause; the next handover works. */
static void test_target_failure(void **state)
{
	struct sue ue;
	uint8_t nh2[32], nh3[32];
	uint64_t leg;
	struct ngap_handover_failure *f;

	(void)state;
	start(&ue, true, nh2);
	nh_ref(ue.kamf, nh2, nh3);
	required(&ue, both, 2);
	leg = expect_request(&ue, 2, nh2, both, 2);
	f = &msg(NGAP_UNSUCCESSFUL, NGAP_PROC_HANDOVER_RESOURCE_ALLOCATION)->u.handover_failure;
	f->amf_ue_id = leg;
	f->cause = (struct ngap_cause){ NGAP_CAUSE_RADIO_NETWORK, 13 };   /* no-radio-resources-available-in-target-cell */
	h_send(&H, ASSOC_B, 1, &G);
	expect_prep_failure(&ue, NGAP_CAUSE_RADIO_NETWORK, 13);
	assert_int_equal(stats().ho_prep_failed_refused, 1);
	still_on_a(&ue);
	required(&ue, both, 2);
	leg = expect_request(&ue, 3, nh3, both, 2);
	ack(leg, RAN_B + 1, both, 2, NULL, 0);
	expect_command(&ue, 2, 0);
}

/* TS 38.413 8.4.1.3: an acknowledge whose sessions the SMF cannot take (IPv6 tunnels to our IPv4
 * N3): PREPARATION FAILURE to A, the target's
 * new context released; one that admits psi 1 only: psi 2 in ToReleaseListHOCmd with the target's
 * cause, released after the handover (TS 23.502 4.9.1.3.2 step 10). */
static void test_admission(void **state)
{
	const struct ngap_handover_command *c = &H.m.u.handover_command;
	struct ngap_cause_transfer ct;
	struct sue ue;
	struct nas_msg dl, gsm;
	uint8_t nh2[32], nh3[32];
	uint64_t leg;

	(void)state;
	start(&ue, true, nh2);
	nh_ref(ue.kamf, nh2, nh3);
	required(&ue, both, 2);
	leg = expect_request(&ue, 2, nh2, both, 2);
	ack_bits = 128;                                /* both admitted on IPv6: the SMF takes neither */
	ack(leg, RAN_B, both, 2, NULL, 0);
	ack_bits = 32;
	expect_release_cmd(ASSOC_B, leg, true, RAN_B, 5);
	expect_prep_failure(&ue, NGAP_CAUSE_RADIO_NETWORK, 7);
	release_complete(ASSOC_B, leg, RAN_B);
	still_on_a(&ue);

	required(&ue, both, 2);
	leg = expect_request(&ue, 3, nh3, both, 2);
	ack(leg, RAN_B, one, 1, two_only, 1);
	expect_command(&ue, 1, 1);
	assert_int_equal(c->release[0].id, 2);
	assert_int_equal(ngap_dec_cause_transfer(c->release[0].transfer.p, c->release[0].transfer.len, &ct, NULL), 0);
	assert_int_equal(ct.cause.value, 22);   /* the target's, carried back */
	notify(ASSOC_B, leg, RAN_B);
	expect_release_cmd(ASSOC, ue.amf_id, true, RAN_A, 2);
	ue.assoc = ASSOC_B;
	ue.ran_id = RAN_B;
	ue.amf_id = leg;
	assert_int_equal(sue_dl(&H, &ue, &dl), NGAP_PROC_DOWNLINK_NAS_TRANSPORT);
	inner_gsm(&dl, 2, &gsm);
	assert_int_equal(gsm.type, NAS_PDU_SESSION_RELEASE_COMMAND);
	dl_tunnel_is(&ue, 1, GNB_B, 0xb01);
}

/* TS 38.413 8.4.5.2: HANDOVER CANCEL while preparing and once prepared: the target's context
 * released (handover-cancelled), CANCEL ACKNOWLEDGE, the sessions as before. After NOTIFY a cancel
 * is acknowledged and changes nothing. */
static void test_cancel(void **state)
{
	struct sue ue;
	uint8_t nh2[32], nh3[32], nh4[32];
	uint64_t leg;

	(void)state;
	start(&ue, true, nh2);
	nh_ref(ue.kamf, nh2, nh3);
	nh_ref(ue.kamf, nh3, nh4);
	required(&ue, both, 2);
	leg = expect_request(&ue, 2, nh2, both, 2);
	cancel_from(ASSOC, ue.amf_id, ue.ran_id);
	expect_release_cmd(ASSOC_B, leg, false, 0, 5);   /* no RAN UE NGAP ID yet: the AMF's alone */
	expect_cancel_ack(ASSOC, ue.amf_id, ue.ran_id);
	still_on_a(&ue);

	leg = prepared(&ue, 3, nh3);
	cancel_from(ASSOC, ue.amf_id, ue.ran_id);
	expect_release_cmd(ASSOC_B, leg, true, RAN_B, 5);
	expect_cancel_ack(ASSOC, ue.amf_id, ue.ran_id);
	notify(ASSOC_B, leg, RAN_B);                      /* the UE arrived anyway: released there */
	expect_release_cmd(ASSOC_B, leg, true, RAN_B, 5);
	release_complete(ASSOC_B, leg, RAN_B);
	still_on_a(&ue);
	assert_int_equal(stats().ho_cancelled, 2);

	leg = prepared(&ue, 4, nh4);
	notify(ASSOC_B, leg, RAN_B);
	expect_release_cmd(ASSOC, ue.amf_id, true, RAN_A, 2);
	cancel_from(ASSOC, ue.amf_id, RAN_A);             /* the source, too late */
	expect_cancel_ack(ASSOC, ue.amf_id, RAN_A);
	assert_int_equal(h_pending(&H), 0);
	dl_tunnel_is(&ue, 1, GNB_B, 0xb01);
	assert_int_equal(stats().ho_cancelled, 2);
}

/* ho-overall (TS 23.502 4.9.1.3.3; the AMF's side of TNGRELOCoverall): no NOTIFY after the
 * command: cancelled, the target's context released; the UE stays on A. */
static void test_overall_guard(void **state)
{
	struct sue ue;
	uint8_t nh2[32];
	uint64_t leg;

	(void)state;
	start(&ue, true, nh2);
	leg = prepared(&ue, 2, nh2);
	h_run_until_tx(&H, 1000);
	expect_release_cmd(ASSOC_B, leg, true, RAN_B, 5);
	assert_int_equal(stats().ho_guard_expired, 1);
	release_complete(ASSOC_B, leg, RAN_B);
	still_on_a(&ue);
	nh_ref(ue.kamf, nh2, nh2);
	prepared(&ue, 3, nh2);   /* smf_ho_cancel ran: the sessions can be handed over again */
}

/* Association losses (TS 23.502 4.9.1.3.3, 4.2.6): the source lost while preparing (the target's
 * context released, the UE CM-IDLE with its sessions) and after the command (NOTIFY still
 * completes it; nothing to release on A); the target lost while preparing (PREPARATION FAILURE). */
static void test_losses(void **state)
{
	struct sue ue;
	struct amf_ue_info info;
	uint8_t nh2[32], nh3[32];
	uint64_t leg;

	(void)state;
	start(&ue, true, nh2);
	nh_ref(ue.kamf, nh2, nh3);
	required(&ue, both, 2);
	leg = expect_request(&ue, 2, nh2, both, 2);
	amf_n2_assoc_down(H.amf, ASSOC_B);
	expect_prep_failure(&ue, NGAP_CAUSE_RADIO_NETWORK, 7);
	still_on_a(&ue);

	h_ng_setup_slices(&H, ASSOC_B, 1, true);
	leg = prepared(&ue, 3, nh3);
	amf_n2_assoc_down(H.amf, ASSOC);
	assert_int_equal(h_pending(&H), 0);
	dl_tunnel_is(&ue, 1, GNB_ADDR, 0x201);         /* no AN release: NOTIFY awaited */
	notify(ASSOC_B, leg, RAN_B);
	assert_int_equal(h_pending(&H), 0);            /* no source to release */
	dl_tunnel_is(&ue, 1, GNB_B, 0xb01);
	dl_tunnel_is(&ue, 2, GNB_B, 0xb02);
	ue.assoc = ASSOC_B;
	ue.ran_id = RAN_B;
	ue.amf_id = leg;
	ue_on(&ue, ASSOC_B, RAN_B);
	nas_reaches(&ue);

	/* B (now the source) lost while preparing towards A: target leg released, UE idle */
	h_ng_setup(&H, ASSOC);
	required_ex(ASSOC_B, leg, RAN_B, 0x100 + ASSOC, 1, NGAP_HO_INTRA_5GS, both, 2);
	h_expect(&H, NGAP_INITIATING, NGAP_PROC_HANDOVER_RESOURCE_ALLOCATION);
	assert_int_equal(H.cur.assoc, ASSOC);
	leg = H.m.u.handover_request.amf_ue_id;
	amf_n2_assoc_down(H.amf, ASSOC_B);
	expect_release_cmd(ASSOC, leg, false, 0, 5);
	assert_int_equal(amf_ue_info_by_supi(H.amf, ue.supi, &info), 0);
	assert_int_equal(info.cm, AMF_CM_IDLE);
	assert_int_equal(info.psi_map, 1u << 1 | 1u << 2);
}

/* A UE CONTEXT RELEASE REQUEST from the source during the handover cancels it (TS 23.502
 * 4.9.1.4): the target's context released, then the UE's; no overall guard left behind. */
static void test_release_request(void **state)
{
	struct sue ue;
	struct amf_ue_info info;
	uint8_t nh2[32];
	uint64_t leg;
	struct ngap_ue_context_release_request *r;

	(void)state;
	start(&ue, true, nh2);
	leg = prepared(&ue, 2, nh2);
	r = &msg(NGAP_INITIATING, NGAP_PROC_UE_CONTEXT_RELEASE_REQUEST)->u.ue_context_release_request;
	r->amf_ue_id = ue.amf_id;
	r->ran_ue_id = ue.ran_id;
	r->cause = (struct ngap_cause){ NGAP_CAUSE_RADIO_NETWORK, 21 };   /* radio-connection-with-ue-lost */
	h_send(&H, ASSOC, 1, &G);
	expect_release_cmd(ASSOC_B, leg, true, RAN_B, 5);
	expect_release_cmd(ASSOC, ue.amf_id, true, RAN_A, 21);
	sue_release_complete(&H, &ue);
	release_complete(ASSOC_B, leg, RAN_B);
	assert_int_equal(h_pending(&H), 0);
	assert_int_equal(amf_ue_info_by_supi(H.amf, ue.supi, &info), 0);
	assert_int_equal(info.cm, AMF_CM_IDLE);
	assert_int_equal(info.psi_map, 1u << 1 | 1u << 2);
	h_run_until_tx(&H, 100);                       /* ho-overall is not running */
	assert_int_equal(h_pending(&H), 0);
	assert_int_equal(stats().ho_guard_expired, 0);
}

/* A PDU session released by the UE while the handover is prepared (TS 23.502 4.9.1.3.2: the SMF
 * answers -ENOENT): the handover of the other goes on and completes. */
static void test_release_race(void **state)
{
	struct sue ue;
	uint8_t nh2[32];
	uint64_t leg;

	(void)state;
	start(&ue, true, nh2);
	required(&ue, both, 2);
	leg = expect_request(&ue, 2, nh2, both, 2);
	release_session(&ue, 2);                       /* request, commands, responses, complete */
	assert_int_equal(h_pending(&H), 0);
	{
		struct amf_ue_info info;

		assert_int_equal(amf_ue_info_by_supi(H.amf, ue.supi, &info), 0);
		assert_int_equal(info.psi_map, 1u << 1);   /* gone from the SMF */
	}
	ack(leg, RAN_B, both, 2, NULL, 0);
	expect_command(&ue, 1, 1);
	assert_int_equal(H.m.u.handover_command.release[0].id, 2);
	notify(ASSOC_B, leg, RAN_B);
	expect_release_cmd(ASSOC, ue.amf_id, true, RAN_A, 2);
	assert_int_equal(h_pending(&H), 0);
	dl_tunnel_is(&ue, 1, GNB_B, 0xb01);
	pool_used("ims", 0);
}

/* A deregistration while the handover is prepared (TS 24.501 5.5.2.2.2, TS 23.502 4.9.1.4): the
 * sessions go locally, the UE's connection is released and the handover with it: the target's
 * context released, no guard left running, the context gone. */
static void test_dereg(void **state)
{
	struct sue ue;
	struct nas_msg dl;
	struct amf_ue_info info;
	uint8_t nh2[32];
	uint64_t leg;

	(void)state;
	start(&ue, true, nh2);
	leg = prepared(&ue, 2, nh2);
	sue_dereg(&H, &ue, 0x01);
	assert_int_equal(sue_dl(&H, &ue, &dl), NGAP_PROC_DOWNLINK_NAS_TRANSPORT);
	assert_int_equal(dl.type, NAS_DEREGISTRATION_ACCEPT_UE_ORIG);
	h_expect(&H, NGAP_INITIATING, NGAP_PROC_UE_CONTEXT_RELEASE);
	assert_int_equal(H.cur.assoc, ASSOC);
	assert_int_equal(h_pending(&H), 0);
	sue_release_complete(&H, &ue);
	expect_release_cmd(ASSOC_B, leg, true, RAN_B, 5);
	release_complete(ASSOC_B, leg, RAN_B);
	assert_int_equal(sessions(), 0);
	assert_int_not_equal(amf_ue_info_by_supi(H.amf, ue.supi, &info), 0);
	h_run_until_tx(&H, 100);
	assert_int_equal(h_pending(&H), 0);
	assert_int_equal(stats().ho_cancelled, 1);
}

/* The FSM table (ho_fsm.c) is the one amf/README.md shows. */
static void test_table(void **state)
{
	static char buf[4096], readme[65536];
	FILE *f = fopen(SOLOCORE_SOURCE_ROOT "/amf/README.md", "r");
	size_t n;
	char *a, *b;

	(void)state;
	assert_non_null(f);
	n = fread(readme, 1, sizeof(readme) - 1, f);
	fclose(f);
	readme[n] = '\0';
	assert_true(amf_ho_table_print(buf, sizeof(buf)) > 0);
	a = strstr(readme, "<!-- ho-table begin -->\n```\n");
	b = a ? strstr(a, "```\n<!-- ho-table end -->") : NULL;
	if (a)
		a += strlen("<!-- ho-table begin -->\n```\n");
	if (!b || (size_t)(b - a) != strlen(buf) || memcmp(a, buf, strlen(buf)) != 0) {
		fprintf(stderr, "amf/README.md's ho table differs; it is:\n%s", buf);
		fail();
	}
}

/* Every message the AMF sends in these procedures into a pcap: tshark finds nothing malformed and
 * reads the procedure codes and key IEs back. */
static void test_tshark(void **state)
{
	static const char *const names[] = {
		"HandoverRequest$", "HandoverCommand", "HandoverPreparationFailure", "DownlinkRANStatusTransfer",
		"HandoverCancelAcknowledge", "UEContextReleaseCommand", "nextHopChainingCount: 2",
		"PDUSessionResourceSetupListHOReq", "PDUSessionResourceHandoverList", "PDUSessionResourceToReleaseListHOCmd",
		"unknown-targetID", "successful-handover", "handover-cancelled", "ErrorIndication",
		"inconsistent-remote-UE-NGAP-ID", "slice-not-supported\\|radio-resources-not-available", "MaskedIMEISV: 3534900698ffff19",
	};
	char path[] = "/tmp/solocore-amf-ho-XXXXXX.pcap", grep[128];
	struct sue ue;
	uint8_t nh2[32], nh3[32];
	uint64_t leg;
	unsigned i;

	(void)state;
	mob_pcap_start(path);
	start(&ue, true, nh2);
	nh_ref(ue.kamf, nh2, nh3);
	required_ex(ue.assoc, ue.amf_id, ue.ran_id, 0x3abc, 1, NGAP_HO_INTRA_5GS, both, 2);
	expect_prep_failure(&ue, NGAP_CAUSE_RADIO_NETWORK, 12);
	required_ex(ue.assoc, ue.amf_id, ue.ran_id + 1, GNB_ID_B, 1, NGAP_HO_INTRA_5GS, both, 2);
	expect_error_ind(ASSOC, NGAP_CAUSE_RADIO_NETWORK, 15);
	required(&ue, both, 2);
	leg = expect_request(&ue, 2, nh2, both, 2);
	cancel_from(ASSOC, ue.amf_id, ue.ran_id);
	expect_release_cmd(ASSOC_B, leg, false, 0, 5);
	expect_cancel_ack(ASSOC, ue.amf_id, ue.ran_id);
	required(&ue, both, 2);
	leg = expect_request(&ue, 3, nh3, both, 2);
	ack(leg, RAN_B, one, 1, two_only, 1);
	expect_command(&ue, 1, 1);
	ul_status(ASSOC, ue.amf_id, ue.ran_id);
	h_expect(&H, NGAP_INITIATING, NGAP_PROC_DOWNLINK_RAN_STATUS_TRANSFER);
	notify(ASSOC_B, leg, RAN_B);
	expect_release_cmd(ASSOC, ue.amf_id, true, RAN_A, 2);
	mob_pcap_clean(TSHARK, path);
	/* the procedure codes of what the AMF sent: 13 request, 12 command / failure, 7 DL status,
	 * 10 cancel acknowledge, 41 release */
	assert_int_equal(tshark_lines(TSHARK, path, "-Y 'ngap.procedureCode == 13 && ngap.initiatingMessage_element'",
				      NULL), 2);
	assert_int_equal(tshark_lines(TSHARK, path, "-Y 'ngap.procedureCode == 7'", NULL), 1);
	assert_int_equal(tshark_lines(TSHARK, path, "-Y 'ngap.procedureCode == 10 && ngap.successfulOutcome_element'",
				      NULL), 1);
	assert_int_equal(tshark_lines(TSHARK, path, "-Y 'ngap.procedureCode == 12 && ngap.successfulOutcome_element'",
				      NULL), 1);
	assert_int_equal(tshark_lines(TSHARK, path, "-Y 'ngap.procedureCode == 12 && ngap.unsuccessfulOutcome_element'",
				      NULL), 1);
	/* 41: the fixture's idle step, to B after the cancel (AMF UE NGAP ID alone), to A after NOTIFY */
	assert_int_equal(tshark_lines(TSHARK, path, "-Y 'ngap.procedureCode == 41 && ngap.initiatingMessage_element'",
				      NULL), 3);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(grep, sizeof(grep), "grep -m1 '%s'", names[i]);
		if (tshark_lines(TSHARK, path, TSHARK_NULL_DECIPHER " -V", grep) != 1)
			fail_msg("tshark -V shows no '%s'", names[i]);
	}
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_success, setup, teardown),
		cmocka_unit_test_setup_teardown(test_foreign_ids, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_target, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ue_state, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_session, setup, teardown),
		cmocka_unit_test_setup_teardown(test_slice_left_out, setup, teardown),
		cmocka_unit_test_setup_teardown(test_prep_guard, setup, teardown),
		cmocka_unit_test_setup_teardown(test_target_failure, setup, teardown),
		cmocka_unit_test_setup_teardown(test_admission, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cancel, setup, teardown),
		cmocka_unit_test_setup_teardown(test_overall_guard, setup, teardown),
		cmocka_unit_test_setup_teardown(test_losses, setup, teardown),
		cmocka_unit_test_setup_teardown(test_release_request, setup, teardown),
		cmocka_unit_test_setup_teardown(test_release_race, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dereg, setup, teardown),
		cmocka_unit_test(test_table),
	};
	const struct CMUnitTest tshark_tests[] = {
		cmocka_unit_test_setup_teardown(test_tshark, setup, teardown),
	};

#ifdef AMF_HO_TSHARK
	(void)tests;
	if (tshark_require(TSHARK, "decode the N2 pcap of the handover procedures"))
		return 77;
	return cmocka_run_group_tests_name("amf_ho_tshark", tshark_tests, NULL, NULL);
#else
	(void)tshark_tests;
	return cmocka_run_group_tests_name("amf_ho", tests, NULL, NULL);
#endif
}
