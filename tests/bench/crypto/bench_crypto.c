/* SPDX-License-Identifier: AGPL-3.0-or-later */
/* bench-crypto: ns per operation (thread CPU time) of the common/crypto hot paths and of SUCI
 * deconcealment. Run by hand: build-x/tests/bench/crypto/bench-crypto [iterations-scale].
 * Prints a table: the fastest of 5 batches and the median batch. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/crypto/crypto.h"
#include "testlib.h"

static const char snn[] = "5G:mnc001.mcc001.3gppnetwork.org";

/* CPU time of this thread: on a shared, loaded machine it is far steadier than wall time
 * (time spent descheduled does not count). */
static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

struct ctx {
	uint8_t k[16], opc[16], rand[16], sqn[6], amf[2], key32[32], key16[16], msg[100], out[100];
	uint8_t suci_a[128], suci_b[128];
	size_t suci_a_len, suci_b_len;
	struct crypto_hn_key *hn_a, *hn_b;
	uint32_t count;
	int fails;
};

static void op_av(struct ctx *c)
{
	struct crypto_he_av av;

	c->fails += crypto_aka_generate(c->k, c->opc, 0x21, c->amf, snn, NULL, &av) != 0;
}

static void op_milenage(struct ctx *c)
{
	struct crypto_milenage_out m;

	c->fails += crypto_milenage_all(c->k, c->opc, c->rand, c->sqn, c->amf, &m) != 0;
}

static void op_kdf(struct ctx *c)
{
	uint8_t o[32];

	c->fails += crypto_kdf_kseaf(c->key32, snn, o) != 0;
}

static void op_kgnb(struct ctx *c)
{
	uint8_t o[32];

	c->fails += crypto_kdf_kgnb(c->key32, c->count++, CRYPTO_ACCESS_3GPP, o) != 0;
}

#define NAS_OPS(n)                                                                                 \
	static void op_nia##n(struct ctx *c)                                                       \
	{                                                                                          \
		uint8_t mac[4];                                                                    \
		c->fails += crypto_nia(n, c->key16, c->count++, 1, 0, c->msg, 800, mac) != 0;      \
	}                                                                                          \
	static void op_nea##n(struct ctx *c)                                                       \
	{                                                                                          \
		c->fails += crypto_nea(n, c->key16, c->count++, 1, 0, c->msg, c->out, 800) != 0;  \
	}
NAS_OPS(1)
NAS_OPS(2)
NAS_OPS(3)

static void op_suci_a(struct ctx *c)
{
	uint8_t p[64];

	c->fails += crypto_suci_deconceal(c->hn_a, c->suci_a, c->suci_a_len, p, sizeof(p)) != 5;
}

static void op_suci_b(struct ctx *c)
{
	uint8_t p[64];

	c->fails += crypto_suci_deconceal(c->hn_b, c->suci_b, c->suci_b_len, p, sizeof(p)) != 5;
}

static void op_conceal_a(struct ctx *c)
{
	uint8_t pub[33], o[128], in[5] = { 0, 1, 0x20, 0x80, 0xf6 };
	int pl = crypto_hn_key_public(c->hn_a, pub, sizeof(pub));

	c->fails += crypto_suci_conceal(CRYPTO_SUCI_PROFILE_A, pub, (size_t)pl, NULL, in, 5, o,
					sizeof(o)) < 0;
}

#define BATCHES 5

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

struct bench {
	const char *name;
	void (*fn)(struct ctx *);
	unsigned iters;
};

static int load_suci(struct ctx *c)
{
	struct tv_file *f = tv_open("suci_ts33501_annex_c4.txt");
	int a, b, rc = -1;

	if (!f)
		return -1;
	a = tv_find(f, "c_4_3_1_profile_a_imsi");
	b = tv_find(f, "c_4_4_1_profile_b_imsi");
	if (a >= 0 && b >= 0 &&
	    !crypto_hn_key_from_hex(&c->hn_a, CRYPTO_SUCI_PROFILE_A, 1,
				    tv_get(f, a, "home_network_private_key")) &&
	    !crypto_hn_key_from_hex(&c->hn_b, CRYPTO_SUCI_PROFILE_B, 1,
				    tv_get(f, b, "home_network_private_key"))) {
		int la = tv_hex(f, a, "scheme_output", c->suci_a, sizeof(c->suci_a));
		int lb = tv_hex(f, b, "scheme_output", c->suci_b, sizeof(c->suci_b));

		c->suci_a_len = (size_t)la;
		c->suci_b_len = (size_t)lb;
		rc = la > 0 && lb > 0 ? 0 : -1;
	}
	tv_close(f);
	return rc;
}

static void cpu_model(char *buf, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[256];

	snprintf(buf, len, "unknown");
	while (f && fgets(line, sizeof(line), f)) {
		char *p = strchr(line, ':');

		if (!strncmp(line, "model name", 10) && p) {
			snprintf(buf, len, "%s", p + 2);
			buf[strcspn(buf, "\n")] = 0;
			break;
		}
	}
	if (f)
		fclose(f);
}

int main(int argc, char **argv)
{
	const struct bench b[] = {
		{ "5G HE AV (RAND, Milenage, XRES*, HXRES*, K_AUSF)", op_av, 100000 },
		{ "Milenage f1,f1*,f2-f5,f5* (one key schedule)", op_milenage, 200000 },
		{ "KDF K_SEAF (HMAC-SHA-256)", op_kdf, 300000 },
		{ "KDF K_gNB", op_kgnb, 300000 },
		{ "NIA1 (SNOW 3G) 100 B", op_nia1, 100000 },
		{ "NEA1 (SNOW 3G) 100 B", op_nea1, 100000 },
		{ "NIA2 (AES-CMAC) 100 B", op_nia2, 300000 },
		{ "NEA2 (AES-CTR) 100 B", op_nea2, 300000 },
		{ "NIA3 (ZUC) 100 B", op_nia3, 100000 },
		{ "NEA3 (ZUC) 100 B", op_nea3, 100000 },
		{ "SUCI deconceal profile A (X25519)", op_suci_a, 5000 },
		{ "SUCI deconceal profile B (P-256)", op_suci_b, 5000 },
		{ "SUCI conceal profile A (UE, new eph key)", op_conceal_a, 5000 },
	};
	double scale = argc > 1 ? atof(argv[1]) : 1.0;
	struct ctx c;
	char cpu[128];

	memset(&c, 0, sizeof(c));
	for (int i = 0; i < 16; i++) {
		c.k[i] = (uint8_t)(i * 3 + 1);
		c.opc[i] = (uint8_t)(i * 5 + 2);
		c.rand[i] = (uint8_t)(i * 7 + 3);
		c.key16[i] = (uint8_t)(i * 11);
	}
	for (int i = 0; i < 32; i++)
		c.key32[i] = (uint8_t)(i * 13);
	for (int i = 0; i < 100; i++)
		c.msg[i] = (uint8_t)i;
	c.amf[0] = 0x80;
	if (load_suci(&c)) {
		fprintf(stderr, "cannot load the SUCI vectors\n");
		return 1;
	}
	cpu_model(cpu, sizeof(cpu));
	printf("CPU: %s\n%-52s %10s %10s %10s\n", cpu, "operation", "ns/op min", "median",
	       "iters");
	/* the machine may be shared: 5 batches per operation, the fastest batch is reported
	 * (the least disturbed), the median next to it */
	for (size_t i = 0; i < sizeof(b) / sizeof(b[0]); i++) {
		unsigned n = (unsigned)(b[i].iters * scale / BATCHES);
		double t[BATCHES];

		if (n < 10)
			n = 10;
		for (unsigned j = 0; j < n / 10; j++) /* warm up */
			b[i].fn(&c);
		for (int r = 0; r < BATCHES; r++) {
			uint64_t t0 = now_ns();

			for (unsigned j = 0; j < n; j++)
				b[i].fn(&c);
			t[r] = (double)(now_ns() - t0) / n;
		}
		qsort(t, BATCHES, sizeof(t[0]), cmp_double);
		printf("%-52s %10.0f %10.0f %10u\n", b[i].name, t[0], t[BATCHES / 2], n * BATCHES);
	}
	crypto_hn_key_free(c.hn_a);
	crypto_hn_key_free(c.hn_b);
	crypto_thread_cleanup();
	if (c.fails) {
		fprintf(stderr, "%d operations failed\n", c.fails);
		return 1;
	}
	return 0;
}
