/* SPDX-License-Identifier: AGPL-3.0-or-later */
/* Handover test helpers (mob_fx.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "mob_fx.h"
#include "testlib.h"

struct ngap_ambr mob_ics_ambr;

/* TS 33.501 A.10 / TS 33.220 B.2: NH = HMAC-SHA-256(K_AMF, 0x6F || sync || 0x00 0x20). */
void nh_ref(const uint8_t kamf[32], const uint8_t sync[32], uint8_t out[32])
{
	uint8_t s[1 + 32 + 2];
	unsigned len = 32;

	s[0] = 0x6f;
	memcpy(s + 1, sync, 32);
	s[33] = 0x00;
	s[34] = 0x20;
	assert_non_null(HMAC(EVP_sha256(), kamf, 32, s, sizeof(s), out, &len));
	assert_int_equal(len, 32);
}

/* Registered, two sessions (psi 1 on slice 1, psi 2 on slice 2), then idle and back by a
 * service request so that the test sees the K_gNB the gNB got in the Initial Context Setup. */
void two_sessions(struct sue *ue, uint8_t kgnb[32])
{
	static const uint8_t psis[2] = { 1, 2 };
	struct nas_msg dl;

	sue_init(ue, "0000000001", ASSOC, 1);
	ue->requested.n = 2;
	ue->requested.s[1] = SN2;
	sue_register(&H, ue, 2, 0);
	establish(ue, 1, "internet", &SN1);
	establish(ue, 2, "ims", &SN2);
	gnb_release_req(ue);
	service_req(ue, 2, true, 1u << 1 | 1u << 2, true, 1u << 1 | 1u << 2);
	assert_int_equal(sue_dl(&H, ue, &dl), NGAP_PROC_INITIAL_CONTEXT_SETUP);
	memcpy(kgnb, H.m.u.initial_context_setup_request.security_key, 32);
	mob_ics_ambr = H.m.u.initial_context_setup_request.ue_ambr;
	ics_rsp(ue, 2, psis);
	assert_int_equal(h_pending(&H), 0);
}

/* A downlink NAS message (GUTI reallocation) reaches the UE where it is; answered. */
void nas_reaches(struct sue *ue)
{
	struct nas_msg dl, m;

	assert_int_equal(amf_guti_reallocate(H.amf, ue->supi), 0);
	assert_int_equal(sue_dl(&H, ue, &dl), NGAP_PROC_DOWNLINK_NAS_TRANSPORT);   /* checks ue->assoc */
	assert_int_equal(dl.type, NAS_CONFIGURATION_UPDATE_COMMAND);
	assert_true(dl.cuc.has_guti);
	ue->guti = dl.cuc.guti;   /* the next service request names the new 5G-S-TMSI */
	memset(&m, 0, sizeof(m));
	m.type = NAS_CONFIGURATION_UPDATE_COMPLETE;
	sue_ul(&H, ue, &m, NAS_SHT_INTEGRITY_CIPHERED);
	assert_int_equal(h_pending(&H), 0);
}

void dl_tunnel_is(const struct sue *ue, uint8_t psi, const char *addr, uint32_t teid)
{
	struct smf_sess_info si;

	sess(ue, psi, &si);
	assert_int_equal(si.gnb_addr, ip4(addr));
	assert_int_equal(si.gnb_teid, teid);
	assert_int_equal(si.state, SMF_ST_ACTIVE);
	assert_true(si.up_active);
}

void ue_on(const struct sue *ue, uint32_t assoc, uint32_t ran)
{
	struct amf_ue_info info;

	assert_int_equal(amf_ue_info_by_supi(H.amf, ue->supi, &info), 0);
	assert_int_equal(info.assoc, assoc);
	assert_int_equal(info.ran_ue_ngap_id, ran);
	assert_int_equal(amf_gnb_ue_count(H.amf, assoc), 1);
}

void mob_pcap_start(char *path)
{
	int fd = mkstemps(path, 5);

	assert_true(fd >= 0);
	close(fd);
	H.pcap = pcapw_open(path, PCAPW_SCTP_IPV4);
	assert_non_null(H.pcap);
}

void mob_pcap_clean(const char *tshark, const char *path)
{
	assert_int_equal(pcapw_close(H.pcap), 0);
	H.pcap = NULL;
	assert_int_equal(tshark_lines(tshark, path, "-Y '!ngap'", NULL), 0);
	assert_int_equal(tshark_lines(tshark, path,
				      TSHARK_NULL_DECIPHER " -Y '_ws.malformed || _ws.expert.severity >= \"Error\"'", NULL), 0);
}
