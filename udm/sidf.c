/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * SIDF: SUCI → SUPI (TS 33.501 6.12.5, Annex C; TS 23.003 2.2B; TS 24.501 9.11.3.4).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/crypto/crypto.h"
#include "common/log.h"
#include "udm/udm_int.h"

static bool digits_ok(const char *s, size_t min, size_t max)
{
	size_t n;

	for (n = 0; s[n]; n++)
		if (s[n] < '0' || s[n] > '9')
			return false;
	return n >= min && n <= max;
}

int udm_suci_to_supi(struct udm *udm, const struct udm_suci *suci, char supi[UDM_SUPI_MAX])
{
	uint8_t msin[16];
	char digits[32];
	size_t nd = 0;
	int n, i;

	if (!digits_ok(suci->mcc, 3, 3) || !digits_ok(suci->mnc, 2, 3))
		return -EINVAL;
	if (suci->scheme > CRYPTO_SUCI_PROFILE_B)
		return -EINVAL;   /* TS 33.501 6.12.2: other schemes are operator specific */
	if (suci->scheme != CRYPTO_SUCI_NULL && !udm->keyring)
		return -ENOENT;
	if (suci->scheme == CRYPTO_SUCI_NULL) {
		if (suci->out_len > sizeof(msin))
			return -EINVAL;
		memcpy(msin, suci->out, suci->out_len);
		n = (int)suci->out_len;
	} else {
		n = crypto_suci_deconceal_ring(udm->keyring, (enum crypto_suci_scheme)suci->scheme,
					       suci->hnpki, suci->out, suci->out_len, msin,
					       sizeof(msin));
		if (n < 0)
			return n;
	}
	/* MSIN in BCD, low nibble first, 0xF filler in the last high nibble (TS 24.501 9.11.3.4). */
	for (i = 0; i < n; i++) {
		uint8_t lo = msin[i] & 0x0f, hi = msin[i] >> 4;

		if (lo > 9)
			return -EINVAL;
		digits[nd++] = (char)('0' + lo);
		if (hi == 0x0f) {
			if (i != n - 1)
				return -EINVAL;
			break;
		}
		if (hi > 9)
			return -EINVAL;
		digits[nd++] = (char)('0' + hi);
		if (nd > 12)
			return -EINVAL;
	}
	digits[nd] = '\0';
	if (strlen(suci->mcc) + strlen(suci->mnc) + nd > 15 || nd == 0)
		return -EINVAL;
	/* 5 + 15 + NUL fits UDM_SUPI_MAX (checked above). */
	memcpy(supi, "imsi-", 5);
	nd = 5;
	memcpy(supi + nd, suci->mcc, strlen(suci->mcc));
	nd += strlen(suci->mcc);
	memcpy(supi + nd, suci->mnc, strlen(suci->mnc));
	nd += strlen(suci->mnc);
	memcpy(supi + nd, digits, strlen(digits) + 1);
	return 0;
}

/* Conceal and de-conceal a dummy MSIN with the first key of each ECIES profile in the keyring
 * (TS 33.501 C.3): the first X25519 / P-256 operations set up OpenSSL's key management. */
int udm_sidf_warm_up(const struct udm *udm)
{
	static const enum crypto_suci_scheme schemes[2] = { CRYPTO_SUCI_PROFILE_A, CRYPTO_SUCI_PROFILE_B };
	static const uint8_t msin[5] = { 0x00, 0x00, 0x00, 0x00, 0xf0 };
	uint8_t pub[CRYPTO_SUCI_MAX_PUB], out[128], plain[16];
	unsigned s, id;
	int n;

	if (!udm->keyring)
		return 0;
	for (s = 0; s < 2; s++) {
		const struct crypto_hn_key *key = NULL;

		for (id = 0; id < 256 && !key; id++)
			key = crypto_keyring_find(udm->keyring, schemes[s], (uint8_t)id);
		if (!key)
			continue;
		n = crypto_hn_key_public(key, pub, sizeof(pub));
		if (n > 0)
			n = crypto_suci_conceal(schemes[s], pub, (size_t)n, NULL, msin, sizeof(msin), out,
						sizeof(out));
		if (n > 0)
			n = crypto_suci_deconceal(key, out, (size_t)n, plain, sizeof(plain));
		if (n != (int)sizeof(msin) || memcmp(plain, msin, sizeof(msin)) != 0)
			return n < 0 ? n : -EIO;
	}
	return 0;
}
