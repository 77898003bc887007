/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * udm/ and ausf/ unit tests: subscriber store, SIDF against TS 33.501 Annex C.4,
 * ARPF vectors and SQN management checked by the USIM side of common/crypto,
 * resynchronisation, 5G-AKA confirm, and the db/ load + write-behind SQN path.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "ausf/ausf.h"
#include "common/conf.h"
#include "common/crypto/crypto.h"
#include "common/log.h"
#include "db/db.h"
#include "testlib.h"
#include "udm/udm.h"

static const uint8_t K1[16] = { 0x46, 0x5b, 0x5c, 0xe8, 0xb1, 0x99, 0xb4, 0x9f,
				0xaa, 0x5f, 0x0a, 0x2e, 0xe2, 0x38, 0xa6, 0xbc };
static const uint8_t OP1[16] = { 0xcd, 0xc2, 0x02, 0xd5, 0x12, 0x3e, 0x20, 0xf6,
				 0x2b, 0x6d, 0x67, 0x6a, 0xc7, 0x2c, 0xb3, 0x18 };
static const uint8_t OPC1[16] = { 0xcd, 0x63, 0xcb, 0x71, 0x95, 0x4a, 0x9f, 0x4e,
				  0x48, 0xa5, 0x99, 0x4e, 0x37, 0xa0, 0x2b, 0xaf };
static const char SNN[] = "5G:mnc001.mcc001.3gppnetwork.org";

static unsigned sink_calls;
static uint64_t sink_last;

static void sink(void *arg, const char *supi, uint64_t sqn)
{
	(void)arg;
	(void)supi;
	sink_calls++;
	sink_last = sqn;
}

static void sub(struct udm_sub_in *in, const char *supi, bool opc)
{
	static const char *const dnn = "internet";

	memset(in, 0, sizeof(*in));
	snprintf(in->data.supi, sizeof(in->data.supi), "%s", supi);
	in->data.n_slices = 1;
	in->data.slices[0].sst = 1;
	in->data.slices[0].sd = 0x010203;
	in->data.n_dnns = 1;
	in->data.dnns[0] = dnn;
	memcpy(in->k, K1, 16);
	memcpy(in->opc, opc ? OPC1 : OP1, 16);
	in->op_is_opc = opc;
	in->amf[0] = 0x80;
}

static void test_store(void **state)
{
	struct udm_sub_in in;
	struct udm *udm;
	const struct udm_sub_data *d;
	uint64_t sqn;
	int err = 0;

	(void)state;
	udm = udm_new(2, &err);
	assert_non_null(udm);
	sub(&in, "imsi-001010000000001", true);
	assert_int_equal(udm_add(udm, &in), 0);
	sub(&in, "imsi-001010000000002", false);   /* OP given: OPc derived (TS 35.206 4.1) */
	assert_int_equal(udm_add(udm, &in), 0);
	sub(&in, "imsi-001010000000003", true);
	assert_int_equal(udm_add(udm, &in), -ENOSPC);
	sub(&in, "imsi-0010x", true);
	assert_int_equal(udm_add(udm, &in), -EINVAL);
	assert_int_equal(udm_count(udm), 2);
	d = udm_get(udm, "imsi-001010000000002");
	assert_non_null(d);
	assert_string_equal(d->dnns[0], "internet");
	assert_int_equal(d->slices[0].sd, 0x010203);
	assert_null(udm_get(udm, "imsi-001010000000003"));
	/* Replace keeps one entry. */
	sub(&in, "imsi-001010000000001", true);
	in.sqn = 4242;
	assert_int_equal(udm_add(udm, &in), 0);
	assert_int_equal(udm_count(udm), 2);
	assert_int_equal(udm_get_sqn(udm, "imsi-001010000000001", &sqn), 0);
	assert_int_equal(sqn, 4242);
	assert_int_equal(udm_remove(udm, "imsi-001010000000001"), 0);
	assert_int_equal(udm_remove(udm, "imsi-001010000000001"), -ENOENT);
	assert_int_equal(udm_count(udm), 1);
	sub(&in, "imsi-001010000000003", true);
	assert_int_equal(udm_add(udm, &in), 0);
	udm_free(udm);
}

/* ARPF: successive vectors carry increasing SQNs (SEQ+1, next IND) that the USIM
 * accepts, every change reaches the sink, and the OP-provisioned subscriber gives
 * the same vectors as with OPc (derivation checked end to end). */
static void test_arpf_sqn(void **state)
{
	struct udm_sub_in in;
	struct udm *udm;
	struct udm_av av;
	struct crypto_usim_sqn usim;
	struct crypto_ue_aka_out o;
	uint64_t prev = 0, sqn;
	int err = 0, i;

	(void)state;
	udm = udm_new(4, &err);
	udm_set_sqn_sink(udm, sink, NULL);
	sub(&in, "imsi-001010000000002", false);
	assert_int_equal(udm_add(udm, &in), 0);
	memset(&usim, 0, sizeof(usim));
	sink_calls = 0;
	for (i = 0; i < 3; i++) {
		assert_int_equal(udm_generate_av(udm, "imsi-001010000000002", SNN, &av), 0);
		assert_int_equal(udm_get_sqn(udm, "imsi-001010000000002", &sqn), 0);
		assert_true(sqn > prev);
		assert_int_equal(sqn, crypto_sqn_next(prev));
		prev = sqn;
		assert_int_equal(crypto_aka_ue_check(K1, OPC1, av.rand, av.autn, SNN, &usim, &o), 0);
		assert_memory_equal(o.res_star, av.xres_star, 16);
		assert_memory_equal(o.kausf, av.kausf, 32);
		assert_int_equal(o.sqn, sqn);
	}
	assert_int_equal(sink_calls, 3);
	assert_int_equal(sink_last, prev);
	assert_int_equal(udm_generate_av(udm, "imsi-001010000000009", SNN, &av), -ENOENT);
	udm_free(udm);
}

/* Resync (TS 33.102 6.3.5): a USIM ahead of the HE sends AUTS; the ARPF adopts SQN_MS and the
 * next vector is fresh for the USIM. A forged AUTS changes nothing. */
static void test_resync(void **state)
{
	struct udm_sub_in in;
	struct udm *udm;
	struct udm_av av;
	struct crypto_usim_sqn usim;
	struct crypto_ue_aka_out o;
	uint64_t sqn_before, sqn;
	unsigned i;
	int err = 0;

	(void)state;
	udm = udm_new(4, &err);
	sub(&in, "imsi-001010000000001", true);
	assert_int_equal(udm_add(udm, &in), 0);
	memset(&usim, 0, sizeof(usim));
	for (i = 0; i < CRYPTO_SQN_IND_COUNT; i++)
		crypto_usim_sqn_accept(&usim, (9000ull << 5) | i);
	assert_int_equal(udm_generate_av(udm, "imsi-001010000000001", SNN, &av), 0);
	assert_int_equal(crypto_aka_ue_check(K1, OPC1, av.rand, av.autn, SNN, &usim, &o), -ESTALE);
	assert_int_equal(udm_get_sqn(udm, "imsi-001010000000001", &sqn_before), 0);
	o.auts[13] ^= 1;
	assert_int_equal(udm_resync(udm, "imsi-001010000000001", av.rand, o.auts), -EBADMSG);
	assert_int_equal(udm_get_sqn(udm, "imsi-001010000000001", &sqn), 0);
	assert_int_equal(sqn, sqn_before);
	o.auts[13] ^= 1;
	assert_int_equal(udm_resync(udm, "imsi-001010000000001", av.rand, o.auts), 0);
	assert_int_equal(udm_get_sqn(udm, "imsi-001010000000001", &sqn), 0);
	assert_int_equal(sqn, crypto_usim_sqn_ms(&usim));
	assert_int_equal(udm_generate_av(udm, "imsi-001010000000001", SNN, &av), 0);
	assert_int_equal(crypto_aka_ue_check(K1, OPC1, av.rand, av.autn, SNN, &usim, &o), 0);
	udm_free(udm);
}

/* SIDF against TS 33.501 Annex C.4: null scheme, profile A and profile B decode to
 * imsi-274012001002086; a flipped MAC tag or an unknown key id are refused. */
static void test_sidf_annex_c4(void **state)
{
	static const char *const sections[] = { "c_4_2_1_null_scheme_imsi", "c_4_3_1_profile_a_imsi",
						 "c_4_4_1_profile_b_imsi" };
	struct crypto_keyring *kr;
	struct crypto_hn_key *ka = NULL, *kb = NULL;
	struct tv_file *f;
	struct udm *udm;
	struct udm_suci s;
	uint8_t out[128];
	char supi[UDM_SUPI_MAX];
	int err = 0, n, i, sec;

	(void)state;
	f = tv_open("suci_ts33501_annex_c4.txt");
	assert_non_null(f);
	kr = crypto_keyring_new();
	assert_non_null(kr);
	sec = tv_find(f, "c_4_3_1_profile_a_imsi");
	assert_int_equal(crypto_hn_key_from_hex(&ka, CRYPTO_SUCI_PROFILE_A, 1,
						tv_get(f, sec, "home_network_private_key")), 0);
	assert_int_equal(crypto_keyring_add(kr, ka), 0);
	sec = tv_find(f, "c_4_4_1_profile_b_imsi");
	assert_int_equal(crypto_hn_key_from_hex(&kb, CRYPTO_SUCI_PROFILE_B, 2,
						tv_get(f, sec, "home_network_private_key")), 0);
	assert_int_equal(crypto_keyring_add(kr, kb), 0);
	udm = udm_new(4, &err);
	udm_set_keyring(udm, kr);
	/* The warm-up's SUCI round trip with both keys (udm_start calls it). */
	assert_int_equal(udm_warm_up(udm), 0);
	for (i = 0; i < 3; i++) {
		sec = tv_find(f, sections[i]);
		assert_true(sec >= 0);
		n = tv_hex(f, sec, "scheme_output", out, sizeof(out));
		assert_true(n > 0);
		memset(&s, 0, sizeof(s));
		snprintf(s.mcc, sizeof(s.mcc), "274");
		snprintf(s.mnc, sizeof(s.mnc), "012");
		s.scheme = (uint8_t)i;
		s.hnpki = (uint8_t)i;
		s.out = out;
		s.out_len = (size_t)n;
		assert_int_equal(udm_suci_to_supi(udm, &s, supi), 0);
		assert_string_equal(supi, "imsi-274012001002086");
		if (i) {
			out[n - 1] ^= 0x01;
			assert_int_equal(udm_suci_to_supi(udm, &s, supi), -EBADMSG);
			out[n - 1] ^= 0x01;
			s.hnpki = 9;
			assert_int_equal(udm_suci_to_supi(udm, &s, supi), -ENOENT);
		}
	}
	udm_free(udm);
	crypto_keyring_free(kr);
	tv_close(f);
}

/* AUSF: serving network name format, 5G-AKA confirm with the UE's RES*, wrong RES*,
 * confirm twice, unknown subscriber. */
static void test_ausf(void **state)
{
	struct udm_sub_in in;
	struct udm *udm;
	struct ausf *ausf;
	struct ausf_auth a;
	struct crypto_usim_sqn usim;
	struct crypto_ue_aka_out o;
	uint8_t kseaf[32], kseaf_ue[32], bad[16], h[16];
	char snn[64];
	int err = 0;

	(void)state;
	assert_int_equal(ausf_snname(snn, sizeof(snn), "001", "01"), (int)strlen(SNN));
	assert_string_equal(snn, SNN);
	assert_true(ausf_snname(snn, sizeof(snn), "310", "410") > 0);
	assert_string_equal(snn, "5G:mnc410.mcc310.3gppnetwork.org");
	assert_int_equal(ausf_snname(snn, 8, "310", "410"), -ENOSPC);
	udm = udm_new(4, &err);
	ausf = ausf_new(udm, &err);
	sub(&in, "imsi-001010000000001", true);
	assert_int_equal(udm_add(udm, &in), 0);
	assert_int_equal(ausf_5gaka_start(ausf, "imsi-001010000000099", SNN, &a), -ENOENT);
	assert_int_equal(ausf_5gaka_start(ausf, "imsi-001010000000001", SNN, &a), 0);
	memset(&usim, 0, sizeof(usim));
	assert_int_equal(crypto_aka_ue_check(K1, OPC1, a.rand, a.autn, SNN, &usim, &o), 0);
	ausf_hres_star(a.rand, o.res_star, h);
	assert_memory_equal(h, a.hxres_star, 16);
	memcpy(bad, o.res_star, 16);
	bad[0] ^= 1;
	assert_int_equal(ausf_5gaka_confirm(ausf, &a, bad, kseaf), -EACCES);
	assert_int_equal(ausf_5gaka_confirm(ausf, &a, o.res_star, kseaf), 0);
	assert_int_equal(crypto_kdf_kseaf(o.kausf, SNN, kseaf_ue), 0);
	assert_memory_equal(kseaf, kseaf_ue, 32);
	assert_int_equal(ausf_5gaka_confirm(ausf, &a, o.res_star, kseaf), -EINVAL);
	ausf_auth_clear(&a);
	ausf_free(ausf);
	udm_free(udm);
}

/* db/ → udm: rows load with network defaults for empty fields; SQN changes go
 * through the write-behind writer and are in the file after a flush. */
static void test_db_load_and_writer(void **state)
{
	char path[] = "/tmp/solocore-udm-XXXXXX";
	struct db_subscriber s;
	struct udm_sub_data defs;
	struct db_writer *w = NULL;
	struct db *db = NULL;
	struct udm *udm;
	struct udm_av av;
	const struct udm_sub_data *d;
	uint64_t sqn;
	int fd, err = 0, i;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	unlink(path);
	assert_int_equal(db_open(path, &db), 0);
	for (i = 1; i <= 3; i++) {
		memset(&s, 0, sizeof(s));
		snprintf(s.supi, sizeof(s.supi), "imsi-00101000000000%d", i);
		memcpy(s.k, K1, 16);
		memcpy(s.opc, OPC1, 16);
		s.op_is_opc = true;
		s.amf = DB_DEFAULT_AMF;
		s.sqn = 32u * (unsigned)i;
		if (i == 3) {
			s.n_slices = 1;
			s.slices[0].sst = 2;
			s.slices[0].sd = DB_SD_NONE;
			s.n_dnns = 1;
			snprintf(s.dnns[0], sizeof(s.dnns[0]), "ims");
		}
		assert_int_equal(db_subscriber_put(db, &s), 0);
	}
	udm = udm_new(16, &err);
	memset(&defs, 0, sizeof(defs));
	defs.n_slices = 1;
	defs.slices[0].sst = 1;
	defs.slices[0].sd = 0x010203;
	defs.n_dnns = 1;
	defs.dnns[0] = "internet";
	defs.qi5 = 9;
	defs.arp = 8;
	udm_set_defaults(udm, &defs);
	assert_int_equal(udm_load_db(udm, db), 3);
	d = udm_get(udm, "imsi-001010000000001");
	assert_non_null(d);
	assert_int_equal(d->n_slices, 1);
	assert_int_equal(d->slices[0].sd, 0x010203);
	assert_string_equal(d->dnns[0], "internet");
	assert_int_equal(d->qi5, 9);
	d = udm_get(udm, "imsi-001010000000003");
	assert_int_equal(d->slices[0].sst, 2);
	assert_int_equal(d->slices[0].sd, UDM_SD_NONE);
	assert_string_equal(d->dnns[0], "ims");
	assert_int_equal(udm_get_sqn(udm, "imsi-001010000000002", &sqn), 0);
	assert_int_equal(sqn, 64);
	assert_int_equal(db_writer_start(db, NULL, &w), 0);
	udm_use_db_writer(udm, w);
	assert_int_equal(udm_generate_av(udm, "imsi-001010000000002", SNN, &av), 0);
	assert_int_equal(udm_get_sqn(udm, "imsi-001010000000002", &sqn), 0);
	assert_int_equal(db_writer_flush(w), 0);
	assert_int_equal(db_subscriber_get(db, "imsi-001010000000002", &s), 0);
	assert_int_equal(s.sqn, sqn);
	udm_use_db_writer(udm, NULL);
	db_writer_stop(w);
	udm_free(udm);
	db_close(db);
	unlink(path);
}

/* udm_warm_up(): succeeds, touches no subscriber (count, SQN) and sends no SQN change. */
static unsigned warm_sink_calls;

static void warm_sink(void *arg, const char *supi, uint64_t sqn)
{
	(void)arg;
	(void)supi;
	(void)sqn;
	warm_sink_calls++;
}

static void test_udm_warm_up(void **state)
{
	struct udm_sub_in in;
	struct udm *udm;
	uint64_t sqn = 0;
	int err = 0;

	(void)state;
	udm = udm_new(4, &err);
	assert_non_null(udm);
	memset(&in, 0, sizeof(in));
	snprintf(in.data.supi, sizeof(in.data.supi), "imsi-001010000000001");
	memcpy(in.k, K1, 16);
	memcpy(in.opc, OPC1, 16);
	in.op_is_opc = true;
	in.sqn = 64;
	assert_int_equal(udm_add(udm, &in), 0);
	udm_set_sqn_sink(udm, warm_sink, NULL);
	assert_int_equal(udm_warm_up(udm), 0);
	assert_int_equal(udm_warm_up(udm), 0);
	assert_int_equal(warm_sink_calls, 0);
	assert_int_equal(udm_count(udm), 1);
	assert_int_equal(udm_get_sqn(udm, in.data.supi, &sqn), 0);
	assert_int_equal(sqn, 64);
	udm_free(udm);
}

/* A db row with K1 / OPC1, the default AMF field and nothing else set (all defaults). */
static void db_sub_min(struct db_subscriber *s, const char *supi)
{
	memset(s, 0, sizeof(*s));
	snprintf(s->supi, sizeof(s->supi), "%s", supi);
	memcpy(s->k, K1, 16);
	memcpy(s->opc, OPC1, 16);
	s->op_is_opc = true;
	s->amf = DB_DEFAULT_AMF;
}

/* udm_add_db() (web API provisioning): the load rules of udm_load_db on one row, and the
 * capacity the store was made with. */
static void test_udm_add_db(void **state)
{
	struct db_subscriber s;
	struct udm_sub_data defs;
	const struct udm_sub_data *d;
	struct udm *udm;
	uint64_t sqn;
	int err = 0;
	unsigned i;

	(void)state;
	udm = udm_new(2, &err);
	assert_non_null(udm);
	assert_int_equal(udm_capacity(udm), 2);
	memset(&defs, 0, sizeof(defs));
	defs.n_slices = 1;
	defs.slices[0].sst = 1;
	defs.slices[0].sd = 0x010203;
	defs.n_dnns = 1;
	defs.dnns[0] = "internet";
	defs.ambr_ul_bps = 1000;
	defs.ambr_dl_bps = 2000;
	defs.qi5 = 9;
	defs.arp = 8;
	udm_set_defaults(udm, &defs);

	/* Everything left at 0 / empty: the defaults. */
	db_sub_min(&s, "imsi-001010000000001");
	s.sqn = 96;
	assert_int_equal(udm_add_db(udm, &s), 0);
	d = udm_get(udm, s.supi);
	assert_non_null(d);
	assert_int_equal(d->n_slices, 1);
	assert_int_equal(d->slices[0].sst, 1);
	assert_int_equal(d->slices[0].sd, 0x010203);
	assert_int_equal(d->n_dnns, 1);
	assert_string_equal(d->dnns[0], "internet");
	assert_int_equal(d->ambr_ul_bps, 1000);
	assert_int_equal(d->ambr_dl_bps, 2000);
	assert_int_equal(d->qi5, 9);
	assert_int_equal(d->arp, 8);
	assert_int_equal(udm_get_sqn(udm, s.supi, &sqn), 0);
	assert_int_equal(sqn, 96);

	/* Explicit values win; more slices than the store keeps are clipped. */
	memset(&s, 0, sizeof(s));
	snprintf(s.supi, sizeof(s.supi), "imsi-001010000000002");
	memcpy(s.k, K1, 16);
	memcpy(s.opc, OPC1, 16);
	s.op_is_opc = true;
	s.n_slices = DB_MAX_SLICES;
	for (i = 0; i < DB_MAX_SLICES; i++) {
		s.slices[i].sst = (uint8_t)(i + 1);
		s.slices[i].sd = DB_SD_NONE;
	}
	s.n_dnns = 1;
	snprintf(s.dnns[0], sizeof(s.dnns[0]), "ims");
	s.ambr_ul = 5;
	s.ambr_dl = 6;
	s.default_5qi = 7;
	s.arp = 3;
	assert_int_equal(udm_add_db(udm, &s), 0);
	d = udm_get(udm, s.supi);
	assert_non_null(d);
	assert_int_equal(d->n_slices, DB_MAX_SLICES > UDM_MAX_SLICES ? UDM_MAX_SLICES : DB_MAX_SLICES);
	assert_int_equal(d->slices[0].sst, 1);
	assert_int_equal(d->slices[0].sd, UDM_SD_NONE);
	assert_string_equal(d->dnns[0], "ims");
	assert_int_equal(d->ambr_ul_bps, 5);
	assert_int_equal(d->ambr_dl_bps, 6);
	assert_int_equal(d->qi5, 7);
	assert_int_equal(d->arp, 3);

	/* Replacing an existing SUPI needs no room; a third one does not fit. */
	assert_int_equal(udm_add_db(udm, &s), 0);
	assert_int_equal(udm_count(udm), 2);
	snprintf(s.supi, sizeof(s.supi), "imsi-001010000000003");
	assert_int_equal(udm_add_db(udm, &s), -ENOSPC);
	snprintf(s.supi, sizeof(s.supi), "bogus");
	assert_int_equal(udm_add_db(udm, &s), -EINVAL);
	assert_int_equal(udm_add_db(udm, NULL), -EINVAL);
	assert_int_equal(udm_count(udm), 2);
	udm_free(udm);
}

/* udm_set_defaults_from_conf(): conf's slices (SD or none) and DNNs, clipped to what a
 * subscriber holds, 5QI 9, ARP 8, 1 Gbit/s both ways; DNN names interned (conf may change). */
static void test_udm_defaults_from_conf(void **state)
{
	struct conf *conf = calloc(1, sizeof(*conf));
	const struct udm_sub_data *d;
	struct db_subscriber s;
	struct udm *udm;
	int err = 0;
	unsigned i;

	(void)state;
	assert_non_null(conf);
	assert_int_equal(conf_defaults(conf), 0);
	conf->n_slices = UDM_MAX_SLICES + 1;
	for (i = 0; i < conf->n_slices; i++) {
		conf->slices[i].sst = (uint8_t)(i + 1);
		conf->slices[i].has_sd = i == 0;
		conf->slices[i].sd = i == 0 ? 0x0a0b0c : 0x777777;
	}
	conf->n_dnns = 2;
	snprintf(conf->dnns[0].name, sizeof(conf->dnns[0].name), "internet");
	snprintf(conf->dnns[1].name, sizeof(conf->dnns[1].name), "ims");
	udm = udm_new(4, &err);
	assert_non_null(udm);
	udm_set_defaults_from_conf(udm, conf);
	snprintf(conf->dnns[0].name, sizeof(conf->dnns[0].name), "changed");

	db_sub_min(&s, "imsi-001010000000009");
	assert_int_equal(udm_add_db(udm, &s), 0);
	d = udm_get(udm, s.supi);
	assert_non_null(d);
	assert_int_equal(d->n_slices, UDM_MAX_SLICES);
	assert_int_equal(d->slices[0].sst, 1);
	assert_int_equal(d->slices[0].sd, 0x0a0b0c);
	assert_int_equal(d->slices[1].sst, 2);
	assert_int_equal(d->slices[1].sd, UDM_SD_NONE);
	assert_int_equal(d->slices[UDM_MAX_SLICES - 1].sst, UDM_MAX_SLICES);
	assert_int_equal(d->n_dnns, 2);
	assert_string_equal(d->dnns[0], "internet");
	assert_string_equal(d->dnns[1], "ims");
	assert_int_equal(d->qi5, 9);
	assert_int_equal(d->arp, 8);
	assert_int_equal(d->ambr_ul_bps, 1000000000ull);
	assert_int_equal(d->ambr_dl_bps, 1000000000ull);
	udm_free(udm);
	conf_free(conf);
	free(conf);
}

/* udm_start(): conf defaults and SUCI keys, db rows loaded, store sized from the count. */
static void test_udm_start(void **state)
{
	char path[] = "/tmp/solocore-udm-XXXXXX";
	struct db_subscriber s;
	struct conf *conf = calloc(1, sizeof(*conf));
	struct tv_file *f = tv_open("suci_ts33501_annex_c4.txt");
	struct udm_suci su;
	struct db *db = NULL;
	struct udm *udm;
	const struct udm_sub_data *d;
	char supi[UDM_SUPI_MAX];
	uint8_t out[128];
	int fd, err = 0, sec, n;

	(void)state;
	assert_non_null(conf);
	assert_non_null(f);
	assert_int_equal(conf_defaults(conf), 0);
	sec = tv_find(f, "c_4_3_1_profile_a_imsi");
	conf->suci.n_keys = 1;
	conf->suci.keys[0].id = 3;
	conf->suci.keys[0].scheme = CONF_SUCI_A;
	conf->suci.keys[0].has_key = true;
	assert_int_equal(tv_hex(f, sec, "home_network_private_key", conf->suci.keys[0].private_key, 32), 32);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	unlink(path);
	assert_int_equal(db_open(path, &db), 0);
	db_sub_min(&s, "imsi-274012001002086");
	assert_int_equal(db_subscriber_put(db, &s), 0);
	udm = udm_start(conf, db, NULL, &err);
	assert_non_null(udm);
	assert_int_equal(udm_count(udm), 1);
	d = udm_get(udm, "imsi-274012001002086");
	assert_non_null(d);
	assert_int_equal(d->n_slices, conf->n_slices);
	assert_int_equal(d->slices[0].sst, conf->slices[0].sst);
	assert_int_equal(d->n_dnns, conf->n_dnns);
	assert_string_equal(d->dnns[0], conf->dnns[0].name);
	n = tv_hex(f, sec, "scheme_output", out, sizeof(out));
	memset(&su, 0, sizeof(su));
	snprintf(su.mcc, sizeof(su.mcc), "274");
	snprintf(su.mnc, sizeof(su.mnc), "012");
	su.scheme = 1;
	su.hnpki = 3;
	su.out = out;
	su.out_len = (size_t)n;
	assert_int_equal(udm_suci_to_supi(udm, &su, supi), 0);
	assert_string_equal(supi, "imsi-274012001002086");
	udm_free(udm);
	db_close(db);
	unlink(path);
	conf_free(conf);
	free(conf);
	tv_close(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_store),
		cmocka_unit_test(test_arpf_sqn),
		cmocka_unit_test(test_resync),
		cmocka_unit_test(test_sidf_annex_c4),
		cmocka_unit_test(test_ausf),
		cmocka_unit_test(test_db_load_and_writer),
		cmocka_unit_test(test_udm_start),
		cmocka_unit_test(test_udm_add_db),
		cmocka_unit_test(test_udm_defaults_from_conf),
		cmocka_unit_test(test_udm_warm_up),
	};

	log_set_level(LOGL_WARN);
	return cmocka_run_group_tests_name("udm_ausf", tests, NULL, NULL);
}
