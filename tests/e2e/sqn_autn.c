/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * sqn_autn - the SQN inside an AUTN seen on the wire (e2e_cluster.sh, issue 20 item 5 phase 5).
 *
 * AUTN = SQN xor AK (6) || AMF (2) || MAC-A (8), AK = f5(K, OPc, RAND), MAC-A = f1(K, OPc,
 * RAND, SQN, AMF) (TS 33.102 6.3.2, Milenage TS 35.206, common/crypto). SQN = SEQ || IND with
 * IND its low 5 bits (TS 33.102 C.3.2; udm/udm.h: IND = node_id - 1 in a cluster).
 *
 *   sqn_autn              stdin "K OPC RAND AUTN" (hex) -> "SQN IND mac_ok|mac_bad"
 *   sqn_autn KEYS         KEYS: lines "SUPI K OPC"; stdin "TAG RAND AUTN": the subscriber is the
 *                         one whose keys give the right MAC-A -> "TAG SUPI SQN IND", or
 *                         "TAG none - -" when no key fits
 * SQN is printed as 12 hex digits. Exit status 0, 1 on an unreadable line or file, 2 usage.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/crypto/crypto.h"

struct key {
	char supi[128];
	uint8_t k[16], opc[16];
};

static int unhex(const char *s, uint8_t *out, size_t n)
{
	if (strlen(s) != 2 * n)
		return -1;
	for (size_t i = 0; i < n; i++) {
		unsigned v;

		if (sscanf(s + 2 * i, "%2x", &v) != 1)
			return -1;
		out[i] = (uint8_t)v;
	}
	return 0;
}

/* The SQN of autn under (k, opc); 1 when MAC-A checks, 0 when not, -1 on a crypto error. */
static int sqn_of(const uint8_t k[16], const uint8_t opc[16], const uint8_t rand[16],
		  const uint8_t autn[16], uint64_t *sqn)
{
	uint8_t ak[6], s[6], mac[8];

	if (crypto_milenage_f2345(k, opc, rand, NULL, NULL, NULL, ak) < 0)
		return -1;
	*sqn = 0;
	for (int i = 0; i < 6; i++) {
		s[i] = autn[i] ^ ak[i];
		*sqn = (*sqn << 8) | s[i];
	}
	if (crypto_milenage_f1(k, opc, rand, s, autn + 6, mac, NULL) < 0)
		return -1;
	return memcmp(mac, autn + 8, 8) == 0;
}

int main(int argc, char **argv)
{
	char line[512], a[128], b[128], c[128], d[128];
	struct key *keys = NULL;
	size_t nk = 0, cap = 0;
	int rc = 0;

	if (argc > 2 || (argc == 2 && argv[1][0] == '-')) {
		fprintf(stderr, "usage: sqn_autn [KEYS]  (see the source)\n");
		return 2;
	}
	if (argc == 2) {
		FILE *f = fopen(argv[1], "r");

		if (!f) {
			perror(argv[1]);
			return 1;
		}
		while (fgets(line, sizeof(line), f)) {
			if (sscanf(line, "%127s %127s %127s", a, b, c) != 3)
				continue;
			if (nk == cap) {
				cap = cap ? 2 * cap : 256;
				keys = realloc(keys, cap * sizeof(*keys));
				if (!keys)
					return 1;
			}
			snprintf(keys[nk].supi, sizeof(keys[nk].supi), "%s", a);
			if (unhex(b, keys[nk].k, 16) < 0 || unhex(c, keys[nk].opc, 16) < 0) {
				fprintf(stderr, "%s: bad line: %s", argv[1], line);
				fclose(f);
				return 1;
			}
			nk++;
		}
		fclose(f);
	}
	while (fgets(line, sizeof(line), stdin)) {
		uint8_t k[16], opc[16], rnd[16], autn[16];
		uint64_t sqn = 0;
		int ok;

		if (!keys) {
			if (sscanf(line, "%127s %127s %127s %127s", a, b, c, d) != 4 || unhex(a, k, 16) < 0 ||
			    unhex(b, opc, 16) < 0 || unhex(c, rnd, 16) < 0 || unhex(d, autn, 16) < 0) {
				fprintf(stderr, "bad line: %s", line);
				rc = 1;
				continue;
			}
			ok = sqn_of(k, opc, rnd, autn, &sqn);
			printf("%012llx %u %s\n", (unsigned long long)sqn, (unsigned)(sqn & 31),
			       ok == 1 ? "mac_ok" : "mac_bad");
			continue;
		}
		if (sscanf(line, "%127s %127s %127s", a, c, d) != 3 || unhex(c, rnd, 16) < 0 ||
		    unhex(d, autn, 16) < 0) {
			fprintf(stderr, "bad line: %s", line);
			rc = 1;
			continue;
		}
		size_t i;

		for (i = 0; i < nk; i++)
			if (sqn_of(keys[i].k, keys[i].opc, rnd, autn, &sqn) == 1)
				break;
		if (i < nk)
			printf("%s %s %012llx %u\n", a, keys[i].supi, (unsigned long long)sqn,
			       (unsigned)(sqn & 31));
		else
			printf("%s none - -\n", a);
	}
	free(keys);
	return rc;
}
