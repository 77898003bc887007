/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * The adversary suite, in process (issue 13): a victim UE registered with a PDU session
 * whose user plane is active, and a forger on another RAN UE NGAP ID that knows the
 * victim's IMSI, 5G-GUTI and 5G-S-TMSI but not its K. Each test is one attack; after it
 * the victim must be exactly as it was -- same 5GMM state, same N2 connection (AMF and
 * RAN UE NGAP IDs, no UE CONTEXT RELEASE for it), same 5G-GUTI, NAS security in use,
 * session with its user plane up -- and must still be able to do what only the holder
 * of the security context can: go idle and come back with an integrity-protected
 * SERVICE REQUEST whose K_gNB the harness checks.
 *
 * The rule: TS 24.501 4.4.4.3 (a message that fails the integrity check is not
 * processed in the context it names), TS 23.502 4.2.2.2.2 (the old context stays until
 * the new one is authenticated). The end-to-end version over SCTP with traffic through
 * the XDP UPF is tests/e2e (adv-*).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "amf/amf_int.h"
#include "sm_fx.h"

#define V_RAN 1
#define F_RAN 900

static struct sue V;          /* victim */
static struct amf_ue_info Vi; /* victim before the attack */
static uint32_t Vaddr;

static int vsetup(void **state)
{
	int rc = setup(state);

	if (rc)
		return rc;
	registered(&V, "0000000001", V_RAN);
	Vaddr = establish(&V, 1, "internet", &SN1);
	assert_int_equal(amf_ue_info_by_supi(H.amf, SUPI1, &Vi), 0);
	assert_int_equal(Vi.state, AMF_GMM_REGISTERED);
	assert_int_equal(Vi.cm, AMF_CM_CONNECTED);
	return 0;
}

/* A forger: the victim's IMSI and 5G-GUTI, another K, its own RAN UE NGAP ID. */
static void forger(struct sue *f)
{
	sue_init(f, "0000000001", ASSOC, F_RAN);
	memset(f->k, 0x5a, sizeof(f->k));
	f->has_guti = true;
	f->guti = V.guti;
}

/* A forger holding a made-up security context, so its messages carry a MAC (a wrong
 * one) with security header type 1. */
static void forger_keyed(struct sue *f)
{
	forger(f);
	f->sec = true;
	f->nia = 2;
	f->nea = 0;
	memset(f->kint, 0xa5, sizeof(f->kint));
	f->ul = V.ul;   /* even the right COUNT does not help */
}

/* Pop every PDU the AMF sent during the attack: none may be for the victim's
 * connection (no DL NAS, no release). Returns how many were for the forger. */
static unsigned drain_forger(void)
{
	unsigned n = 0;

	while (h_pop(&H)) {
		uint64_t amf_id = UINT64_MAX;
		uint32_t ran_id = UINT32_MAX;

		if (H.m.type == NGAP_INITIATING && H.m.proc == NGAP_PROC_DOWNLINK_NAS_TRANSPORT) {
			amf_id = H.m.u.downlink_nas_transport.amf_ue_id;
			ran_id = H.m.u.downlink_nas_transport.ran_ue_id;
		} else if (H.m.type == NGAP_INITIATING && H.m.proc == NGAP_PROC_UE_CONTEXT_RELEASE) {
			amf_id = H.m.u.ue_context_release_command.amf_ue_id;
			ran_id = H.m.u.ue_context_release_command.ran_ue_id;
			if (ran_id == F_RAN) {
				/* the gNB answers for the forger's connection */
				struct sue f;

				forger(&f);
				f.amf_id = amf_id;
				sue_release_complete(&H, &f);
			}
		}
		assert_int_not_equal(ran_id, V_RAN);
		assert_true(amf_id != Vi.amf_ue_ngap_id);
		n++;
	}
	return n;
}

/* The victim after the attack: nothing changed, and it still holds the keys. */
static void victim_intact(void)
{
	struct amf_ue_info now;
	struct smf_sess_info si;
	static const uint8_t one = 1;
	struct nas_msg dl;

	drain_forger();
	assert_int_equal(amf_ue_info_by_supi(H.amf, SUPI1, &now), 0);
	assert_int_equal(now.state, AMF_GMM_REGISTERED);
	assert_int_equal(now.cm, AMF_CM_CONNECTED);
	assert_true(now.amf_ue_ngap_id == Vi.amf_ue_ngap_id);
	assert_int_equal(now.ran_ue_ngap_id, V_RAN);
	assert_int_equal(now.tmsi, Vi.tmsi);
	assert_true(now.sec_active);
	assert_int_equal(now.nia, Vi.nia);
	sess(&V, 1, &si);
	assert_true(si.up_active);
	assert_int_equal(si.ue_addr, Vaddr);
	/* Only the holder of the context can do this: idle, then a protected SERVICE
	 * REQUEST (TS 24.501 5.6.1), the accept MAC-checked and K_gNB checked by sue_dl. */
	gnb_release_req(&V);
	service_req(&V, V_RAN + 1, true, 1u << 1, true, 1u << 1);
	assert_int_equal(sue_dl(&H, &V, &dl), NGAP_PROC_INITIAL_CONTEXT_SETUP);
	assert_int_equal(dl.type, NAS_SERVICE_ACCEPT);
	assert_int_equal(dl.svc_acc.pdu_session_status, 1u << 1);
	ics_rsp(&V, 1, &one);
	sess(&V, 1, &si);
	assert_true(si.up_active);
	assert_int_equal(si.ue_addr, Vaddr);
}

/* The forger's next downlink NAS (MAC not checked: it has no keys). */
static void forger_dl(struct sue *f, struct nas_msg *out, uint8_t type)
{
	const uint8_t *nas;
	size_t len;
	struct nas_err err;

	assert_true(h_pop(&H));
	assert_int_equal(H.m.proc, NGAP_PROC_DOWNLINK_NAS_TRANSPORT);
	assert_int_equal(H.m.u.downlink_nas_transport.ran_ue_id, F_RAN);
	f->amf_id = H.m.u.downlink_nas_transport.amf_ue_id;
	nas = H.m.u.downlink_nas_transport.nas.p;
	len = H.m.u.downlink_nas_transport.nas.len;
	if (len > 7 && (nas[1] & 0x0f) != 0) {
		nas += 7;   /* security header: integrity only (the reject paths) */
		len -= 7;
	}
	assert_int_equal(nas_decode(nas, len, out, &err), 0);
	assert_int_equal(out->type, type);
}

/* A SERVICE REQUEST naming the victim's 5G-S-TMSI, uplink data for PSI 1. */
static void victim_svc_req(struct nas_msg *m)
{
	memset(m, 0, sizeof(*m));
	m->type = NAS_SERVICE_REQUEST;
	m->svc_req.ngksi = V.ngksi;
	m->svc_req.service_type = 1;
	m->svc_req.s_tmsi.type = NAS_MOBID_5G_S_TMSI;
	m->svc_req.s_tmsi.guti.amf_set_id = H.cfg.amf_set_id;
	m->svc_req.s_tmsi.guti.amf_pointer = H.cfg.amf_pointer;
	m->svc_req.s_tmsi.guti.tmsi = V.guti.guti.tmsi;
	m->svc_req.has_ul_data_status = true;
	m->svc_req.ul_data_status = 1u << 1;
}

static void forger_reg(struct sue *f, bool guti, uint8_t sht)
{
	struct nas_msg m;

	sue_reg_req(f, &m, guti);
	sue_initial(&H, f, &m, sht);
}

/* IDENTITY RESPONSE with the victim's null-scheme SUCI (the one sue_reg_req builds). */
static void forger_suci_rsp(struct sue *f, struct nas_msg *id)
{
	struct nas_msg r;

	sue_reg_req(f, &r, false);
	memset(id, 0, sizeof(*id));
	id->type = NAS_IDENTITY_RESPONSE;
	id->id_resp.mobile_id = r.reg_req.mobile_id;
}

static void forger_wrong_res(struct sue *f)
{
	uint8_t res[16];

	memset(res, 0x33, sizeof(res));
	sue_auth_resp(&H, f, res);
}

/* TS 24.501 5.5.1.2.5 #23 (only EA0/IA0) for a plain REGISTRATION REQUEST with the
 * victim's 5G-GUTI: the reject ends the forger's context only. */
static void test_reg_guti_badcaps(void **state)
{
	struct sue f;
	struct nas_msg dl;

	(void)state;
	forger(&f);
	f.ea = 0x80;
	f.ia = 0x80;
	forger_reg(&f, true, NAS_SHT_PLAIN);
	forger_dl(&f, &dl, NAS_REGISTRATION_REJECT);
	assert_int_equal(dl.reg_rej.cause, NAS_5GMM_UE_SECURITY_CAP_MISMATCH);
	victim_intact();
}

/* Same with a (wrong) MAC: TS 24.501 4.4.4.3, the check fails with the victim's context. */
static void test_reg_guti_badmac_badcaps(void **state)
{
	struct sue f;
	struct nas_msg dl;
	struct amf_stats st;

	(void)state;
	forger_keyed(&f);
	f.ea = 0x80;
	f.ia = 0x80;
	forger_reg(&f, true, NAS_SHT_INTEGRITY);
	forger_dl(&f, &dl, NAS_REGISTRATION_REJECT);
	amf_get_stats(H.amf, &st);
	assert_true(st.nas_mac_fail >= 1);
	victim_intact();
}

/* TS 24.501 5.4.1.3.7 b): the forger never answers; T3560 gives up on its context. */
static void test_reg_guti_t3560(void **state)
{
	struct sue f;
	struct nas_msg dl;
	unsigned i;
	bool released = false;

	(void)state;
	forger(&f);
	forger_reg(&f, true, NAS_SHT_PLAIN);
	forger_dl(&f, &dl, NAS_AUTHENTICATION_REQUEST);
	/* four retransmissions to the forger, then the release of its connection */
	for (i = 0; i < 8 && !released; i++) {
		h_run_until_tx(&H, 3000);
		while (!released && h_pop(&H)) {
			if (H.m.proc == NGAP_PROC_UE_CONTEXT_RELEASE) {
				assert_int_equal(H.m.u.ue_context_release_command.ran_ue_id, F_RAN);
				f.amf_id = H.m.u.ue_context_release_command.amf_ue_id;
				sue_release_complete(&H, &f);
				released = true;
			} else {
				assert_int_equal(H.m.u.downlink_nas_transport.ran_ue_id, F_RAN);
			}
		}
	}
	assert_true(released);
	victim_intact();
}

/* TS 24.501 5.4.1.3.5: a wrong RES* for a UE the 5G-GUTI identified -> identification;
 * the SUCI names the same SUPI -> AUTHENTICATION REJECT, to the forger. */
static void test_reg_guti_wrong_res(void **state)
{
	struct sue f;
	struct nas_msg dl, id;

	(void)state;
	forger(&f);
	forger_reg(&f, true, NAS_SHT_PLAIN);
	forger_dl(&f, &dl, NAS_AUTHENTICATION_REQUEST);
	forger_wrong_res(&f);
	forger_dl(&f, &dl, NAS_IDENTITY_REQUEST);
	forger_suci_rsp(&f, &id);
	sue_ul(&H, &f, &id, NAS_SHT_PLAIN);
	forger_dl(&f, &dl, NAS_AUTHENTICATION_REJECT);
	victim_intact();
}

/* TS 24.501 5.4.1.3.7 c): AUTHENTICATION FAILURE #20 for a GUTI-identified UE ->
 * identification, a new authentication, #20 again -> reject. */
static void test_reg_guti_auth_fail20(void **state)
{
	struct sue f;
	struct nas_msg dl, m;

	(void)state;
	forger(&f);
	forger_reg(&f, true, NAS_SHT_PLAIN);
	forger_dl(&f, &dl, NAS_AUTHENTICATION_REQUEST);
	memset(&m, 0, sizeof(m));
	m.type = NAS_AUTHENTICATION_FAILURE;
	m.auth_fail.cause = NAS_5GMM_MAC_FAILURE;
	sue_ul(&H, &f, &m, NAS_SHT_PLAIN);
	forger_dl(&f, &dl, NAS_IDENTITY_REQUEST);
	{
		struct nas_msg id;

		forger_suci_rsp(&f, &id);
		sue_ul(&H, &f, &id, NAS_SHT_PLAIN);
	}
	forger_dl(&f, &dl, NAS_AUTHENTICATION_REQUEST);
	sue_ul(&H, &f, &m, NAS_SHT_PLAIN);
	forger_dl(&f, &dl, NAS_AUTHENTICATION_REJECT);
	victim_intact();
}

/* A null-scheme SUCI is the IMSI in clear (TS 33.501 6.12.2): a plain REGISTRATION
 * REQUEST with it authenticates in a context of its own; a wrong RES* -> reject. */
static void test_reg_suci_null_wrong_res(void **state)
{
	struct sue f;
	struct nas_msg dl;
	struct amf_stats st;

	(void)state;
	forger(&f);
	forger_reg(&f, false, NAS_SHT_PLAIN);
	forger_dl(&f, &dl, NAS_AUTHENTICATION_REQUEST);
	amf_get_stats(H.amf, &st);
	assert_int_equal(st.ues, 2);          /* the victim's and the forger's */
	assert_int_equal(st.registered, 1);
	forger_wrong_res(&f);
	forger_dl(&f, &dl, NAS_AUTHENTICATION_REJECT);
	victim_intact();
}

/* TS 24.501 4.4.4.3 / 5.6.1.5: a SERVICE REQUEST with the victim's 5G-S-TMSI and a bad
 * MAC, then one without integrity protection: SERVICE REJECT #9 to the forger. */
static void test_svc_forged(void **state)
{
	struct sue f;
	struct nas_msg m, dl;
	static const uint8_t sht[2] = { NAS_SHT_INTEGRITY, NAS_SHT_PLAIN };

	(void)state;
	for (unsigned i = 0; i < 2; i++) {
		forger_keyed(&f);
		f.ran_id = F_RAN + i;
		victim_svc_req(&m);
		sue_initial(&H, &f, &m, sht[i]);
		assert_true(h_pop(&H));
		assert_int_equal(H.m.proc, NGAP_PROC_DOWNLINK_NAS_TRANSPORT);
		assert_int_equal(H.m.u.downlink_nas_transport.ran_ue_id, F_RAN + i);
		{
			struct nas_err err;

			assert_int_equal(nas_decode(H.m.u.downlink_nas_transport.nas.p,
						    H.m.u.downlink_nas_transport.nas.len, &dl, &err), 0);
		}
		assert_int_equal(dl.type, NAS_SERVICE_REJECT);
		assert_int_equal(dl.svc_rej.cause, NAS_5GMM_UE_IDENTITY_CANNOT_BE_DERIVED);
		drain_forger();   /* the release of the forger's connection */
	}
	victim_intact();
}

static void forged_dereg(struct sue *f, uint8_t dereg_type)
{
	struct nas_msg m;

	forger_keyed(f);
	memset(&m, 0, sizeof(m));
	m.type = NAS_DEREGISTRATION_REQUEST_UE_ORIG;
	m.dereg_req.dereg_type = dereg_type;
	m.dereg_req.ngksi = V.ngksi;
	m.dereg_req.mobile_id = V.guti;
	sue_initial(&H, f, &m, NAS_SHT_INTEGRITY);
}

/* TS 24.501 4.4.4.3, TS 23.502 4.2.2.3.2 step 1a: a normal DEREGISTRATION REQUEST that
 * fails the integrity check is authenticated first; the forger cannot answer. */
static void test_dereg_normal_forged(void **state)
{
	struct sue f;
	struct nas_msg dl;

	(void)state;
	forged_dereg(&f, 0x01);
	forger_dl(&f, &dl, NAS_AUTHENTICATION_REQUEST);
	forger_wrong_res(&f);
	/* identified by 5G-GUTI: identification before the reject (5.4.1.3.5) */
	forger_dl(&f, &dl, NAS_IDENTITY_REQUEST);
	victim_intact();
}

/* A switch-off that fails the integrity check cannot be authenticated: ignored. */
static void test_dereg_switchoff_forged(void **state)
{
	struct sue f;

	(void)state;
	forged_dereg(&f, 0x09);
	victim_intact();
}

/* TS 24.501 4.4.3.1: an uplink message replayed with a COUNT already used fails the
 * integrity check (the estimated COUNT is the next overflow) and is discarded; as the
 * initial message of a new connection too. */
static void test_replay_ul_nas(void **state)
{
	struct sue old = V;
	struct nas_msg m;
	struct amf_stats a, b;

	(void)state;
	memset(&m, 0, sizeof(m));
	m.type = NAS_5GMM_STATUS;
	m.gmm_status.cause = NAS_5GMM_MSG_TYPE_NOT_COMPATIBLE;
	sue_ul(&H, &V, &m, NAS_SHT_INTEGRITY_CIPHERED);   /* the original, accepted */
	amf_get_stats(H.amf, &a);
	sue_ul(&H, &old, &m, NAS_SHT_INTEGRITY_CIPHERED); /* the same bytes again */
	amf_get_stats(H.amf, &b);
	assert_int_equal(b.nas_mac_fail, a.nas_mac_fail + 1);
	old.ran_id = F_RAN;
	old.ul = V.ul - 1;
	{
		struct nas_msg r;

		sue_reg_req(&old, &r, true);
		r.reg_req.reg_type = 0x03;   /* periodic: would skip authentication */
		sue_initial(&H, &old, &r, NAS_SHT_INTEGRITY);
	}
	victim_intact();
}

/* A replayed SERVICE REQUEST of the victim's (captured earlier): #9 to the replayer,
 * the victim untouched. */
static void test_replay_svc(void **state)
{
	struct sue before;
	struct nas_msg dl;
	static const uint8_t one = 1;

	(void)state;
	gnb_release_req(&V);
	before = V;
	service_req(&V, V_RAN, true, 1u << 1, true, 1u << 1);   /* the original */
	assert_int_equal(sue_dl(&H, &V, &dl), NGAP_PROC_INITIAL_CONTEXT_SETUP);
	ics_rsp(&V, 1, &one);
	assert_int_equal(amf_ue_info_by_supi(H.amf, SUPI1, &Vi), 0);
	service_req(&before, F_RAN, true, 1u << 1, true, 1u << 1);   /* its replay */
	assert_true(h_pop(&H));
	assert_int_equal(H.m.u.downlink_nas_transport.ran_ue_id, F_RAN);
	victim_intact();
}

/* The other side of the rule: the real UE, registering again by SUCI from another
 * connection, authenticates and then (only then) replaces its old context: one context,
 * registered on the new connection, a new 5G-GUTI (TS 23.502 4.2.2.2.2). */
static void test_real_ue_replaces_old(void **state)
{
	struct sue again;
	struct amf_ue_info now;
	struct amf_stats st;

	(void)state;
	struct nas_msg smc, m, dl;
	static const uint8_t one = 1;

	sue_init(&again, "0000000001", ASSOC, F_RAN);
	again.usim = V.usim;
	sue_to_smc(&H, &again, &smc);
	amf_get_stats(H.amf, &st);
	assert_int_equal(st.ues, 2);   /* nothing replaced before authentication is done */
	memset(&m, 0, sizeof(m));
	m.type = NAS_SECURITY_MODE_COMPLETE;
	sue_ul(&H, &again, &m, NAS_SHT_INTEGRITY_CIPHERED_NEW_CTX);
	/* authenticated: the victim's old connection is released, then the accept */
	h_expect(&H, NGAP_INITIATING, NGAP_PROC_UE_CONTEXT_RELEASE);
	assert_int_equal(H.m.u.ue_context_release_command.ran_ue_id, V_RAN);
	sue_release_complete(&H, &V);
	assert_int_equal(sue_dl(&H, &again, &dl), NGAP_PROC_INITIAL_CONTEXT_SETUP);
	assert_int_equal(dl.type, NAS_REGISTRATION_ACCEPT);
	(void)one;
	amf_get_stats(H.amf, &st);
	assert_int_equal(st.ues, 1);
	assert_int_equal(st.registered, 1);
	assert_int_equal(amf_ue_info_by_supi(H.amf, SUPI1, &now), 0);
	assert_int_equal(now.ran_ue_ngap_id, F_RAN);
	assert_true(now.tmsi != Vi.tmsi);
}

/* The real UE's normal deregistration whose MAC failed (say, a lost context on the UE
 * side is not this case; a corrupted one is): authenticated, then executed. */
static void test_real_dereg_authenticated(void **state)
{
	struct sue u;
	struct nas_msg m, dl;
	uint8_t res[16], auts[14];
	struct amf_ue_info now;

	(void)state;
	sue_init(&u, "0000000001", ASSOC, F_RAN);
	u.usim = V.usim;
	u.sec = true;
	u.nia = 2;
	memset(u.kint, 0x11, sizeof(u.kint));
	memset(&m, 0, sizeof(m));
	m.type = NAS_DEREGISTRATION_REQUEST_UE_ORIG;
	m.dereg_req.dereg_type = 0x01;
	m.dereg_req.ngksi = V.ngksi;
	m.dereg_req.mobile_id = V.guti;
	sue_initial(&H, &u, &m, NAS_SHT_INTEGRITY);
	u.sec = false;
	assert_int_equal(sue_dl(&H, &u, &dl), NGAP_PROC_DOWNLINK_NAS_TRANSPORT);
	assert_int_equal(dl.type, NAS_AUTHENTICATION_REQUEST);
	assert_int_equal(sue_aka(&H, &u, &dl, res, auts), 0);
	sue_auth_resp(&H, &u, res);
	assert_int_equal(sue_dl(&H, &u, &dl), NGAP_PROC_DOWNLINK_NAS_TRANSPORT);
	assert_int_equal(dl.type, NAS_SECURITY_MODE_COMMAND);
	memset(&m, 0, sizeof(m));
	m.type = NAS_SECURITY_MODE_COMPLETE;
	sue_ul(&H, &u, &m, NAS_SHT_INTEGRITY_CIPHERED_NEW_CTX);
	/* the old connection released, then the DEREGISTRATION ACCEPT and the release */
	while (h_pop(&H)) {
		if (H.m.proc == NGAP_PROC_UE_CONTEXT_RELEASE) {
			struct sue *who = H.m.u.ue_context_release_command.ran_ue_id == F_RAN ? &u : &V;

			who->amf_id = H.m.u.ue_context_release_command.amf_ue_id;
			sue_release_complete(&H, who);
		}
	}
	assert_int_equal(amf_ue_info_by_supi(H.amf, SUPI1, &now), -ENOENT);
	assert_int_equal(sessions(), 0);
}

/* TS 24.501 5.6.1.1: a SERVICE REQUEST in 5GMM-CONNECTED (the user plane of a session
 * asked for) is answered with SERVICE ACCEPT, not 5GMM STATUS. */
static void test_svc_connected(void **state)
{
	struct nas_msg m, dl;

	(void)state;
	victim_svc_req(&m);
	sue_ul(&H, &V, &m, NAS_SHT_INTEGRITY_CIPHERED);
	assert_int_equal(sue_dl(&H, &V, &dl), NGAP_PROC_DOWNLINK_NAS_TRANSPORT);
	assert_int_equal(dl.type, NAS_SERVICE_ACCEPT);
	assert_int_equal(dl.svc_acc.pdu_session_status, 1u << 1);
	assert_true(dl.svc_acc.has_reactivation_result);
	assert_int_equal(dl.svc_acc.reactivation_result, 0);
	victim_intact();
}

/* TS 33.501 6.4.3.1: the NAS COUNT must not wrap under one K_AMF. A service request
 * arriving with the uplink COUNT past AMF_NAS_COUNT_REKEY gets a new authentication and
 * security mode first, then its accept (K_gNB from the new K_AMF, checked by sue_dl). */
static void test_count_rekey(void **state)
{
	struct amf_ue *u = amf_ue_by_supi(H.amf, SUPI1);
	struct nas_msg dl, m;
	uint8_t res[16], auts[14];
	uint8_t old_kamf[32];

	(void)state;
	gnb_release_req(&V);
	u->ul_count = AMF_NAS_COUNT_REKEY - 1;
	V.ul = AMF_NAS_COUNT_REKEY;
	memcpy(old_kamf, V.kamf, sizeof(old_kamf));
	service_req(&V, V_RAN + 5, true, 1u << 1, true, 1u << 1);
	assert_int_equal(sue_dl(&H, &V, &dl), NGAP_PROC_DOWNLINK_NAS_TRANSPORT);
	assert_int_equal(dl.type, NAS_AUTHENTICATION_REQUEST);
	assert_int_equal(sue_aka(&H, &V, &dl, res, auts), 0);
	/* The UE holds a valid context: its answer is protected with it (TS 24.501 4.4.4.2). */
	memset(&m, 0, sizeof(m));
	m.type = NAS_AUTHENTICATION_RESPONSE;
	m.auth_resp.has_res_star = true;
	m.auth_resp.res_star.p = res;
	m.auth_resp.res_star.len = 16;
	sue_ul(&H, &V, &m, NAS_SHT_INTEGRITY_CIPHERED);
	assert_int_equal(sue_dl(&H, &V, &dl), NGAP_PROC_DOWNLINK_NAS_TRANSPORT);
	assert_int_equal(dl.type, NAS_SECURITY_MODE_COMMAND);
	memset(&m, 0, sizeof(m));
	m.type = NAS_SECURITY_MODE_COMPLETE;
	sue_ul(&H, &V, &m, NAS_SHT_INTEGRITY_CIPHERED_NEW_CTX);
	assert_int_equal(sue_dl(&H, &V, &dl), NGAP_PROC_INITIAL_CONTEXT_SETUP);
	assert_int_equal(dl.type, NAS_SERVICE_ACCEPT);
	assert_memory_not_equal(old_kamf, V.kamf, sizeof(old_kamf));
	assert_true(u->ul_count < 16);
	assert_true(amf_gmm_registered(u));
}

/* TS 24.501 5.5.2.3.1 / TS 23.502 4.2.2.3.3: a network deregistration of a CM-IDLE UE
 * pages it first; the DEREGISTRATION REQUEST (re-registration required: bit 3, 0x04,
 * TS 24.501 9.11.3.20) follows its service request. Unanswered paging: local. */
static void test_net_dereg_idle_pages(void **state)
{
	struct nas_msg dl;
	struct amf_ue_info info;

	(void)state;
	gnb_release_req(&V);
	assert_int_equal(amf_deregister_supi(H.amf, SUPI1, true), 0);
	h_expect(&H, NGAP_INITIATING, NGAP_PROC_PAGING);
	assert_int_equal(amf_ue_info_by_supi(H.amf, SUPI1, &info), 0);
	assert_int_equal(info.state, AMF_GMM_REGISTERED);
	service_req(&V, V_RAN + 7, false, 0, true, 1u << 1);
	assert_int_equal(sue_dl(&H, &V, &dl), NGAP_PROC_INITIAL_CONTEXT_SETUP);
	assert_int_equal(dl.type, NAS_SERVICE_ACCEPT);
	ics_rsp(&V, 0, NULL);
	assert_int_equal(sue_dl(&H, &V, &dl), NGAP_PROC_DOWNLINK_NAS_TRANSPORT);
	assert_int_equal(dl.type, NAS_DEREGISTRATION_REQUEST_UE_TERM);
	assert_int_equal(dl.dereg_req.dereg_type, 0x05);
}

static void test_net_dereg_idle_unreachable(void **state)
{
	struct amf_ue_info info;
	unsigned i;

	(void)state;
	gnb_release_req(&V);
	assert_int_equal(amf_deregister_supi(H.amf, SUPI1, false), 0);
	for (i = 0; i < 20 && amf_ue_info_by_supi(H.amf, SUPI1, &info) == 0; i++) {
		h_run_until_tx(&H, 8000);
		while (h_pop(&H))
			assert_int_equal(H.m.proc, NGAP_PROC_PAGING);
	}
	assert_int_equal(amf_ue_info_by_supi(H.amf, SUPI1, &info), -ENOENT);
	assert_int_equal(sessions(), 0);
}

/* TS 24.501 5.5.1.2.4: the 5G-GUTI the UE holds stays valid until REGISTRATION COMPLETE
 * (the UE may not have received the accept with the new one); then only the new one. */
static void test_old_guti_valid_until_complete(void **state)
{
	struct nas_msg m, dl;
	uint32_t t1 = V.guti.guti.tmsi, t2;
	struct amf_ue *u = amf_ue_by_supi(H.amf, SUPI1);

	(void)state;
	sue_reg_req(&V, &m, true);
	m.reg_req.reg_type = 0x03;   /* periodic updating, over the verified connection */
	sue_ul(&H, &V, &m, NAS_SHT_INTEGRITY_CIPHERED);
	assert_int_equal(sue_dl(&H, &V, &dl), NGAP_PROC_DOWNLINK_NAS_TRANSPORT);
	assert_int_equal(dl.type, NAS_REGISTRATION_ACCEPT);
	t2 = dl.reg_acc.guti.guti.tmsi;
	assert_true(t2 != t1);
	assert_ptr_equal(amf_ue_by_tmsi(H.amf, t1), u);
	assert_ptr_equal(amf_ue_by_tmsi(H.amf, t2), u);
	memset(&m, 0, sizeof(m));
	m.type = NAS_REGISTRATION_COMPLETE;
	sue_ul(&H, &V, &m, NAS_SHT_INTEGRITY_CIPHERED);
	while (h_pop(&H))
		;   /* the configuration update that may follow */
	assert_null(amf_ue_by_tmsi(H.amf, t1));
	assert_ptr_equal(amf_ue_by_tmsi(H.amf, t2), u);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_reg_guti_badcaps, vsetup, teardown),
		cmocka_unit_test_setup_teardown(test_reg_guti_badmac_badcaps, vsetup, teardown),
		cmocka_unit_test_setup_teardown(test_reg_guti_t3560, vsetup, teardown),
		cmocka_unit_test_setup_teardown(test_reg_guti_wrong_res, vsetup, teardown),
		cmocka_unit_test_setup_teardown(test_reg_guti_auth_fail20, vsetup, teardown),
		cmocka_unit_test_setup_teardown(test_reg_suci_null_wrong_res, vsetup, teardown),
		cmocka_unit_test_setup_teardown(test_svc_forged, vsetup, teardown),
		cmocka_unit_test_setup_teardown(test_dereg_normal_forged, vsetup, teardown),
		cmocka_unit_test_setup_teardown(test_dereg_switchoff_forged, vsetup, teardown),
		cmocka_unit_test_setup_teardown(test_replay_ul_nas, vsetup, teardown),
		cmocka_unit_test_setup_teardown(test_replay_svc, vsetup, teardown),
		cmocka_unit_test_setup_teardown(test_real_ue_replaces_old, vsetup, teardown),
		cmocka_unit_test_setup_teardown(test_real_dereg_authenticated, vsetup, teardown),
		cmocka_unit_test_setup_teardown(test_svc_connected, vsetup, teardown),
		cmocka_unit_test_setup_teardown(test_count_rekey, vsetup, teardown),
		cmocka_unit_test_setup_teardown(test_net_dereg_idle_pages, vsetup, teardown),
		cmocka_unit_test_setup_teardown(test_net_dereg_idle_unreachable, vsetup, teardown),
		cmocka_unit_test_setup_teardown(test_old_guti_valid_until_complete, vsetup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
