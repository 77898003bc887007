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
