/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * ausf - Authentication Server Function: 5G-AKA (TS 33.501 6.1.3.2).
 *
 * The AMF (SEAF) calls ausf_5gaka_start() with a SUPI and the serving network
 * name and gets RAND, AUTN and HXRES*; it checks HRES* itself and calls
 * ausf_5gaka_confirm() with RES*, which the AUSF compares with XRES* and
 * answers with K_SEAF. The per-authentication state (XRES*, K_AUSF) lives in a
 * struct ausf_auth the caller embeds in its UE context (no allocation).
 */
#ifndef SOLOCORE_AUSF_AUSF_H
#define SOLOCORE_AUSF_AUSF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ausf;
struct udm;

#define AUSF_SNNAME_MAX 64

/* One 5G-AKA run. Fields below "private" belong to ausf.c. */
struct ausf_auth {
	/* to the SEAF / UE */
	uint8_t rand[16];
	uint8_t autn[16];
	uint8_t hxres_star[16];
	/* private */
	uint8_t xres_star[16];
	uint8_t kausf[32];
	char supi[24];
	char snname[AUSF_SNNAME_MAX];
	bool started;
	bool confirmed;
};

struct ausf *ausf_new(struct udm *udm, int *err);
void ausf_free(struct ausf *ausf);

/* Serving network name "5G:mnc<MNC>.mcc<MCC>.3gppnetwork.org" (TS 24.501 9.12.1, TS 33.501 6.1.1.4).
 * mnc is 2 or 3 digits; a 2-digit MNC is written with a leading 0. Returns length or -ENOSPC. */
int ausf_snname(char *out, size_t outsz, const char *mcc, const char *mnc);

/* Start 5G-AKA: 0, -ENOENT (unknown subscriber), other -errno. */
int ausf_5gaka_start(struct ausf *ausf, const char *supi, const char *snname, struct ausf_auth *a);
/* Synchronisation failure (TS 33.501 6.1.3.3.2): hand AUTS to the ARPF with the RAND we sent,
 * then start again with a fresh vector in a. 0, -EBADMSG (AUTS MAC-S wrong), -ENOENT. */
int ausf_5gaka_resync(struct ausf *ausf, struct ausf_auth *a, const uint8_t auts[14]);
/* Compare RES* with XRES* (constant time) and derive K_SEAF (TS 33.220 A.6 / TS 33.501 A.6).
 * 0 (kseaf filled), -EACCES (mismatch: authentication failed), -EINVAL (not started). */
int ausf_5gaka_confirm(struct ausf *ausf, struct ausf_auth *a, const uint8_t res_star[16],
		       uint8_t kseaf[32]);
/* Wipe the secrets of a (after confirm or abort). */
void ausf_auth_clear(struct ausf_auth *a);

/* HXRES* = SHA-256(RAND || XRES*) low 128 bits (TS 33.501 A.5); the SEAF uses it on RES*. */
void ausf_hres_star(const uint8_t rand[16], const uint8_t res_star[16], uint8_t out[16]);

#endif
