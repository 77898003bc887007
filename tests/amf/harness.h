/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * In-process scenario harness for amf/: acts as gNB (NGAP encoder/decoder) and
 * as UE (NAS encoder, USIM side of 5G-AKA and NAS security from common/crypto),
 * feeds the AMF through amf_n2_rx() and captures every PDU it sends.
 */
#ifndef SOLOCORE_TESTS_AMF_HARNESS_H
#define SOLOCORE_TESTS_AMF_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "amf/amf.h"
#include "ausf/ausf.h"
#include "common/crypto/crypto.h"
#include "common/ev.h"
#include "common/nas/nas.h"
#include "common/ngap/ngap.h"
#include "udm/udm.h"

#define H_TXQ 64
#define H_PDU_MAX 4096

struct pcapw;

struct h_pdu {
	uint32_t assoc;
	uint16_t stream;
	size_t len;
	uint8_t buf[H_PDU_MAX];
};

struct h {
	struct ev_loop *loop;
	struct udm *udm;
	struct ausf *ausf;
	struct amf *amf;
	struct amf_cfg cfg;
	struct h_pdu q[H_TXQ];
	unsigned q_head, q_len;
	struct h_pdu cur;          /* last popped PDU (decoded structs point into it) */
	struct ngap_msg m;         /* last popped NGAP message */
	uint8_t nasplain[H_PDU_MAX];
	char snn[64];
	struct pcapw *pcap;        /* when set, every N2 PDU both ways is written to it */
	struct nas_msg cuc;        /* CONFIGURATION UPDATE COMMAND answered by sue_register (scalars only) */
	unsigned n_cuc;            /* how many sue_register answered */
	unsigned n_up;             /* NGAP PDUs gNB -> AMF (h_send) */
	unsigned n_down;           /* NGAP PDUs AMF -> gNB */
	uint64_t amf_ns;           /* time spent inside amf_n2_rx() (benchmarks) */
	unsigned n_closed;         /* associations the AMF closed (ops.close / ops.shutdown) */
	uint32_t closed_assoc;     /* the last one */
	bool closed_graceful;      /* ... by ops.shutdown */
	uint64_t amf_calls;
};

struct sue {
	char supi[24];
	const char *msin;          /* 10 digits */
	uint8_t k[16], opc[16];
	struct crypto_usim_sqn usim;
	uint8_t ea, ia;            /* capability octets (bit 8 = algorithm 0) */
	uint8_t kamf[32], kint[16], kenc[16];
	uint8_t nia, nea;
	bool sec;                  /* security context in use */
	uint32_t ul;               /* next uplink COUNT */
	uint32_t assoc;
	uint32_t ran_id;
	uint32_t tac;              /* TAC in the ULI of its messages (0: TAC 1) */
	uint64_t amf_id;
	bool has_guti;
	struct nas_mobile_id guti;
	uint8_t ngksi;
	uint8_t last_sht;          /* security header type of the last downlink NAS */
	uint16_t mcc, mnc;         /* home PLMN in the SUCI */
	struct nas_nssai requested;
	/* Raw IEs appended to every REGISTRATION REQUEST this UE encodes (initial message and
	 * the SECURITY MODE COMPLETE container): IEs from a later release, malformed ones. */
	const uint8_t *reg_tail;
	size_t reg_tail_len;
};

/* Milenage test set 1 (TS 35.208 4.3.1) as the subscriber's keys. */
extern const uint8_t h_k1[16], h_opc1[16];

/* Create loop, udm (with subscribers added by the test), ausf and amf with cfg. */
void h_init(struct h *h, const struct amf_cfg *cfg);
void h_fini(struct h *h);
/* Default AMF configuration for tests: PLMN 001/01, TAC 1, SST 1 SD 010203, short timers. */
void h_cfg(struct amf_cfg *cfg);
/* Subscriber with test set 1 keys, SST 1 / SD 010203 (or the given slice), SQN sqn. */
void h_add_sub(struct h *h, const char *supi, uint8_t sst, uint32_t sd, uint64_t sqn);

/* gNB side */
void h_send(struct h *h, uint32_t assoc, uint16_t stream, const struct ngap_msg *m);
/* Pop the next PDU the AMF sent, decode it into h->m; false when none is queued. */
bool h_pop(struct h *h);
/* Pop and assert type/proc. */
void h_expect(struct h *h, uint8_t type, uint8_t proc);
unsigned h_pending(const struct h *h);
/* NG Setup for assoc with TAC 1 and SST 1 / SD 010203; asserts the response. */
void h_ng_setup(struct h *h, uint32_t assoc);
/* The same with one TA of the given TAC. */
void h_ng_setup_tac(struct h *h, uint32_t assoc, uint32_t tac);
/* The same with, when two, a second slice (SST 2, no SD) in the TA. */
void h_ng_setup_slices(struct h *h, uint32_t assoc, uint32_t tac, bool two);
/* Run the loop until a PDU arrives or max_ms passes. */
void h_run_until_tx(struct h *h, unsigned max_ms);

/* UE side */
void sue_init(struct sue *ue, const char *msin, uint32_t assoc, uint32_t ran_id);
/* Build a Registration Request (initial, SUCI null scheme, caps, requested NSSAI). */
void sue_reg_req(struct sue *ue, struct nas_msg *m, bool guti);
/* Send a NAS message in an InitialUEMessage (sht 0 or 1 when the UE has a context). */
void sue_initial(struct h *h, struct sue *ue, const struct nas_msg *m, uint8_t sht);
/* Send in an UplinkNASTransport with security header type sht (0 plain, 2, 4). */
void sue_ul(struct h *h, struct sue *ue, const struct nas_msg *m, uint8_t sht);
/* Same with a corrupted MAC. */
void sue_ul_badmac(struct h *h, struct sue *ue, const struct nas_msg *m);
/* Pop a DL NAS transport / ICS request / PDU Session Resource Setup, Release or Modify
 * Request with NAS, verify the MAC, decipher, decode into out.
 * Handles a SECURITY MODE COMMAND by deriving the NAS keys first. Returns the NGAP proc. */
uint8_t sue_dl(struct h *h, struct sue *ue, struct nas_msg *out);
/* USIM side of 5G-AKA on an AUTHENTICATION REQUEST: 0, -EBADMSG, -ESTALE (auts filled). */
int sue_aka(struct h *h, struct sue *ue, const struct nas_msg *auth_req, uint8_t res_star[16],
	    uint8_t auts[14]);
/* Full registration up to REGISTERED (asserts every step); nia/nea are the expected algorithms.
 * When the configuration makes the AMF send a CONFIGURATION UPDATE COMMAND after REGISTRATION
 * COMPLETE (cuc_after_reg, or a network name / time zone), it is checked, kept in h->cuc and
 * answered with COMPLETE. */
void sue_register(struct h *h, struct sue *ue, uint8_t nia, uint8_t nea);
/* Send AUTHENTICATION RESPONSE with res (plain). */
void sue_auth_resp(struct h *h, struct sue *ue, const uint8_t res[16]);
/* Initial registration up to the SECURITY MODE COMMAND (asserted), which is left in smc. */
void sue_to_smc(struct h *h, struct sue *ue, struct nas_msg *smc);
/* UE-originating DEREGISTRATION REQUEST (dereg_type 0x01 normal, 0x09 switch-off), protected. */
void sue_dereg(struct h *h, struct sue *ue, uint8_t dereg_type);
/* REGISTRATION REJECT with cause (plain DL NAS transport), the release command, answered. */
void sue_expect_reg_reject(struct h *h, struct sue *ue, uint8_t cause);
/* Answer a UEContextReleaseCommand with Complete. */
void sue_release_complete(struct h *h, struct sue *ue);

#endif
