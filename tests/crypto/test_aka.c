/* SPDX-License-Identifier: AGPL-3.0-or-later */
/* 5G AKA helpers: HE AV against the computed chain of Milenage set 1, the round trip
 * network vector -> UE check -> RES* -> AUSF/SEAF verify, resynchronisation with an AUTS made by
 * the UE side, the rejections (wrong MAC, wrong RES*, bad AUTS, no separation bit) and the
 * TS 33.102 Annex C SQN scheme. */
#include "crypto_test.h"

#include <sys/wait.h>
#include <unistd.h>

#include "common/crypto/crypto.h"

static const char snn[] = "5G:mnc001.mcc001.3gppnetwork.org";

struct sub {
	uint8_t k[16], opc[16];
};

static void set1(struct sub *s)
{
	struct tv_file *f = ct_open("milenage_ts35208.txt");
	int i = ct_sec(f, "test_set_1");

	ct_hex(f, i, "K", s->k, 16, 16);
	ct_hex(f, i, "OPc", s->opc, 16, 16);
	tv_close(f);
}

static uint64_t get48(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 6; i++)
		v = v << 8 | p[i];
	return v;
}

static void test_av_against_chain(void **state)
{
	struct tv_file *f = ct_open("kdf_5g_chain_COMPUTED_from_milenage_set1.txt");
	int m = ct_sec(f, "milenage_set1_av"), s = ct_sec(f, "5g_aka");
	uint8_t k[16], opc[16], rand[16], amf[2], sqn[6], want[32];
	struct crypto_he_av av;

	(void)state;
	ct_hex(f, m, "K", k, 16, 16);
	ct_hex(f, m, "OPc", opc, 16, 16);
	ct_hex(f, m, "RAND", rand, 16, 16);
	ct_hex(f, m, "AMF", amf, 2, 2); /* b9b9: separation bit already 1 */
	ct_hex(f, m, "SQN", sqn, 6, 6);
	assert_int_equal(crypto_aka_generate(k, opc, get48(sqn), amf,
					     ct_str(f, s, "serving_network_name_ascii"), rand, &av), 0);
	assert_memory_equal(av.rand, rand, 16);
	ct_hex(f, m, "AUTN", want, 16, 16);
	assert_memory_equal(av.autn, want, 16);
	ct_hex(f, s, "XRES_star", want, 16, 16);
	assert_memory_equal(av.xres_star, want, 16);
	ct_hex(f, s, "HXRES_star", want, 16, 16);
	assert_memory_equal(av.hxres_star, want, 16);
	ct_hex(f, s, "K_AUSF", want, 32, 32);
	assert_memory_equal(av.kausf, want, 32);
	tv_close(f);
}

static void test_round_trip(void **state)
{
	static const uint8_t amf[2] = { 0x00, 0x00 };
	struct crypto_usim_sqn usim;
	struct crypto_ue_aka_out ue;
	struct crypto_he_av av, av2;
	struct sub sub;
	uint64_t sqn = crypto_sqn_next(0);
	uint8_t bad[16];

	(void)state;
	set1(&sub);
	memset(&usim, 0, sizeof(usim));
	assert_int_equal(crypto_aka_generate(sub.k, sub.opc, sqn, amf, snn, NULL, &av), 0);
	assert_int_equal(av.autn[6] & 0x80, 0x80); /* separation bit set by the generator */
	assert_int_equal(crypto_aka_ue_check(sub.k, sub.opc, av.rand, av.autn, snn, &usim, &ue), 0);
	assert_true(ue.sqn == sqn);
	assert_memory_equal(ue.res_star, av.xres_star, 16);
	assert_memory_equal(ue.kausf, av.kausf, 32);
	assert_int_equal(crypto_aka_check_res_star(ue.res_star, av.xres_star), 0);
	assert_int_equal(crypto_aka_check_hres_star(av.rand, ue.res_star, av.hxres_star), 0);
	/* wrong RES* at the AUSF and the SEAF */
	memcpy(bad, ue.res_star, 16);
	bad[15] ^= 1;
	assert_int_equal(crypto_aka_check_res_star(bad, av.xres_star), -EACCES);
	assert_int_equal(crypto_aka_check_hres_star(av.rand, bad, av.hxres_star), -EACCES);
	/* RAND from the CSPRNG differs per vector */
	assert_int_equal(crypto_aka_generate(sub.k, sub.opc, crypto_sqn_next(sqn), amf, snn, NULL,
					     &av2), 0);
	assert_memory_not_equal(av.rand, av2.rand, 16);
	assert_int_equal(crypto_aka_ue_check(sub.k, sub.opc, av2.rand, av2.autn, snn, &usim, &ue), 0);
}

static void test_mac_failure(void **state)
{
	static const uint8_t amf[2] = { 0x12, 0x34 };
	struct crypto_usim_sqn usim;
	struct crypto_ue_aka_out ue;
	struct crypto_milenage_out mo;
	struct crypto_he_av av;
	struct sub sub;
	uint8_t autn[16], sqn[6] = { 0, 0, 0, 0, 0, 0x21 }, amf0[2] = { 0, 0 };

	(void)state;
	set1(&sub);
	memset(&usim, 0, sizeof(usim));
	assert_int_equal(crypto_aka_generate(sub.k, sub.opc, 0x21, amf, snn, NULL, &av), 0);
	memcpy(autn, av.autn, 16);
	autn[15] ^= 0x01;
	assert_int_equal(crypto_aka_ue_check(sub.k, sub.opc, av.rand, autn, snn, &usim, &ue),
			 -EBADMSG);
	/* the AMF is covered by MAC-A */
	memcpy(autn, av.autn, 16);
	autn[7] ^= 0x01;
	assert_int_equal(crypto_aka_ue_check(sub.k, sub.opc, av.rand, autn, snn, &usim, &ue),
			 -EBADMSG);
	/* a valid MAC over an AMF without the separation bit (a non-5G vector) */
	assert_int_equal(crypto_milenage_all(sub.k, sub.opc, av.rand, sqn, amf0, &mo), 0);
	for (int i = 0; i < 6; i++)
		autn[i] = sqn[i] ^ mo.ak[i];
	memcpy(autn + 6, amf0, 2);
	memcpy(autn + 8, mo.mac_a, 8);
	assert_int_equal(crypto_aka_ue_check(sub.k, sub.opc, av.rand, autn, snn, &usim, &ue),
			 -EINVAL);
	/* nothing was accepted by the failures: the genuine vector still passes */
	assert_int_equal(crypto_aka_ue_check(sub.k, sub.opc, av.rand, av.autn, snn, &usim, &ue), 0);
}

static void test_resync(void **state)
{
	static const uint8_t amf[2] = { 0x80, 0x00 };
	struct crypto_usim_sqn usim;
	struct crypto_ue_aka_out ue;
	struct crypto_he_av av;
	struct sub sub;
	uint64_t sqn_he = 0, sqn_ms = 0;
	uint8_t auts[14];

	(void)state;
	set1(&sub);
	memset(&usim, 0, sizeof(usim));
	/* the UE has used 40 vectors; the network lost its SQN (e.g. a crash before the write) */
	for (int i = 0; i < 40; i++) {
		sqn_he = crypto_sqn_next(sqn_he);
		assert_int_equal(crypto_aka_generate(sub.k, sub.opc, sqn_he, amf, snn, NULL, &av), 0);
		assert_int_equal(crypto_aka_ue_check(sub.k, sub.opc, av.rand, av.autn, snn, &usim,
						     &ue), 0);
	}
	/* replay of the last vector: sync failure, AUTS from the UE */
	assert_int_equal(crypto_aka_ue_check(sub.k, sub.opc, av.rand, av.autn, snn, &usim, &ue),
			 -ESTALE);
	assert_true(crypto_usim_sqn_ms(&usim) == sqn_he);
	/* an old network SQN (restored backup) */
	assert_int_equal(crypto_aka_generate(sub.k, sub.opc, crypto_sqn_next(0x20), amf, snn, NULL,
					     &av), 0);
	assert_int_equal(crypto_aka_ue_check(sub.k, sub.opc, av.rand, av.autn, snn, &usim, &ue),
			 -ESTALE);
	memcpy(auts, ue.auts, 14);
	/* ARPF: recover SQN_MS, verify MAC-S */
	assert_int_equal(crypto_aka_resync(sub.k, sub.opc, av.rand, auts, &sqn_ms), 0);
	assert_true(sqn_ms == sqn_he);
	/* a corrupted AUTS (MAC-S or the concealed SQN) is rejected */
	auts[13] ^= 1;
	assert_int_equal(crypto_aka_resync(sub.k, sub.opc, av.rand, auts, &sqn_ms), -EBADMSG);
	auts[13] ^= 1;
	auts[0] ^= 1;
	assert_int_equal(crypto_aka_resync(sub.k, sub.opc, av.rand, auts, &sqn_ms), -EBADMSG);
	/* the next vector after the resync is accepted */
	assert_int_equal(crypto_aka_generate(sub.k, sub.opc, crypto_sqn_next(sqn_he), amf, snn, NULL,
					     &av), 0);
	assert_int_equal(crypto_aka_ue_check(sub.k, sub.opc, av.rand, av.autn, snn, &usim, &ue), 0);
}

/* TS 33.102 C.1.1 / C.2.2: SEQ || IND with IND cycling over 32 values. */
static void test_sqn_scheme(void **state)
{
	struct crypto_usim_sqn usim;
	uint64_t s[40], x = 0;

	(void)state;
	memset(&usim, 0, sizeof(usim));
	for (int i = 0; i < 40; i++) {
		x = crypto_sqn_next(x);
		s[i] = x;
	}
	assert_true(s[0] == (1u << 5 | 1));
	assert_true((s[31] & 31) == 0);            /* IND wraps */
	assert_true(s[39] >> 5 == 40);             /* SEQ + 1 per vector */
	/* vectors used out of order: fine while their IND slots are fresh */
	assert_int_equal(crypto_usim_sqn_check(&usim, s[5]), 0);
	crypto_usim_sqn_accept(&usim, s[5]);
	assert_int_equal(crypto_usim_sqn_check(&usim, s[3]), 0);
	crypto_usim_sqn_accept(&usim, s[3]);
	assert_int_equal(crypto_usim_sqn_check(&usim, s[3]), -ESTALE);  /* replay */
	/* s[35] uses the IND of s[3] with a higher SEQ: fresh; then s[3]'s slot is old */
	assert_int_equal(crypto_usim_sqn_check(&usim, s[35]), 0);
	crypto_usim_sqn_accept(&usim, s[35]);
	assert_int_equal(crypto_usim_sqn_check(&usim, s[3]), -ESTALE);
	assert_true(crypto_usim_sqn_ms(&usim) == s[35]);
	/* Delta: a SEQ too far ahead of the highest accepted one is refused (C.2.1) */
	x = ((s[35] >> 5) + CRYPTO_SQN_DELTA + 1) << 5 | 7;
	assert_int_equal(crypto_usim_sqn_check(&usim, x), -ESTALE);
	x = ((s[35] >> 5) + CRYPTO_SQN_DELTA) << 5 | 7;
	assert_int_equal(crypto_usim_sqn_check(&usim, x), 0);
}

/* RAND comes from a per-thread buffer of CSPRNG output: values stay distinct across refills,
 * and a forked child does not repeat the parent's next RAND. */
static void test_rand_buffer(void **state)
{
	static const uint8_t amf[2] = { 0x80, 0x00 };
	static uint8_t seen[300][16];
	struct crypto_he_av av;
	struct sub sub;
	int pipefd[2];
	uint8_t child_rand[16];
	pid_t pid;

	(void)state;
	set1(&sub);
	for (int i = 0; i < 300; i++) { /* 4800 octets: several refills */
		assert_int_equal(crypto_aka_generate(sub.k, sub.opc, 0x21, amf, snn, NULL, &av), 0);
		memcpy(seen[i], av.rand, 16);
		for (int j = 0; j < i; j++)
			assert_memory_not_equal(seen[i], seen[j], 16);
	}
	assert_int_equal(pipe(pipefd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int ok = crypto_aka_generate(sub.k, sub.opc, 0x21, amf, snn, NULL, &av) == 0 &&
			 write(pipefd[1], av.rand, 16) == 16;

		_exit(ok ? 0 : 1);
	}
	assert_int_equal(read(pipefd[0], child_rand, 16), 16);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	assert_int_equal(crypto_aka_generate(sub.k, sub.opc, 0x21, amf, snn, NULL, &av), 0);
	assert_memory_not_equal(av.rand, child_rand, 16);
	close(pipefd[0]);
	close(pipefd[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_av_against_chain),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_mac_failure),
		cmocka_unit_test(test_resync),
		cmocka_unit_test(test_sqn_scheme),
		cmocka_unit_test(test_rand_buffer),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);

	crypto_thread_cleanup();
	return rc;
}
