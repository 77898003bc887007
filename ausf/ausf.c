/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * AUSF: 5G-AKA (TS 33.501 6.1.3.2). Stateless apart from the struct ausf_auth
 * its caller keeps per UE; the ARPF (udm/) produces the vectors.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ausf/ausf.h"
#include "common/crypto/crypto.h"
#include "common/log.h"
#include "udm/udm.h"

struct ausf {
	struct udm *udm;
};

struct ausf *ausf_new(struct udm *udm, int *err)
{
	struct ausf *a = calloc(1, sizeof(*a));

	if (!a) {
		*err = -ENOMEM;
		return NULL;
	}
	a->udm = udm;
	return a;
}

void ausf_free(struct ausf *ausf)
{
	free(ausf);
}

int ausf_snname(char *out, size_t outsz, const char *mcc, const char *mnc)
{
	int n = snprintf(out, outsz, "5G:mnc%s%s.mcc%s.3gppnetwork.org",
			 strlen(mnc) == 2 ? "0" : "", mnc, mcc);

	return n < 0 || (size_t)n >= outsz ? -ENOSPC : n;
}

void ausf_hres_star(const uint8_t rand[16], const uint8_t res_star[16], uint8_t out[16])
{
	if (crypto_hxres_star(rand, res_star, out) < 0)
		memset(out, 0, 16);
}

void ausf_auth_clear(struct ausf_auth *a)
{
	explicit_bzero(a, sizeof(*a));
}

int ausf_5gaka_start(struct ausf *ausf, const char *supi, const char *snname, struct ausf_auth *a)
{
	struct udm_av av;
	int rc;

	if (strlen(supi) >= sizeof(a->supi) || strlen(snname) >= sizeof(a->snname))
		return -EINVAL;
	ausf_auth_clear(a);
	/* TS 33.501 6.1.3.2 steps 2-5: HE AV from the ARPF, HXRES* computed here,
	 * the SE AV (RAND, AUTN, HXRES*) goes to the SEAF. */
	rc = udm_generate_av(ausf->udm, supi, snname, &av);
	if (rc < 0)
		return rc;
	memcpy(a->rand, av.rand, 16);
	memcpy(a->autn, av.autn, 16);
	memcpy(a->xres_star, av.xres_star, 16);
	memcpy(a->kausf, av.kausf, 32);
	explicit_bzero(&av, sizeof(av));
	rc = crypto_hxres_star(a->rand, a->xres_star, a->hxres_star);
	if (rc < 0) {
		ausf_auth_clear(a);
		return rc;
	}
	strcpy(a->supi, supi);
	strcpy(a->snname, snname);
	a->started = true;
	return 0;
}

int ausf_5gaka_resync(struct ausf *ausf, struct ausf_auth *a, const uint8_t auts[14])
{
	char supi[sizeof(a->supi)], snname[sizeof(a->snname)];
	uint8_t rand[16];
	int rc;

	if (!a->started)
		return -EINVAL;
	memcpy(rand, a->rand, 16);
	strcpy(supi, a->supi);
	strcpy(snname, a->snname);
	/* TS 33.501 6.1.3.3.2: AUTS with the RAND of the failed vector goes to the ARPF. */
	rc = udm_resync(ausf->udm, supi, rand, auts);
	if (rc < 0)
		return rc;
	return ausf_5gaka_start(ausf, supi, snname, a);
}

int ausf_5gaka_confirm(struct ausf *ausf, struct ausf_auth *a, const uint8_t res_star[16],
		       uint8_t kseaf[32])
{
	int rc;

	(void)ausf;
	if (!a->started || a->confirmed)
		return -EINVAL;
	/* TS 33.501 6.1.3.2 step 10: RES* must equal XRES*. */
	rc = crypto_aka_check_res_star(res_star, a->xres_star);
	if (rc < 0)
		return -EACCES;
	rc = crypto_kdf_kseaf(a->kausf, a->snname, kseaf);
	if (rc < 0)
		return rc;
	a->confirmed = true;
	explicit_bzero(a->kausf, sizeof(a->kausf));
	explicit_bzero(a->xres_star, sizeof(a->xres_star));
	return 0;
}
