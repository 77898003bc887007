/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * Fixture for the AMF + SMF tests (test_amf_sm*.c): the harness's AMF with an SMF over a
 * NULL upf (no user plane; addresses and TEIDs still allocated), two DNNs (internet
 * 10.45.0.0/16, ims 10.46.0.0/29), two slices (1/010203 and 2), SUPI1 subscribed to both
 * slices and DNNs, SUPI2 to slice 1 / internet; helpers that play the UE's 5GSM side and
 * the gNB's PDU session resource side.
 */
#ifndef SOLOCORE_TESTS_AMF_SM_FX_H
#define SOLOCORE_TESTS_AMF_SM_FX_H

#include "common/conf.h"
#include "harness.h"
#include "smf/smf.h"

#define ASSOC 7
#define N3_ADDR "192.0.2.1"
#define GNB_ADDR "192.0.2.2"
#define SUPI1 "imsi-001010000000001"   /* slices 1/010203 and 2; DNNs internet, ims */
#define SUPI2 "imsi-001010000000002"   /* slice 1/010203; DNN internet */

extern struct h H;
extern struct conf C;
extern struct smf *S;
extern const struct nas_snssai SN1, SN2;

/* Called by setup() on the AMF configuration before the AMF is created, when set. */
extern void (*sm_fx_cfg_hook)(struct amf_cfg *cfg);
uint32_t ip4(const char *s);
void add_sub(const char *supi, bool two);
int setup(void **state);
/* The AMF first, then the SMF, with no loop iteration in between (amf.h). */
int teardown(void **state);
/* Asserts the DNN's pool has want addresses in use. */
void pool_used(const char *dnn, uint32_t want);
uint64_t sessions(void);
/* UL NAS TRANSPORT (N1 SM) with gsm encoded as payload; req_type < 0: no Request type IE. */
void sm_ul(struct sue *ue, const struct nas_msg *gsm, bool has_psi, uint8_t psi, int req_type,
	   const char *dnn, const struct nas_snssai *sn);
void est_req(struct sue *ue, uint8_t psi, const char *dnn, const struct nas_snssai *sn);
void gsm_simple(struct sue *ue, uint8_t type, uint8_t psi, uint8_t pti);
/* The 5GSM message inside a DL NAS TRANSPORT popped by sue_dl. */
void inner_gsm(const struct nas_msg *dl, uint8_t psi, struct nas_msg *gsm);
size_t setup_rsp_transfer(uint8_t *buf, size_t cap, uint32_t teid);
void gnb_setup_rsp(struct sue *ue, uint8_t psi, uint32_t teid);
/* Request, Setup Request (accept inside) checked, Setup Response: returns the UE address. */
uint32_t establish(struct sue *ue, uint8_t psi, const char *dnn, const struct nas_snssai *sn);
void sess(const struct sue *ue, uint8_t psi, struct smf_sess_info *si);
uint32_t session_id_of(const struct sue *ue, uint8_t psi);
void registered(struct sue *ue, const char *msin, uint32_t ran_id);
/* UE Context Release Request -> Command -> Complete. */
void gnb_release_req(struct sue *ue);
void service_req(struct sue *ue, uint32_t ran_id, bool has_uds, uint16_t uds, bool has_pss, uint16_t pss);
void ics_rsp(struct sue *ue, uint8_t n, const uint8_t *psis);
/* The gNB's PDU SESSION RESOURCE RELEASE RESPONSE for psi. */
void gnb_release_rsp(struct sue *ue, uint8_t psi);
void release_session(struct sue *ue, uint8_t psi);
/* Issue 6's 27-message cycle for SUPI1 (asserts 17 up / 10 down and the counters). */
void sm_cycle_27(void);

#endif
