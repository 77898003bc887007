/* SPDX-License-Identifier: AGPL-3.0-or-later */
/* The per-thread OpenSSL contexts: several threads running Milenage, NIA2/NEA2 (AES contexts and
 * the CMAC subkey cache) and the KDF at the same time all get the test-set answers. */
#include "crypto_test.h"

#include <pthread.h>

#include "common/crypto/crypto.h"

#define THREADS 4
#define ROUNDS 2000

struct job {
	uint8_t k[16], opc[16], rand[16], res[8];
	uint8_t key[16], msg[256], mac[4];
	uint32_t count;
	uint8_t bearer, dir;
	size_t bits;
	int failures;
};

static void *run(void *arg)
{
	struct job *j = arg;

	for (int r = 0; r < ROUNDS; r++) {
		uint8_t res[8], mac[4], c[256], p[256];

		/* alternate so that the AES key of the thread context changes every call */
		if (crypto_milenage_f2345(j->k, j->opc, j->rand, res, NULL, NULL, NULL) ||
		    memcmp(res, j->res, 8))
			j->failures++;
		if (crypto_nia(2, j->key, j->count, j->bearer, j->dir, j->msg, j->bits, mac) ||
		    memcmp(mac, j->mac, 4))
			j->failures++;
		if (crypto_nea(2, j->key, j->count, j->bearer, j->dir, j->msg, c, j->bits) ||
		    crypto_nea(2, j->key, j->count, j->bearer, j->dir, c, p, j->bits) ||
		    memcmp(p, j->msg, j->bits / 8))
			j->failures++;
	}
	crypto_thread_cleanup();
	return NULL;
}

static void test_threads(void **state)
{
	struct tv_file *m = ct_open("milenage_ts35208.txt");
	struct tv_file *n = ct_open("nia2_test_sets.txt");
	static struct job jobs[THREADS];
	pthread_t th[THREADS];

	(void)state;
	for (int i = 0; i < THREADS; i++) {
		char name[32];
		int s, ns;

		snprintf(name, sizeof(name), "test_set_%d", i + 1);
		s = ct_sec(m, name);
		ct_hex(m, s, "K", jobs[i].k, 16, 16);
		ct_hex(m, s, "OPc", jobs[i].opc, 16, 16);
		ct_hex(m, s, "RAND", jobs[i].rand, 16, 16);
		ct_hex(m, s, "RES", jobs[i].res, 8, 8);
		snprintf(name, sizeof(name), "test_set_%d", i % 2 ? 2 : 5); /* octet-aligned sets */
		ns = ct_sec(n, name);
		ct_hex(n, ns, "KEY", jobs[i].key, 16, 16);
		ct_hex(n, ns, "MESSAGE", jobs[i].msg, sizeof(jobs[i].msg), 0);
		ct_hex(n, ns, "MAC", jobs[i].mac, 4, 4);
		jobs[i].count = (uint32_t)ct_num(n, ns, "COUNT", 16);
		jobs[i].bearer = (uint8_t)ct_num(n, ns, "BEARER", 16);
		jobs[i].dir = (uint8_t)ct_num(n, ns, "DIRECTION", 10);
		jobs[i].bits = ct_num(n, ns, "LENGTH", 10);
		assert_int_equal(jobs[i].bits % 8, 0);
	}
	for (int i = 0; i < THREADS; i++)
		assert_int_equal(pthread_create(&th[i], NULL, run, &jobs[i]), 0);
	for (int i = 0; i < THREADS; i++) {
		assert_int_equal(pthread_join(th[i], NULL), 0);
		assert_int_equal(jobs[i].failures, 0);
	}
	tv_close(m);
	tv_close(n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_threads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
