/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * ransim against the real AMF in one process, over usrsctp UDP encapsulation on loopback
 * (no root, no namespaces): the library's state machines end to end, with the AMF's
 * counters and the UDM's SQN as the second witness. Suite 'unit'; the namespace and UML
 * variants are in tests/e2e.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "amf/amf.h"
#include "ausf/ausf.h"
#include "common/conf.h"
#include "common/crypto/crypto.h"
#include "common/ev.h"
#include "common/log.h"
#include "common/nas/nas.h"
#include "common/ngap/ngap.h"
#include "common/sctp/sctp.h"
#include "db/db.h"
#include <arpa/inet.h>
#include <netinet/in.h>
#include "ransim.h"
#include "smf/smf.h"
#include "testlib.h"
#include "udm/udm.h"
#include <unistd.h>

#define N_SUBS 8

/* TS 35.208 test set 1 K / OPc; the IMSIs differ. */
static const uint8_t k1[16] = { 0x46, 0x5b, 0x5c, 0xe8, 0xb1, 0x99, 0xb4, 0x9f,
				0xaa, 0x5f, 0x0a, 0x2e, 0xe2, 0x38, 0xa6, 0xbc };
static const uint8_t opc1[16] = { 0xcd, 0x63, 0xcb, 0x71, 0x95, 0x4a, 0x9f, 0x4e,
				  0x48, 0xa5, 0x99, 0x4e, 0x37, 0xa0, 0x2b, 0xaf };
/* TS 33.501 Annex C.4.3 profile A home network private key. */
static const char hn_priv_a[] = "c53c22208b61860b06c62e5406a7b330c2b577aa5558981510d128247d38bd1d";

static struct {
	struct ev_loop *loop;    /* one loop for the process: usrsctp is a singleton */
	struct conf *conf;
	struct udm *udm;
	struct ausf *ausf;
	struct amf *amf;
	struct smf *smf;
	struct crypto_keyring *kr;
	struct ransim_sim sims[N_SUBS];
	bool skipped;
	const char *conf_extra;  /* YAML/JSON applied on the defaults by amf_up (NULL: none) */
	struct conf *conf_b;     /* a second AMF's configuration (test_amf_set_failover) */
} T;

static void sub_add(unsigned i)
{
	struct udm_sub_in in;
	static const char *const dnn = "internet";

	memset(&in, 0, sizeof(in));
	snprintf(in.data.supi, sizeof(in.data.supi), "imsi-0010100000000%02u", i + 1);
	in.data.n_slices = 1;
	in.data.slices[0].sst = 1;
	in.data.slices[0].sd = 0x010203;
	in.data.n_dnns = 1;
	in.data.dnns[0] = dnn;
	memcpy(in.k, k1, 16);
	memcpy(in.opc, opc1, 16);
	in.op_is_opc = true;
	in.amf[0] = 0x80;
	assert_int_equal(udm_add(T.udm, &in), 0);
	memset(&T.sims[i], 0, sizeof(T.sims[i]));
	snprintf(T.sims[i].supi, sizeof(T.sims[i].supi), "%s", in.data.supi);
	memcpy(T.sims[i].k, k1, 16);
	memcpy(T.sims[i].opc, opc1, 16);
}

/* AMF over usrsctp UDP on 127.0.0.1 with the given priority lists ("" = defaults). */
static int amf_up(const uint8_t *integ, unsigned ni, const uint8_t *ciph, unsigned nc)
{
	struct crypto_hn_key *key;
	int err = 0;
	unsigned i;

	T.conf = calloc(1, sizeof(*T.conf));
	assert_non_null(T.conf);
	assert_int_equal(conf_defaults(T.conf), 0);
	snprintf(T.conf->n2.address, sizeof(T.conf->n2.address), "127.0.0.1");
	T.conf->n2.port = 0;
	T.conf->n2.sctp = CONF_SCTP_USRSCTP;
	T.conf->n2.usrsctp_encaps = CONF_ENCAPS_UDP;
	T.conf->n2.udp_port = 0;
	T.conf->limits.max_ues = 64;
	if (T.conf_extra)   /* a test's own settings on top (registration areas ...) */
		assert_int_equal(conf_overlay_string(T.conf, NULL, T.conf_extra, strlen(T.conf_extra), NULL, 0), 0);
	snprintf(T.conf->amf.network_name.full, sizeof(T.conf->amf.network_name.full), "ransim test");
	if (ni) {
		memcpy(T.conf->amf.security.integrity, integ, ni);
		T.conf->amf.security.n_integrity = ni;
	}
	if (nc) {
		memcpy(T.conf->amf.security.ciphering, ciph, nc);
		T.conf->amf.security.n_ciphering = nc;
	}
	T.udm = udm_new(64, &err);
	assert_non_null(T.udm);
	T.kr = crypto_keyring_new();
	assert_non_null(T.kr);
	assert_int_equal(crypto_hn_key_from_hex(&key, CRYPTO_SUCI_PROFILE_A, 1, hn_priv_a), 0);
	assert_int_equal(crypto_keyring_add(T.kr, key), 0);
	udm_set_keyring(T.udm, T.kr);
	for (i = 0; i < N_SUBS; i++)
		sub_add(i);
	T.ausf = ausf_new(T.udm, &err);
	assert_non_null(T.ausf);
	T.amf = amf_start(T.loop, T.conf, T.ausf, T.udm, &err);
	if (!T.amf) {
		printf("SKIP: N2 listener over usrsctp/UDP could not start here (rc=%d)\n", err);
		T.skipped = true;
		return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	amf_stop(T.amf);
	T.amf = NULL;
	smf_free(T.smf);   /* right after the AMF (amf.h) */
	T.smf = NULL;
	ausf_free(T.ausf);
	udm_free(T.udm);
	crypto_keyring_free(T.kr);
	free(T.conf);
	free(T.conf_b);
	T.conf_b = NULL;
	return 0;
}

static void rs_cfg(struct ransim_cfg *c, unsigned ues, unsigned conc)
{
	ransim_cfg_init(c);
	c->sctp.encap = N2SCTP_ENCAP_UDP;
	c->sctp.udp_peer_port = amf_n2_udp_port(T.amf);
	c->port = amf_n2_port(T.amf);
	c->n_ues = ues;
	c->concurrency = conc;
	c->expect_cuc = true;
	c->ue_timeout_ms = 3000;
}

/* Run the loop for ms milliseconds (answers in flight arrive). */
static void spin_ms(unsigned ms)
{
	uint64_t end = ev_update_now(T.loop) + (uint64_t)ms * 1000000ull;

	while (ev_update_now(T.loop) < end)
		ev_run_once(T.loop, 10);
}

/* Create and start, run until every UE has finished its plan (20 s at most). */
static struct ransim *start_done(const struct ransim_cfg *c, const struct ransim_sim *sims, unsigned n)
{
	int err = 0;
	struct ransim *rs = ransim_new(T.loop, c, sims, n, &err);
	uint64_t end;

	assert_non_null(rs);
	assert_int_equal(ransim_start(rs), 0);
	end = ev_update_now(T.loop) + 20000000000ull;
	while (!ransim_done(rs) && ev_update_now(T.loop) < end)
		ev_run_once(T.loop, 10);
	assert_true(ransim_done(rs));
	return rs;
}

/* Shut the associations down and let the SHUTDOWN through. */
static void shut(struct ransim *rs)
{
	ransim_shutdown(rs);
	spin_ms(300);
}

/* Run to completion, shut the associations down; returns the ransim (caller frees). */
static struct ransim *run(const struct ransim_cfg *c, const struct ransim_sim *sims, unsigned n)
{
	struct ransim *rs = start_done(c, sims, n);

	shut(rs);
	if (getenv("RANSIM_TEST_REPORT"))
		ransim_report(rs, stdout);
	return rs;
}

/* 8 UEs, 4 at a time, NIA2/NEA2: registered, CUC answered, deregistered. */
static void test_register_dereg(void **state)
{
	static const uint8_t ia[] = { 2 }, ea[] = { 2 };
	struct ransim_cfg c;
	struct ransim_stats s;
	struct amf_stats a;
	struct ransim *rs;

	(void)state;
	if (amf_up(ia, 1, ea, 1) < 0)
		return;
	rs_cfg(&c, N_SUBS, 4);
	c.expect_nia = 2;
	c.expect_nea = 2;
	rs = run(&c, T.sims, N_SUBS);
	ransim_get_stats(rs, &s);
	assert_int_equal(s.ues_ok, N_SUBS);
	assert_int_equal(s.ues_failed, 0);
	assert_int_equal(s.ues_registered, N_SUBS);
	assert_int_equal(s.cuc_received, N_SUBS);
	assert_int_equal(s.done[RANSIM_P_DEREGISTRATION], N_SUBS);
	assert_int_equal(s.dl_mac_fail, 0);
	assert_int_equal(s.stream_violations, 0);
	/* per UE: 8 PDUs up (Initial UE, 5 UL NAS, ICS response, release complete) + NG Setup;
	 * 6 down (4 DL NAS, ICS request, release command) + NG Setup Response */
	assert_int_equal(s.ngap_tx, 8 * N_SUBS + 1);
	assert_int_equal(s.ngap_rx, 6 * N_SUBS + 1);
	ransim_free(rs);
	amf_get_stats(T.amf, &a);
	assert_int_equal(a.reg_accepted, N_SUBS);
	assert_int_equal(a.dereg_ue, N_SUBS);
	assert_int_equal(a.registered, 0);
	assert_int_equal(a.nas_mac_fail, 0);
}

/* The SMF over no user plane, attached to the AMF (amf.h start-up order). */
static void smf_up(void)
{
	struct smf_params p;
	int err = 0;

	T.conf->n_dnns = 1;
	snprintf(T.conf->dnns[0].name, sizeof(T.conf->dnns[0].name), "internet");
	snprintf(T.conf->dnns[0].pool, sizeof(T.conf->dnns[0].pool), "10.45.0.0/24");
	memset(&p, 0, sizeof(p));
	p.conf = T.conf;
	p.loop = T.loop;
	p.udm = T.udm;
	p.n3_addr = htonl(0xc0000201);   /* 192.0.2.1 */
	p.max_sessions = 64;
	p.max_ues = 64;
	amf_smf_ops(T.amf, &p.ops);
	T.smf = smf_new(&p, &err);
	assert_non_null(T.smf);
	amf_set_smf(T.amf, T.smf);
}

/* Issue 6's cycle for 8 UEs, 3 at a time, NIA2/NEA2, with the radio capability indication:
 * every message counted, every check of the session steps passed, nothing left behind. */
static void test_cycle(void **state)
{
	static const uint8_t ia[] = { 2 }, ea[] = { 2 };
	struct ransim_cfg c;
	struct ransim_stats s;
	struct smf_stats m;
	struct amf_stats a;
	struct ransim *rs;
	uint32_t used = 99, size = 0;

	(void)state;
	if (amf_up(ia, 1, ea, 1) < 0)
		return;
	smf_up();
	rs_cfg(&c, N_SUBS, 3);
	c.cycle = true;
	c.radio_cap = true;
	c.expect_nia = 2;
	c.expect_nea = 2;
	rs = run(&c, T.sims, N_SUBS);
	ransim_get_stats(rs, &s);
	assert_int_equal(s.ues_ok, N_SUBS);
	assert_int_equal(s.ues_failed, 0);
	assert_int_equal(s.cycles, N_SUBS);
	assert_int_equal(s.pdu_established, N_SUBS);
	assert_int_equal(s.service_accepts, N_SUBS);
	assert_int_equal(s.pdu_released, N_SUBS);
	assert_int_equal(s.done[RANSIM_P_CYCLE], N_SUBS);
	assert_int_equal(s.done[RANSIM_P_SERVICE], N_SUBS);
	assert_int_equal(s.dl_mac_fail, 0);
	assert_int_equal(s.stream_violations, 0);
	/* 17 up + 2 radio capability indications, 10 down, per UE; + NG Setup each way */
	assert_int_equal(s.ngap_tx, 19 * N_SUBS + 1);
	assert_int_equal(s.ngap_rx, 10 * N_SUBS + 1);
	assert_int_equal(ransim_ngap_count(rs, 0, "UERadioCapabilityInfoIndication"), 2 * N_SUBS);
	assert_int_equal(ransim_ngap_count(rs, 1, "PDUSessionResourceSetupRequest"), N_SUBS);
	assert_int_equal(ransim_ngap_count(rs, 1, "PDUSessionResourceReleaseCommand"), N_SUBS);
	assert_int_equal(ransim_ngap_count(rs, 1, "InitialContextSetupRequest"), 2 * N_SUBS);
	assert_int_equal(ransim_ngap_count(rs, 0, "UEContextReleaseRequest"), N_SUBS);
	ransim_free(rs);
	smf_get_stats(T.smf, &m);
	assert_int_equal(m.est_accepted, N_SUBS);
	assert_int_equal(m.rel_ue, N_SUBS);
	assert_int_equal(m.up_deactivated, N_SUBS);
	assert_int_equal(m.up_reactivated, N_SUBS);
	assert_int_equal(m.sessions, 0);
	assert_int_equal(smf_pool_usage(T.smf, "internet", &used, &size), 0);
	assert_int_equal(used, 0);
	amf_get_stats(T.amf, &a);
	assert_int_equal(a.service_req, N_SUBS);
	assert_int_equal(a.dereg_ue, N_SUBS);
	assert_int_equal(a.registered, 0);
}

/* The old, non-compliant SERVICE REQUEST (--svc-ies-clear: uplink data status and PDU
 * session status in the clear, no NAS message container) still gets its sessions back. */
static void test_cycle_svc_ies_clear(void **state)
{
	static const uint8_t ia[] = { 2 }, ea[] = { 2 };
	struct ransim_cfg c;
	struct ransim_stats s;
	struct smf_stats m;
	struct ransim *rs;

	(void)state;
	if (amf_up(ia, 1, ea, 1) < 0)
		return;
	smf_up();
	rs_cfg(&c, 4, 2);
	c.cycle = true;
	c.svc_ies_clear = true;
	rs = run(&c, T.sims, N_SUBS);
	ransim_get_stats(rs, &s);
	assert_int_equal(s.ues_failed, 0);
	assert_int_equal(s.cycles, 4);
	assert_int_equal(s.service_accepts, 4);
	ransim_free(rs);
	smf_get_stats(T.smf, &m);
	assert_int_equal(m.up_reactivated, 4);
}

/* --restart-after in the library: 8 UEs hold a PDU session each (NIA2/NEA2), the gNB
 * restarts (ABORT, fresh NG Setup), each UE comes back with a SERVICE REQUEST whose IEs are
 * in the ciphered NAS message container: every session reactivated by the AMF and the SMF
 * (the AMF reads the container, TS 24.501 4.4.6; association loss is an AN release). */
static void test_gnb_restart(void **state)
{
	static const uint8_t ia[] = { 2 }, ea[] = { 2 };
	struct ransim_cfg c;
	struct ransim_stats s;
	struct smf_stats m;
	struct amf_stats a;
	struct ransim *rs;
	uint64_t end;

	(void)state;
	if (amf_up(ia, 1, ea, 1) < 0)
		return;
	smf_up();
	rs_cfg(&c, N_SUBS, 4);
	c.session = true;
	c.dereg = RANSIM_DEREG_NONE;
	c.restart_after_ms = 1;
	c.expect_nea = 2;
	rs = start_done(&c, T.sims, N_SUBS);
	ransim_restart(rs);
	end = ev_update_now(T.loop) + 20000000000ull;
	do {
		ev_run_once(T.loop, 10);
		ransim_get_stats(rs, &s);
	} while (s.restart_svc_ok < N_SUBS && ev_update_now(T.loop) < end);
	assert_int_equal(s.gnb_restarts, 1);
	assert_int_equal(s.restart_ues, N_SUBS);
	assert_int_equal(s.restart_svc_ok, N_SUBS);
	assert_int_equal(s.service_accepts, N_SUBS);
	assert_int_equal(s.ues_failed, 0);
	assert_int_equal(s.dl_mac_fail, 0);
	assert_int_equal(ransim_ngap_count(rs, 0, "NGSetupRequest"), 2);
	assert_int_equal(ransim_ngap_count(rs, 1, "InitialContextSetupRequest"), 2 * N_SUBS);
	spin_ms(300);   /* the ICS Responses (with the transfers) reach the AMF and the SMF */
	smf_get_stats(T.smf, &m);
	assert_int_equal(m.up_deactivated, N_SUBS);
	assert_int_equal(m.est_accepted, N_SUBS);
	assert_int_equal(m.up_reactivated, N_SUBS);
	assert_int_equal(m.sessions, N_SUBS);
	amf_get_stats(T.amf, &a);
	assert_int_equal(a.service_req, N_SUBS);
	shut(rs);
	ransim_free(rs);
}

static bool report_has(const struct ransim *rs, const char *line)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	bool found;

	assert_non_null(f);
	ransim_report(rs, f);
	fclose(f);
	found = strstr(buf, line) != NULL;
	if (!found)
		printf("%s", buf);
	free(buf);
	return found;
}

/* The SMF's view of UE idx's session: its state and session-AMBR (smf_sess_walk). */
struct sess_seen {
	const char *supi;
	int state;
	uint64_t ul, dl;
	uint32_t gnb_teid, ul_teid;
};

static int sess_cb(const struct smf_sess_view *v, void *arg)
{
	struct sess_seen *w = arg;

	if (!strcmp(v->supi, w->supi)) {
		w->state = (int)v->info.state;
		w->ul = v->info.ambr_ul_bps;
		w->dl = v->info.ambr_dl_bps;
		w->gnb_teid = v->info.gnb_teid;
		w->ul_teid = v->info.ul_teid;
	}
	return 0;
}

static void expect_sess(unsigned idx, uint64_t ul, uint64_t dl)
{
	struct sess_seen w = { T.sims[idx].supi, -1, 0, 0, 0, 0 };
	uint32_t cur = 0;

	smf_sess_walk(T.smf, &cur, 0, sess_cb, &w);
	assert_int_equal(w.state, SMF_ST_ACTIVE);
	assert_int_equal(w.ul, ul);
	assert_int_equal(w.dl, dl);
}

static void expect_qos(const struct ransim *rs, unsigned idx, const struct ransim_ue_qos *want)
{
	struct ransim_ue_qos q;

	assert_int_equal(ransim_ue_qos(rs, idx, &q), 0);
	assert_int_equal(q.ue_ambr_ul, want->ue_ambr_ul);
	assert_int_equal(q.ue_ambr_dl, want->ue_ambr_dl);
	assert_int_equal(q.n2_ambr_ul, want->n2_ambr_ul);
	assert_int_equal(q.n2_ambr_dl, want->n2_ambr_dl);
	assert_int_equal(q.sess_ambr_ul, want->sess_ambr_ul);
	assert_int_equal(q.sess_ambr_dl, want->sess_ambr_dl);
	assert_int_equal(q.ue_ctx_mods, want->ue_ctx_mods);
	assert_int_equal(q.pdu_mods, want->pdu_mods);
}

/* SIM idx's subscription on policy pol, with a session-AMBR of its own when ul/dl are not 0. */
static void sub_on_policy(unsigned idx, const struct db_policy *pol, uint64_t ul, uint64_t dl)
{
	struct db_subscriber row;

	memset(&row, 0, sizeof(row));
	strcpy(row.supi, T.sims[idx].supi);
	memcpy(row.k, k1, 16);
	memcpy(row.opc, opc1, 16);
	row.op_is_opc = true;
	row.amf = 0x8000;
	row.n_slices = 1;
	row.slices[0] = (struct db_snssai){ 1, 0x010203 };
	row.n_dnns = 1;
	strcpy(row.dnns[0], "internet");
	row.ambr_ul = ul;
	row.ambr_dl = dl;
	strcpy(row.policy, pol->name);
	assert_int_equal(udm_add_db_policy(T.udm, &row, pol), 0);
}

/* A policy change reaching UEs that hold a PDU session (TS 23.502 4.3.3.2): UEs 0 and 1 on
 * policy "p" (UE 1 with a session-AMBR of its own), UE 2 on the network defaults. The policy's
 * UE-AMBR and session-AMBR change and the AMF's and SMF's walks run as core.c runs them: the
 * gNB of UEs 0 and 1 gets one UE CONTEXT MODIFICATION REQUEST each with the new UE-AMBR and
 * answers it (TS 38.413 8.3.4.2); UE 0 alone gets a PDU SESSION RESOURCE MODIFY REQUEST with
 * the new session-AMBR in the transfer and a PDU SESSION MODIFICATION COMMAND, answered with
 * the RESPONSE (8.2.3.2) and the COMPLETE (TS 24.501 6.3.2.3), after which the SMF's session
 * is ACTIVE with the new AMBR; UE 2 gets nothing. A second walk sends nothing more. */
static void test_policy_change(void **state)
{
	const uint64_t M = 1000000;
	struct db_policy pol;
	struct ransim_cfg c;
	struct ransim_stats s;
	struct smf_stats m;
	struct ransim *rs;
	uint32_t cur;
	uint64_t end;

	(void)state;
	if (amf_up(NULL, 0, NULL, 0) < 0)
		return;
	smf_up();
	memset(&pol, 0, sizeof(pol));
	strcpy(pol.name, "p");
	pol.ue_ambr_ul = 100 * M;
	pol.ue_ambr_dl = 200 * M;
	pol.ambr_ul = 10 * M;
	pol.ambr_dl = 20 * M;
	for (unsigned i = 0; i < 2; i++)
		sub_on_policy(i, &pol, i ? 7 * M : 0, i ? 8 * M : 0);
	rs_cfg(&c, 3, 3);
	c.session = true;
	c.dereg = RANSIM_DEREG_NONE;
	rs = start_done(&c, T.sims, N_SUBS);
	spin_ms(300);   /* the Setup Responses reach the SMF (ACTIVE) */
	expect_sess(0, 10 * M, 20 * M);
	/* established: the UE-AMBR of the ICS / Setup Request, the session-AMBR both ways */
	expect_qos(rs, 0, &(struct ransim_ue_qos){ 100 * M, 200 * M, 10 * M, 20 * M, 10 * M, 20 * M, 0, 0 });
	expect_qos(rs, 1, &(struct ransim_ue_qos){ 100 * M, 200 * M, 7 * M, 8 * M, 7 * M, 8 * M, 0, 0 });
	expect_qos(rs, 2, &(struct ransim_ue_qos){ UDM_DEFAULT_UE_AMBR_BPS, UDM_DEFAULT_UE_AMBR_BPS,
						   UDM_DEFAULT_AMBR_BPS, UDM_DEFAULT_AMBR_BPS,
						   UDM_DEFAULT_AMBR_BPS, UDM_DEFAULT_AMBR_BPS, 0, 0 });

	/* PUT /api/v1/policies/p: new UE-AMBR and session-AMBR (core.c's walks, one slot a step) */
	pol.ue_ambr_ul = 150 * M;
	pol.ue_ambr_dl = 250 * M;
	pol.ambr_ul = 30 * M;
	pol.ambr_dl = 40 * M;
	assert_true(udm_policy_update(T.udm, &pol) >= 0);
	for (cur = 0; cur != AMF_WALK_END;)
		amf_ue_ambr_walk(T.amf, &cur, 1);
	for (cur = 0; cur != SMF_WALK_END;)
		smf_policy_update_walk(T.smf, &cur, 1, NULL);
	end = ev_update_now(T.loop) + 5000000000ull;
	do {
		ev_run_once(T.loop, 10);
		smf_get_stats(T.smf, &m);
	} while (m.mod_ok < 1 && ev_update_now(T.loop) < end);
	spin_ms(200);   /* anything more would arrive by now */
	ransim_get_stats(rs, &s);
	assert_int_equal(s.ue_ctx_mods, 2);
	assert_int_equal(s.ue_ambr_ul_last, 150 * M);
	assert_int_equal(s.ue_ambr_dl_last, 250 * M);
	assert_int_equal(s.pdu_mod_requests, 1);
	assert_int_equal(s.pdu_mod_commands, 1);
	assert_int_equal(s.pdu_mod_rejected, 0);
	assert_int_equal(s.sess_ambr_ul_last, 30 * M);
	assert_int_equal(s.sess_ambr_dl_last, 40 * M);
	assert_int_equal(s.ues_failed, 0);
	assert_int_equal(s.dl_mac_fail, 0);
	assert_int_equal(ransim_ngap_count(rs, 1, "UEContextModificationRequest"), 2);
	assert_int_equal(ransim_ngap_count(rs, 0, "UEContextModificationResponse"), 2);
	assert_int_equal(ransim_ngap_count(rs, 1, "PDUSessionResourceModifyRequest"), 1);
	assert_int_equal(ransim_ngap_count(rs, 0, "PDUSessionResourceModifyResponse"), 1);
	expect_qos(rs, 0, &(struct ransim_ue_qos){ 150 * M, 250 * M, 30 * M, 40 * M, 30 * M, 40 * M, 1, 1 });
	expect_qos(rs, 1, &(struct ransim_ue_qos){ 150 * M, 250 * M, 7 * M, 8 * M, 7 * M, 8 * M, 1, 0 });
	expect_qos(rs, 2, &(struct ransim_ue_qos){ UDM_DEFAULT_UE_AMBR_BPS, UDM_DEFAULT_UE_AMBR_BPS,
						   UDM_DEFAULT_AMBR_BPS, UDM_DEFAULT_AMBR_BPS,
						   UDM_DEFAULT_AMBR_BPS, UDM_DEFAULT_AMBR_BPS, 0, 0 });
	assert_true(report_has(rs, "\nue_qos imsi-001010000000001 ue_ctx_mods 1 ue_ambr_ul 150000000 ue_ambr_dl "
				   "250000000 pdu_mods 1 sess_ambr_ul 30000000 sess_ambr_dl 40000000 n2_ambr_ul 30000000 "
				   "n2_ambr_dl 40000000\n"));
	/* the SMF took the COMPLETE: ACTIVE with the new session-AMBR (TS 24.501 6.3.2.3) */
	smf_get_stats(T.smf, &m);
	assert_int_equal(m.mod_ok, 1);
	assert_int_equal(m.mod_failed, 0);
	expect_sess(0, 30 * M, 40 * M);
	expect_sess(1, 7 * M, 8 * M);
	expect_sess(2, UDM_DEFAULT_AMBR_BPS, UDM_DEFAULT_AMBR_BPS);
	/* nothing changed since: the walks send nothing */
	for (cur = 0; cur != AMF_WALK_END;)
		assert_int_equal(amf_ue_ambr_walk(T.amf, &cur, 1), 0);
	for (cur = 0; cur != SMF_WALK_END;)
		assert_int_equal(smf_policy_update_walk(T.smf, &cur, 1, NULL), 0);
	shut(rs);
	ransim_free(rs);
}

/* Policy pol's UE-AMBR uplink to ul, the AMF's walk as core.c runs it: one UE CONTEXT
 * MODIFICATION REQUEST reaches the UE on the policy (TS 23.502 4.3.3.2) where the AMF holds it. */
static void ue_ambr_change(struct ransim *rs, struct db_policy *pol, uint64_t ul)
{
	struct ransim_stats s;
	uint32_t cur;
	uint64_t end;

	pol->ue_ambr_ul = ul;
	assert_true(udm_policy_update(T.udm, pol) >= 0);
	for (cur = 0; cur != AMF_WALK_END;)
		amf_ue_ambr_walk(T.amf, &cur, 1);
	end = ev_update_now(T.loop) + 3000000000ull;
	do {
		ev_run_once(T.loop, 10);
		ransim_get_stats(rs, &s);
	} while (s.ue_ctx_mods < 1 && ev_update_now(T.loop) < end);
	assert_int_equal(s.ue_ctx_mods, 1);
}

/* The SMF's tunnels of UE idx's session: the gNB's DL TEID must be teid, the UPF's UL TEID
 * ul_teid (0: any); returns the UL TEID. */
static uint32_t expect_dl_teid(unsigned idx, uint32_t teid, uint32_t ul_teid)
{
	struct sess_seen w = { T.sims[idx].supi, -1, 0, 0, 0, 0 };
	uint32_t cur = 0;

	smf_sess_walk(T.smf, &cur, 0, sess_cb, &w);
	assert_int_equal(w.state, SMF_ST_ACTIVE);
	assert_int_equal(w.gnb_teid, teid);
	if (ul_teid)
		assert_int_equal(w.ul_teid, ul_teid);
	return w.ul_teid;
}

/* One round of Xn handover for all UEs; waits for the acknowledges. */
static void ho_round(struct ransim *rs, unsigned n, uint64_t acked_before)
{
	struct ransim_stats s;
	uint64_t end;

	assert_int_equal(ransim_handover(rs), n);
	end = ev_update_now(T.loop) + 5000000000ull;
	do {
		ev_run_once(T.loop, 10);
		ransim_get_stats(rs, &s);
	} while (s.ps_acked + s.ps_failed + s.ps_errors < acked_before + n && ev_update_now(T.loop) < end);
	spin_ms(100);
}

/* Xn handover (TS 23.502 4.9.1.2.2, TS 38.413 8.4.4) between the two gNBs of one ransim: 4 UEs
 * with a session each (2 on each gNB), two rounds: each target sends PATH SWITCH REQUEST with
 * its own DL TEID; every one acknowledged, NCC 2 then 3 with the NH the UE derives itself
 * (TS 33.501 6.9.2.1.1), the SMF's session on the target's TEID with the UL TEID unchanged,
 * nothing heard by the sources; a UE-AMBR change afterwards reaches the UE on its target with
 * the AMF UE NGAP ID of the acknowledge (the context lives there). */
static void test_xn_handover(void **state)
{
	const uint64_t M = 1000000;
	struct db_policy pol;
	struct ransim_cfg c;
	struct ransim_stats s;
	struct ransim *rs;
	uint32_t teid, ul_teid[4];
	unsigned i, g, hos, ncc;

	(void)state;
	if (amf_up(NULL, 0, NULL, 0) < 0)
		return;
	smf_up();
	memset(&pol, 0, sizeof(pol));
	strcpy(pol.name, "p");
	pol.ue_ambr_ul = 100 * M;
	pol.ue_ambr_dl = 200 * M;
	sub_on_policy(1, &pol, 0, 0);
	rs_cfg(&c, 4, 4);
	c.n_gnbs = 2;
	c.session = true;
	c.dereg = RANSIM_DEREG_NONE;
	rs = start_done(&c, T.sims, N_SUBS);
	spin_ms(300);   /* the Setup Responses reach the SMF (ACTIVE) */
	for (i = 0; i < 4; i++) {
		assert_int_equal(ransim_ue_ho(rs, i, &g, &teid, &hos, &ncc), 0);
		assert_int_equal(g, i % 2);
		assert_int_equal(ncc, 1);   /* NH_1 of the ICS's K_gNB */
		ul_teid[i] = expect_dl_teid(i, teid, 0);
	}
	ho_round(rs, 4, 0);
	ransim_get_stats(rs, &s);
	assert_int_equal(s.ps_sent, 4);
	assert_int_equal(s.ps_acked, 4);
	assert_int_equal(s.ps_failed, 0);
	assert_int_equal(s.ps_errors, 0);
	assert_int_equal(s.ps_ncc_last, 2);
	assert_int_equal(s.xn_src_released, 4);
	for (i = 0; i < 4; i++) {
		assert_int_equal(ransim_ue_ho(rs, i, &g, &teid, &hos, &ncc), 0);
		assert_int_equal(g, (i + 1) % 2);
		assert_int_equal(hos, 1);
		assert_int_equal(ncc, 2);
		assert_int_equal(teid, 0x10000000u | g << 22 | i);
		expect_dl_teid(i, teid, ul_teid[i]);   /* the target's TEID, the UL one unchanged */
	}
	ho_round(rs, 4, 4);
	ransim_get_stats(rs, &s);
	assert_int_equal(s.ps_sent, 8);
	assert_int_equal(s.ps_acked, 8);
	assert_int_equal(s.ps_errors, 0);
	assert_int_equal(s.ps_ncc_last, 3);
	for (i = 0; i < 4; i++) {
		assert_int_equal(ransim_ue_ho(rs, i, &g, &teid, &hos, &ncc), 0);
		assert_int_equal(g, i % 2);
		assert_int_equal(hos, 2);
		assert_int_equal(ncc, 3);
		expect_dl_teid(i, teid, ul_teid[i]);
	}
	assert_int_equal(ransim_ngap_count(rs, 0, "PathSwitchRequest"), 8);
	assert_int_equal(ransim_ngap_count(rs, 1, "PathSwitchRequestAcknowledge"), 8);
	assert_int_equal(ransim_ngap_count(rs, 1, "PathSwitchRequestFailure"), 0);
	assert_int_equal(ransim_ngap_count(rs, 1, "UEContextReleaseCommand"), 0);
	assert_int_equal(ransim_ngap_count(rs, 1, "ErrorIndication"), 0);
	/* the UE context lives on the target: UE 1's UE-AMBR change comes there, with the AMF UE
	 * NGAP ID of the last acknowledge (rs_gnb_ue_ctx_mod checks it) */
	ue_ambr_change(rs, &pol, 150 * M);
	ransim_get_stats(rs, &s);
	assert_int_equal(s.ue_ambr_ul_last, 150 * M);
	assert_int_equal(ransim_failures(rs, "unknown_ran_ue_id"), 0);
	assert_int_equal(ransim_failures(rs, "ue_ctx_mod_amf_ue_id"), 0);
	assert_true(report_has(rs, "\npath_switch_acked 8\n"));
	assert_true(report_has(rs, "\nue_ho imsi-001010000000002 gnb 1 dl_teid 272629761 handovers 2 ncc 3 "));
	assert_int_equal(s.ues_failed, 0);
	shut(rs);
	ransim_free(rs);
}

/* ---- N2 handover (TS 23.502 4.9.1.3, TS 38.413 8.4.1-8.4.3, 8.4.5-8.4.7) ---- */

#ifndef TSHARK
#define TSHARK "tshark"
#endif

/* One round of N2 handover for all UEs; waits until every UE's handover has ended (its
 * state machine back at NONE) and the source releases / cancels have gone through. */
static void n2_round(struct ransim *rs, unsigned n)
{
	uint64_t end;
	unsigned i, st, g, busy;

	assert_int_equal(ransim_handover(rs), n);
	end = ev_update_now(T.loop) + 10000000000ull;
	do {
		ev_run_once(T.loop, 10);
		for (i = busy = 0; i < n; i++) {
			assert_int_equal(ransim_ue_n2ho(rs, i, &st, &g), 0);
			busy += st != 0;
		}
	} while (busy && ev_update_now(T.loop) < end);
	assert_int_equal(busy, 0);
	spin_ms(200);
}

/* 4 UEs with a session each on 2 gNBs (UE i on gNB i % 2), the N2 handover set to mode /
 * fail, every NGAP PDU written to a pcap; the UL TEIDs the SMF gave. */
static struct ransim *n2_setup(enum ransim_ho_mode mode, enum ransim_ho_fail fail, char *pcap, size_t cap,
			       uint32_t ul_teid[4], const struct db_policy *pol)
{
	struct ransim_cfg c;
	struct ransim *rs;
	uint32_t teid;
	unsigned i, g, hos, ncc;

	if (amf_up(NULL, 0, NULL, 0) < 0)
		return NULL;
	smf_up();
	if (pol)
		sub_on_policy(1, pol, 0, 0);   /* UE 1 on policy "p" (n2_expect_on_source) */
	snprintf(pcap, cap, "/tmp/test_ransim_n2ho_%d_%d_%d.pcap", (int)mode, (int)fail, (int)getpid());
	rs_cfg(&c, 4, 4);
	c.n_gnbs = 2;
	c.session = true;
	c.dereg = RANSIM_DEREG_NONE;
	c.handover_mode = mode;
	c.handover_fail = fail;
	c.pcap = pcap;
	rs = start_done(&c, T.sims, N_SUBS);
	spin_ms(300);   /* the Setup Responses reach the SMF (ACTIVE) */
	for (i = 0; i < 4; i++) {
		assert_int_equal(ransim_ue_ho(rs, i, &g, &teid, &hos, &ncc), 0);
		assert_int_equal(g, i % 2);
		ul_teid[i] = expect_dl_teid(i, teid, 0);
	}
	return rs;
}

/* tshark on the N2 pcap (after shut(): ransim_free closes it): nothing malformed, and each
 * message with its container decoded as TS 38.413 9.3.1.29-9.3.1.31 define them. */
static void n2_tshark(const char *pcap, unsigned required, unsigned acks, unsigned status)
{
	char q[256];

	if (tshark_require(TSHARK, "decode the N2 handover messages") != 0) {
		unlink(pcap);
		skip();
	}
	assert_int_equal(tshark_lines(TSHARK, pcap, "-Y '_ws.malformed || _ws.expert.severity >= error'", NULL), 0);
	assert_int_equal(tshark_expert(TSHARK, pcap, NULL), 0);
	snprintf(q, sizeof(q), "-Y 'ngap.procedureCode == 12 && ngap.initiatingMessage_element && "
		 "ngap.SourceNGRANNode_ToTargetNGRANNode_TransparentContainer_element && ngap.uEHistoryInformation'");
	assert_int_equal(tshark_lines(TSHARK, pcap, q, NULL), required);
	snprintf(q, sizeof(q), "-Y 'ngap.procedureCode == 13 && ngap.successfulOutcome_element && "
		 "ngap.TargetNGRANNode_ToSourceNGRANNode_TransparentContainer_element && ngap.dataForwardingAccepted'");
	assert_int_equal(tshark_lines(TSHARK, pcap, q, NULL), acks);
	/* both RAN STATUS TRANSFERs (ours up, the AMF's copy down), the container decoded */
	snprintf(q, sizeof(q), "-Y '(ngap.procedureCode == 49 || ngap.procedureCode == 7) && "
		 "ngap.RANStatusTransfer_TransparentContainer_element && ngap.dRBStatusUL18_element'");
	assert_int_equal(tshark_lines(TSHARK, pcap, q, NULL), 2 * status);
	unlink(pcap);
}

static void n2_expect_counts(const struct ransim *rs, const char *const *names, const unsigned *want, unsigned n,
			     int dir)
{
	for (unsigned i = 0; i < n; i++) {
		if (ransim_ngap_count(rs, dir, names[i]) != want[i])
			printf("%s %s: %llu, %u expected\n", dir ? "rx" : "tx", names[i],
			       (unsigned long long)ransim_ngap_count(rs, dir, names[i]), want[i]);
		assert_int_equal(ransim_ngap_count(rs, dir, names[i]), want[i]);
	}
}

/* The N2 handover with forwarding, two rounds (TS 23.502 4.9.1.3.2-4.9.1.3.3): each source
 * sends HANDOVER REQUIRED (TS 38.413 8.4.1.2) with the containers of 9.3.1.29; each target
 * answers the HANDOVER REQUEST with its DL tunnel and a DL forwarding tunnel (8.4.2.2,
 * 9.3.4.11); the source takes the HANDOVER COMMAND's forwarding tunnel (9.3.4.10: the target's
 * own with DirectForwardingPathAvailability, else another), sends UPLINK RAN STATUS TRANSFER
 * (8.4.6); the target gets the same container in DOWNLINK RAN STATUS TRANSFER (8.4.7), the UE
 * arrives with the NH of the request's {NCC, NH} (TS 33.501 6.9.2.3.3), HANDOVER NOTIFY
 * (8.4.3); the source's release is successful-handover (8.3.3). The SMF's session ends on the
 * target's DL TEID. Fails against a core without N2 handover: no HANDOVER COMMAND. */
static void n2_success(enum ransim_ho_mode mode)
{
	static const char *const tx[] = { "HandoverRequired", "HandoverRequestAcknowledge", "UplinkRANStatusTransfer",
					  "HandoverNotify", "UEContextReleaseComplete", "HandoverFailure",
					  "HandoverCancel" };
	static const char *const rx[] = { "HandoverRequest", "HandoverCommand", "DownlinkRANStatusTransfer",
					  "UEContextReleaseCommand", "HandoverPreparationFailure", "ErrorIndication" };
	static const unsigned tx_n[] = { 8, 8, 8, 8, 8, 0, 0 }, rx_n[] = { 8, 8, 8, 8, 0, 0 };
	struct ransim_stats s;
	struct ransim *rs;
	char pcap[128];
	uint32_t ul_teid[4], teid;
	unsigned i, g, hos, ncc, round;

	rs = n2_setup(mode, RANSIM_HO_FAIL_NONE, pcap, sizeof(pcap), ul_teid, NULL);
	if (!rs)
		return;
	for (round = 1; round <= 2; round++) {
		n2_round(rs, 4);
		ransim_get_stats(rs, &s);
		assert_int_equal(s.n2ho_required, 4 * round);
		assert_int_equal(s.n2ho_request_acks, 4 * round);
		assert_int_equal(s.n2ho_commands, 4 * round);
		assert_int_equal(s.n2ho_dl_status, 4 * round);
		assert_int_equal(s.n2ho_notify, 4 * round);
		assert_int_equal(s.n2ho_src_released, 4 * round);
		assert_int_equal(s.n2ho_done, 4 * round);
		assert_int_equal(s.n2ho_errors, 0);
		assert_int_equal(s.n2ho_unexpected, 0);
		assert_int_equal(s.n2ho_ncc_last, 1 + round);
		assert_int_equal(mode == RANSIM_HO_N2 ? s.n2ho_fwd_direct : s.n2ho_fwd_indirect, 4 * round);
		for (i = 0; i < 4; i++) {
			assert_int_equal(ransim_ue_ho(rs, i, &g, &teid, &hos, &ncc), 0);
			assert_int_equal(g, (i + round) % 2);
			assert_int_equal(hos, round);
			assert_int_equal(ncc, 1 + round);
			assert_int_equal(teid, 0x10000000u | g << 22 | i);
			expect_dl_teid(i, teid, 0);   /* the SMF switched the downlink to the target */
		}
	}
	n2_expect_counts(rs, tx, tx_n, sizeof(tx_n) / sizeof(tx_n[0]), 0);
	n2_expect_counts(rs, rx, rx_n, sizeof(rx_n) / sizeof(rx_n[0]), 1);
	assert_int_equal(ransim_failures(rs, "unknown_ran_ue_id"), 0);
	assert_true(report_has(rs, mode == RANSIM_HO_N2 ? " mode n2 n2ho NONE n2ho_attempts 2\n"
							: " mode n2-indirect n2ho NONE n2ho_attempts 2\n"));
	assert_int_equal(s.ues_failed, 0);
	shut(rs);
	ransim_free(rs);
	n2_tshark(pcap, 8, 8, 8);
}

static void test_n2_handover_direct(void **state)
{
	(void)state;
	n2_success(RANSIM_HO_N2);
}

static void test_n2_handover_indirect(void **state)
{
	(void)state;
	n2_success(RANSIM_HO_N2_INDIRECT);
}

/* The UE is still its source's (TS 38.413 8.4.1.3, 8.4.5.2): the SMF's session on the
 * source's DL TEID with the UL TEID of before, and the UE context on the source: a UE-AMBR
 * change comes there with the source's AMF UE NGAP ID (rs_gnb_ue_ctx_mod checks it). */
static void n2_expect_on_source(struct ransim *rs, const uint32_t ul_teid[4], struct db_policy *pol)
{
	uint32_t teid;
	unsigned i, g, hos, ncc;

	for (i = 0; i < 4; i++) {
		assert_int_equal(ransim_ue_ho(rs, i, &g, &teid, &hos, &ncc), 0);
		assert_int_equal(g, i % 2);
		assert_int_equal(hos, 0);
		expect_dl_teid(i, teid, ul_teid[i]);
	}
	ue_ambr_change(rs, pol, 150 * 1000000ull);
	assert_int_equal(ransim_failures(rs, "unknown_ran_ue_id"), 0);
	assert_int_equal(ransim_failures(rs, "ue_ctx_mod_amf_ue_id"), 0);
}

/* An N2 handover that must leave the UE where it is: the messages each way by name, the
 * acknowledges tshark must see, the counters of the case (check). */
struct n2_refusal {
	enum ransim_ho_mode mode;
	enum ransim_ho_fail fail;
	const char *const *tx, *const *rx;
	const unsigned *tx_n, *rx_n;
	unsigned n_tx, n_rx, acks;
	void (*check)(const struct ransim_stats *s);
};

static void n2_refused(const struct n2_refusal *w)
{
	struct db_policy pol;
	struct ransim_stats s;
	struct ransim *rs;
	char pcap[128];
	uint32_t ul_teid[4];

	memset(&pol, 0, sizeof(pol));
	strcpy(pol.name, "p");
	pol.ue_ambr_ul = 100 * 1000000ull;
	pol.ue_ambr_dl = 200 * 1000000ull;
	rs = n2_setup(w->mode, w->fail, pcap, sizeof(pcap), ul_teid, &pol);
	if (!rs)
		return;
	n2_round(rs, 4);
	ransim_get_stats(rs, &s);
	assert_int_equal(s.n2ho_required, 4);
	assert_int_equal(s.n2ho_notify, 0);
	assert_int_equal(s.n2ho_errors, 0);
	assert_int_equal(s.n2ho_unexpected, 0);
	w->check(&s);
	n2_expect_counts(rs, w->tx, w->tx_n, w->n_tx, 0);
	n2_expect_counts(rs, w->rx, w->rx_n, w->n_rx, 1);
	n2_expect_on_source(rs, ul_teid, &pol);
	assert_true(report_has(rs, w->mode == RANSIM_HO_N2 ? " handovers 0 ncc 1 pending 0 end_marker_due 0 mode n2 n2ho "
							     "NONE n2ho_attempts 1\n"
							   : " handovers 0 ncc 1 pending 0 end_marker_due 0 mode "
							     "n2-indirect n2ho NONE n2ho_attempts 1\n"));
	shut(rs);
	ransim_free(rs);
	n2_tshark(pcap, 4, w->acks, 0);
}

static void target_failure_counts(const struct ransim_stats *s)
{
	assert_int_equal(s->n2ho_failures_sent, 4);
	assert_int_equal(s->n2ho_prep_failures, 4);
	assert_int_equal(s->n2ho_request_acks, 0);
}

/* The target cannot take the UE (TS 38.413 8.4.2.3): HANDOVER FAILURE with
 * no-radio-resources-available-in-target-cell, no RAN UE NGAP ID; the AMF answers the source
 * with HANDOVER PREPARATION FAILURE (8.4.1.3); nothing else moves. */
static void test_n2_handover_target_failure(void **state)
{
	static const char *const tx[] = { "HandoverRequired", "HandoverFailure", "HandoverRequestAcknowledge",
					  "HandoverNotify", "UplinkRANStatusTransfer" };
	static const char *const rx[] = { "HandoverRequest", "HandoverPreparationFailure", "HandoverCommand",
					  "UEContextReleaseCommand", "ErrorIndication" };
	static const unsigned tx_n[] = { 4, 4, 0, 0, 0 }, rx_n[] = { 4, 4, 0, 0, 0 };
	const struct n2_refusal w = { RANSIM_HO_N2, RANSIM_HO_FAIL_TARGET, tx, rx, tx_n, rx_n, 5, 5, 0,
				      target_failure_counts };

	(void)state;
	n2_refused(&w);
}

static void cancel_counts(const struct ransim_stats *s)
{
	assert_int_equal(s->n2ho_request_acks, 4);
	assert_int_equal(s->n2ho_commands, 4);
	assert_int_equal(s->n2ho_cancels, 4);
	assert_int_equal(s->n2ho_cancel_acks, 4);
	assert_int_equal(s->n2ho_tgt_released, 4);
	assert_int_equal(s->n2ho_ul_status, 0);
}

/* The source cancels after the HANDOVER COMMAND (TS 38.413 8.4.5): HANDOVER CANCEL, the AMF's
 * HANDOVER CANCEL ACKNOWLEDGE and a UE CONTEXT RELEASE COMMAND to the target (TS 23.502
 * 4.9.1.4), answered; the UE stays on the source, the SMF's session untouched. */
static void test_n2_handover_cancel(void **state)
{
	static const char *const tx[] = { "HandoverRequired", "HandoverRequestAcknowledge", "HandoverCancel",
					  "UEContextReleaseComplete", "HandoverNotify", "UplinkRANStatusTransfer" };
	static const char *const rx[] = { "HandoverRequest", "HandoverCommand", "HandoverCancelAcknowledge",
					  "UEContextReleaseCommand", "ErrorIndication" };
	static const unsigned tx_n[] = { 4, 4, 4, 4, 0, 0 }, rx_n[] = { 4, 4, 4, 4, 0 };
	const struct n2_refusal w = { RANSIM_HO_N2_INDIRECT, RANSIM_HO_FAIL_CANCEL, tx, rx, tx_n, rx_n, 6, 5, 4,
				      cancel_counts };

	(void)state;
	n2_refused(&w);
}

/* Mobility registration after an Xn handover (TS 23.502 4.9.1.2.2 step 4 -> 4.2.2.2.2, TS 24.501
 * 5.5.1.3.2 a): tac [1, 2, 3] in amf.registration_areas [[1], [2, 3]], gNB i with TAC i + 1
 * (--gnb-tacs 1,2,3), UE i on gNB i. Each round moves every UE to the next gNB: a move between
 * areas (1 -> 2, 3 -> 1) is followed by exactly one REGISTRATION REQUEST "mobility updating"
 * over the target, accepted with a TAI list holding the new TAI and the session kept (the UE
 * checks both, ue_mob.c); a move inside area {2, 3} by none. Two rounds: 2 + 2 of 6 moves. */
static void mob_reg_run(enum ransim_ho_mode mode)
{
	struct amf_reg_counts rc;
	struct ransim_cfg c;
	struct ransim_stats s;
	struct ransim *rs;
	uint32_t teid;
	unsigned i, g, hos, ncc, round;
	uint64_t end;

	T.conf_extra = "{tac: [1, 2, 3], amf: {registration_areas: [[1], [2, 3]]}}";
	i = (unsigned)amf_up(NULL, 0, NULL, 0);
	T.conf_extra = NULL;
	if ((int)i < 0)
		return;
	smf_up();
	rs_cfg(&c, 3, 3);
	c.n_gnbs = 3;
	c.n_gnb_tacs = 3;
	c.gnb_tacs[0] = 1;
	c.gnb_tacs[1] = 2;
	c.gnb_tacs[2] = 3;
	c.session = true;
	c.dereg = RANSIM_DEREG_NONE;
	c.handover_mode = mode;
	rs = start_done(&c, T.sims, N_SUBS);
	spin_ms(300);
	for (round = 1; round <= 2; round++) {
		if (mode == RANSIM_HO_XN)
			ho_round(rs, 3, 3 * (round - 1));
		else
			n2_round(rs, 3);
		end = ev_update_now(T.loop) + 3000000000ull;
		do {
			ev_run_once(T.loop, 10);
			ransim_get_stats(rs, &s);
		} while (s.mob_reg_accepted < 2 * round && ev_update_now(T.loop) < end);
		spin_ms(200);   /* COMPLETE, the CONFIGURATION UPDATE (network name) and its COMPLETE */
		ransim_get_stats(rs, &s);
		assert_int_equal(mode == RANSIM_HO_XN ? s.ps_acked : s.n2ho_done, 3 * round);
		assert_int_equal(s.mob_reg_sent, 2 * round);   /* never for 2 -> 3 */
		assert_int_equal(s.mob_reg_accepted, 2 * round);
	}
	amf_reg_counts(T.amf, &rc);
	assert_int_equal(rc.accepted[2], 4);   /* TS 24.501 9.11.3.7: mobility updating */
	for (i = 0; i < 3; i++) {
		assert_int_equal(ransim_ue_ho(rs, i, &g, &teid, &hos, &ncc), 0);
		assert_int_equal(g, (i + 2) % 3);
		assert_int_equal(hos, 2);
		expect_dl_teid(i, teid, 0);   /* the session is ACTIVE on the serving gNB's tunnel */
	}
	/* N2: the sources' releases after each notify (TS 23.502 4.9.1.3.3 step 11) */
	assert_int_equal(ransim_ngap_count(rs, 1, "UEContextReleaseCommand"), mode == RANSIM_HO_XN ? 0 : 6);
	assert_int_equal(ransim_ngap_count(rs, 1, "PDUSessionResourceSetupRequest"), 3);   /* at start only */
	assert_int_equal(ransim_failures(rs, "mob_accept_tai_list"), 0);
	assert_true(report_has(rs, "\nmob_reg_accepted 4\n"));
	assert_int_equal(s.ues_failed, 0);
	shut(rs);
	ransim_free(rs);
}

static void test_mobility_registration(void **state)
{
	(void)state;
	mob_reg_run(RANSIM_HO_XN);
}

/* The same after an N2 handover (TS 23.502 4.9.1.3.3 step 12 -> 4.2.2.2.2): the target's TAI in
 * the Target ID and the HANDOVER NOTIFY's ULI, the UE's mobility registration once it arrived. */
static void test_mobility_registration_n2(void **state)
{
	(void)state;
	mob_reg_run(RANSIM_HO_N2);
}

/* ---- the network ends a PDU session (TS 24.501 6.3.3, 5.6.1.4.1; TS 38.413 8.2.2) ---- */

/* The AMF's SMF handle of UE idx (amf.h: amf_ue_info.sm). */
static struct smf_ue *ue_sm(unsigned idx, struct amf_ue_info *info)
{
	assert_int_equal(amf_ue_info_by_supi(T.amf, T.sims[idx].supi, info), 0);
	assert_non_null(info->sm);
	return info->sm;
}

/* The SMF's state of UE idx's session, -1 when it has none. */
static int sess_state(unsigned idx)
{
	struct sess_seen w = { T.sims[idx].supi, -1, 0, 0, 0, 0 };
	uint32_t cur = 0;

	smf_sess_walk(T.smf, &cur, 0, sess_cb, &w);
	return w.state;
}

/* One UE with PDU session 1, NEA0 (tshark reads the NAS: TSHARK_NULL_DECIPHER), plan done
 * (dereg none), every NGAP PDU in a pcap; the SMF has the session ACTIVE. */
static struct ransim *one_session(char *pcap, size_t cap, const char *tag)
{
	static const uint8_t ea[] = { 0 };
	struct ransim_cfg c;
	struct ransim *rs;

	if (amf_up(NULL, 0, ea, 1) < 0)
		return NULL;
	smf_up();
	snprintf(pcap, cap, "/tmp/test_ransim_%s_%d.pcap", tag, (int)getpid());
	rs_cfg(&c, 1, 1);
	c.session = true;
	c.dereg = RANSIM_DEREG_NONE;
	c.expect_nea = 0;
	c.pcap = pcap;
	rs = start_done(&c, T.sims, N_SUBS);
	spin_ms(300);   /* the Setup Response reaches the SMF (ACTIVE) */
	assert_int_equal(sess_state(0), SMF_ST_ACTIVE);
	assert_int_equal(ransim_ue_session(rs, 0), 1);
	return rs;
}

/* Run the loop until done(rs) or 5 s. */
static void wait_for(struct ransim *rs, bool (*done)(const struct ransim_stats *s))
{
	struct ransim_stats s;
	uint64_t end = ev_update_now(T.loop) + 5000000000ull;

	do {
		ev_run_once(T.loop, 10);
		ransim_get_stats(rs, &s);
	} while (!done(&s) && ev_update_now(T.loop) < end);
	spin_ms(300);   /* anything more would be here by now */
}

/* tshark on the pcap (after ransim_free): nothing malformed, no error-level expert item, and
 * `want` frames matching the NAS filter f (NEA0 deciphered). */
static void nas_tshark(const char *pcap, const char *f, unsigned want)
{
	char q[256];

	if (tshark_require(TSHARK, "decode the PDU session release messages") != 0) {
		unlink(pcap);
		skip();
	}
	assert_int_equal(tshark_lines(TSHARK, pcap, TSHARK_NULL_DECIPHER " -Y '_ws.malformed || _ws.expert.severity >= error'",
				      NULL), 0);
	assert_int_equal(tshark_expert(TSHARK, pcap, TSHARK_NULL_DECIPHER), 0);
	snprintf(q, sizeof(q), TSHARK_NULL_DECIPHER " -Y '%s'", f);
	assert_int_equal(tshark_lines(TSHARK, pcap, q, NULL), want);
}

static bool net_released(const struct ransim_stats *s)
{
	return s->pdu_net_released >= 1;
}

static bool reestablished(const struct ransim_stats *s)
{
	return s->pdu_reestablished >= 1;
}

/* A network-requested release of the UE's session with 5GSM cause `cause` (smf_release):
 * the AMF sends PDU SESSION RESOURCE RELEASE COMMAND with the PDU SESSION RELEASE COMMAND
 * (PTI 0, TS 24.501 6.3.3.2) inside, which the gNB did not ask for: it answers PDU SESSION
 * RESOURCE RELEASE RESPONSE for the session (TS 38.413 8.2.2.2), the UE answers PDU SESSION
 * RELEASE COMPLETE with PTI 0 (6.3.3.3) and the session is down on both sides. With #39
 * "reactivation requested" the UE then establishes the same PSI / DNN / S-NSSAI again (6.3.3.3,
 * 6.4.1), which completes normally: ACTIVE at the SMF, set up at the gNB. */
static void net_release_run(uint8_t cause)
{
	const bool again = cause == NAS_5GSM_REACTIVATION_REQUESTED;
	struct amf_ue_info info;
	struct ransim_stats s;
	struct smf_stats m;
	struct ransim *rs;
	char pcap[128], f[160];

	rs = one_session(pcap, sizeof(pcap), again ? "netrel39" : "netrel36");
	if (!rs)
		return;
	assert_int_equal(smf_release(T.smf, ue_sm(0, &info), 1, cause), 0);
	wait_for(rs, again ? reestablished : net_released);
	ransim_get_stats(rs, &s);
	assert_string_equal(ransim_ue_failure(rs, 0), "");   /* also after its plan ended */
	assert_int_equal(s.ues_failed, 0);
	assert_int_equal(s.pdu_net_released, 1);
	assert_int_equal(s.pdu_net_released_39, again ? 1 : 0);
	assert_int_equal(s.pdu_released, 1);
	assert_int_equal(s.pdu_local_released, 0);
	assert_int_equal(s.pdu_reestablished, again ? 1 : 0);
	assert_int_equal(s.pdu_established, again ? 2 : 1);
	assert_int_equal(s.started[RANSIM_P_PDU_EST], again ? 2 : 1);
	assert_int_equal(ransim_ue_session(rs, 0), again ? 1 : 0);
	assert_int_equal(ransim_ngap_count(rs, 1, "PDUSessionResourceReleaseCommand"), 1);
	assert_int_equal(ransim_ngap_count(rs, 0, "PDUSessionResourceReleaseResponse"), 1);
	assert_int_equal(ransim_ngap_count(rs, 1, "PDUSessionResourceSetupRequest"), again ? 2 : 1);
	assert_int_equal(ransim_ngap_count(rs, 0, "PDUSessionResourceSetupResponse"), again ? 2 : 1);
	assert_int_equal(ransim_ngap_count(rs, 1, "ErrorIndication"), 0);
	assert_int_equal(ransim_failures(rs, "release_command_sessions"), 0);
	assert_true(report_has(rs, "\npdu_net_released 1\n"));
	assert_true(report_has(rs, again ? "\npdu_net_released_39 1\npdu_local_released 0\npdu_reestablished 1\n"
					 : "\npdu_net_released_39 0\npdu_local_released 0\npdu_reestablished 0\n"));
	smf_get_stats(T.smf, &m);
	assert_int_equal(m.rel_net, 1);
	assert_int_equal(m.rel_ue, 0);
	assert_int_equal(m.est_accepted, again ? 2 : 1);
	assert_int_equal(m.sessions, again ? 1 : 0);
	assert_int_equal(sess_state(0), again ? SMF_ST_ACTIVE : -1);
	assert_int_equal(amf_ue_info_by_supi(T.amf, T.sims[0].supi, &info), 0);
	assert_int_equal(info.psi_map & 2, again ? 2 : 0);
	shut(rs);
	ransim_free(rs);
	/* the Command with the cause, the Complete with PTI 0 (0xd3 / 0xd4, TS 24.501 9.7) */
	snprintf(f, sizeof(f), "nas_5gs.sm.message_type == 0xd3 && nas_5gs.proc_trans_id == 0 && nas_5gs.sm.5gsm_cause == %u", cause);
	nas_tshark(pcap, f, 1);
	nas_tshark(pcap, "nas_5gs.sm.message_type == 0xd4 && nas_5gs.proc_trans_id == 0 && nas_5gs.pdu_session_id == 1", 1);
	nas_tshark(pcap, "ngap.procedureCode == 28 && ngap.successfulOutcome_element", 1);
	nas_tshark(pcap, "nas_5gs.sm.message_type == 0xc2", again ? 2 : 1);   /* establishment accepts */
	unlink(pcap);
}

/* TS 24.501 6.3.3 with #36 regular deactivation: released, nothing else follows. */
static void test_net_release(void **state)
{
	(void)state;
	net_release_run(NAS_5GSM_REGULAR_DEACTIVATION);
}

/* TS 24.501 6.3.3.3 with #39 reactivation requested: released, then established again. */
static void test_net_release_reactivation(void **state)
{
	(void)state;
	net_release_run(NAS_5GSM_REACTIVATION_REQUESTED);
}

static bool svc_accepted(const struct ransim_stats *s)
{
	return s->service_accepts >= 1;
}

/* The network releases the session of a CM-IDLE UE (smf_release: locally, the UE cannot be
 * told, TS 23.502 4.3.4.2); the UE comes back with SERVICE REQUEST naming it in the PDU session
 * and uplink data status; the SERVICE ACCEPT's PDU session status shows it inactive (and its
 * reactivation result failed), so the UE releases it locally without any signalling (TS 24.501
 * 5.6.1.4.1) instead of failing; no re-establishment (no #39 was seen). */
static void test_idle_local_release(void **state)
{
	struct amf_ue_info info;
	struct ransim_stats s;
	struct smf_stats m;
	struct ransim *rs;
	char pcap[128];
	uint64_t end;

	(void)state;
	rs = one_session(pcap, sizeof(pcap), "idlerel");
	if (!rs)
		return;
	assert_int_equal(ransim_ue_service(rs, 0), -EAGAIN);   /* not idle yet */
	assert_int_equal(ransim_ue_idle(rs, 0), 0);
	end = ev_update_now(T.loop) + 3000000000ull;
	do {
		ev_run_once(T.loop, 10);
		assert_int_equal(amf_ue_info_by_supi(T.amf, T.sims[0].supi, &info), 0);
	} while (info.cm != AMF_CM_IDLE && ev_update_now(T.loop) < end);
	spin_ms(100);
	assert_int_equal(info.cm, AMF_CM_IDLE);
	assert_int_equal(ransim_ue_session(rs, 0), 1);   /* the session outlives the N2 connection */
	assert_int_equal(smf_release(T.smf, ue_sm(0, &info), 1, NAS_5GSM_REGULAR_DEACTIVATION), 0);
	assert_int_equal(sess_state(0), -1);
	smf_get_stats(T.smf, &m);
	assert_int_equal(m.rel_local, 1);
	assert_int_equal(ransim_ue_service(rs, 0), 0);
	wait_for(rs, svc_accepted);
	ransim_get_stats(rs, &s);
	assert_string_equal(ransim_ue_failure(rs, 0), "");
	assert_int_equal(s.ues_failed, 0);
	assert_int_equal(s.service_accepts, 1);
	assert_int_equal(s.pdu_local_released, 1);
	assert_int_equal(s.pdu_net_released, 0);
	assert_int_equal(s.pdu_released, 0);
	assert_int_equal(s.pdu_reestablished, 0);
	assert_int_equal(s.pdu_established, 1);
	assert_int_equal(ransim_ue_session(rs, 0), 0);
	assert_int_equal(ransim_ngap_count(rs, 1, "PDUSessionResourceReleaseCommand"), 0);
	assert_int_equal(ransim_ngap_count(rs, 1, "PDUSessionResourceSetupRequest"), 1);
	assert_int_equal(ransim_failures(rs, "svc_accept_session_status"), 0);
	assert_int_equal(ransim_failures(rs, "svc_accept_reactivation"), 0);
	assert_true(report_has(rs, "\npdu_local_released 1\n"));
	smf_get_stats(T.smf, &m);
	assert_int_equal(m.sessions, 0);
	assert_int_equal(m.up_reactivated, 0);
	shut(rs);
	ransim_free(rs);
	/* SERVICE REQUEST (0x4c) and its ACCEPT (0x4e, TS 24.501 9.7), both decoded */
	nas_tshark(pcap, "nas_5gs.mm.message_type == 0x4c", 1);
	nas_tshark(pcap, "nas_5gs.mm.message_type == 0x4e", 1);
	unlink(pcap);
}

/* #39 while the UE is going idle (TS 24.501 6.3.3.3): the gNB's UE CONTEXT RELEASE REQUEST is
 * on its way when the network releases the session with #39; the UE completes the release in
 * WAIT_IDLE, but may not establish before the N2 connection is gone: the re-establishment
 * waits. Back with a SERVICE REQUEST (service type signalling, no session to name: 5.6.1.2),
 * the UE establishes the same session again once accepted (6.4.1), which completes normally. */
static void test_reactivation_after_idle(void **state)
{
	struct amf_ue_info info;
	struct ransim_stats s;
	struct smf_stats m;
	struct ransim *rs;
	char pcap[128];
	uint64_t end;

	(void)state;
	rs = one_session(pcap, sizeof(pcap), "reest_idle");
	if (!rs)
		return;
	assert_int_equal(ransim_ue_idle(rs, 0), 0);   /* in flight: the AMF has not seen it yet */
	assert_int_equal(smf_release(T.smf, ue_sm(0, &info), 1, NAS_5GSM_REACTIVATION_REQUESTED), 0);
	end = ev_update_now(T.loop) + 5000000000ull;
	do {
		ev_run_once(T.loop, 10);
		assert_int_equal(amf_ue_info_by_supi(T.amf, T.sims[0].supi, &info), 0);
		ransim_get_stats(rs, &s);
	} while ((info.cm != AMF_CM_IDLE || !s.pdu_net_released_39) && ev_update_now(T.loop) < end);
	spin_ms(200);
	ransim_get_stats(rs, &s);
	assert_int_equal(info.cm, AMF_CM_IDLE);
	assert_int_equal(s.pdu_net_released_39, 1);
	assert_int_equal(s.pdu_reestablished, 0);      /* not while idle */
	assert_int_equal(ransim_ue_session(rs, 0), 0);
	assert_int_equal(ransim_ue_service(rs, 0), 0);
	wait_for(rs, reestablished);
	ransim_get_stats(rs, &s);
	assert_string_equal(ransim_ue_failure(rs, 0), "");
	assert_int_equal(s.ues_failed, 0);
	assert_int_equal(s.service_accepts, 1);
	assert_int_equal(s.pdu_net_released, 1);
	assert_int_equal(s.pdu_reestablished, 1);
	assert_int_equal(s.pdu_established, 2);
	assert_int_equal(s.pdu_local_released, 0);
	assert_int_equal(ransim_ue_session(rs, 0), 1);
	smf_get_stats(T.smf, &m);
	assert_int_equal(m.est_accepted, 2);
	assert_int_equal(m.sessions, 1);
	assert_int_equal(sess_state(0), SMF_ST_ACTIVE);
	shut(rs);
	ransim_free(rs);
	/* the SERVICE REQUEST of signalling only (9.11.3.50: service type 0) */
	nas_tshark(pcap, "nas_5gs.mm.message_type == 0x4c && nas_5gs.mm.serv_type == 0", 1);
	nas_tshark(pcap, "nas_5gs.sm.message_type == 0xc2", 2);
	unlink(pcap);
}

/* Two passes of 4 UEs (load tests): every UE runs its plan twice, fresh 5G-AKA each time. */
static void test_passes(void **state)
{
	struct ransim_cfg c;
	struct ransim_stats s;
	struct amf_stats a;
	struct ransim *rs;

	(void)state;
	if (amf_up(NULL, 0, NULL, 0) < 0)
		return;
	rs_cfg(&c, 4, 2);
	c.passes = 2;
	rs = run(&c, T.sims, N_SUBS);
	ransim_get_stats(rs, &s);
	assert_int_equal(s.ues_ok, 8);
	assert_int_equal(s.ues_failed, 0);
	assert_int_equal(ransim_finished(rs), 8);
	assert_int_equal(s.done[RANSIM_P_REGISTRATION], 8);
	assert_int_equal(s.ngap_tx, 8 * 8 + 1);
	ransim_free(rs);
	amf_get_stats(T.amf, &a);
	assert_int_equal(a.reg_accepted, 8);
	assert_int_equal(a.auth_ok, 8);
	assert_int_equal(a.registered, 0);
}

/* Switch-off deregistration: no Deregistration Accept, only the N2 release. */
static void test_switch_off(void **state)
{
	struct ransim_cfg c;
	struct ransim_stats s;
	struct amf_stats a;
	struct ransim *rs;

	(void)state;
	if (amf_up(NULL, 0, NULL, 0) < 0)
		return;
	rs_cfg(&c, 2, 2);
	c.dereg = RANSIM_DEREG_SWITCH_OFF;
	rs = run(&c, T.sims, N_SUBS);
	ransim_get_stats(rs, &s);
	assert_int_equal(s.ues_ok, 2);
	assert_int_equal(s.done[RANSIM_P_DEREGISTRATION], 2);
	assert_int_equal(s.ngap_rx, 5 * 2 + 1);   /* no Deregistration Accept */
	ransim_free(rs);
	amf_get_stats(T.amf, &a);
	assert_int_equal(a.dereg_ue, 2);
	assert_int_equal(a.registered, 0);
}

/* SUCI profile A with the public key of the AMF's key 1; then a USIM whose SQN is ahead
 * of the UDM's: AUTS, resynchronisation, and the UDM adopts SQN_MS. */
static void test_suci_a_and_resync(void **state)
{
	struct ransim_sim sims[2];
	struct crypto_hn_key *key;
	struct ransim_cfg c;
	struct ransim_stats s;
	struct amf_stats a;
	struct ransim *rs;
	uint64_t sqn;
	int n;

	(void)state;
	if (amf_up(NULL, 0, NULL, 0) < 0)
		return;
	rs_cfg(&c, 2, 2);
	c.suci = RANSIM_SUCI_A;
	c.hn_key_id = 1;
	assert_int_equal(crypto_hn_key_from_hex(&key, CRYPTO_SUCI_PROFILE_A, 1, hn_priv_a), 0);
	n = crypto_hn_key_public(key, c.hn_pub, sizeof(c.hn_pub));
	crypto_hn_key_free(key);
	assert_int_equal(n, 32);
	c.hn_pub_len = (size_t)n;
	memcpy(sims, T.sims, sizeof(sims));
	sims[1].sqn = 0x100000;     /* this card has seen SEQ 0x8000 */
	rs = run(&c, sims, 2);
	ransim_get_stats(rs, &s);
	assert_int_equal(s.ues_ok, 2);
	assert_int_equal(s.auth_sync_fail, 1);
	assert_int_equal(s.auth_mac_fail, 0);
	ransim_free(rs);
	amf_get_stats(T.amf, &a);
	assert_int_equal(a.auth_sync_fail, 1);
	assert_int_equal(a.reg_accepted, 2);
	assert_int_equal(udm_get_sqn(T.udm, sims[1].supi, &sqn), 0);
	assert_true((sqn >> 5) > (0x100000 >> 5));  /* TS 33.102 C.3.2: next SEQ after SQN_MS */
}

/* A SIM with the wrong K: Authentication Failure #20, Authentication Reject; and a UE
 * offering only NIA1 against an AMF that allows NIA2 only: Registration Reject #23. */
static void test_auth_reject_and_no_alg(void **state)
{
	static const uint8_t ia[] = { 2 };
	struct ransim_sim bad;
	struct ransim_cfg c;
	struct ransim_stats s;
	struct amf_stats a;
	struct ransim *rs;

	(void)state;
	if (amf_up(ia, 1, NULL, 0) < 0)
		return;
	rs_cfg(&c, 1, 1);
	bad = T.sims[0];
	bad.k[0] ^= 1;
	rs = run(&c, &bad, 1);
	ransim_get_stats(rs, &s);
	assert_int_equal(s.ues_failed, 1);
	assert_int_equal(s.auth_mac_fail, 1);
	assert_int_equal(ransim_failures(rs, "auth_reject"), 1);
	ransim_free(rs);

	rs_cfg(&c, 1, 1);
	c.ue_ia = 0x40;   /* IA1 only */
	rs = run(&c, T.sims, 1);
	ransim_get_stats(rs, &s);
	assert_int_equal(s.ues_registered, 0);
	assert_int_equal(ransim_failures(rs, "reg_reject_23"), 1);
	ransim_free(rs);
	amf_get_stats(T.amf, &a);
	assert_int_equal(a.auth_reject, 1);
	assert_int_equal(a.reg_rejected, 1);   /* #23; the Authentication Reject is counted apart */
	assert_int_equal(a.ues, 0);
}

/* Registered, released to CM-IDLE by the gNB, then a periodic registration update with
 * the 5G-GUTI protected by the current context (TS 24.501 4.4.6, 5.5.1.3), then deregistered. */
static void test_reregister(void **state)
{
	struct ransim_cfg c;
	struct ransim_stats s;
	struct amf_stats a;
	struct ransim *rs;

	(void)state;
	if (amf_up(NULL, 0, NULL, 0) < 0)
		return;
	rs_cfg(&c, 3, 3);
	c.reregister = true;
	rs = run(&c, T.sims, N_SUBS);
	ransim_get_stats(rs, &s);
	assert_int_equal(s.ues_ok, 3);
	assert_int_equal(s.reregistrations, 3);
	assert_int_equal(s.done[RANSIM_P_REGISTRATION], 6);
	assert_int_equal(s.done[RANSIM_P_DEREGISTRATION], 3);
	assert_int_equal(s.dl_mac_fail, 0);
	ransim_free(rs);
	amf_get_stats(T.amf, &a);
	assert_int_equal(a.reg_accepted, 6);
	assert_int_equal(a.dereg_ue, 3);
	assert_int_equal(a.registered, 0);
	assert_int_equal(a.ues, 0);
}

/* An AMF set (issue 20 item 4): AMF A (the fixture's, pointer 0) and AMF B (pointer 5) of one
 * region and set, one gNB connected to both. 6 UEs by capacity (255:255, alternating), each
 * periodic registration routed by the 5G-S-TMSI to its own AMF; amf_stop(A): its 3 UEs are
 * released locally and register again through B (same set): Identity Request (B does not know
 * the 5G-GUTI), authentication, a 5G-GUTI of pointer 5; then their periodic registration goes
 * to B by GUAMI. Shared UDM: no AUTS here (e2e_amf_set.sh has separate databases). */
static void test_amf_set_failover(void **state)
{
	struct ransim_cfg c;
	struct ransim_stats s;
	struct ransim_amf_stats sa, sb;
	struct ransim_failover f;
	struct amf_stats a;
	struct conf *cb;
	struct amf *amf_b;
	struct ransim *rs;
	uint64_t end;
	int err = 0;

	(void)state;
	if (amf_up(NULL, 0, NULL, 0) < 0)
		return;
	cb = T.conf_b = calloc(1, sizeof(*cb));   /* freed by teardown, after the AMF */
	assert_non_null(cb);
	*cb = *T.conf;
	cb->amf.pointer = 5;
	amf_b = amf_start(T.loop, cb, T.ausf, T.udm, &err);
	assert_non_null(amf_b);
	rs_cfg(&c, 6, 6);
	c.reregister = true;
	c.hold_ms = 1500;
	c.n_amfs = 2;
	snprintf(c.amfs[0].addr, sizeof(c.amfs[0].addr), "127.0.0.1");
	c.amfs[0].port = amf_n2_port(T.amf);
	c.amfs[0].udp_peer_port = amf_n2_udp_port(T.amf);
	snprintf(c.amfs[1].addr, sizeof(c.amfs[1].addr), "127.0.0.1");
	c.amfs[1].port = amf_n2_port(amf_b);
	c.amfs[1].udp_peer_port = amf_n2_udp_port(amf_b);
	rs = ransim_new(T.loop, &c, T.sims, N_SUBS, &err);
	assert_non_null(rs);
	assert_int_equal(ransim_start(rs), 0);
	end = ev_update_now(T.loop) + 10000000000ull;
	do {
		ev_run_once(T.loop, 10);
		ransim_get_stats(rs, &s);
	} while (s.reregistrations < 6 && ev_update_now(T.loop) < end);
	assert_int_equal(s.reregistrations, 6);
	assert_int_equal(ransim_amf_stats(rs, 0, &sa), 0);
	assert_int_equal(ransim_amf_stats(rs, 1, &sb), 0);
	assert_int_equal(sa.ng_setups, 1);
	assert_int_equal(sb.ng_setups, 1);
	assert_int_equal(sa.by_capacity, 3);
	assert_int_equal(sb.by_capacity, 3);
	assert_int_equal(sa.by_guami, 3);
	assert_int_equal(sb.by_guami, 3);
	assert_int_equal(ransim_amf_stats(rs, 2, &sa), -ENOENT);
	/* AMF A goes away (its associations with it) */
	amf_stop(T.amf);
	T.amf = amf_b;
	end = ev_update_now(T.loop) + 20000000000ull;
	while (!ransim_done(rs) && ev_update_now(T.loop) < end)
		ev_run_once(T.loop, 10);
	assert_true(ransim_done(rs));
	shut(rs);
	ransim_get_stats(rs, &s);
	assert_int_equal(s.ues_ok, 6);
	assert_int_equal(s.ues_failed, 0);
	assert_int_equal(s.dl_mac_fail, 0);
	assert_int_equal(s.identity_requests, 3);
	assert_int_equal(s.reregistrations, 9);
	assert_int_equal(ransim_failures(rs, "unknown_ran_ue_id"), 0);
	ransim_amf_stats(rs, 0, &sa);
	ransim_amf_stats(rs, 1, &sb);
	assert_int_equal(sa.lost, 3);
	assert_int_equal(sa.assigned, 6);
	assert_int_equal(sb.lost, 0);
	assert_int_equal(sb.by_set, 3);
	assert_int_equal(sb.by_guami, 6);
	assert_int_equal(sb.fo_reg, 3);
	assert_int_equal(sb.by_any, 0);
	ransim_failover(rs, &f);
	assert_int_equal(f.lost, 3);
	assert_int_equal(f.back, 3);
	assert_int_equal(f.sess_back, 0);
	assert_true(f.p50_us > 0 && f.p50_us <= f.p99_us && f.p99_us <= f.max_us);
	if (getenv("RANSIM_TEST_REPORT"))
		ransim_report(rs, stdout);
	ransim_free(rs);
	/* B: 3 initial, 3 periodic, 3 mobility (the failover), 3 periodic; all deregistered */
	amf_get_stats(amf_b, &a);
	assert_int_equal(a.reg_accepted, 12);
	assert_int_equal(a.dereg_ue, 6);
	assert_int_equal(a.registered, 0);
}

/* NG Setup Failure (the gNB's TAC is not served): every UE fails with that cause, the run ends. */
static void test_ng_setup_failure(void **state)
{
	struct ransim_cfg c;
	struct ransim_stats s;
	struct ransim *rs;

	(void)state;
	if (amf_up(NULL, 0, NULL, 0) < 0)
		return;
	rs_cfg(&c, 4, 2);
	c.tac = 7;
	rs = run(&c, T.sims, N_SUBS);
	ransim_get_stats(rs, &s);
	assert_int_equal(s.ues_failed, 4);
	assert_int_equal(s.ues_registered, 0);
	assert_int_equal(s.done[RANSIM_P_NG_SETUP], 0);
	assert_int_equal(ransim_failures(rs, "ng_setup_failure"), 4 + 1);  /* the gNB's + each UE's */
	assert_int_equal(s.ngap_tx, 1);
	ransim_free(rs);
}

/* A peer that completes NG Setup and then never answers: each UE fails once its guard
 * timer expires, with the state it waited in as the cause. */
static struct n2sctp_assoc *silent_a;

static void silent_up(struct n2sctp_assoc *a, const struct sockaddr *p, socklen_t l, void *arg)
{
	(void)p;
	(void)l;
	(void)arg;
	silent_a = a;
}

static void silent_data(struct n2sctp_assoc *a, uint16_t stream, uint32_t ppid, const uint8_t *buf,
			size_t len, void *arg)
{
	static const char name[] = "silent";
	static struct ngap_msg m;
	static uint8_t out[512];
	int n;

	(void)stream;
	(void)ppid;
	(void)arg;
	if (len < 2 || buf[1] != NGAP_PROC_NG_SETUP)
		return;       /* everything after NG Setup is ignored */
	memset(&m, 0, sizeof(m));
	m.type = NGAP_SUCCESSFUL;
	m.proc = NGAP_PROC_NG_SETUP;
	m.u.ng_setup_response.amf_name.p = (const uint8_t *)name;
	m.u.ng_setup_response.amf_name.len = sizeof(name) - 1;
	m.u.ng_setup_response.n_guamis = 1;
	memcpy(m.u.ng_setup_response.guamis[0].guami.plmn.v, "\x00\xf1\x10", 3);
	m.u.ng_setup_response.guamis[0].guami.region = 1;
	m.u.ng_setup_response.guamis[0].guami.set_id = 1;
	m.u.ng_setup_response.relative_capacity = 255;
	m.u.ng_setup_response.n_plmns = 1;
	memcpy(m.u.ng_setup_response.plmns[0].plmn.v, "\x00\xf1\x10", 3);
	m.u.ng_setup_response.plmns[0].n_slices = 1;
	m.u.ng_setup_response.plmns[0].slices[0].sst = 1;
	n = ngap_encode(&m, out, sizeof(out));
	assert_true(n > 0);
	assert_int_equal(n2sctp_send(a, 0, N2SCTP_PPID_NGAP, out, (size_t)n), 0);
}

static void silent_down(struct n2sctp_assoc *a, enum n2sctp_down_reason r, void *arg)
{
	(void)a;
	(void)r;
	(void)arg;
	silent_a = NULL;
}

static void test_guard_timeout(void **state)
{
	struct n2sctp_cbs cbs = { .up = silent_up, .data = silent_data, .down = silent_down };
	struct sockaddr_in sin = { .sin_family = AF_INET };
	struct n2sctp_cfg lc;
	struct n2sctp *lis = NULL;
	struct ransim_cfg c;
	struct ransim_stats s;
	struct ransim *rs;
	int rc;

	(void)state;
	n2sctp_cfg_init(&lc);
	lc.backend = N2SCTP_BACKEND_USRSCTP;
	lc.encap = N2SCTP_ENCAP_UDP;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	rc = n2sctp_listen(T.loop, &lc, (struct sockaddr *)&sin, sizeof(sin), &cbs, &lis);
	if (rc < 0) {
		printf("SKIP: usrsctp UDP listener: %d\n", rc);
		T.skipped = true;
		return;
	}
	ransim_cfg_init(&c);
	c.sctp.encap = N2SCTP_ENCAP_UDP;
	c.sctp.udp_peer_port = n2sctp_local_udp_port(lis);
	c.port = n2sctp_local_port(lis);
	c.n_ues = 3;
	c.concurrency = 3;
	c.ue_timeout_ms = 200;
	rs = run(&c, T.sims, N_SUBS);
	ransim_get_stats(rs, &s);
	assert_int_equal(s.done[RANSIM_P_NG_SETUP], 1);
	assert_int_equal(s.ues_failed, 3);
	assert_int_equal(ransim_failures(rs, "timeout_WAIT_AUTH"), 3);
	assert_int_equal(s.ngap_tx, 1 + 3);    /* NG Setup, 3 Initial UE Messages */
	ransim_free(rs);
	n2sctp_free(lis);
}

/* ransim's adversary (adv.c) against the AMF in process, no user plane (the traffic checks are
 * the e2e suite's, tests/e2e/e2e_adversary.sh): for each attack, on the victim's association
 * and on a second gNB, the victim stays registered on its N2 connection, no release, no bad
 * downlink MAC, the forger gets the spec's answer, and the victim's protected deregistration
 * is accepted at the end. */
static void test_adversary(void **state)
{
	static const char *const attacks[] = {
		"baseline", "reg-guti-badcaps", "reg-guti-wrong-res", "reg-guti-auth-fail20", "reg-suci-null",
		"reg-suci-a", "svc-forged", "dereg-normal", "dereg-switchoff", "replay-ul-nas", "replay-svc",
	};
	struct crypto_hn_key *key;
	struct ransim_cfg c;
	struct ransim_stats s;
	struct ransim *rs;
	int rc;

	(void)state;
	if (amf_up(NULL, 0, NULL, 0) < 0)
		return;
	smf_up();
	for (size_t i = 0; i < sizeof(attacks) / sizeof(attacks[0]); i++) {
		printf("attack %s\n", attacks[i]);
		rs_cfg(&c, 1, 1);
		c.n_gnbs = 2;
		c.attack = attacks[i];
		c.attack_quiet_ms = 1000;
		c.attack_window_ms = 300;
		c.dereg = RANSIM_DEREG_NONE;
		rc = ransim_attack_suci(attacks[i]);
		assert_true(rc >= 0);
		if (rc == RANSIM_SUCI_A) {
			c.suci = RANSIM_SUCI_A;
			assert_int_equal(crypto_hn_key_from_hex(&key, CRYPTO_SUCI_PROFILE_A, 1, hn_priv_a), 0);
			rc = crypto_hn_key_public(key, c.hn_pub, sizeof(c.hn_pub));
			crypto_hn_key_free(key);
			assert_true(rc > 0);
			c.hn_pub_len = (size_t)rc;
			c.hn_key_id = 1;
		}
		rs = run(&c, T.sims, 1);
		ransim_get_stats(rs, &s);
		assert_true(report_has(rs, "\nadv_checked 1\n"));
		assert_true(report_has(rs, "\nadv_victim_ok 1\n"));
		assert_true(report_has(rs, "\nadv_victim_release_cmds 0\n"));
		assert_true(report_has(rs, "\nadv_forger_ok 1\n"));
		assert_true(report_has(rs, "\nadv_victim_deregistered 1\n"));
		assert_int_equal(s.dl_mac_fail, 0);
		assert_int_equal(s.ues_failed, 0);
		ransim_free(rs);
	}
	assert_int_equal(ransim_attack_suci("no-such-attack"), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_register_dereg, teardown),
		cmocka_unit_test_teardown(test_cycle, teardown),
		cmocka_unit_test_teardown(test_cycle_svc_ies_clear, teardown),
		cmocka_unit_test_teardown(test_gnb_restart, teardown),
		cmocka_unit_test_teardown(test_policy_change, teardown),
		cmocka_unit_test_teardown(test_xn_handover, teardown),
		cmocka_unit_test_teardown(test_mobility_registration, teardown),
		cmocka_unit_test_teardown(test_mobility_registration_n2, teardown),
		cmocka_unit_test_teardown(test_n2_handover_direct, teardown),
		cmocka_unit_test_teardown(test_n2_handover_indirect, teardown),
		cmocka_unit_test_teardown(test_n2_handover_target_failure, teardown),
		cmocka_unit_test_teardown(test_n2_handover_cancel, teardown),
		cmocka_unit_test_teardown(test_net_release, teardown),
		cmocka_unit_test_teardown(test_net_release_reactivation, teardown),
		cmocka_unit_test_teardown(test_idle_local_release, teardown),
		cmocka_unit_test_teardown(test_reactivation_after_idle, teardown),
		cmocka_unit_test_teardown(test_passes, teardown),
		cmocka_unit_test_teardown(test_switch_off, teardown),
		cmocka_unit_test_teardown(test_suci_a_and_resync, teardown),
		cmocka_unit_test_teardown(test_auth_reject_and_no_alg, teardown),
		cmocka_unit_test_teardown(test_reregister, teardown),
		cmocka_unit_test_teardown(test_ng_setup_failure, teardown),
		cmocka_unit_test_teardown(test_amf_set_failover, teardown),
		cmocka_unit_test(test_guard_timeout),
		cmocka_unit_test_teardown(test_adversary, teardown),
	};
	int err = 0, rc;

	log_set_level(getenv("RANSIM_TEST_DEBUG") ? LOGL_DEBUG : LOGL_ERROR);
	if (getenv("RANSIM_TEST_FILTER"))   /* e.g. "test_n2_*" while working on one case */
		cmocka_set_test_filter(getenv("RANSIM_TEST_FILTER"));
	T.loop = ev_loop_new(&err);
	if (!T.loop)
		return 1;
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	ev_loop_free(T.loop);
	crypto_thread_cleanup();
	if (T.skipped && rc == 0)
		return 77;
	return rc;
}
