/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * SMF side of the N2 handover (TS 23.502 4.9.1.3.2-4.9.1.3.4, TS 38.413 8.4.1-8.4.3, 8.4.5;
 * smf/smf_ho.c): each smf_ho_* call's success and error returns, the transfers decoded back field
 * by field (9.3.4.1 as Handover Request Transfer, 9.3.4.10, 9.3.4.18), direct and indirect data
 * forwarding, the forwarding guard on the ev loop, and every teardown racing a handover.
 *
 *   test_smf_ho           the SMF with no UPF attached (every rule operation counted in upf_skipped)
 *   test_smf_ho upf       the same calls against the real UPF (XDP program and maps loaded,
 *                         UPF_XDP_NONE): its answers prove the forwarding tunnel exists or not;
 *                         needs root and BPF, exits 77 otherwise
 *   test_smf_ho tshark T DIR  the Handover Command Transfer and the Handover Preparation
 *                         Unsuccessful Transfer inside a HANDOVER COMMAND, read back by tshark T;
 *                         exits 77 without tshark
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "smf_fx.h"
#include "testlib.h"
#include "upf/upf.h"

#define TGT_ADDR "192.0.2.90"      /* target gNB N3 */
#define TGT_TEID 0x7000AA01u
#define FWD_ADDR "192.0.2.91"      /* target gNB DL forwarding tunnel */
#define FWD_TEID 0x7000BB02u

static struct upf *upf;            /* "upf" mode only */
static const char *tshark, *workdir;

static uint32_t teid32(const uint8_t t[4])
{
	return (uint32_t)t[0] << 24 | (uint32_t)t[1] << 16 | (uint32_t)t[2] << 8 | t[3];
}

static void tun(struct ngap_gtp_tunnel *t, const char *addr, uint8_t bits, uint32_t teid)
{
	uint32_t a = fx_ip(addr);

	memset(t, 0, sizeof(*t));
	memcpy(t->addr, &a, 4);
	if (bits == 128)
		memset(t->addr, 0x20, 16);
	t->addr_bits = bits;
	t->teid[0] = (uint8_t)(teid >> 24);
	t->teid[1] = (uint8_t)(teid >> 16);
	t->teid[2] = (uint8_t)(teid >> 8);
	t->teid[3] = (uint8_t)teid;
}

/* Handover Required Transfer (9.3.4.13) */
static size_t req_tr(uint8_t *buf, size_t cap, bool direct)
{
	struct ngap_ho_required_transfer t = { .has_direct_forwarding = direct };
	int n = ngap_enc_ho_required_transfer(&t, buf, cap);

	assert_true(n > 0);
	return (size_t)n;
}

/* What the target answers in its Handover Request Acknowledge Transfer (9.3.4.11). */
struct ack_opt {
	uint8_t bits;              /* DL tunnel address bits; 0: 32 */
	bool fwd;                  /* dLForwardingUP-TNLInformation offered */
	uint8_t fwd_bits;          /* 0: 32 */
	uint8_t n_flows;           /* 0: one, QFI 1 */
	uint8_t qfi[4];
	bool fwd_ok[4];            /* dataForwardingAccepted per flow */
	uint8_t n_drbs;
	bool zero_dl, zero_fwd;    /* 0.0.0.0 as the DL / forwarding tunnel address */
};

static size_t ack_tr(uint8_t *buf, size_t cap, const struct ack_opt *o)
{
	struct ngap_ho_request_ack_transfer t;
	int n;

	memset(&t, 0, sizeof(t));
	tun(&t.dl_tunnel, TGT_ADDR, o->bits ? o->bits : 32, TGT_TEID);
	t.has_dl_forwarding = o->fwd;
	if (o->fwd)
		tun(&t.dl_forwarding, FWD_ADDR, o->fwd_bits ? o->fwd_bits : 32, FWD_TEID);
	t.n_flows = o->n_flows ? o->n_flows : 1;
	for (unsigned i = 0; i < t.n_flows; i++) {
		t.flows[i].qfi = o->n_flows ? o->qfi[i] : 1;
		t.flows[i].forwarding_accepted = o->n_flows ? o->fwd_ok[i] : o->fwd;
	}
	if (o->zero_dl)
		memset(t.dl_tunnel.addr, 0, 4);
	if (o->zero_fwd)
		memset(t.dl_forwarding.addr, 0, 4);
	t.n_drbs = o->n_drbs;
	for (unsigned i = 0; i < o->n_drbs; i++) {
		t.drbs[i].drb_id = (uint8_t)(i + 1);
		t.drbs[i].has_dl = true;
		tun(&t.drbs[i].dl, FWD_ADDR, 32, FWD_TEID + 0x10 + i);
	}
	n = ngap_enc_ho_request_ack_transfer(&t, buf, cap);
	assert_true(n > 0);
	return (size_t)n;
}

static struct smf_stats stats(const struct fx *f)
{
	struct smf_stats st;

	smf_get_stats(f->smf, &st);
	return st;
}

static struct smf_sess_info info_of(const struct fx *f, uint8_t psi)
{
	struct smf_sess_info i;

	assert_int_equal(smf_sess_info(f->smf, f->ue1, psi, &i), 0);
	return i;
}

/* out holds a Handover Preparation Unsuccessful Transfer (9.3.4.18) for psi with this cause */
static void expect_prep_failed(const struct fx *f, uint8_t psi, uint8_t group, uint8_t value)
{
	struct ngap_cause_transfer ct;

	assert_int_equal(f->out.n2_proc, SMF_N2_HO_PREP_FAILED);
	assert_int_equal(f->out.psi, psi);
	assert_int_equal(f->out.n1_len, 0);
	assert_int_equal(ngap_dec_cause_transfer(f->out.n2, f->out.n2_len, &ct, NULL), 0);
	assert_int_equal(ct.cause.group, group);
	assert_int_equal(ct.cause.value, value);
}

static void prepare(struct fx *f, uint8_t psi, bool direct)
{
	uint8_t b[32];
	size_t n = req_tr(b, sizeof(b), false);

	assert_int_equal(smf_ho_prepare(f->smf, f->ue1, psi, b, n, direct, &f->out), 0);
	assert_int_equal(f->out.n2_proc, SMF_N2_HO_REQUEST);
}

static void admit(struct fx *f, uint8_t psi, const struct ack_opt *o)
{
	uint8_t b[256];
	size_t n = ack_tr(b, sizeof(b), o);

	assert_int_equal(smf_ho_admitted(f->smf, f->ue1, psi, b, n, &f->out), 0);
	assert_int_equal(f->out.n2_proc, SMF_N2_HO_COMMAND);
}

static void dec_cmd(const struct fx *f, struct ngap_ho_command_transfer *c)
{
	assert_int_equal(f->out.n2_proc, SMF_N2_HO_COMMAND);
	assert_int_equal(ngap_dec_ho_command_transfer(f->out.n2, f->out.n2_len, c, NULL), 0);
}

/* TS 23.502 4.9.1.3.2 steps 3-4 / TS 38.413 9.3.4.1: the Handover Request Transfer is the session's
 * Setup Request Transfer (UL tunnel unchanged, session-AMBR, PDU session type, QoS flow); the UPF is
 * not touched while preparing. */
static void test_prepare(void **state)
{
	struct fx *f = fx_new(16, 15);
	struct ngap_setup_request_transfer t;
	struct smf_sess_info info, i;
	uint32_t n3 = fx_ip(N3_ADDR);
	uint64_t u0;

	(void)state;
	fx_establish(f, f->ue1, 1, "internet", &info);
	u0 = stats(f).upf_skipped;
	prepare(f, 1, false);
	assert_int_equal(f->out.psi, 1);
	assert_int_equal(f->out.n1_len, 0);
	assert_int_equal(f->out.snssai.sst, 1);
	assert_true(f->out.snssai.has_sd);
	assert_memory_equal(f->out.snssai.sd, ((const uint8_t[]){ 1, 2, 3 }), 3);
	assert_int_equal(ngap_dec_setup_request_transfer(f->out.n2, f->out.n2_len, &t, NULL), 0);
	assert_true(t.has_session_ambr);
	assert_int_equal(t.session_ambr.ul, info.ambr_ul_bps);
	assert_int_equal(t.session_ambr.dl, info.ambr_dl_bps);
	assert_int_equal(t.ul_tunnel.addr_bits, 32);
	assert_memory_equal(t.ul_tunnel.addr, &n3, 4);
	assert_int_equal(teid32(t.ul_tunnel.teid), info.ul_teid);
	assert_int_equal(t.pdu_session_type, NGAP_PDU_IPV4);
	assert_int_equal(t.n_flows, 1);
	assert_int_equal(t.flows[0].qfi, 1);
	assert_int_equal(t.flows[0].five_qi, info.five_qi);
	assert_int_equal(t.flows[0].arp_priority, info.arp);
	i = info_of(f, 1);
	assert_int_equal(i.ho_state, SMF_HO_PREPARING);
	assert_false(i.ho_direct);
	assert_int_equal(i.gnb_teid, info.gnb_teid);    /* still on the source */
	assert_int_equal(i.fwd_teid, 0);
	assert_int_equal(stats(f).ho_prepared, 1);
	assert_int_equal(stats(f).upf_skipped, u0);    /* no rule operation */
	/* direct from the transfer's DirectForwardingPathAvailability (9.3.4.13) alone */
	uint8_t b[32];
	size_t n = req_tr(b, sizeof(b), true);
	fx_establish(f, f->ue1, 2, "internet", &info);
	assert_int_equal(smf_ho_prepare(f->smf, f->ue1, 2, b, n, false, &f->out), 0);
	assert_true(info_of(f, 2).ho_direct);
	fx_free(f);
}

/* Every refusal of prepare: nothing changed, a Handover Preparation Unsuccessful Transfer with the
 * cause (TS 38.413 8.4.1.2: the AMF lists the session in ToReleaseListHOCmd). */
static void test_prepare_errors(void **state)
{
	struct fx *f = fx_new(16, 15);
	struct smf_sess_info info;
	struct smf_stats s0;
	uint8_t b[32], small[8];
	struct smf_out tiny;
	size_t n = req_tr(b, sizeof(b), false);

	(void)state;
	fx_establish(f, f->ue1, 1, "internet", &info);
	assert_int_equal(smf_ho_prepare(f->smf, f->ue1, 4, b, n, false, &f->out), -ENOENT);
	expect_prep_failed(f, 4, NGAP_CAUSE_RADIO_NETWORK, 26);   /* unknown-PDU-session-ID */
	s0 = stats(f);
	assert_int_equal(smf_ho_prepare(f->smf, f->ue1, 1, b, 0, false, &f->out), -EBADMSG);
	expect_prep_failed(f, 1, NGAP_CAUSE_PROTOCOL, NGAP_CAUSE_PROT_SEMANTIC_ERROR);
	assert_int_equal(smf_ho_prepare(f->smf, f->ue1, 1, NULL, 0, false, &f->out), -EBADMSG);
	assert_int_equal(stats(f).n2_bad, s0.n2_bad + 2);
	assert_int_equal(info_of(f, 1).ho_state, SMF_HO_NONE);
	/* out too small: nothing in it */
	smf_out_init(&tiny, small, sizeof(small), small, sizeof(small));
	assert_int_equal(smf_ho_prepare(f->smf, f->ue1, 1, b, n, false, &tiny), -ENOSPC);
	assert_int_equal(smf_ho_prepare(f->smf, f->ue1, 1, b, n, false, NULL), -ENOSPC);
	assert_int_equal(info_of(f, 1).ho_state, SMF_HO_NONE);
	/* already in a handover */
	prepare(f, 1, false);
	assert_int_equal(smf_ho_prepare(f->smf, f->ue1, 1, b, n, true, &f->out), -EBUSY);
	expect_prep_failed(f, 1, NGAP_CAUSE_RADIO_NETWORK, 25);   /* interaction-with-other-procedure */
	assert_false(info_of(f, 1).ho_direct);          /* the first preparation unchanged */
	assert_int_equal(stats(f).ho_prepared, 1);
	/* a modification running (TS 24.501 6.3.2): not while it waits for the UE */
	fx_establish(f, f->ue1, 2, "internet", &info);
	assert_int_equal(smf_modify_ambr(f->smf, f->ue1, 2, 1000000, 2000000), 0);
	s0 = stats(f);
	assert_int_equal(smf_ho_prepare(f->smf, f->ue1, 2, b, n, false, &f->out), -EPROTO);
	expect_prep_failed(f, 2, NGAP_CAUSE_PROTOCOL, NGAP_CAUSE_PROT_MESSAGE_NOT_COMPATIBLE_WITH_RECEIVER_STATE);
	assert_int_equal(stats(f).n2_unexpected, s0.n2_unexpected + 1);
	/* an establishment waiting for the gNB */
	assert_int_equal(fx_est(f, f->ue1, &(struct est_opt){ .psi = 3, .pti = 3 }), 0);
	assert_int_equal(smf_ho_prepare(f->smf, f->ue1, 3, b, n, false, &f->out), -EPROTO);
	/* and no user plane (AN released): the handover has nothing to move */
	fx_establish(f, f->ue2, 1, "internet", &info);
	assert_int_equal(smf_up_deactivate(f->smf, f->ue2), 1);
	assert_int_equal(smf_ho_prepare(f->smf, f->ue2, 1, b, n, false, &f->out), -EPROTO);
	assert_int_equal(stats(f).ho_prepared, 1);
	/* the modification of a session in a handover waits (the policy retries it after) */
	assert_int_equal(smf_modify_ambr(f->smf, f->ue1, 1, 1000000, 2000000), -EBUSY);
	assert_int_equal(info_of(f, 1).state, SMF_ST_ACTIVE);
	fx_free(f);
}

/* TS 23.502 4.9.1.3.2 step 11 / TS 38.413 9.3.4.10, direct forwarding: the source sends to the
 * target's own DL forwarding tunnel (and its per-DRB tunnels); the flows listed are those the target
 * accepted forwarding for. HANDOVER NOTIFY: one UPF rule update to the target's tunnel. */
static void test_direct(void **state)
{
	struct fx *f = fx_new(16, 15);
	struct ngap_ho_command_transfer c;
	struct smf_sess_info info, i;
	uint32_t fw = fx_ip(FWD_ADDR);
	uint64_t u0;

	(void)state;
	fx_establish(f, f->ue1, 1, "internet", &info);
	prepare(f, 1, true);
	u0 = stats(f).upf_skipped;
	admit(f, 1, &(struct ack_opt){ .fwd = true, .n_flows = 2, .qfi = { 1, 2 }, .fwd_ok = { true, false },
				       .n_drbs = 2 });
	assert_int_equal(f->out.psi, 1);
	dec_cmd(f, &c);
	assert_true(c.has_dl_forwarding);
	assert_int_equal(c.dl_forwarding.addr_bits, 32);
	assert_memory_equal(c.dl_forwarding.addr, &fw, 4);
	assert_int_equal(teid32(c.dl_forwarding.teid), FWD_TEID);
	assert_int_equal(c.n_flows, 1);
	assert_int_equal(c.qfis[0], 1);
	assert_int_equal(c.n_drbs, 2);
	assert_int_equal(c.drbs[1].drb_id, 2);
	assert_int_equal(teid32(c.drbs[1].dl.teid), FWD_TEID + 0x11);
	i = info_of(f, 1);
	assert_int_equal(i.ho_state, SMF_HO_ADMITTED);
	assert_int_equal(i.ho_gnb_addr, fx_ip(TGT_ADDR));
	assert_int_equal(i.ho_gnb_teid, TGT_TEID);
	assert_int_equal(i.gnb_teid, info.gnb_teid);    /* downlink still to the source */
	assert_int_equal(i.fwd_teid, 0);
	assert_int_equal(stats(f).fwd_created, 0);
	assert_int_equal(stats(f).upf_skipped, u0);    /* nothing for the UPF in direct forwarding */
	assert_int_equal(smf_ho_complete(f->smf, f->ue1, 1), 0);
	assert_int_equal(stats(f).upf_skipped, u0 + 1);    /* one rule update */
	i = info_of(f, 1);
	assert_int_equal(i.gnb_addr, fx_ip(TGT_ADDR));
	assert_int_equal(i.gnb_teid, TGT_TEID);
	assert_int_equal(i.ul_teid, info.ul_teid);
	assert_int_equal(i.ue_addr, info.ue_addr);
	assert_int_equal(i.ho_state, SMF_HO_NONE);
	assert_int_equal(i.ho_gnb_teid, 0);
	assert_true(i.up_active);
	assert_int_equal(stats(f).ho_completed, 1);
	assert_int_equal(smf_ho_end(f->smf, f->ue1, 1), -EALREADY);    /* no forwarding tunnel */
	assert_int_equal(smf_ho_complete(f->smf, f->ue1, 1), -EPROTO); /* a second notify */
	fx_free(f);
}

/* TS 23.502 4.9.1.3.2 step 9-11 / 4.9.1.3.3, indirect forwarding (no direct path): the UPF relays
 * from UPF_FWD_TEID(session) on our N3 to the target's forwarding tunnel; the tunnel outlives the
 * notify until the source's release (smf_ho_end, step 21a). With no UPF every operation is counted. */
static void test_indirect(void **state)
{
	struct fx *f = fx_new(16, 15);
	struct ngap_ho_command_transfer c;
	struct smf_sess_info info;
	uint32_t n3 = fx_ip(N3_ADDR);
	uint64_t u0;

	(void)state;
	fx_establish(f, f->ue1, 1, "internet", &info);
	prepare(f, 1, false);
	u0 = stats(f).upf_skipped;
	admit(f, 1, &(struct ack_opt){ .fwd = true, .n_drbs = 1 });
	dec_cmd(f, &c);
	assert_true(c.has_dl_forwarding);
	assert_memory_equal(c.dl_forwarding.addr, &n3, 4);
	assert_int_equal(teid32(c.dl_forwarding.teid), UPF_FWD_TEID(info.session_id));
	assert_int_equal(c.n_flows, 1);
	assert_int_equal(c.qfis[0], 1);
	assert_int_equal(c.n_drbs, 0);     /* per-DRB tunnels are the target's: not through our UPF */
	assert_int_equal(stats(f).fwd_created, 1);
	assert_int_equal(stats(f).upf_skipped, u0 + 1);    /* the forwarding tunnel, no UPF */
	assert_int_equal(info_of(f, 1).fwd_teid, UPF_FWD_TEID(info.session_id));
	assert_int_equal(smf_ho_end(f->smf, f->ue1, 1), -EPROTO);    /* not notified yet */
	assert_int_equal(smf_ho_complete(f->smf, f->ue1, 1), 0);
	assert_int_equal(info_of(f, 1).fwd_teid, UPF_FWD_TEID(info.session_id));   /* still relaying */
	assert_int_equal(stats(f).fwd_removed, 0);
	assert_int_equal(smf_ho_end(f->smf, f->ue1, 1), 0);
	assert_int_equal(info_of(f, 1).fwd_teid, 0);
	assert_int_equal(stats(f).fwd_removed, 1);
	assert_int_equal(smf_ho_end(f->smf, f->ue1, 1), -EALREADY);
	assert_int_equal(smf_ho_end(f->smf, f->ue1, 7), -ENOENT);
	assert_int_equal(stats(f).ho_cancelled, 0);
	/* a second handover of the same session works the same */
	prepare(f, 1, false);
	admit(f, 1, &(struct ack_opt){ .fwd = true });
	assert_int_equal(smf_ho_complete(f->smf, f->ue1, 1), 0);
	assert_int_equal(stats(f).fwd_created, 2);
	assert_int_equal(stats(f).ho_completed, 2);
	fx_free(f);
}

/* TS 38.413 9.3.4.11: no forwarding the SMF can use (none offered, no flow accepted, an IPv6-only
 * tunnel our IPv4 N3 cannot reach, 0.0.0.0): the Handover Command Transfer carries no tunnel, no
 * flows. */
static void test_no_forwarding(void **state)
{
	static const struct ack_opt opts[] = {
		{ .fwd = false },
		{ .fwd = true, .n_flows = 1, .qfi = { 1 }, .fwd_ok = { false } },
		{ .fwd = true, .fwd_bits = 128 },
		{ .fwd = true, .zero_fwd = true },
	};
	struct fx *f = fx_new(16, 15);
	struct ngap_ho_command_transfer c;
	struct smf_sess_info info;

	(void)state;
	fx_establish(f, f->ue1, 1, "internet", &info);
	for (unsigned k = 0; k < sizeof(opts) / sizeof(opts[0]); k++) {
		for (int direct = 0; direct < 2; direct++) {
			prepare(f, 1, direct);
			admit(f, 1, &opts[k]);
			dec_cmd(f, &c);
			assert_false(c.has_dl_forwarding);
			assert_int_equal(c.n_flows, 0);
			assert_int_equal(info_of(f, 1).fwd_teid, 0);
			assert_int_equal(smf_ho_complete(f->smf, f->ue1, 1), 0);
		}
	}
	assert_int_equal(stats(f).fwd_created, 0);
	assert_int_equal(stats(f).ho_completed, 8);
	fx_free(f);
}

/* Every refused acknowledge: the session leaves the handover (cancelled), stays on the source,
 * and the AMF gets a Handover Preparation Unsuccessful Transfer for ToReleaseListHOCmd. */
static void test_admit_errors(void **state)
{
	struct fx *f = fx_new(16, 15);
	struct smf_sess_info info, i;
	struct smf_stats s0;
	uint8_t b[256];
	size_t n;

	(void)state;
	fx_establish(f, f->ue1, 1, "internet", &info);
	n = ack_tr(b, sizeof(b), &(struct ack_opt){ .fwd = true });
	assert_int_equal(smf_ho_admitted(f->smf, f->ue1, 3, b, n, &f->out), -ENOENT);
	expect_prep_failed(f, 3, NGAP_CAUSE_RADIO_NETWORK, 26);
	s0 = stats(f);
	/* not preparing */
	assert_int_equal(smf_ho_admitted(f->smf, f->ue1, 1, b, n, &f->out), -EPROTO);
	expect_prep_failed(f, 1, NGAP_CAUSE_PROTOCOL, NGAP_CAUSE_PROT_MESSAGE_NOT_COMPATIBLE_WITH_RECEIVER_STATE);
	assert_int_equal(stats(f).n2_unexpected, s0.n2_unexpected + 1);
	assert_int_equal(stats(f).fwd_created, 0);
	/* undecodable */
	prepare(f, 1, false);
	assert_int_equal(smf_ho_admitted(f->smf, f->ue1, 1, b, n - 1, &f->out), -EBADMSG);
	expect_prep_failed(f, 1, NGAP_CAUSE_PROTOCOL, NGAP_CAUSE_PROT_SEMANTIC_ERROR);
	assert_int_equal(stats(f).n2_bad, s0.n2_bad + 1);
	assert_int_equal(info_of(f, 1).ho_state, SMF_HO_NONE);
	assert_int_equal(stats(f).ho_cancelled, 1);
	/* the target's N3 is IPv6 only */
	prepare(f, 1, false);
	n = ack_tr(b, sizeof(b), &(struct ack_opt){ .bits = 128, .fwd = true });
	assert_int_equal(smf_ho_admitted(f->smf, f->ue1, 1, b, n, &f->out), -EINVAL);
	expect_prep_failed(f, 1, NGAP_CAUSE_TRANSPORT, 1);
	assert_int_equal(info_of(f, 1).ho_state, SMF_HO_NONE);
	/* the target's N3 address 0.0.0.0 */
	prepare(f, 1, false);
	n = ack_tr(b, sizeof(b), &(struct ack_opt){ .zero_dl = true });
	assert_int_equal(smf_ho_admitted(f->smf, f->ue1, 1, b, n, &f->out), -EINVAL);
	assert_int_equal(info_of(f, 1).ho_state, SMF_HO_NONE);
	/* the default QoS flow not admitted (only QFI 5) */
	prepare(f, 1, false);
	n = ack_tr(b, sizeof(b), &(struct ack_opt){ .fwd = true, .n_flows = 1, .qfi = { 5 }, .fwd_ok = { true } });
	assert_int_equal(smf_ho_admitted(f->smf, f->ue1, 1, b, n, &f->out), -EINVAL);
	assert_int_equal(info_of(f, 1).ho_state, SMF_HO_NONE);
	assert_int_equal(stats(f).ho_cancelled, 4);
	assert_int_equal(stats(f).fwd_created, 0);
	/* the session is as before on the source; a later notify is refused */
	assert_int_equal(smf_ho_complete(f->smf, f->ue1, 1), -EPROTO);
	i = info_of(f, 1);
	assert_int_equal(i.gnb_addr, info.gnb_addr);
	assert_int_equal(i.gnb_teid, info.gnb_teid);
	assert_int_equal(i.state, SMF_ST_ACTIVE);
	/* a second acknowledge after the first: refused, and the session leaves the handover (the
	 * forwarding tunnel of the first removed) */
	prepare(f, 1, false);
	admit(f, 1, &(struct ack_opt){ .fwd = true });
	n = ack_tr(b, sizeof(b), &(struct ack_opt){ .fwd = true });
	assert_int_equal(smf_ho_admitted(f->smf, f->ue1, 1, b, n, &f->out), -EPROTO);
	assert_int_equal(info_of(f, 1).ho_state, SMF_HO_NONE);
	assert_int_equal(stats(f).fwd_removed, stats(f).fwd_created);
	fx_free(f);
}

/* TS 23.502 4.9.1.3.2 step 10 / TS 38.413 9.3.4.19 -> 9.3.4.18: a session the target did not admit
 * leaves the handover with the target's cause (or the AMF's when there is no transfer). */
static void test_not_admitted(void **state)
{
	struct fx *f = fx_new(16, 15);
	/* radio-resources-not-available (22) from the target; slice-not-supported (39) from the AMF */
	struct ngap_ho_resource_alloc_unsuccessful_transfer u = { .cause = { NGAP_CAUSE_RADIO_NETWORK, 22 } };
	const struct ngap_cause slice = { NGAP_CAUSE_RADIO_NETWORK, 39 };
	struct smf_sess_info info;
	struct smf_stats s0;
	uint8_t b[64];
	int n;

	(void)state;
	fx_establish(f, f->ue1, 1, "internet", &info);
	n = ngap_enc_ho_resource_alloc_unsuccessful_transfer(&u, b, sizeof(b));
	assert_true(n > 0);
	assert_int_equal(smf_ho_not_admitted(f->smf, f->ue1, 2, b, (size_t)n, NULL, &f->out), -ENOENT);
	expect_prep_failed(f, 2, NGAP_CAUSE_RADIO_NETWORK, 26);
	/* not in a handover: nothing to leave, answered all the same */
	assert_int_equal(smf_ho_not_admitted(f->smf, f->ue1, 1, NULL, 0, &slice, &f->out), -EPROTO);
	expect_prep_failed(f, 1, NGAP_CAUSE_RADIO_NETWORK, 39);
	/* the target's transfer: its cause */
	prepare(f, 1, false);
	assert_int_equal(smf_ho_not_admitted(f->smf, f->ue1, 1, b, (size_t)n, &slice, &f->out), 0);
	expect_prep_failed(f, 1, NGAP_CAUSE_RADIO_NETWORK, 22);
	assert_int_equal(info_of(f, 1).ho_state, SMF_HO_NONE);
	assert_int_equal(stats(f).ho_cancelled, 1);
	/* not listed by the target (slice not served there): the AMF's cause */
	prepare(f, 1, false);
	assert_int_equal(smf_ho_not_admitted(f->smf, f->ue1, 1, NULL, 0, &slice, &f->out), 0);
	expect_prep_failed(f, 1, NGAP_CAUSE_RADIO_NETWORK, 39);
	/* an undecodable transfer: counted, still not admitted */
	prepare(f, 1, false);
	s0 = stats(f);
	assert_int_equal(smf_ho_not_admitted(f->smf, f->ue1, 1, b, 1, NULL, &f->out), 0);
	expect_prep_failed(f, 1, NGAP_CAUSE_RADIO_NETWORK, NGAP_CAUSE_RN_UNSPECIFIED);
	assert_int_equal(stats(f).n2_bad, s0.n2_bad + 1);
	assert_int_equal(stats(f).ho_cancelled, 3);
	assert_int_equal(info_of(f, 1).gnb_teid, info.gnb_teid);
	/* the UE moves with session 2 only: session 1 has nothing at the target, the AMF deactivates
	 * its user plane (TS 23.502 4.9.1.3.3), downlink then waits for a service request */
	fx_establish(f, f->ue1, 2, "internet", &info);
	prepare(f, 1, false);
	prepare(f, 2, false);
	assert_int_equal(smf_ho_not_admitted(f->smf, f->ue1, 1, NULL, 0, &slice, &f->out), 0);
	admit(f, 2, &(struct ack_opt){ .fwd = true });
	assert_int_equal(smf_ho_complete(f->smf, f->ue1, 2), 0);
	assert_int_equal(smf_path_switch_drop(f->smf, f->ue1, 1, &slice, &f->out), 0);
	assert_false(info_of(f, 1).up_active);
	assert_true(info_of(f, 2).up_active);
	assert_int_equal(info_of(f, 2).gnb_teid, TGT_TEID);
	smf_upf_dl_data(f->smf, info_of(f, 1).session_id);
	assert_int_equal(f->dl_data, 1);
	assert_int_equal(f->dl_psi, 1);
	fx_free(f);
}

/* TS 23.502 4.9.1.3.4 / TS 38.413 8.4.5: HANDOVER CANCEL before the notify: the target's tunnel
 * forgotten, a forwarding tunnel removed, the session as it was; then a new handover works. */
static void test_cancel(void **state)
{
	struct fx *f = fx_new(16, 15);
	struct smf_sess_info info, i;
	uint64_t u0;

	(void)state;
	fx_establish(f, f->ue1, 1, "internet", &info);
	assert_int_equal(smf_ho_cancel(f->smf, f->ue1, 1), -EPROTO);
	assert_int_equal(smf_ho_cancel(f->smf, f->ue1, 9), -ENOENT);
	prepare(f, 1, false);
	assert_int_equal(smf_ho_cancel(f->smf, f->ue1, 1), 0);
	assert_int_equal(info_of(f, 1).ho_state, SMF_HO_NONE);
	prepare(f, 1, false);
	admit(f, 1, &(struct ack_opt){ .fwd = true });
	u0 = stats(f).upf_skipped;
	assert_int_equal(smf_ho_cancel(f->smf, f->ue1, 1), 0);
	assert_int_equal(stats(f).upf_skipped, u0 + 1);    /* the forwarding tunnel removed, no rule update */
	assert_int_equal(stats(f).fwd_removed, 1);
	assert_int_equal(stats(f).ho_cancelled, 2);
	i = info_of(f, 1);
	assert_int_equal(i.ho_state, SMF_HO_NONE);
	assert_int_equal(i.fwd_teid, 0);
	assert_int_equal(i.ho_gnb_teid, 0);
	assert_int_equal(i.gnb_teid, info.gnb_teid);
	assert_int_equal(smf_ho_cancel(f->smf, f->ue1, 1), -EPROTO);
	assert_int_equal(smf_ho_complete(f->smf, f->ue1, 1), -EPROTO);
	assert_int_equal(smf_ho_end(f->smf, f->ue1, 1), -EALREADY);
	prepare(f, 1, false);
	admit(f, 1, &(struct ack_opt){ .fwd = true });
	assert_int_equal(smf_ho_complete(f->smf, f->ue1, 1), 0);
	assert_int_equal(info_of(f, 1).gnb_teid, TGT_TEID);
	fx_free(f);
}

/* TS 23.502 4.9.1.3.3: the notify of a session not admitted leaves it as it was on the source. */
static void test_complete_errors(void **state)
{
	struct fx *f = fx_new(16, 15);
	struct smf_sess_info info;
	struct smf_stats s0;

	(void)state;
	fx_establish(f, f->ue1, 1, "internet", &info);
	assert_int_equal(smf_ho_complete(f->smf, f->ue1, 5), -ENOENT);
	s0 = stats(f);
	assert_int_equal(smf_ho_complete(f->smf, f->ue1, 1), -EPROTO);
	prepare(f, 1, false);
	assert_int_equal(smf_ho_complete(f->smf, f->ue1, 1), -EPROTO);
	assert_int_equal(stats(f).n2_unexpected, s0.n2_unexpected + 2);
	assert_int_equal(info_of(f, 1).ho_state, SMF_HO_PREPARING);    /* the preparation goes on */
	assert_int_equal(info_of(f, 1).gnb_teid, info.gnb_teid);
	assert_int_equal(stats(f).upf_skipped, s0.upf_skipped);
	fx_free(f);
}

static void all_enoent(struct fx *f, struct smf_ue *ue, uint8_t psi)
{
	uint8_t b[256];
	size_t n = req_tr(b, sizeof(b), false);

	assert_int_equal(smf_ho_prepare(f->smf, ue, psi, b, n, false, &f->out), -ENOENT);
	n = ack_tr(b, sizeof(b), &(struct ack_opt){ .fwd = true });
	assert_int_equal(smf_ho_admitted(f->smf, ue, psi, b, n, &f->out), -ENOENT);
	assert_int_equal(smf_ho_not_admitted(f->smf, ue, psi, NULL, 0, NULL, &f->out), -ENOENT);
	assert_int_equal(smf_ho_complete(f->smf, ue, psi), -ENOENT);
	assert_int_equal(smf_ho_cancel(f->smf, ue, psi), -ENOENT);
	assert_int_equal(smf_ho_end(f->smf, ue, psi), -ENOENT);
}

/* A release racing the handover (TS 23.502 4.9.1.3.2: a session released meanwhile is not handed
 * over): UE-requested, network-requested, local (deregistration, status sync) and the AN release
 * (= cancel) each take the session out of the handover and remove its forwarding tunnel; every
 * later smf_ho_* call for it answers -ENOENT (or -EPROTO for the AN release: the session stays). */
static void test_release_races(void **state)
{
	struct fx *f = fx_new(16, 15);
	struct smf_sess_info info;

	(void)state;
	/* UE-requested release while preparing (TS 24.501 6.4.3) */
	fx_establish(f, f->ue1, 1, "internet", &info);
	prepare(f, 1, false);
	assert_int_equal(fx_gsm(f, f->ue1, NAS_PDU_SESSION_RELEASE_REQUEST, 1, 7, 0), 0);
	assert_int_equal(info_of(f, 1).state, SMF_ST_INACTIVE_PENDING);
	assert_int_equal(info_of(f, 1).ho_state, SMF_HO_NONE);
	assert_int_equal(stats(f).ho_cancelled, 1);
	all_enoent(f, f->ue1, 1);
	assert_int_equal(info_of(f, 1).state, SMF_ST_INACTIVE_PENDING);   /* the release goes on */
	/* network-requested release while admitted with a forwarding tunnel (TS 24.501 6.3.3) */
	fx_establish(f, f->ue1, 2, "internet", &info);
	prepare(f, 2, false);
	admit(f, 2, &(struct ack_opt){ .fwd = true });
	assert_int_equal(smf_release(f->smf, f->ue1, 2, NAS_5GSM_REGULAR_DEACTIVATION), 0);
	assert_int_equal(stats(f).fwd_removed, 1);
	assert_int_equal(info_of(f, 2).fwd_teid, 0);
	all_enoent(f, f->ue1, 2);
	/* AN release while admitted: the handover is over (cancel), the session stays buffered */
	fx_establish(f, f->ue1, 3, "internet", &info);
	prepare(f, 3, false);
	admit(f, 3, &(struct ack_opt){ .fwd = true });
	assert_true(smf_up_deactivate(f->smf, f->ue1) >= 1);
	assert_int_equal(info_of(f, 3).ho_state, SMF_HO_NONE);
	assert_int_equal(info_of(f, 3).fwd_teid, 0);
	assert_int_equal(stats(f).fwd_removed, 2);
	assert_int_equal(smf_ho_complete(f->smf, f->ue1, 3), -EPROTO);
	assert_int_equal(smf_ho_cancel(f->smf, f->ue1, 3), -EPROTO);
	/* local release by status sync after a completed handover: its forwarding tunnel goes too */
	fx_establish(f, f->ue2, 1, "internet", &info);
	assert_int_equal(smf_ho_prepare(f->smf, f->ue2, 1, f->n2, 0, false, &f->out), -EBADMSG);
	{
		uint8_t b[256];
		size_t n = req_tr(b, sizeof(b), false);
		assert_int_equal(smf_ho_prepare(f->smf, f->ue2, 1, b, n, false, &f->out), 0);
		n = ack_tr(b, sizeof(b), &(struct ack_opt){ .fwd = true });
		assert_int_equal(smf_ho_admitted(f->smf, f->ue2, 1, b, n, &f->out), 0);
	}
	assert_int_equal(smf_ho_complete(f->smf, f->ue2, 1), 0);
	assert_int_equal(stats(f).fwd_created, 3);
	assert_int_equal(smf_ue_status_sync(f->smf, f->ue2, 0), 0);
	assert_int_equal(stats(f).fwd_removed, 3);
	all_enoent(f, f->ue2, 1);
	/* deregistration (smf_ue_detach) while admitted */
	fx_establish(f, f->ue1, 4, "internet", &info);
	prepare(f, 4, false);
	admit(f, 4, &(struct ack_opt){ .fwd = true });
	assert_int_equal(stats(f).fwd_created, 4);
	smf_ue_detach(f->smf, f->ue1);
	assert_int_equal(stats(f).fwd_removed, 4);
	assert_int_equal(stats(f).sessions, 0);
	fx_free(f);
}

/* libc's rand() with a fixed seed (test_random_transfers): the same rounds on every run */
static uint32_t rnd(void)
{
	return (uint32_t)rand();
}

/* a valid transfer with 1..3 octets changed and its length cut or padded at random */
static size_t mutate(uint8_t *b, size_t n, size_t cap)
{
	size_t len = n;

	for (unsigned k = 1 + rnd() % 3; k; k--)
		b[rnd() % n] ^= (uint8_t)(1u << (rnd() % 8));
	if (rnd() % 3 == 0)
		len = rnd() % (n + 1);
	else if (rnd() % 3 == 0)
		len = n + rnd() % (cap - n);
	return len;
}

/* Untrusted transfers from the gNBs (TS 38.413 10: abstract syntax errors): 3000 rounds with mutated
 * Handover Required, Request Acknowledge and Resource Allocation Unsuccessful Transfers (about half
 * of the acknowledges intact, each then cancelled). Each is answered
 * (0 or a counted refusal), the session always ends the round on the source, out of the handover,
 * with no forwarding tunnel left and the counters balanced. */
static void test_random_transfers(void **state)
{
	struct fx *f = fx_new(16, 15);
	struct smf_sess_info info, i;
	uint8_t good_rq[32], good_ack[256], good_un[64], b[300];
	struct ngap_ho_resource_alloc_unsuccessful_transfer u = { .cause = { NGAP_CAUSE_RADIO_NETWORK, 22 } };
	size_t nrq, nack, nun;
	int rc;

	(void)state;
	srand(0x2545F491u);
	fx_establish(f, f->ue1, 1, "internet", &info);
	nrq = req_tr(good_rq, sizeof(good_rq), false);
	nack = ack_tr(good_ack, sizeof(good_ack), &(struct ack_opt){ .fwd = true, .n_drbs = 2 });
	rc = ngap_enc_ho_resource_alloc_unsuccessful_transfer(&u, good_un, sizeof(good_un));
	assert_true(rc > 0);
	nun = (size_t)rc;
	for (int k = 0; k < 3000; k++) {
		memcpy(b, good_rq, nrq);
		rc = smf_ho_prepare(f->smf, f->ue1, 1, b, k % 4 ? nrq : mutate(b, nrq, sizeof(b)), rnd() & 1, &f->out);
		assert_true(rc == 0 || rc == -EBADMSG);
		assert_true(f->out.n2_proc == (rc ? SMF_N2_HO_PREP_FAILED : SMF_N2_HO_REQUEST));
		if (rc)
			continue;
		if (k % 4 == 3) {
			memcpy(b, good_un, nun);
			assert_int_equal(smf_ho_not_admitted(f->smf, f->ue1, 1, b, mutate(b, nun, sizeof(b)), NULL,
							     &f->out), 0);
		} else {
			memcpy(b, good_ack, nack);
			rc = smf_ho_admitted(f->smf, f->ue1, 1, b, rnd() % 2 ? nack : mutate(b, nack, sizeof(b)),
					     &f->out);
			assert_true(rc == 0 || rc == -EBADMSG || rc == -EINVAL);
			if (rc == 0)
				assert_int_equal(smf_ho_cancel(f->smf, f->ue1, 1), 0);
		}
		i = info_of(f, 1);
		assert_int_equal(i.ho_state, SMF_HO_NONE);
		assert_int_equal(i.fwd_teid, 0);
		assert_int_equal(i.state, SMF_ST_ACTIVE);
		assert_int_equal(i.gnb_teid, info.gnb_teid);
		assert_int_equal(i.gnb_addr, info.gnb_addr);
	}
	assert_int_equal(stats(f).fwd_created, stats(f).fwd_removed);
	assert_int_equal(stats(f).ho_prepared, stats(f).ho_cancelled);
	assert_int_equal(stats(f).sessions, 1);
	printf("random transfers: %llu prepared, %llu forwarding tunnels, %llu undecodable\n",
	       (unsigned long long)stats(f).ho_prepared, (unsigned long long)stats(f).fwd_created,
	       (unsigned long long)stats(f).n2_bad);
	fx_free(f);
}

static int want_sends;

static bool sent_enough(struct fx *f)
{
	return f->sends >= want_sends;
}

/* Other procedures meeting a handover in preparation: an Xn path switch is refused (one handover
 * at a time, TS 38.413 8.4.4), a UE-requested modification is rejected (TS 24.501 6.4.2.4: the
 * UE may ask again), a subscription change waits and is retried by the SMF once the handover is
 * done (TS 23.502 4.3.3.2); a new preparation ends the previous handover's forwarding tunnel. */
static void test_collisions(void **state)
{
	static const uint8_t q1[] = { 1 };
	struct fx *f = fx_new(16, 15);
	struct ngap_path_switch_request_transfer ps;
	struct smf_sess_info info;
	struct nas_msg m;
	uint8_t b[128];
	unsigned skipped = 0;
	int n, sends;
	size_t t0;

	(void)state;
	fx_establish(f, f->ue1, 1, "internet", &info);
	prepare(f, 1, false);
	memset(&ps, 0, sizeof(ps));
	tun(&ps.dl_tunnel, TGT_ADDR, 32, 0x99);
	ps.n_flows = 1;
	memcpy(ps.qfis, q1, 1);
	n = ngap_enc_path_switch_request_transfer(&ps, b, sizeof(b));
	assert_true(n > 0);
	assert_int_equal(smf_path_switch(f->smf, f->ue1, 1, b, (size_t)n, &f->out), -EPROTO);
	assert_int_equal(f->out.n2_proc, SMF_N2_PATH_SWITCH_FAILED);
	assert_int_equal(info_of(f, 1).gnb_teid, info.gnb_teid);
	assert_int_equal(info_of(f, 1).ho_state, SMF_HO_PREPARING);
	/* UE-requested modification */
	memset(&m, 0, sizeof(m));
	m.type = NAS_PDU_SESSION_MODIFICATION_REQUEST;
	m.psi = 1;
	m.pti = 5;
	n = nas_encode(&m, b, sizeof(b), NULL);
	assert_true(n > 0);
	assert_int_equal(fx_n1(f, f->ue1, 1, b, (size_t)n), 0);
	fx_dec_n1(f, &m, NAS_PDU_SESSION_MODIFICATION_REJECT);
	assert_int_equal(m.pdu_mod_rej.cause, NAS_5GSM_INSUFFICIENT_RESOURCES);   /* #26 */
	assert_int_equal(info_of(f, 1).state, SMF_ST_ACTIVE);
	assert_int_equal(info_of(f, 1).ho_state, SMF_HO_PREPARING);
	/* subscription change: skipped now, sent after the notify */
	fx_resubscribe(f, SUPI1, 7, 30000000, false);
	assert_int_equal(smf_ue_policy_update(f->smf, f->ue1, &skipped), 0);
	assert_int_equal(skipped, 1);
	sends = f->sends;
	t0 = ev_timer_count(f->loop);
	admit(f, 1, &(struct ack_opt){ .fwd = true });
	assert_int_equal(ev_timer_count(f->loop), t0);      /* no retry armed inside the handover */
	assert_int_equal(smf_ho_complete(f->smf, f->ue1, 1), 0);
	assert_int_equal(ev_timer_count(f->loop), t0 + 2);  /* the retry and the forwarding guard */
	want_sends = sends + 1;
	assert_true(fx_run_until(f, sent_enough, 5000));
	assert_int_equal(f->s_proc, SMF_N2_MODIFY);
	assert_int_equal(info_of(f, 1).state, SMF_ST_MODIFICATION_PENDING);
	assert_int_equal(info_of(f, 1).ho_state, SMF_HO_NONE);
	assert_int_equal(info_of(f, 1).gnb_teid, TGT_TEID);
	assert_int_equal(fx_n2(f, f->ue1, 1, SMF_N2_MODIFY_RSP), 0);
	assert_int_equal(fx_gsm(f, f->ue1, NAS_PDU_SESSION_MODIFICATION_COMPLETE, 1, 0, 0), 0);
	assert_int_equal(info_of(f, 1).ambr_ul_bps, 30000000);
	/* the forwarding tunnel of the handover just done goes with the next preparation */
	assert_int_equal(stats(f).fwd_removed, 0);
	prepare(f, 1, false);
	assert_int_equal(stats(f).fwd_removed, 1);
	assert_int_equal(info_of(f, 1).fwd_teid, 0);
	fx_free(f);
}

static bool fwd_gone(struct fx *f)
{
	return stats(f).fwd_removed == 1;
}

static bool guard_and_t3591_done(struct fx *f)
{
	return stats(f).fwd_removed == 1 && stats(f).t3591_gave_up == 1;
}

/* TS 23.502 4.9.1.3.3 step 21a: the SMF's own timer removes the forwarding tunnel when the
 * source's release never comes; it starts at the notify, not before, and leaves T3591 alone. */
static void test_guard(void **state)
{
	struct fx *f = fx_new_ho(16, 15, 20);
	struct smf_sess_info info;
	size_t t0;

	(void)state;
	fx_establish(f, f->ue1, 1, "internet", &info);
	t0 = ev_timer_count(f->loop);
	prepare(f, 1, false);
	admit(f, 1, &(struct ack_opt){ .fwd = true });
	assert_int_equal(ev_timer_count(f->loop), t0);          /* no guard before the notify */
	assert_int_equal(smf_ho_complete(f->smf, f->ue1, 1), 0);
	assert_int_equal(ev_timer_count(f->loop), t0 + 1);
	assert_true(fx_run_until(f, fwd_gone, 5000));
	assert_int_equal(info_of(f, 1).fwd_teid, 0);
	assert_int_equal(ev_timer_count(f->loop), t0);
	assert_int_equal(smf_ho_end(f->smf, f->ue1, 1), -EALREADY);  /* the release after it: nothing left */
	/* smf_ho_end first: the guard stopped with it */
	prepare(f, 1, false);
	admit(f, 1, &(struct ack_opt){ .fwd = true });
	assert_int_equal(smf_ho_complete(f->smf, f->ue1, 1), 0);
	assert_int_equal(smf_ho_end(f->smf, f->ue1, 1), 0);
	assert_int_equal(ev_timer_count(f->loop), t0);
	fx_free(f);

	/* the guard expiring while a modification runs (its own timer, T3591) */
	f = fx_new_ho(16, 15, 20);
	fx_establish(f, f->ue1, 1, "internet", &info);
	prepare(f, 1, false);
	admit(f, 1, &(struct ack_opt){ .fwd = true });
	assert_int_equal(smf_ho_complete(f->smf, f->ue1, 1), 0);
	f->sends = 0;
	assert_int_equal(smf_modify_ambr(f->smf, f->ue1, 1, 1000000, 2000000), 0);
	assert_true(fx_run_until(f, guard_and_t3591_done, 5000));
	assert_int_equal(f->sends, 5);           /* the command and its 4 retransmissions */
	assert_int_equal(stats(f).t3591_expired, 5);
	assert_int_equal(info_of(f, 1).state, SMF_ST_ACTIVE);
	assert_int_equal(info_of(f, 1).fwd_teid, 0);
	fx_free(f);
}

/* ---- with the real UPF ---- */

/* Is the UPF holding a forwarding tunnel for id? A second create says -EEXIST when it is (and
 * creates one when it is not: removed again). */
static bool upf_has_fwd(uint32_t id)
{
	int rc = upf_fwd_create(upf, id, fx_ip("198.51.100.1"), 5);

	if (rc == 0) {
		assert_int_equal(upf_fwd_remove(upf, id), 0);
		return false;
	}
	assert_int_equal(rc, -EEXIST);
	return true;
}

/* TS 23.502 4.9.1.3.2 step 9-11 and 4.9.1.3.3 step 21a against the UPF itself: indirect forwarding
 * creates the tunnel, the notify changes the rule (no error), the end, a cancel and a release
 * remove it; direct forwarding never creates one. */
static void test_upf(void **state)
{
	struct fx *f = fx_new(64, 0);
	struct smf_sess_info info, i2;
	struct smf_stats st;

	(void)state;
	smf_set_upf(f->smf, upf);
	fx_establish(f, f->ue1, 1, "internet", &info);
	prepare(f, 1, false);
	assert_false(upf_has_fwd(info.session_id));
	admit(f, 1, &(struct ack_opt){ .fwd = true });
	assert_true(upf_has_fwd(info.session_id));
	assert_int_equal(smf_ho_complete(f->smf, f->ue1, 1), 0);
	assert_true(upf_has_fwd(info.session_id));
	assert_int_equal(smf_ho_end(f->smf, f->ue1, 1), 0);
	assert_false(upf_has_fwd(info.session_id));
	/* cancel after admitted */
	prepare(f, 1, false);
	admit(f, 1, &(struct ack_opt){ .fwd = true });
	assert_true(upf_has_fwd(info.session_id));
	assert_int_equal(smf_ho_cancel(f->smf, f->ue1, 1), 0);
	assert_false(upf_has_fwd(info.session_id));
	/* direct: nothing in the UPF */
	prepare(f, 1, true);
	admit(f, 1, &(struct ack_opt){ .fwd = true });
	assert_false(upf_has_fwd(info.session_id));
	assert_int_equal(smf_ho_complete(f->smf, f->ue1, 1), 0);
	/* release while admitted, and smf_free with a tunnel left after a notify */
	fx_establish(f, f->ue1, 2, "internet", &i2);
	prepare(f, 2, false);
	admit(f, 2, &(struct ack_opt){ .fwd = true });
	assert_true(upf_has_fwd(i2.session_id));
	assert_int_equal(fx_gsm(f, f->ue1, NAS_PDU_SESSION_RELEASE_REQUEST, 2, 9, 0), 0);
	assert_false(upf_has_fwd(i2.session_id));
	prepare(f, 1, false);
	admit(f, 1, &(struct ack_opt){ .fwd = true });
	assert_int_equal(smf_ho_complete(f->smf, f->ue1, 1), 0);
	smf_get_stats(f->smf, &st);
	assert_int_equal(st.upf_errors, 0);
	assert_int_equal(st.upf_skipped, 0);
	assert_int_equal(st.fwd_created, 4);
	assert_int_equal(st.fwd_removed, 3);
	fx_free(f);
	assert_false(upf_has_fwd(info.session_id));
	assert_int_equal(upf_session_remove(upf, info.session_id), -ENOENT);
}

/* ---- tshark ---- */

struct hc_frame {
	const char *what;
	long fwd_teid;                /* gTP_TEID expected in the frame; -1 none */
	const char *fwd_addr;         /* its IPv4 address */
	const char *cause;            /* a radioNetwork cause value expected; NULL none */
	const char *proc;             /* procedureCode; NULL: "12" (HandoverPreparation) */
	const char *five_qi, *ambr_dl; /* the Handover Request Transfer's; NULL: not checked */
};
static struct hc_frame frames[5];
static int n_frames;

static const char *const hc_fields[] = { "ngap.gTP_TEID", "ngap.qosFlowIdentifier", "ngap.radioNetwork",
					 "ngap.procedureCode", "ngap.TransportLayerAddressIPv4", "ngap.fiveQI",
					 "ngap.pDUSessionAggregateMaximumBitRateDL", "ngap.PDUSessionType" };

static int hc_row(void *ctx, int fr, char **fl)
{
	const struct hc_frame *x = &frames[fr - 1];
	int bad = 0;

	(void)ctx;
	if (strcmp(fl[3], x->proc ? x->proc : "12")) {
		fprintf(stderr, "frame %d (%s): procedureCode '%s', want %s\n", fr, x->what, fl[3],
			x->proc ? x->proc : "12");
		bad++;
	}
	if (x->five_qi && (strcmp(fl[5], x->five_qi) || strcmp(fl[6], x->ambr_dl) || strcmp(fl[7], "0"))) {
		fprintf(stderr, "frame %d (%s): 5QI '%s' AMBR DL '%s' type '%s', want %s, %s, 0 (ipv4)\n", fr,
			x->what, fl[5], fl[6], fl[7], x->five_qi, x->ambr_dl);
		bad++;
	}
	if (x->fwd_teid >= 0) {
		char want[24];
		snprintf(want, sizeof(want), "%08lx", x->fwd_teid);
		if (!strstr(fl[0], want) || strcmp(fl[1], "1") || strcmp(fl[4], x->fwd_addr)) {
			fprintf(stderr, "frame %d (%s): gTP_TEID '%s' qfi '%s' address '%s', want %s, 1, %s\n", fr,
				x->what, fl[0], fl[1], fl[4], want, x->fwd_addr);
			bad++;
		}
	} else if (fl[0][0]) {
		fprintf(stderr, "frame %d (%s): gTP_TEID '%s', want none\n", fr, x->what, fl[0]);
		bad++;
	}
	if (x->cause && strcmp(fl[2], x->cause)) {
		fprintf(stderr, "frame %d (%s): radioNetwork '%s', want %s\n", fr, x->what, fl[2], x->cause);
		bad++;
	}
	return bad;
}

static const char *hc_name(void *ctx, int fr)
{
	(void)ctx;
	return frames[fr - 1].what;
}

/* The transparent containers' placeholder (not dissected: see test_tshark) */
static const uint8_t container[] = { 0x00, 0x01, 0x02, 0x03 };

/* m encoded into one SCTP DATA frame of the pcap (AMF 10.0.0.1 -> a gNB) */
static void put_ngap(struct pcapw *w, const struct ngap_msg *m, uint32_t gnb)
{
	uint8_t buf[1024];
	int n = ngap_encode(m, buf, sizeof(buf));

	assert_true(n > 0);
	assert_int_equal(pcapw_sctp(w, 0x0a000001, gnb, 38412, 38412, 1, 60, buf, (size_t)n), 0);
}

/* TS 38.413 9.2.3.4 HANDOVER REQUEST as the AMF builds it: PDUSessionResourceSetupListHOReq {psi,
 * snssai, Handover Request Transfer}. */
static void add_request(struct pcapw *w, const struct smf_out *o)
{
	static struct ngap_msg m;
	struct ngap_handover_request *h = &m.u.handover_request;

	memset(&m, 0, sizeof(m));
	m.type = NGAP_INITIATING;
	m.proc = NGAP_PROC_HANDOVER_RESOURCE_ALLOCATION;
	h->amf_ue_id = 1;
	h->handover_type = NGAP_HO_INTRA_5GS;
	h->cause = (struct ngap_cause){ NGAP_CAUSE_RADIO_NETWORK, 16 };   /* handover-desirable-for-radio-reason */
	h->ue_ambr = (struct ngap_ambr){ .dl = 300000000, .ul = 150000000 };
	h->ue_sec_cap = (struct ngap_ue_sec_cap){ 0xe000, 0xe000, 0xe000, 0xe000 };
	memset(h->security_context.nh, 0x5a, sizeof(h->security_context.nh));
	h->security_context.ncc = 2;
	h->n_sessions = 1;
	h->sessions[0].id = o->psi;
	h->sessions[0].has_snssai = true;
	h->sessions[0].snssai = o->snssai;
	h->sessions[0].transfer = (struct ngap_bytes){ o->n2, o->n2_len };
	h->n_allowed_nssai = 1;
	h->allowed_nssai[0] = o->snssai;
	h->source_to_target = (struct ngap_bytes){ container, sizeof(container) };
	h->guami = (struct ngap_guami){ .plmn = { { 0x00, 0xf1, 0x10 } }, .region = 1, .set_id = 1, .pointer = 1 };
	put_ngap(w, &m, 0x0a000003);
}

/* TS 38.413 9.2.3.2 HANDOVER COMMAND as the AMF builds it: PDUSessionResourceHandoverList {psi,
 * Handover Command Transfer} and ToReleaseListHOCmd {psi, Handover Preparation Unsuccessful}. */
static void add_command(struct pcapw *w, const struct smf_out *cmd, const struct smf_out *rel)
{
	static struct ngap_msg m;
	struct ngap_handover_command *h = &m.u.handover_command;

	memset(&m, 0, sizeof(m));
	m.type = NGAP_SUCCESSFUL;
	m.proc = NGAP_PROC_HANDOVER_PREPARATION;
	h->amf_ue_id = 1;
	h->ran_ue_id = 2;
	h->handover_type = NGAP_HO_INTRA_5GS;
	h->n_sessions = 1;
	h->sessions[0].id = cmd->psi;
	h->sessions[0].transfer = (struct ngap_bytes){ cmd->n2, cmd->n2_len };
	if (rel) {
		h->n_release = 1;
		h->release[0].id = rel->psi;
		h->release[0].transfer = (struct ngap_bytes){ rel->n2, rel->n2_len };
	}
	h->target_to_source = (struct ngap_bytes){ container, sizeof(container) };
	put_ngap(w, &m, 0x0a000002);
}

static void test_tshark(void **state)
{
	static uint8_t keep_n2[SMF_N2_MAX];
	struct fx *f = fx_new(16, 15);
	struct smf_sess_info i1;
	struct smf_out cmd;
	const struct ngap_cause slice = { NGAP_CAUSE_RADIO_NETWORK, 39 };   /* slice-not-supported */
	char path[512];
	struct pcapw *w;

	(void)state;
	snprintf(path, sizeof(path), "%s/smf_ho.pcap", workdir);
	w = pcapw_open(path, PCAPW_SCTP_IPV4);
	assert_non_null(w);
	fx_establish(f, f->ue1, 1, "internet", &i1);
	/* the Handover Request Transfer: our UL tunnel, 5QI, session-AMBR, IPv4 */
	prepare(f, 1, false);
	add_request(w, &f->out);
	static char five_qi[8], ambr_dl[24];
	snprintf(five_qi, sizeof(five_qi), "%u", i1.five_qi);
	snprintf(ambr_dl, sizeof(ambr_dl), "%llu", (unsigned long long)i1.ambr_dl_bps);
	frames[n_frames++] = (struct hc_frame){ "handover request", (long)i1.ul_teid, N3_ADDR, NULL, "13", five_qi,
						ambr_dl };
	/* indirect: our N3 and UPF_FWD_TEID; session 2 not admitted (slice-not-supported, 39) */
	admit(f, 1, &(struct ack_opt){ .fwd = true });
	cmd = f->out;
	memcpy(keep_n2, f->out.n2, f->out.n2_len);
	cmd.n2 = keep_n2;
	fx_establish(f, f->ue1, 2, "internet", &i1);
	prepare(f, 2, false);
	assert_int_equal(smf_ho_not_admitted(f->smf, f->ue1, 2, NULL, 0, &slice, &f->out), 0);
	assert_int_equal(smf_sess_info(f->smf, f->ue1, 1, &i1), 0);
	add_command(w, &cmd, &f->out);
	frames[n_frames++] = (struct hc_frame){ "indirect + release list", (long)UPF_FWD_TEID(i1.session_id), N3_ADDR,
						"39", NULL, NULL, NULL };
	assert_int_equal(smf_ho_complete(f->smf, f->ue1, 1), 0);
	/* direct: the target's own forwarding tunnel */
	prepare(f, 1, true);
	admit(f, 1, &(struct ack_opt){ .fwd = true });
	add_command(w, &f->out, NULL);
	frames[n_frames++] = (struct hc_frame){ "direct", (long)FWD_TEID, FWD_ADDR, NULL, NULL, NULL, NULL };
	assert_int_equal(smf_ho_complete(f->smf, f->ue1, 1), 0);
	/* no forwarding: an empty transfer (every IE optional, 9.3.4.10) */
	prepare(f, 1, true);
	admit(f, 1, &(struct ack_opt){ .fwd = false });
	add_command(w, &f->out, NULL);
	frames[n_frames++] = (struct hc_frame){ "no forwarding", -1, NULL, NULL, NULL, NULL, NULL };
	assert_int_equal(pcapw_close(w), 0);

	/* The transparent containers are the gNBs' (TS 38.413 9.3.1.29: opaque to the core, relayed
	 * untouched); the test's are 4 placeholder octets, so tshark is told not to dissect them. The SM
	 * transfers, the SMF's part, are dissected all the same. */
	const struct tshark_fields q = {
		.opts = "-o ngap.dissect_container:FALSE",
		.fields = hc_fields, .nfields = (int)(sizeof(hc_fields) / sizeof(hc_fields[0])), .nframes = n_frames, .row = hc_row, .name = hc_name,
	};
	assert_int_equal(tshark_fields(tshark, path, &q), 0);
	fx_free(f);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest unit[] = {
		cmocka_unit_test(test_prepare),       cmocka_unit_test(test_prepare_errors),
		cmocka_unit_test(test_direct),        cmocka_unit_test(test_indirect),
		cmocka_unit_test(test_no_forwarding), cmocka_unit_test(test_admit_errors),
		cmocka_unit_test(test_not_admitted),  cmocka_unit_test(test_cancel),
		cmocka_unit_test(test_complete_errors), cmocka_unit_test(test_release_races),
		cmocka_unit_test(test_guard),         cmocka_unit_test(test_collisions),
		cmocka_unit_test(test_random_transfers),
	};
	const struct CMUnitTest with_upf[] = { cmocka_unit_test(test_upf) };
	const struct CMUnitTest with_tshark[] = { cmocka_unit_test(test_tshark) };
	int rc;

	if (argc > 1 && !strcmp(argv[1], "upf")) {
		upf = fx_upf_open("192.0.2.62", &rc);
		if (!upf) {
			fprintf(stderr, "SKIP: cannot open the UPF (%s): needs root and BPF (CAP_BPF, "
				"CAP_NET_ADMIN) to load the XDP program and its maps\n", strerror(-rc));
			return 77;
		}
		rc = cmocka_run_group_tests(with_upf, NULL, NULL);
		upf_close(upf);
		return rc;
	}
	if (argc > 1 && !strcmp(argv[1], "tshark")) {
		if (tshark_require(argc < 4 ? NULL : argv[2], "check the Handover Command Transfer"))
			return 77;
		tshark = argv[2];
		workdir = argv[3];
		return cmocka_run_group_tests(with_tshark, NULL, NULL);
	}
	return cmocka_run_group_tests(unit, NULL, NULL);
}
