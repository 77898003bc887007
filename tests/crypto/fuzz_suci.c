/* SPDX-License-Identifier: AGPL-3.0-or-later */
/* libFuzzer target for the SIDF and NAS security entry points (suite 'fuzz', -Dfuzz=true).
 * Input: byte 0 selects the case, the rest is data.
 *   0/1: the rest is a profile A/B scheme output, deconcealed with the Annex C.4 home network key
 *        (must fail cleanly or return at most the ciphertext length);
 *   2/3: the rest is 32 octets of ephemeral private key || scheme input: conceal for profile A/B,
 *        then deconceal must give the scheme input back (an invalid private key must fail);
 *   4..7: NIA/NEA alg (byte 0 - 4) over the rest with a bit length taken from the data. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/crypto/crypto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct crypto_hn_key *hn[2];
static uint8_t hn_pub[2][33];
static int hn_pub_len[2];

static void init(void)
{
	static const char *const priv[2] = {
		"c53c22208b61860b06c62e5406a7b330c2b577aa5558981510d128247d38bd1d", /* C.4.3 */
		"f1ab1074477ebcc7f554ea1c5fc368b1616730155e0041ac447d6301975fecda", /* C.4.4 */
	};

	for (int i = 0; i < 2; i++) {
		if (crypto_hn_key_from_hex(&hn[i], i ? CRYPTO_SUCI_PROFILE_B : CRYPTO_SUCI_PROFILE_A,
					   1, priv[i]))
			abort();
		hn_pub_len[i] = crypto_hn_key_public(hn[i], hn_pub[i], sizeof(hn_pub[i]));
		if (hn_pub_len[i] < 0)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t plain[512], out[600], back[600];
	unsigned sel;
	int n, m;

	if (!hn[0])
		init();
	if (size < 1 || size > 500)
		return 0;
	sel = data[0] % 8;
	data++;
	size--;
	switch (sel) {
	case 0:
	case 1:
		n = crypto_suci_deconceal(hn[sel], data, size, plain, sizeof(plain));
		if (n > (int)size)
			abort();
		break;
	case 2:
	case 3:
		if (size < 33)
			return 0;
		n = crypto_suci_conceal(sel == 2 ? CRYPTO_SUCI_PROFILE_A : CRYPTO_SUCI_PROFILE_B,
					hn_pub[sel - 2], (size_t)hn_pub_len[sel - 2], data, data + 32,
					size - 32, out, sizeof(out));
		if (n < 0)
			break; /* e.g. a P-256 scalar >= n */
		m = crypto_suci_deconceal(hn[sel - 2], out, (size_t)n, back, sizeof(back));
		if (m != (int)(size - 32) || memcmp(back, data + 32, size - 32))
			abort();
		break;
	default: {
		static const uint8_t key[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
		size_t bits;
		uint8_t mac[4];

		if (size < 2)
			return 0;
		bits = (size_t)data[0] << 8 | data[1];
		data += 2;
		size -= 2;
		if (bits > size * 8)
			bits = size * 8;
		if (crypto_nia((int)sel - 4, key, 7, 1, 1, data, bits, mac) ||
		    crypto_nea((int)sel - 4, key, 7, 1, 1, data, out, bits) ||
		    crypto_nea((int)sel - 4, key, 7, 1, 1, out, back, bits))
			abort();
		if (memcmp(back, data, bits / 8))
			abort();
		break;
	}
	}
	return 0;
}
