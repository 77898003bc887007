/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * ransim UE NAS security (ue_nas.c) on its own: downlink messages protected here the way
 * the network does it (TS 33.501 D.3, TS 24.501 4.4.3) must verify and decipher; a
 * tampered MAC or body is dropped and counted; unprotected messages other than the
 * TS 24.501 4.4.4.2 list are refused once security is on; the uplink protection is the
 * mirror image; the SUCI carries the MSIN of the SIM.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "common/ev.h"
#include "rs_int.h"

static struct ev_loop *loop;

static struct ransim *mk(void)
{
	struct ransim_cfg c;
	struct ransim_sim sim;
	struct ransim *rs;
	int err = 0;

	ransim_cfg_init(&c);
	memset(&sim, 0, sizeof(sim));
	snprintf(sim.supi, sizeof(sim.supi), "imsi-001010123456789");
	rs = ransim_new(loop, &c, &sim, 1, &err);
	assert_non_null(rs);
	return rs;
}

/* Give UE 0 an active context with NIA nia / NEA nea from a fixed K_AMF. */
static struct rs_ue *ctx(struct ransim *rs, uint8_t nia, uint8_t nea)
{
	struct rs_ue *ue = &rs->ues[0];
	unsigned i;

	for (i = 0; i < 32; i++)
		ue->kamf[i] = (uint8_t)(0xa0 + i);
	ue->has_kamf = true;
	ue->nia = nia;
	ue->nea = nea;
	assert_int_equal(crypto_kdf_alg_key(ue->kamf, CRYPTO_N_NAS_INT, nia, ue->kint), 0);
	assert_int_equal(crypto_kdf_alg_key(ue->kamf, CRYPTO_N_NAS_ENC, nea, ue->kenc), 0);
	ue->sec = true;
	return ue;
}

/* Network side: protect m with the UE's keys, downlink COUNT count. */
static size_t net_protect(const struct rs_ue *ue, const struct nas_msg *m, uint8_t sht, uint32_t count,
			  uint8_t *out)
{
	uint8_t mac[4];
	int n = nas_encode(m, out + NAS_SEC_HDR_LEN, 512, NULL);

	assert_true(n > 0);
	if (sht == NAS_SHT_INTEGRITY_CIPHERED && ue->nea)
		assert_int_equal(crypto_nea(ue->nea, ue->kenc, count, RS_NAS_BEARER, CRYPTO_DIR_DOWNLINK, out + NAS_SEC_HDR_LEN,
					    out + NAS_SEC_HDR_LEN, (size_t)n * 8), 0);
	out[NAS_SEC_MAC_OFF] = (uint8_t)count;
	assert_int_equal(crypto_nia(ue->nia, ue->kint, count, RS_NAS_BEARER, CRYPTO_DIR_DOWNLINK, out + NAS_SEC_MAC_OFF,
				    ((size_t)n + 1) * 8, mac), 0);
	assert_int_equal(nas_sec_hdr_enc(out, NAS_SEC_HDR_LEN, sht,
					 (uint32_t)mac[0] << 24 | (uint32_t)mac[1] << 16 | (uint32_t)mac[2] << 8 | mac[3],
					 (uint8_t)count), NAS_SEC_HDR_LEN);
	return (size_t)n + NAS_SEC_HDR_LEN;
}

static void cuc(struct nas_msg *m)
{
	memset(m, 0, sizeof(*m));
	m->type = NAS_CONFIGURATION_UPDATE_COMMAND;
	m->cuc.has_cfg_update_ind = true;
	m->cuc.cfg_update_ind = 1;
	m->cuc.has_local_time_zone = true;
	m->cuc.local_time_zone = 0x40;
}

static void test_dl_verify_decipher(void **state)
{
	static const uint8_t algs[][2] = { { 1, 1 }, { 2, 2 }, { 3, 3 }, { 2, 0 }, { 1, 3 } };
	struct ransim *rs;
	struct nas_msg m, out;
	uint8_t pdu[600];
	size_t n, i;

	(void)state;
	for (i = 0; i < sizeof(algs) / sizeof(algs[0]); i++) {
		struct rs_ue *ue;

		rs = mk();
		ue = ctx(rs, algs[i][0], algs[i][1]);
		cuc(&m);
		n = net_protect(ue, &m, NAS_SHT_INTEGRITY_CIPHERED, 0, pdu);
		assert_int_equal(rs_nas_unwrap(ue, pdu, n, &out), 0);
		assert_int_equal(out.type, NAS_CONFIGURATION_UPDATE_COMMAND);
		assert_int_equal(out.cuc.local_time_zone, 0x40);
		/* a flipped MAC bit: dropped and counted */
		n = net_protect(ue, &m, NAS_SHT_INTEGRITY_CIPHERED, 1, pdu);
		pdu[2] ^= 0x01;
		assert_int_equal(rs_nas_unwrap(ue, pdu, n, &out), -EACCES);
		/* a flipped body bit */
		n = net_protect(ue, &m, NAS_SHT_INTEGRITY_CIPHERED, 1, pdu);
		pdu[n - 1] ^= 0x80;
		assert_int_equal(rs_nas_unwrap(ue, pdu, n, &out), -EACCES);
		assert_int_equal(rs->st.dl_mac_fail, 2);
		/* the right one still goes through (COUNT 1) */
		n = net_protect(ue, &m, NAS_SHT_INTEGRITY_CIPHERED, 1, pdu);
		assert_int_equal(rs_nas_unwrap(ue, pdu, n, &out), 0);
		ransim_free(rs);
	}
}

/* The 8-bit NAS SQN wraps: the UE follows the overflow counter (TS 24.501 4.4.3.1). */
static void test_dl_count_wrap(void **state)
{
	struct ransim *rs = mk();
	struct rs_ue *ue = ctx(rs, 2, 2);
	struct nas_msg m, out;
	uint8_t pdu[600];
	uint32_t count;
	size_t n;

	(void)state;
	cuc(&m);
	for (count = 250; count < 262; count++) {
		n = net_protect(ue, &m, NAS_SHT_INTEGRITY_CIPHERED, count, pdu);
		assert_int_equal(rs_nas_unwrap(ue, pdu, n, &out), 0);
	}
	assert_int_equal(ue->dl_count, 261);
	ransim_free(rs);
}

/* Once security is on, only the TS 24.501 4.4.4.2 list may come unprotected. */
static void test_plain_after_security(void **state)
{
	struct ransim *rs = mk();
	struct rs_ue *ue = ctx(rs, 2, 0);
	struct nas_msg m, out;
	uint8_t pdu[600];
	int n;

	(void)state;
	cuc(&m);
	n = nas_encode(&m, pdu, sizeof(pdu), NULL);
	assert_true(n > 0);
	assert_int_equal(rs_nas_unwrap(ue, pdu, (size_t)n, &out), -EPERM);
	memset(&m, 0, sizeof(m));
	m.type = NAS_REGISTRATION_REJECT;
	m.reg_rej.cause = NAS_5GMM_PLMN_NOT_ALLOWED;
	n = nas_encode(&m, pdu, sizeof(pdu), NULL);
	assert_int_equal(rs_nas_unwrap(ue, pdu, (size_t)n, &out), 0);
	assert_int_equal(out.reg_rej.cause, NAS_5GMM_PLMN_NOT_ALLOWED);
	ransim_free(rs);
}

/* Uplink: what rs_nas_wrap produces verifies and deciphers with the network's view. */
static void test_ul_wrap(void **state)
{
	struct ransim *rs = mk();
	struct rs_ue *ue = ctx(rs, 3, 1);
	struct nas_msg m, out;
	struct nas_sec_hdr hdr;
	uint8_t pdu[600], plain[600], mac[4];
	struct nas_err nerr;
	int n;

	(void)state;
	memset(&m, 0, sizeof(m));
	m.type = NAS_REGISTRATION_COMPLETE;
	ue->ul_count = 7;
	n = rs_nas_wrap(ue, &m, NAS_SHT_INTEGRITY_CIPHERED, pdu, sizeof(pdu), false);
	assert_true(n > NAS_SEC_HDR_LEN);
	assert_int_equal(ue->ul_count, 8);
	assert_int_equal(nas_sec_decode(pdu, (size_t)n, &hdr, &nerr), 0);
	assert_int_equal(hdr.sqn, 7);
	assert_int_equal(crypto_nia(3, ue->kint, 7, RS_NAS_BEARER, CRYPTO_DIR_UPLINK, hdr.mac_input.p,
				    (size_t)hdr.mac_input.len * 8, mac), 0);
	assert_int_equal((uint32_t)mac[0] << 24 | (uint32_t)mac[1] << 16 | (uint32_t)mac[2] << 8 | mac[3], hdr.mac);
	assert_int_equal(crypto_nea(1, ue->kenc, 7, RS_NAS_BEARER, CRYPTO_DIR_UPLINK, hdr.msg.p, plain,
				    (size_t)hdr.msg.len * 8), 0);
	assert_int_equal(nas_decode(plain, hdr.msg.len, &out, &nerr), 0);
	assert_int_equal(out.type, NAS_REGISTRATION_COMPLETE);
	/* corrupted: the MAC differs and the COUNT does not advance */
	n = rs_nas_wrap(ue, &m, NAS_SHT_INTEGRITY_CIPHERED, pdu, sizeof(pdu), true);
	assert_int_equal(ue->ul_count, 8);
	assert_int_equal(nas_sec_decode(pdu, (size_t)n, &hdr, &nerr), 0);
	assert_int_equal(crypto_nia(3, ue->kint, 8, RS_NAS_BEARER, CRYPTO_DIR_UPLINK, hdr.mac_input.p,
				    (size_t)hdr.mac_input.len * 8, mac), 0);
	assert_true(((uint32_t)mac[0] << 24 | (uint32_t)mac[1] << 16 | (uint32_t)mac[2] << 8 | mac[3]) != hdr.mac);
	ransim_free(rs);
}

/* The last uplink NAS PDU of ue as the network reads it (the gNB has no association here, so
 * it stops in rs->tx): SHT 2, integrity verified, deciphered; the 5GSM message inside its
 * UL NAS TRANSPORT decoded into *gsm. */
static void ul_gsm(struct ransim *rs, struct rs_ue *ue, uint32_t count, struct nas_msg *gsm)
{
	const struct ngap_bytes *pdu = &rs->tx.u.uplink_nas_transport.nas;
	static uint8_t plain[600];
	struct nas_sec_hdr hdr;
	struct nas_err nerr;
	struct nas_msg ul;
	uint8_t mac[4];

	assert_int_equal(rs->tx.proc, NGAP_PROC_UPLINK_NAS_TRANSPORT);
	assert_int_equal(nas_sec_decode(pdu->p, pdu->len, &hdr, &nerr), 0);
	assert_int_equal(hdr.sht, NAS_SHT_INTEGRITY_CIPHERED);
	assert_int_equal(hdr.sqn, (uint8_t)count);
	assert_int_equal(crypto_nia(ue->nia, ue->kint, count, RS_NAS_BEARER, CRYPTO_DIR_UPLINK, hdr.mac_input.p,
				    (size_t)hdr.mac_input.len * 8, mac), 0);
	assert_int_equal((uint32_t)mac[0] << 24 | (uint32_t)mac[1] << 16 | (uint32_t)mac[2] << 8 | mac[3], hdr.mac);
	assert_int_equal(crypto_nea(ue->nea, ue->kenc, count, RS_NAS_BEARER, CRYPTO_DIR_UPLINK, hdr.msg.p, plain,
				    (size_t)hdr.msg.len * 8), 0);
	assert_int_equal(nas_decode(plain, hdr.msg.len, &ul, &nerr), 0);
	assert_int_equal(ul.type, NAS_UL_NAS_TRANSPORT);
	assert_int_equal(ul.ul_nas.payload_type, NAS_PAYLOAD_N1_SM);
	assert_true(ul.ul_nas.has_psi);
	assert_int_equal(ul.ul_nas.psi, 1);
	assert_int_equal(nas_decode(ul.ul_nas.payload.p, ul.ul_nas.payload.len, gsm, &nerr), 0);
}

/* A network-requested PDU SESSION MODIFICATION COMMAND (TS 24.501 6.3.2.2) in a protected DL
 * NAS TRANSPORT to a UE holding PDU session 1: the session-AMBR is applied (30 / 40 Mbit/s)
 * and answered with PDU SESSION MODIFICATION COMPLETE, PSI 1, the command's PTI 0 (6.3.2.3),
 * integrity protected and ciphered; the UE's plan stays where it was. Without the session:
 * COMMAND REJECT #43 (6.3.2.4), the AMBR kept. */
static void test_mod_command(void **state)
{
	struct ransim *rs = mk();
	struct rs_ue *ue = ctx(rs, 2, 2);
	struct nas_msg cmd, dl, gsm;
	uint8_t sm[64], pdu[600];
	int n;

	(void)state;
	ue->started = true;
	ue->st = RS_UE_REGISTERED;
	ue->sess_up = true;
	memset(&cmd, 0, sizeof(cmd));
	cmd.type = NAS_PDU_SESSION_MODIFICATION_COMMAND;
	cmd.psi = 1;
	cmd.pti = 0;
	cmd.pdu_mod_cmd.has_ambr = true;
	cmd.pdu_mod_cmd.ambr = (struct nas_session_ambr){ .dl_unit = 6, .dl = 40, .ul_unit = 6, .ul = 30 };
	n = nas_encode(&cmd, sm, sizeof(sm), NULL);
	assert_true(n > 0);
	memset(&dl, 0, sizeof(dl));
	dl.type = NAS_DL_NAS_TRANSPORT;
	dl.dl_nas.payload_type = NAS_PAYLOAD_N1_SM;
	dl.dl_nas.payload = (struct nas_buf){ sm, (uint16_t)n };
	dl.dl_nas.has_psi = true;
	dl.dl_nas.psi = 1;
	rs_ue_nas_rx(ue, pdu, net_protect(ue, &dl, NAS_SHT_INTEGRITY_CIPHERED, 0, pdu));
	assert_int_equal(rs->st.pdu_mod_commands, 1);
	assert_int_equal(rs->st.pdu_mod_rejected, 0);
	assert_int_equal(ue->qos.pdu_mods, 1);
	assert_int_equal(ue->qos.sess_ambr_ul, 30000000);
	assert_int_equal(ue->qos.sess_ambr_dl, 40000000);
	assert_int_equal(rs->st.sess_ambr_dl_last, 40000000);
	assert_int_equal(ue->st, RS_UE_REGISTERED);
	ul_gsm(rs, ue, 0, &gsm);
	assert_int_equal(gsm.type, NAS_PDU_SESSION_MODIFICATION_COMPLETE);
	assert_int_equal(gsm.psi, 1);
	assert_int_equal(gsm.pti, 0);

	/* no such session at the UE: rejected, nothing applied */
	ue->sess_up = false;
	cmd.pdu_mod_cmd.ambr.ul = 5;
	n = nas_encode(&cmd, sm, sizeof(sm), NULL);
	dl.dl_nas.payload = (struct nas_buf){ sm, (uint16_t)n };
	rs_ue_nas_rx(ue, pdu, net_protect(ue, &dl, NAS_SHT_INTEGRITY_CIPHERED, 1, pdu));
	assert_int_equal(rs->st.pdu_mod_commands, 1);
	assert_int_equal(rs->st.pdu_mod_rejected, 1);
	assert_int_equal(ue->qos.sess_ambr_ul, 30000000);
	ul_gsm(rs, ue, 1, &gsm);
	assert_int_equal(gsm.type, NAS_PDU_SESSION_MODIFICATION_COMMAND_REJECT);
	assert_int_equal(gsm.pdu_mod_cmd_rej.cause, NAS_5GSM_INVALID_PDU_SESSION_ID);
	assert_int_equal(gsm.pti, 0);
	ransim_free(rs);
}

/* Null-scheme SUCI: home PLMN and the MSIN of the SIM in BCD (TS 24.501 9.11.3.4). */
static void test_suci_null(void **state)
{
	struct ransim *rs = mk();
	struct nas_mobile_id id;
	char supi[32];

	(void)state;
	assert_int_equal(rs_nas_suci(&rs->ues[0], &id), 0);
	assert_int_equal(id.type, NAS_MOBID_SUCI);
	assert_int_equal(id.suci.scheme, NAS_SUCI_NULL);
	assert_true(nas_suci_null_supi(&id.suci, supi, sizeof(supi)) > 0);
	assert_string_equal(supi, "imsi-001010123456789");
	ransim_free(rs);
}

/* The latency histogram: exact mean/min/max, percentiles within the 3 % bucket width. */
static void test_latency_histogram(void **state)
{
	static struct rs_lat l;
	uint32_t v;

	(void)state;
	memset(&l, 0, sizeof(l));
	for (v = 1; v <= 1000; v++)
		rs_lat_add(&l, v);
	rs_lat_add(&l, 4000000000u);
	assert_int_equal(l.n, 1001);
	assert_int_equal(l.min, 1);
	assert_int_equal(l.max, 4000000000u);
	assert_true(rs_lat_pct(&l, 50) >= 501 && rs_lat_pct(&l, 50) <= 501 * 103 / 100);
	assert_true(rs_lat_pct(&l, 90) >= 901 && rs_lat_pct(&l, 90) <= 901 * 103 / 100);
	assert_int_equal(rs_lat_pct(&l, 100), 4000000000u);
	memset(&l, 0, sizeof(l));
	rs_lat_add(&l, 7);
	assert_int_equal(rs_lat_pct(&l, 50), 7);   /* small values are exact */
	assert_int_equal(rs_lat_pct(&l, 99), 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dl_verify_decipher),
		cmocka_unit_test(test_dl_count_wrap),
		cmocka_unit_test(test_plain_after_security),
		cmocka_unit_test(test_ul_wrap),
		cmocka_unit_test(test_mod_command),
		cmocka_unit_test(test_suci_null),
		cmocka_unit_test(test_latency_histogram),
	};
	int err = 0, rc;

	loop = ev_loop_new(&err);
	if (!loop)
		return 1;
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	ev_loop_free(loop);
	crypto_thread_cleanup();
	return rc;
}
