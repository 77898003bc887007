/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * Shared by the handover tests (test_amf_mob.c: Xn, test_amf_ho.c: N2) on top of sm_fx.h: a
 * second and third gNB, a UE with two sessions whose K_gNB the test saw, the NH reference of
 * TS 33.501 A.10 (HMAC-SHA-256 from OpenSSL directly, not common/crypto) and the checks of
 * where a UE and its tunnels are.
 */
#ifndef SOLOCORE_TESTS_AMF_MOB_FX_H
#define SOLOCORE_TESTS_AMF_MOB_FX_H

#include "sm_fx.h"

#define ASSOC_B 8
#define GNB_B "192.0.2.66"
#define RAN_B 500
#define ASSOC_C 9
#define GNB_C "192.0.2.67"

/* TS 33.501 A.10 / TS 33.220 B.2: NH = HMAC-SHA-256(K_AMF, 0x6F || sync || 0x00 0x20). */
void nh_ref(const uint8_t kamf[32], const uint8_t sync[32], uint8_t out[32]);
/* Registered on gNB A (ASSOC), two sessions (psi 1 on slice 1, psi 2 on slice 2, gNB tunnels
 * GNB_ADDR 0x201 / 0x202), idle and back by a service request (RAN UE NGAP ID 2): kgnb is the
 * K_gNB of that Initial Context Setup. */
void two_sessions(struct sue *ue, uint8_t kgnb[32]);
/* The UE-AMBR of that Initial Context Setup. */
extern struct ngap_ambr mob_ics_ambr;
/* The session's downlink goes to addr / teid, active. */
void dl_tunnel_is(const struct sue *ue, uint8_t psi, const char *addr, uint32_t teid);
/* The UE's N2 connection is (assoc, ran), the only one on that gNB. */
void ue_on(const struct sue *ue, uint32_t assoc, uint32_t ran);
/* A downlink NAS message (GUTI reallocation) reaches the UE where ue says it is; answered. */
void nas_reaches(struct sue *ue);

/* Every N2 PDU both ways into a new pcap; path is a mkstemps template ending in ".pcap". */
void mob_pcap_start(char *path);
/* Close it: tshark finds only NGAP in it, nothing malformed, no expert error. */
void mob_pcap_clean(const char *tshark, const char *path);

#endif
