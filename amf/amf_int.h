/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * amf internals shared by the files of amf/ (never included outside amf/).
 *
 *   amf.c        life cycle, config defaults, stats
 *   observe.c    observation API (gNB / UE walks, counter table) for tests, web, metrics
 *   ue_store.c   UE context pool and its O(1) indexes
 *   guti.c       5G-TMSI allocation
 *   gmm_fsm.c    the 5GMM state table and dispatcher
 *   timers.c     the 3GPP-named NAS timers with retransmission / give-up
 *   ngap_*.c     N2: non-UE and UE-associated NGAP
 *   nas_*.c      N1: NAS security wrapping and the 5GMM procedures
 *   n2.c         amf_start(): the N2 listener over common/sctp
 *
 *   nas_sm.c     session management glue (smf/): UL/DL NAS transport of N1 SM, the
 *                PDU session resource procedures, service request reactivation, paging
 *
 * Session state lives in smf/ (struct smf_ue, one handle per UE: ue->sm); the AMF keeps
 * only the handle, the sessions waiting for paging and the PDU session items of an
 * Initial Context Setup being built.
 */
#ifndef SOLOCORE_AMF_AMF_INT_H
#define SOLOCORE_AMF_AMF_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "amf/amf.h"
#include "ausf/ausf.h"
#include "common/ev.h"
#include "common/hist.h"
#include "common/nas/nas.h"
#include "common/ngap/ngap.h"
#include "smf/smf.h"

/* NGAP cause values by their index in TS 38.413 9.4.5 (v17.3.0) enumerations. */
#define AMF_CAUSE_RN_UNSPECIFIED 0
#define AMF_CAUSE_RN_SUCCESSFUL_HO 2         /* successful-handover */
#define AMF_CAUSE_RN_RELEASE_5GC 4           /* release-due-to-5gc-generated-reason */
#define AMF_CAUSE_RN_HO_CANCELLED 5          /* handover-cancelled */
#define AMF_CAUSE_RN_HO_FAIL_TARGET 7        /* ho-failure-in-target-5GC-ngran-node-or-target-system */
#define AMF_CAUSE_RN_HO_TARGET_NOT_ALLOWED 8 /* ho-target-not-allowed */
#define AMF_CAUSE_RN_TNGRELOCOVERALL_EXPIRY 9 /* tngrelocoverall-expiry */
#define AMF_CAUSE_RN_TNGRELOCPREP_EXPIRY 10  /* tngrelocprep-expiry */
#define AMF_CAUSE_RN_UNKNOWN_TARGET_ID 12    /* unknown-targetID */
#define AMF_CAUSE_RN_UNKNOWN_PDU_SESSION 26  /* unknown-PDU-session-ID */
#define AMF_CAUSE_RN_UNKNOWN_LOCAL_UE_ID 14
#define AMF_CAUSE_RN_INCONSISTENT_REMOTE_UE_ID 15
#define AMF_CAUSE_RN_SLICE_NOT_SUPPORTED 39
#define AMF_CAUSE_NAS_NORMAL_RELEASE 0
#define AMF_CAUSE_NAS_AUTH_FAILURE 1
#define AMF_CAUSE_NAS_DEREGISTER 2
#define AMF_CAUSE_NAS_UNSPECIFIED 3
#define AMF_CAUSE_PROT_TRANSFER_SYNTAX 0
#define AMF_CAUSE_PROT_ABSTRACT_REJECT 1
#define AMF_CAUSE_PROT_NOT_COMPATIBLE_STATE 3
#define AMF_CAUSE_PROT_SEMANTIC 4
#define AMF_CAUSE_PROT_UNSPECIFIED 6
#define AMF_CAUSE_MISC_UNKNOWN_PLMN 4        /* unknown-PLMN-or-SNPN */
#define AMF_CAUSE_MISC_UNSPECIFIED 5

#define AMF_NIL UINT32_MAX
#define AMF_IDRND_BATCH 1020   /* random octets per getrandom() call: 204 AMF UE NGAP IDs */
#define AMF_H_TABLES 6         /* UE indexes (ue_store.c, enum amf_htab) */
#define AMF_SUPI_MAX 24
#define AMF_RADIO_CAP_MAX 16384   /* bytes of UE radio capability (+ for paging) kept per UE */
#define AMF_NAS_KEEP 512       /* bytes of the last downlink NAS PDU kept for retransmission */
#define AMF_MAX_NSSAI 8        /* TS 24.501 9.11.3.37: at most 8 S-NSSAIs in an NSSAI */
#define AMF_GNB_TAC_MAX 16
#define AMF_GNB_SLICE_MAX 16
#define AMF_AUTH_MAX_RESYNC 1
/* TS 33.501 6.4.3.1: NIA/NEA BEARER = NAS connection identifier, 1 for 3GPP access (2 for
 * non-3GPP), as UEs, UERANSIM, Open5GS and free5gc use it. */
#define AMF_NAS_BEARER_3GPP 1  /* one resynchronisation per registration, then reject */

/* NGAP IDs (TS 38.413 9.3.3.1-2). */
#define AMF_UE_NGAP_ID_MAX ((1ull << 40) - 1)

/* ---- timers (TS 24.501 10.2) ---- */
enum amf_tmr {
	AMF_T3550 = 0,     /* REGISTRATION ACCEPT sent, waiting for COMPLETE */
	AMF_T3560,         /* AUTHENTICATION REQUEST / SECURITY MODE COMMAND */
	AMF_T3570,         /* IDENTITY REQUEST */
	AMF_T3522,         /* network-initiated DEREGISTRATION REQUEST */
	AMF_T3555,         /* CONFIGURATION UPDATE COMMAND (acknowledged) */
	AMF_T3513,         /* PAGING (TS 24.501 5.6.2.2.1), repeated by the AMF */
	AMF_TMR_MOBILE_REACHABLE,
	AMF_TMR_IMPLICIT_DEREG,
	AMF_TMR_RELEASE_GUARD,     /* UE CONTEXT RELEASE COMMAND sent, COMPLETE awaited */
	AMF_TMR_HO_PREP,           /* N2 handover: HANDOVER REQUEST sent, the target's answer awaited */
	AMF_TMR_HO_OVERALL,        /* N2 handover: COMMAND sent (NOTIFY awaited), then the source's release */
	AMF_TMR_COUNT,
};
/* TS 24.501 5.4.1.3.7 b), 5.4.2.7 b), 5.4.3.7 b), 5.5.1.2.8 c), 5.5.2.3.5 a):
 * "on the fifth expiry" -> four retransmissions. */
#define AMF_NAS_MAX_RETX 4

/* ---- 5GMM sub-states (gmm_fsm.c): the table's states ----
 * Each maps to one 5GMM state of TS 24.501 5.1.3.2.2 (amf_gmm_main); the sub-state says
 * which procedure is waiting for which answer under which timer. */
enum amf_gmm_sub {
	AMF_GS_DEREGISTERED = 0,
	AMF_GS_IDENT,              /* IDENTITY REQUEST out, T3570 (TS 24.501 5.4.3) */
	AMF_GS_AUTH,               /* AUTHENTICATION REQUEST out, T3560 (5.4.1.3) */
	AMF_GS_SMC,                /* SECURITY MODE COMMAND out, T3560 (5.4.2) */
	AMF_GS_WAIT_COMPLETE,      /* REGISTRATION ACCEPT with a new 5G-GUTI out, T3550 (5.5.1.2.4) */
	AMF_GS_REGISTERED,
	AMF_GS_CFG_UPDATE,         /* CONFIGURATION UPDATE COMMAND out, T3555 (5.4.4) */
	AMF_GS_DEREG_INIT,         /* network DEREGISTRATION REQUEST out, T3522 (5.5.2.3) */
	AMF_GS_COUNT,
};

/* What the common procedures (identification, authentication, security mode) were
 * started for: they report to this parent when they succeed (STYLE.md 7). */
enum amf_parent {
	AMF_PARENT_REG = 0,        /* registration (TS 24.501 5.5.1) */
	AMF_PARENT_DEREG,          /* a deregistration that failed integrity: authenticate first
				    * (TS 24.501 4.4.4.3, TS 23.502 4.2.2.3.2 step 1a) */
	AMF_PARENT_SVC,            /* a service request that needs a new K_AMF (NAS COUNT near
				    * its wrap, TS 33.501 6.4.3.1) */
};

/* TS 33.501 6.4.3.1: the NAS COUNT must not wrap under one K_AMF; past this value a new
 * primary authentication runs at the next registration or service request. */
#define AMF_NAS_COUNT_REKEY 0xff0000u

struct amf_gnb;
struct amf;

struct amf_nssai {
	struct amf_snssai s[AMF_MAX_NSSAI];
	uint8_t n;
};

/* ---- N2 handover (ho_fsm.c, ngap_ho.c, ngap_ho_exec.c; TS 23.502 4.9.1.3, TS 38.413 8.4) ---- */
enum amf_ho_state {
	AMF_HO_NONE = 0,           /* no handover (a released leg may linger: ho.leg_gnb) */
	AMF_HO_PREPARING,          /* HANDOVER REQUEST sent, the target's answer awaited (ho-prep guard) */
	AMF_HO_PREPARED,           /* HANDOVER COMMAND sent, HANDOVER NOTIFY awaited (ho-overall guard) */
	AMF_HO_COMPLETING,         /* the UE is on the target; the source's release pending (ho-overall) */
	AMF_HO_STATE_COUNT,
};
enum amf_ho_event {
	AMF_HO_EV_REQUIRED = 0,    /* HANDOVER REQUIRED from the UE's serving gNB */
	AMF_HO_EV_REQ_ACK,         /* HANDOVER REQUEST ACKNOWLEDGE on the leg */
	AMF_HO_EV_REQ_FAIL,        /* HANDOVER FAILURE on the leg */
	AMF_HO_EV_CANCEL,          /* HANDOVER CANCEL from the serving gNB */
	AMF_HO_EV_UL_STATUS,       /* UPLINK RAN STATUS TRANSFER from the serving gNB */
	AMF_HO_EV_NOTIFY,          /* HANDOVER NOTIFY on the leg */
	AMF_HO_EV_GUARD,           /* ho-prep / ho-overall expired */
	AMF_HO_EV_SRC_LOST,        /* the source's association is gone */
	AMF_HO_EV_TGT_LOST,        /* the target's association is gone */
	AMF_HO_EV_REL_DONE,        /* UE CONTEXT RELEASE COMPLETE on the leg (the source's after NOTIFY) */
	AMF_HO_EV_AN_REL,          /* the UE's own N2 connection is released (release request, reset) */
	AMF_HO_EV_ABORT,           /* the UE context goes or is replaced */
	AMF_HO_EV_COUNT,
};

/* The UE's handover. The leg is the other UE-associated NG connection: the target's while
 * PREPARING / PREPARED (its AMF UE NGAP ID is ours, given in HANDOVER REQUEST; its RAN UE
 * NGAP ID comes with the acknowledge), the source's while COMPLETING, and a released one
 * in NONE until its RELEASE COMPLETE. A UE with a leg is on amf->ho_head. */
struct amf_ho {
	uint8_t state;             /* enum amf_ho_state: written by amf_ho_dispatch only */
	uint8_t handover_type;     /* of the HANDOVER REQUIRED */
	bool src_gone;             /* the source's association went after the command */
	bool in_fsm;               /* an action is running (no nested handover event) */
	bool leg_has_ran;
	struct amf_gnb *leg_gnb;
	uint64_t leg_amf_id;
	uint32_t leg_ran_id;
	uint16_t leg_stream;
	uint16_t prepared;         /* PSIs given to smf_ho_prepare (bit psi) */
	uint16_t admitted;         /* PSIs the target took (smf_ho_admitted) */
	uint16_t drop;             /* PSIs released after the handover (slice, refused by the target) */
	struct ngap_cause cause;   /* of the HANDOVER REQUIRED */
	struct amf_ue *next, *prev;
};

struct amf_ue {
	struct amf *amf;
	uint32_t idx;            /* pool index */
	bool in_use;
	bool reaping;            /* freed from a deferred call */

	/* N2 association (absent while CM-IDLE) */
	struct amf_gnb *gnb;
	struct amf_ue *gnb_prev, *gnb_next;
	uint64_t amf_ue_ngap_id;   /* AMF_NIL64 when unbound */
	uint32_t ran_ue_ngap_id;
	uint16_t stream;
	bool ics_sent;             /* InitialContextSetupRequest sent (AS security in RAN) */
	bool release_pending;      /* UEContextReleaseCommand sent */
	uint32_t tac;              /* from User Location Information */
	uint32_t nr_cell_id_hi;    /* NR CGI (36 bits) */
	uint32_t nr_cell_id_lo;

	/* identities */
	char supi[AMF_SUPI_MAX];
	bool has_supi;
	uint32_t tmsi;
	bool has_guti;
	uint32_t pending_tmsi;     /* sent in CONFIGURATION UPDATE COMMAND, not yet acknowledged */
	bool has_pending_tmsi;
	bool tmsi_indexed;
	char imeisv[17];

	/* index chains (ue_store.c) */
	uint32_t hnext[AMF_H_TABLES];
	/* TS 24.501 5.5.1.2.4: the 5G-GUTI before the one in the REGISTRATION ACCEPT stays
	 * valid (indexed in AMF_H_TMSI_OLD) until REGISTRATION COMPLETE or until the UE uses
	 * the new one. */
	uint32_t tmsi_old;
	bool tmsi_old_indexed;
	/* The SUPI index holds authenticated contexts only: a context still running its
	 * common procedures (an unverified REGISTRATION REQUEST, say) knows its SUPI but is
	 * not what amf_ue_by_supi finds (TS 23.502 4.2.2.2.2: the old context stays until
	 * the new one is authenticated). */
	bool supi_indexed;
	bool ident_by_guti;        /* the SUPI came from a 5G-GUTI, not from the UE (5.4.1.3.5) */
	bool paged;                /* this connection answers a paging (TS 33.501 6.12.3) */
	uint64_t ue_ambr_ul, ue_ambr_dl;   /* subscribed UE-AMBR, bit/s (0: none) */
	/* TS 38.413 8.14.1: the UE radio capability the gNB gave (UE RADIO CAPABILITY INFO
	 * INDICATION), sent back in INITIAL CONTEXT SETUP and PAGING. One buffer owned by
	 * the context (amf_ue_radio_cap_set, freed with it): the capability [0, cap_len),
	 * then the UERadioCapabilityForPaging [cap_len, cap_len + pcap_len). */
	uint8_t *radio_cap;
	uint16_t radio_cap_len, radio_pcap_len;
	uint8_t net_dereg_pending; /* 1: network deregistration after paging, | 2: re-register */
	uint8_t last_auth_fail;    /* 5GMM cause of the last AUTHENTICATION FAILURE, 0 none */
	/* SERVICE REQUEST IEs the accept needs (from the NAS message container, 4.4.6) */
	bool svc_has_uds, svc_has_pss;
	uint16_t svc_uds, svc_pss;

	/* 5GMM: written by amf_gmm_dispatch() only */
	uint8_t state;             /* enum amf_gmm_sub */
	uint8_t parent;            /* enum amf_parent of the common procedure running */
	uint8_t dereg_type;        /* of a DEREGISTRATION REQUEST waiting for authentication */
	uint32_t fsm_gen;          /* transitions so far (detects a nested dispatch) */
	uint8_t reg_type;          /* TS 24.501 9.11.3.7 */
	bool follow_on;
	bool reg_accept_had_guti;  /* a new GUTI was in the accept: COMPLETE expected */
	struct amf_nssai requested;
	struct amf_nssai allowed;
	uint8_t ue_sec_cap[8];     /* TS 24.501 9.11.3.54 value part, replayed in SMC */
	uint8_t ue_sec_cap_len;
	bool ue_sec_cap_valid;
	uint8_t auth_resyncs;
	uint8_t ident_type;        /* type asked in IDENTITY REQUEST */
	uint8_t ue_ngksi;          /* ngKSI the UE sent in its request (7 = none) */
	bool initial_ok;           /* initial NAS message passed the integrity check */
	bool auth_done;            /* this registration authenticated the UE */
	bool smc_done;
	bool auth_after_ident;     /* identification after a failed authentication (5.4.1.3.5) */
	struct nas_ue_sec_cap sec_cap; /* as received, replayed in SMC */

	/* security (TS 33.501 6.2, 6.4, 6.7) */
	struct ausf_auth auth;
	uint8_t ngksi;             /* 0..6, 7 = no key available */
	uint8_t pending_ngksi;
	uint8_t kamf[32];
	uint8_t knas_int[16], knas_enc[16];
	uint8_t nia, nea;
	bool sec_ctx;              /* a native 5G security context exists */
	bool sec_active;           /* NAS messages are protected with it (SMC done) */
	uint32_t ul_count;         /* NAS COUNT of the last accepted uplink message (overflow << 8 | SQN) */
	bool ul_count_valid;       /* false until the first protected uplink message */
	uint32_t dl_count;         /* NAS COUNT for the next downlink message */
	uint32_t nas_mac_fail;
	/* NH/NCC chain of the AS context (as_sec.c, TS 33.501 6.9.2.1.1): the last NH computed
	 * and its NCC; valid from an Initial Context Setup until a new K_AMF */
	uint8_t nh[32];
	uint8_t ncc;
	bool nh_valid;

	/* timers */
	struct ev_timer tmr[AMF_TMR_COUNT];
	uint8_t retx[AMF_TMR_COUNT];
	uint8_t last_nas[AMF_NAS_KEEP];  /* last downlink NAS PDU, as sent, for T3550/60/70/22 */
	uint16_t last_nas_len;
	uint8_t last_nas_tmr;            /* which timer owns last_nas */
	uint8_t last_nas_kind;           /* enum amf_nas_kind it was sent with */
	/* session management (nas_sm.c) */
	struct smf_ue *sm;         /* SMF handle, attached on first use */
	uint16_t dl_pending;       /* PSIs with downlink data waiting (paging) */
	uint16_t reg_pss;          /* PDU session status of the registration request being handled */
	bool has_reg_pss;
	uint16_t reg_uds;          /* ... and its Uplink data status (TS 24.501 5.5.1.3.4) */
	bool has_reg_uds;
	/* Registration area (amf_cfg.tac_area, reg_area.c) of the TAI list in the last
	 * REGISTRATION ACCEPT: where the UE is paged (TS 23.502 4.2.3.3 step 4b). */
	uint8_t ra;
	uint8_t paging_retx;
	char logpfx[48];
	/* registration latency (nas_reg.c): ev_now_ns() at the REGISTRATION REQUEST being
	 * handled, 0 when none is being measured */
	uint64_t reg_t0_ns;
	/* Served-slice change (amf_set_slices -> amf_nssai_refresh, nas_reg.c): the allowed
	 * NSSAI changed and the UE has not been told (TS 24.501 5.4.4): a CONFIGURATION UPDATE
	 * COMMAND goes out when the UE is next connected with no procedure running; a
	 * registration accept carries the new list and clears it. */
	bool nssai_cuc_pending;
	bool nssai_cuc_inflight;   /* the command under T3555 carries the allowed NSSAI */
	bool nssai_cuc_reg_req;    /* ... with "registration requested" (no S-NSSAI left) */
	struct amf_ho ho;          /* N2 handover (ngap_ho.c) */
};

#define AMF_NIL64 UINT64_MAX

struct amf_gnb {
	uint32_t assoc;
	bool in_use;
	bool setup_done;
	uint16_t out_streams;
	uint16_t next_stream;
	uint8_t plmn[3];
	uint32_t gnb_id;
	uint8_t gnb_id_bits;
	char name[AMF_NAME_MAX];
	uint32_t tacs[AMF_GNB_TAC_MAX];
	unsigned n_tacs;
	struct amf_snssai slices[AMF_GNB_SLICE_MAX]; /* supported in our TAs (NG Setup / RAN config update) */
	unsigned n_slices;
	uint16_t in_streams;
	struct sockaddr_storage peer;  /* SCTP peer (n2.c); peer_len 0 with an in-process transport */
	uint32_t peer_len;
	uint8_t paging_drx;
	struct amf_ue *ue_head;
	uint32_t n_ues;
	uint32_t hnext;
	void *tx_handle;           /* transport's association (n2.c) */
	/* ngap_guard.c: another association claimed this one's Global RAN Node ID; any NGAP
	 * PDU from it before the timer keeps it */
	struct amf *amf;
	struct ev_timer probe;
	bool probing, probe_heard;
};

/* A served-slice change walks the registered UEs in bounded steps (nas_reg.c): at most
 * AMF_NSSAI_STEP slots a loop pass, so 10^6 UEs never hold signalling for the whole walk. */
#define AMF_NSSAI_STEP 4096u
struct amf_nssai_walk {
	struct amf_nssai rm, add;  /* removed / added served S-NSSAIs of the change */
	bool all;                  /* recompute every registered UE (subscriptions changed too) */
	bool running;
	uint32_t cursor;           /* next UE slot */
	unsigned changed;          /* UEs whose allowed NSSAI changed in this walk */
	struct ev_timer tmr;       /* the next step */
};

struct amf {
	struct ev_loop *loop;
	struct amf_cfg cfg;
	struct amf_nssai_walk nssai_walk;
	struct ausf *ausf;
	struct udm *udm;
	struct amf_n2_ops ops;
	struct amf_stats st;
	char snname[AUSF_SNNAME_MAX];
	char mcc[4], mnc[4];

	/* UE store: slots [0, ues_hw) have been used; the rest is untouched memory */
	struct amf_ue *ues;
	size_t ues_bytes;          /* mapping size */
	uint32_t ues_hw;
	uint32_t free_head;        /* chained through hnext[0] while free */
	uint32_t *ht[AMF_H_TABLES]; /* enum amf_htab */
	uint32_t ht_mask;
	/* AMF UE NGAP IDs are drawn from the kernel CSPRNG (getrandom) in batches of
	 * sizeof(idrnd) octets: one syscall per AMF_IDRND_BATCH / 5 IDs (ue_store.c). */
	uint8_t idrnd[AMF_IDRND_BATCH];
	uint16_t idrnd_pos;

	/* gNBs */
	struct amf_gnb *gnbs;
	uint32_t gnb_buckets[256];

	/* 5G-TMSI permutation state (guti.c) */
	uint32_t tmsi_ctr;
	uint16_t tmsi_rk[4];

	/* scratch PDUs (one control thread, handlers never nest a decode) */
	struct ngap_msg rx;
	struct ngap_msg tx;
	struct nas_msg nrx;        /* decoded uplink NAS */
	struct nas_msg nrx2;       /* inner message of a NAS message container */
	struct nas_msg ntx;        /* downlink NAS being built */
	uint32_t cur_assoc;
	uint16_t cur_stream;
	bool an_lost;              /* the N2 connections ending now went with their association */

	/* session management */
	struct smf *smf;
	struct smf_out so;                      /* scratch output of an SMF call */
	uint8_t so_n1[SMF_N1_MAX], so_n2[SMF_N2_MAX];
	const struct smf_out *sm_cur;           /* output being sent by amf_nas_send(AMF_VIA_SM) */
	/* PDU Session Resource Setup items of the next Initial Context Setup Request */
	struct ngap_pdu_sess_item ics_items[SMF_PSI_MAX];
	uint8_t ics_n2[SMF_PSI_MAX][SMF_N2_MAX];
	uint8_t n_ics_items;

	/* production transport (amf_start) */
	void *n2;
	uint8_t txbuf[8192];
	uint8_t nasbuf[2048];      /* downlink NAS being protected */
	uint8_t nasrx[2048];       /* deciphered uplink NAS (decoded messages point into it) */
	uint8_t rx_scratch[2 * 65536]; /* fragmented NGAP open types (ngap_decode_scratch) */
	/* Registration Request -> Registration Complete (or Accept when no Complete is
	 * expected), per completed registration (nas_reg.c; read by amf_reg_latency) */
	struct hist reg_latency;
	/* /metrics by kind (amf.h: amf_ngap_msg_count, amf_reg_counts): NGAP PDUs per
	 * [ProcedureCode][enum amf_ngap_dir][NGAP-PDU type] (ngap_rx.c / ngap_tx.c, beside
	 * ngap_rx / ngap_tx), REGISTRATION ACCEPTs per 5GS registration type and REJECTs per
	 * 5GMM cause (nas_reg.c, beside reg_accepted / reg_rejected) */
	uint64_t ngap_msgs[AMF_NGAP_PROC_SLOTS][2][AMF_NGAP_PDU_TYPES];
	uint64_t reg_acc_type[AMF_REG_TYPES];
	uint64_t reg_rej_cause[256];
	struct amf_ue *ho_head;    /* UEs with a handover leg (struct amf_ho) */
};

/* ---- ue_store.c ---- */
/* AMF_H_NGAP: the UE's own AMF UE NGAP ID; AMF_H_LEG: the ID of its N2 handover leg. */
enum amf_htab {
	AMF_H_RAN = 0, AMF_H_SUPI = 1, AMF_H_TMSI = 2, AMF_H_TMSI_OLD = 3, AMF_H_NGAP = 4, AMF_H_LEG = 5,
};
int amf_store_init(struct amf *amf);
void amf_store_fini(struct amf *amf);
struct amf_ue *amf_ue_alloc(struct amf *amf);
/* Detach from everything, stop timers, wipe keys and return to the pool. */
void amf_ue_free(struct amf_ue *ue);
/* Bind / unbind the N2 association: assigns a fresh AMF UE NGAP ID. */
int amf_ue_bind(struct amf_ue *ue, struct amf_gnb *gnb, uint32_t ran_ue_ngap_id);
/* A fresh AMF UE NGAP ID for a connection of ue: 40 random bits (TS 38.413 9.3.3.1) from
 * the CSPRNG, not held by a live UE or handover leg. The bind with an ID given before (the
 * target leg of an N2 handover, amf_ho_leg_by_id). */
uint64_t amf_ue_ngap_id_new(struct amf_ue *ue);
int amf_ue_bind_id(struct amf_ue *ue, struct amf_gnb *gnb, uint32_t ran_ue_ngap_id, uint64_t amf_ue_ngap_id);
void amf_ue_unbind(struct amf_ue *ue);
/* The SUPI of an authenticated context (indexed), or of one that has not authenticated
 * yet (pending: known to the context only). */
int amf_ue_set_supi(struct amf_ue *ue, const char *supi);
int amf_ue_set_supi_pending(struct amf_ue *ue, const char *supi);
/* Keep the UE radio capability (and the one for paging, may be empty). 0, -EMSGSIZE (over
 * AMF_RADIO_CAP_MAX: the old one is kept) or -ENOMEM. */
int amf_ue_radio_cap_set(struct amf_ue *ue, struct ngap_bytes cap, struct ngap_bytes pcap);
int amf_ue_set_tmsi(struct amf_ue *ue, uint32_t tmsi);
/* A new 5G-TMSI; the current one stays findable (AMF_H_TMSI_OLD) until dropped. */
int amf_ue_new_tmsi(struct amf_ue *ue, uint32_t tmsi);
void amf_ue_drop_old_tmsi(struct amf_ue *ue);
/* Move old's 5G-TMSI (and its previous one) to ue, which has none. */
void amf_ue_take_tmsi(struct amf_ue *ue, struct amf_ue *old);
struct amf_ue *amf_ue_by_ran(struct amf *amf, const struct amf_gnb *gnb, uint32_t ran_ue_ngap_id);
struct amf_ue *amf_ue_by_amf_id(struct amf *amf, uint64_t amf_ue_ngap_id);
/* Index ue's handover leg ID (ue->ho.leg_amf_id, AMF_NIL64: none) after it changed from old. */
void amf_ue_leg_reindex(struct amf_ue *ue, uint64_t old);
/* The UE whose handover leg has this AMF UE NGAP ID, or NULL. */
struct amf_ue *amf_ue_by_leg_id(struct amf *amf, uint64_t leg_amf_ue_ngap_id);
struct amf_ue *amf_ue_by_supi(const struct amf *amf, const char *supi);
struct amf_ue *amf_ue_by_tmsi(struct amf *amf, uint32_t tmsi);
const char *amf_ue_logpfx(const struct amf_ue *ue);

struct amf_gnb *amf_gnb_by_assoc(const struct amf *amf, uint32_t assoc);
struct amf_gnb *amf_gnb_add(struct amf *amf, uint32_t assoc);
void amf_gnb_del(struct amf *amf, struct amf_gnb *gnb);

/* ---- guti.c ---- */
void amf_tmsi_init(struct amf *amf);
/* A fresh 5G-TMSI not in use by another UE. */
uint32_t amf_tmsi_alloc(struct amf *amf);

/* ---- gmm_fsm.c ---- */
enum amf_gmm_event {
	/* uplink 5GMM messages */
	AMF_EV_REG_REQ = 0,        /* REGISTRATION REQUEST */
	AMF_EV_ID_RSP,             /* IDENTITY RESPONSE */
	AMF_EV_AUTH_RSP,           /* AUTHENTICATION RESPONSE */
	AMF_EV_AUTH_FAIL,          /* AUTHENTICATION FAILURE */
	AMF_EV_SMC_CPL,            /* SECURITY MODE COMPLETE */
	AMF_EV_SMC_REJ,            /* SECURITY MODE REJECT */
	AMF_EV_REG_CPL,            /* REGISTRATION COMPLETE */
	AMF_EV_CUC_CPL,            /* CONFIGURATION UPDATE COMPLETE */
	AMF_EV_DEREG_REQ,          /* DEREGISTRATION REQUEST (UE originating) */
	AMF_EV_DEREG_ACC,          /* DEREGISTRATION ACCEPT (UE terminated) */
	AMF_EV_SVC_REQ,            /* SERVICE REQUEST */
	AMF_EV_UL_NAS,             /* UL NAS TRANSPORT */
	AMF_EV_STATUS,             /* 5GMM STATUS */
	/* timers, N2 and the network */
	AMF_EV_T3550,              /* T3550 gave up (fifth expiry) */
	AMF_EV_T3555,
	AMF_EV_T3560,
	AMF_EV_T3570,
	AMF_EV_T3522,
	AMF_EV_AN_REL,             /* the N2 connection is gone (release, reset, association) */
	AMF_EV_IMPLICIT,           /* implicit deregistration timer (TS 24.501 5.3.7) */
	AMF_EV_NET_DEREG,          /* network-initiated deregistration (operator, API) */
	AMF_EV_CUC_START,          /* network-initiated configuration update */
	AMF_EV_COUNT,
};

/* What an event carries to its action (gmm_fsm.c). */
struct amf_gmm_ctx {
	const struct nas_msg *msg;       /* 5GMM message events: the decoded message */
	const struct amf_nas_in *in;
	const uint8_t *raw;              /* initial message as received */
	size_t raw_len;
	bool initial;                    /* first message of the N1 connection */
	/* Initial message: the context its 5G-GUTI / 5G-S-TMSI names when the integrity
	 * check with that context failed (never modified: TS 24.501 4.4.4.3). */
	struct amf_ue *named;
	uint8_t arg;                     /* CUC_START: AMF_CUC_* flags; NET_DEREG: re-register */
};
#define AMF_CUC_NEW_GUTI 0x01
#define AMF_CUC_AFTER_INITIAL 0x02

const char *amf_gmm_event_name(enum amf_gmm_event ev);
const char *amf_gmm_sub_name(enum amf_gmm_sub s);
/* TS 24.501 5.1.3.2.2 state of a sub-state. */
enum amf_gmm_state amf_gmm_main(const struct amf_ue *ue);
static inline bool amf_gmm_registered(const struct amf_ue *ue)
{
	return amf_gmm_main(ue) == AMF_GMM_REGISTERED;
}
/* Whether the UE's state takes ev (without running it). */
bool amf_gmm_accepts(const struct amf_ue *ue, enum amf_gmm_event ev);
/* The one place ue->state changes: run the action of ev when the state takes it and
 * move to the state the action returns, when the table allows it. c may be NULL for
 * events that carry nothing. 0, -EPERM (refused, logged) or the action's -errno. */
int amf_gmm_dispatch(struct amf_ue *ue, enum amf_gmm_event ev, struct amf_gmm_ctx *c);
/* The table as text (one line per state x event: "STATE  EVENT  -> NEXT|NEXT") or as
 * Graphviz (dot != 0). Bytes written (without the NUL), or -ENOSPC. */
int amf_gmm_table_print(char *buf, size_t len, bool dot);

/* Actions of the table: each returns the next enum amf_gmm_sub or -errno (nas_*.c). */
int amf_a_reg_req(struct amf_ue *ue, struct amf_gmm_ctx *c);
int amf_a_id_rsp(struct amf_ue *ue, struct amf_gmm_ctx *c);
int amf_a_auth_rsp(struct amf_ue *ue, struct amf_gmm_ctx *c);
int amf_a_auth_fail(struct amf_ue *ue, struct amf_gmm_ctx *c);
int amf_a_smc_cpl(struct amf_ue *ue, struct amf_gmm_ctx *c);
int amf_a_smc_rej(struct amf_ue *ue, struct amf_gmm_ctx *c);
int amf_a_reg_cpl(struct amf_ue *ue, struct amf_gmm_ctx *c);
int amf_a_cuc_cpl(struct amf_ue *ue, struct amf_gmm_ctx *c);
int amf_a_dereg_req(struct amf_ue *ue, struct amf_gmm_ctx *c);
int amf_a_dereg_acc(struct amf_ue *ue, struct amf_gmm_ctx *c);
int amf_a_svc_req(struct amf_ue *ue, struct amf_gmm_ctx *c);
int amf_a_ul_nas(struct amf_ue *ue, struct amf_gmm_ctx *c);
int amf_a_status(struct amf_ue *ue, struct amf_gmm_ctx *c);
int amf_a_t3550(struct amf_ue *ue, struct amf_gmm_ctx *c);
int amf_a_t3555(struct amf_ue *ue, struct amf_gmm_ctx *c);
int amf_a_t3560(struct amf_ue *ue, struct amf_gmm_ctx *c);
int amf_a_t3570(struct amf_ue *ue, struct amf_gmm_ctx *c);
int amf_a_t3522(struct amf_ue *ue, struct amf_gmm_ctx *c);
int amf_a_an_rel(struct amf_ue *ue, struct amf_gmm_ctx *c);
int amf_a_implicit(struct amf_ue *ue, struct amf_gmm_ctx *c);
int amf_a_net_dereg(struct amf_ue *ue, struct amf_gmm_ctx *c);
int amf_a_cuc_start(struct amf_ue *ue, struct amf_gmm_ctx *c);

/* ---- amf.c ---- */
int amf_plmn_encode(const char *mcc, const char *mnc, uint8_t out[3]);
void amf_plmn_decode(const uint8_t p[3], char mcc[4], char mnc[4]);

/* ---- timers.c ---- */
void amf_timers_init(struct amf_ue *ue);
void amf_tmr_start(struct amf_ue *ue, enum amf_tmr t);
void amf_tmr_stop(struct amf_ue *ue, enum amf_tmr t);
void amf_tmr_stop_all(struct amf_ue *ue);
const char *amf_tmr_name(enum amf_tmr t);
/* Give-up paths of the timers that are not 5GMM events (the 5GMM ones dispatch AMF_EV_T35xx /
 * AMF_EV_IMPLICIT through the state table), called on the last expiry. */
void amf_on_mobile_reachable(struct amf_ue *ue);
void amf_on_release_guard(struct amf_ue *ue);
/* Resend ue->last_nas (re-protected with a fresh downlink COUNT). 0 or -errno. */
int amf_nas_retransmit(struct amf_ue *ue);

/* ---- ngap_rx.c / ngap_tx.c ---- */
/* Encode m and hand it to the transport. 0 or -errno. */
int amf_ngap_send(struct amf *amf, uint32_t assoc, uint16_t stream, const struct ngap_msg *m);
int amf_ngap_dl_nas(struct amf_ue *ue, const uint8_t *nas, size_t len);
/* InitialContextSetupRequest with K_gNB (from the current uplink COUNT), UE security
 * capabilities, allowed NSSAI, GUAMI and nas (may be NULL). */
int amf_ngap_ics_request(struct amf_ue *ue, const uint8_t *nas, size_t len);
/* PDU Session Resource Setup / Release / Modify Request for amf->sm_cur with nas (may be
 * NULL) as the item's (or message's) NAS-PDU. */
int amf_ngap_sm(struct amf_ue *ue, const uint8_t *nas, size_t len);
/* UE CONTEXT MODIFICATION REQUEST with the UE's current UE-AMBR (TS 38.413 8.3.4). */
int amf_ngap_ue_ctx_mod(struct amf_ue *ue);
/* Take the subscribed UE-AMBR from the UDM into ue (ue_ambr.c); true when it changed. */
struct udm_sub_data;
bool amf_ue_ambr_load(struct amf_ue *ue, const struct udm_sub_data *sub);
/* PAGING for ue to every gNB serving one of our TACs (TS 38.413 8.5.1). Returns gNBs paged. */
int amf_ngap_paging(struct amf_ue *ue);
/* AMF-initiated UE Context Release (TS 38.413 8.3.3). */
int amf_ngap_release(struct amf_ue *ue, uint8_t cause_group, uint8_t cause_value);
int amf_ngap_error_ind(struct amf *amf, uint32_t assoc, uint16_t stream, const uint64_t *amf_ue_id,
		       const uint32_t *ran_ue_id, uint8_t cause_group, uint8_t cause_value,
		       const struct ngap_crit_diag *diag);
/* The N2 side of a UE went away (release complete, reset, association loss). */
void amf_ue_an_released(struct amf_ue *ue);

/* ---- as_sec.c: AS security for the gNB (TS 33.501 6.7.2, 6.8.1.2, 6.9.2) ---- */
void amf_as_sec_caps(const struct amf_ue *ue, struct ngap_ue_sec_cap *out);
/* K_gNB for an Initial Context Setup, and a new NH chain from it (NH_1, NCC 1). 0 or -errno. */
int amf_as_kgnb(struct amf_ue *ue, uint8_t kgnb[32]);
/* The next {NCC, NH} for a path switch, taken into the chain. 0, -ENOKEY (no chain), -errno. */
int amf_as_nh_next(struct amf_ue *ue, struct ngap_security_context *out);
/* A new K_AMF: the chain ends until the next K_gNB. */
void amf_as_nh_reset(struct amf_ue *ue);

/* ---- reg_area.c: registration areas (TS 23.501 5.3.2.3, TS 24.501 5.3.4) ---- */
#define AMF_RA_NONE 0xff
struct conf;
/* cfg->tac_area from amf.registration_areas (cfg->tacs already set). */
void amf_ra_from_conf(struct amf_cfg *cfg, const struct conf *conf);
/* The areas of a new TAC list tacs[n] into area[n]: a TAC cfg serves keeps its area, a new
 * one gets an area of its own (or area 0 when no areas are configured). */
void amf_ra_retag(const struct amf_cfg *cfg, const uint32_t *tacs, unsigned n, uint8_t *area);
/* The area of a served TAC, or AMF_RA_NONE. */
uint8_t amf_ra_of(const struct amf *amf, uint32_t tac);
/* The TACs of area ra into out[max] (configured order): the TAI list of a UE registered
 * there. An area with no TAC left (dropped live) gives every served TAC. Returns the count. */
unsigned amf_ra_tacs(const struct amf *amf, uint8_t ra, uint32_t *out, unsigned max);
/* gnb serves (NG Setup) one of tacs[n]. */
bool amf_ra_gnb_in(const struct amf_gnb *gnb, const uint32_t *tacs, unsigned n);

/* ---- ngap_guard.c: who may set up (issue 31) ---- */
/* NG SETUP REQUEST from gnb naming id: 0 (go on), -EACCES (not in n2.allowed_gnbs: refuse,
 * close) or -EBUSY (another set-up association holds id: refuse; that one is asked whether
 * it is still there). Logged and counted; nothing of gnb or of the holder changed. */
int amf_ng_setup_guard(struct amf *amf, struct amf_gnb *gnb, const struct ngap_global_ran_node_id *id);
/* gnb with id may set up under n2.allowed_gnbs (true when the list is empty). */
bool amf_gnb_allowed(const struct amf *amf, const struct amf_gnb *gnb, const struct ngap_global_ran_node_id *id);
/* Before a gNB slot is cleared: its liveness question ends. */
void amf_gnb_guard_stop(struct amf *amf, struct amf_gnb *gnb);
/* "00101:0x100/22": n2.allowed_gnbs' notation of a Global gNB ID. */
void amf_gnb_id_str(const struct ngap_global_ran_node_id *id, char *buf, size_t n);
/* TS 38.413 8.7.3.1: AMF CONFIGURATION UPDATE to gnb with our PLMN Support List (amf.c). */
int amf_ngap_cfg_update(struct amf *amf, const struct amf_gnb *gnb);

/* ---- ngap_mob.c: N2 mobility ---- */
/* The gNB announced s in one of our TAs (NG Setup / RAN Configuration Update). */
bool amf_gnb_has_slice(const struct amf_gnb *gnb, const struct ngap_snssai *s);
/* PATH SWITCH REQUEST from gnb (TS 38.413 8.4.4, TS 23.502 4.9.1.2.2). */
void amf_ngap_path_switch(struct amf *amf, struct amf_gnb *gnb, const struct ngap_path_switch_request *rq);

/* ---- ho_fsm.c: the N2 handover state table (struct amf_ho) ---- */
const char *amf_ho_state_name(unsigned s);
const char *amf_ho_event_name(unsigned ev);
/* The one place ue->ho.state changes: the action of (state, ev) when the table has one, and
 * the state it returns when the table allows it. arg: the event's decoded message or NULL.
 * 0, -EPERM (not taken in this state: logged; the caller answers) or the action's -errno. */
int amf_ho_dispatch(struct amf_ue *ue, enum amf_ho_event ev, const void *arg);
/* The table as text, one line per state x event ("STATE  EVENT  -> NEXT|NEXT"). Bytes
 * written (without the NUL) or -ENOSPC. */
int amf_ho_table_print(char *buf, size_t len);
/* Actions (ngap_ho.c, ngap_ho_exec.c): each returns the next enum amf_ho_state or -errno. */
int amf_ho_a_required(struct amf_ue *ue, const void *arg);
int amf_ho_a_busy(struct amf_ue *ue, const void *arg);
int amf_ho_a_req_ack(struct amf_ue *ue, const void *arg);
int amf_ho_a_req_fail(struct amf_ue *ue, const void *arg);
int amf_ho_a_late_ack(struct amf_ue *ue, const void *arg);
int amf_ho_a_cancel(struct amf_ue *ue, const void *arg);
int amf_ho_a_cancel_ack_only(struct amf_ue *ue, const void *arg);
int amf_ho_a_ul_status(struct amf_ue *ue, const void *arg);
int amf_ho_a_ignore(struct amf_ue *ue, const void *arg);
int amf_ho_a_notify(struct amf_ue *ue, const void *arg);
int amf_ho_a_late_notify(struct amf_ue *ue, const void *arg);
int amf_ho_a_prep_guard(struct amf_ue *ue, const void *arg);
int amf_ho_a_overall_guard(struct amf_ue *ue, const void *arg);
int amf_ho_a_src_lost(struct amf_ue *ue, const void *arg);
int amf_ho_a_src_gone(struct amf_ue *ue, const void *arg);
int amf_ho_a_tgt_lost(struct amf_ue *ue, const void *arg);
int amf_ho_a_abandon(struct amf_ue *ue, const void *arg);
int amf_ho_a_src_released(struct amf_ue *ue, const void *arg);
int amf_ho_a_forget_leg(struct amf_ue *ue, const void *arg);

/* ---- ngap_ho.c / ngap_ho_exec.c: N2 handover messages (TS 38.413 8.4.1-8.4.3, 8.4.5-8.4.7) ---- */
void amf_ngap_ho_required(struct amf *amf, struct amf_gnb *gnb, const struct ngap_handover_required *m);
/* HANDOVER REQUEST ACKNOWLEDGE / HANDOVER FAILURE (the outcomes of Handover Resource Allocation). */
void amf_ngap_ho_request_outcome(struct amf *amf, struct amf_gnb *gnb, const struct ngap_msg *m);
void amf_ngap_ho_notify(struct amf *amf, struct amf_gnb *gnb, const struct ngap_handover_notify *m);
void amf_ngap_ho_cancel(struct amf *amf, struct amf_gnb *gnb, const struct ngap_handover_cancel *m);
void amf_ngap_ul_ran_status(struct amf *amf, struct amf_gnb *gnb, const struct ngap_ran_status_transfer *m);
/* UE CONTEXT RELEASE COMPLETE naming a handover leg of gnb: handled, true; else false. */
bool amf_ngap_ho_leg_released(struct amf *amf, struct amf_gnb *gnb, uint64_t amf_ue_id);
/* The UE whose leg is (gnb, amf_ue_id), or NULL. */
struct amf_ue *amf_ho_leg_by_id(struct amf *amf, const struct amf_gnb *gnb, uint64_t amf_ue_id);
/* gnb's association is going (before its UEs are released): each handover it is part of. */
void amf_ho_gnb_lost(struct amf *amf, struct amf_gnb *gnb);
/* The UE's N2 connection is released (a release request, an AN release): a handover running ends. */
void amf_ho_an_released(struct amf_ue *ue);
/* The context goes or is replaced: its handover ends (the SMF told, the target leg released). */
void amf_ho_abort(struct amf_ue *ue);
/* ho-prep / ho-overall gave up (timers.c). */
void amf_on_ho_guard(struct amf_ue *ue);
/* Shared by ngap_ho.c and ngap_ho_exec.c. The next message in amf->tx: its header and the union
 * member about to be filled cleared (not the whole 16 KB union). */
struct ngap_msg *amf_ho_tx(struct amf *amf, uint8_t type, uint8_t proc, size_t member);
/* Why the UE's N2 connection cannot move now (not registered, no AS security, being released),
 * or NULL: shared by the Xn path switch and the N2 handover. */
const char *amf_ue_not_movable(const struct amf_ue *ue);
/* A PDU session ID listed twice (TS 38.413 8.4.1.4, 8.4.4.4: the request fails as a whole). */
bool amf_psi_listed_twice(const struct ngap_pdu_sess_item *l, unsigned n);
void amf_ho_leg_set(struct amf_ue *ue, struct amf_gnb *gnb, uint64_t amf_id);
void amf_ho_leg_clear(struct amf_ue *ue);
/* UE CONTEXT RELEASE COMMAND on the leg (TS 38.413 8.3.3; the AMF UE NGAP ID alone when the
 * target gave no RAN UE NGAP ID yet). */
int amf_ho_leg_release(struct amf_ue *ue, uint8_t cause_group, uint8_t cause_value);
/* Why a preparation failed (the ho_prep_failed_* counters). */
enum amf_ho_fail {
	AMF_HO_FAIL_TARGET = 0,    /* unknown target, target not allowed, not intra-5GS */
	AMF_HO_FAIL_STATE,         /* the UE cannot be handed over now */
	AMF_HO_FAIL_SESSIONS,      /* no session could be prepared or was admitted */
	AMF_HO_FAIL_REFUSED,       /* HANDOVER FAILURE from the target, or its association lost */
	AMF_HO_FAIL_GUARD,         /* no answer from the target before ho-prep */
};
/* HANDOVER PREPARATION FAILURE to the UE's serving gNB (TS 38.413 8.4.1.3), counted. */
void amf_ho_prep_failure(struct amf_ue *ue, enum amf_ho_fail why, uint8_t group, uint8_t value);
/* smf_ho_cancel for every session still in the handover (8.4.5, TS 23.502 4.9.1.4). */
void amf_ho_sessions_cancel(struct amf_ue *ue);

/* ---- nas_sec.c ---- */
enum amf_nas_kind {
	AMF_NAS_AUTO = 0,     /* protected (integrity + ciphering) once security is active, else plain */
	AMF_NAS_PLAIN,        /* never protected (rejects before security) */
	AMF_NAS_SMC,          /* SECURITY MODE COMMAND: integrity with the new context (sht 3) */
};
/* AMF_VIA_SM: inside the NGAP PDU session resource message amf->sm_cur names. */
enum amf_nas_via { AMF_VIA_DL_NAS = 0, AMF_VIA_ICS, AMF_VIA_SM };
struct amf_nas_in {
	const uint8_t *msg;   /* plain (deciphered) message */
	size_t len;
	uint8_t sht;          /* enum nas_sht as received */
	bool integrity_ok;    /* MAC verified with the current context */
	uint32_t count;       /* estimated uplink NAS COUNT when integrity_ok */
};
/* Unwrap one uplink NAS PDU. 0, or -EBADMSG when not even the framing decodes.
 * On success the caller applies TS 24.501 4.4.4.3 with in->integrity_ok. */
int amf_nas_unwrap(struct amf_ue *ue, const uint8_t *buf, size_t len, struct amf_nas_in *in);
/* Accept in->count as the latest uplink NAS COUNT. */
void amf_nas_count_accept(struct amf_ue *ue, const struct amf_nas_in *in);
/* Encode m, protect per kind, send. keep_tmr (an enum amf_tmr, or AMF_TMR_COUNT for none)
 * keeps the plain message for retransmission by that timer. 0 or -errno. */
int amf_nas_send(struct amf_ue *ue, const struct nas_msg *m, enum amf_nas_kind kind,
		 enum amf_nas_via via, enum amf_tmr keep_tmr);
/* Decode a plain uplink message from a UE with the receiver rules of TS 24.501 7.5
 * (nas_decode_ex NAS_DEC_LENIENT); logs the ignored IEs at debug. 0 or -errno (nas_decode). */
int amf_nas_decode_ul(struct amf_ue *ue, const uint8_t *buf, size_t len, struct nas_msg *m,
		      struct nas_err *err);
/* TS 24.501 4.4.6: the NAS message container of an initial message sent with a valid
 * context, ciphered with that context and the COUNT of the message carrying it (already
 * accepted): deciphered and decoded into amf->nrx2, which must be of type want. 0 or
 * -errno (logged; the caller goes on with the cleartext IEs). */
int amf_nas_container_open(struct amf_ue *ue, const struct nas_buf *c, uint8_t want);
/* Derive K_NASint / K_NASenc for the selected algorithms (TS 33.501 A.8). */
int amf_nas_derive_keys(struct amf_ue *ue);

/* ---- nas_*.c ---- */
/* NAS-PDU of an InitialUEMessage (first message of a NAS signalling connection). */
void amf_nas_rx_initial(struct amf_ue *ue, const uint8_t *nas, size_t len);
/* NAS-PDU of an UplinkNASTransport. */
void amf_nas_rx(struct amf_ue *ue, const uint8_t *nas, size_t len);
/* Initial Context Setup answered (ok) or failed. */
void amf_nas_ics_result(struct amf_ue *ue, bool ok);
/* Release and forget a UE from any context (deferred while inside its own handler). */
void amf_ue_discard(struct amf_ue *ue);

/* nas_reg.c: registration (TS 24.501 5.5.1) and identification (5.4.3) */
/* The next common procedure of ue->parent, or the parent's end. Returns the sub-state. */
int amf_reg_continue(struct amf_ue *ue);
int amf_reg_reject(struct amf_ue *ue, uint8_t cause);
/* A common procedure failed or gave up: the parent ends, the connection is released. */
int amf_reg_abort(struct amf_ue *ue, uint8_t ngap_cause_group, uint8_t ngap_cause);
int amf_reg_ident_after_auth(struct amf_ue *ue);
/* Served slices changed from old[n_old] to amf->cfg.slices: recompute every registered
 * UE's allowed NSSAI (a walk of the store, no allocation); tell connected UEs now, mark
 * idle ones. The first AMF_NSSAI_STEP slots now, the rest a step per loop pass (a change
 * during a walk restarts it over every UE). Returns the UEs changed by the first step.
 * old NULL: every registered UE is recomputed (the subscriptions changed,
 * amf_nssai_resync). */
unsigned amf_nssai_refresh(struct amf *amf, const struct amf_snssai *old, unsigned n_old);
/* The walk's timer (amf_new) and its stop (amf_free). */
void amf_nssai_walk_init(struct amf *amf);
void amf_nssai_walk_stop(struct amf *amf);
/* Send the pending allowed-NSSAI CONFIGURATION UPDATE COMMAND when the UE can take it. */
void amf_nssai_cuc_try(struct amf_ue *ue);
/* Take the fields of a REGISTRATION REQUEST we need later. */
void amf_reg_take_ies(struct amf_ue *ue, const struct nas_registration_request *r);
/* Resolve a SUCI to a SUPI and attach it to ue; 0 or a 5GMM cause. */
int amf_reg_suci(struct amf_ue *ue, const struct nas_suci *suci);
static inline bool amf_counts_near_wrap(const struct amf_ue *ue)
{
	return ue->dl_count >= AMF_NAS_COUNT_REKEY || ue->ul_count >= AMF_NAS_COUNT_REKEY;
}

/* nas_auth.c: authentication (TS 24.501 5.4.1.3) and security mode control (5.4.2) */
int amf_auth_start(struct amf_ue *ue);
int amf_auth_reject(struct amf_ue *ue);
int amf_smc_start(struct amf_ue *ue);
/* The UE's capabilities share an integrity and a ciphering algorithm with our lists. */
bool amf_algs_acceptable(const struct amf_ue *ue);
/* Log why amf_algs_acceptable() said no (NIA0 only, or nothing in common). */
void amf_algs_log_mismatch(const struct amf_ue *ue);

/* nas_conn.c */
int amf_dereg_authenticated(struct amf_ue *ue);
int amf_service_accept(struct amf_ue *ue);
/* The context a 5G-GUTI names, when the GUAMI is ours. */
struct amf_ue *amf_ue_by_guti(struct amf *amf, const struct nas_guti *g);
void amf_gmm_status_send(struct amf_ue *ue, uint8_t cause);
/* Move the N2 binding of ue (a fresh context) to old and free ue. Returns old. */
struct amf_ue *amf_ue_adopt(struct amf_ue *ue, struct amf_ue *old);
/* ue has authenticated: it replaces the context its SUPI had (sessions, 5G-GUTI) and
 * is indexed by the SUPI from now on. */
void amf_ue_supersede(struct amf_ue *ue);
/* Release the N2 connection of a UE (UE Context Release Command) or, when it has
 * none, apply the release at once. */
void amf_ue_release(struct amf_ue *ue, uint8_t cause_group, uint8_t cause);

/* nas_sm.c */
void amf_sm_ul_nas_transport(struct amf_ue *ue, const struct nas_ul_nas_transport *t);
/* SM transfers of an NGAP response (setup, release, modify, ICS): one call per item. */
void amf_sm_n2(struct amf_ue *ue, uint8_t psi, enum smf_n2_msg kind, const struct ngap_bytes *transfer);
/* The N2 connection is gone: user planes to buffering (lost=false) or, on association loss,
 * every session released (lost=true). */
void amf_sm_an_released(struct amf_ue *ue, bool lost);
/* Local release of every session (deregistration, context removal). */
void amf_sm_detach(struct amf_ue *ue);
/* Service request (TS 24.501 5.6.1.4): fill the Service Accept IEs and amf->ics_items. */
void amf_sm_service(struct amf_ue *ue, const struct nas_service_request *r, struct nas_service_accept *a);
/* The same for a UE in 5GMM-CONNECTED: user planes re-established by PDU Session
 * Resource Setup Requests sent at once. */
void amf_sm_service_connected(struct amf_ue *ue, const struct nas_service_request *r,
			      struct nas_service_accept *a);
/* PDU session status after syncing with the UE's (when has): the map the network holds. */
uint16_t amf_sm_status(struct amf_ue *ue, bool has, uint16_t ue_map);
void amf_on_t3513(struct amf_ue *ue);
/* Page a CM-IDLE UE (T3513 repeats) when it is not being paged already. */
void amf_sm_page(struct amf_ue *ue);
void amf_sm_modify_ind(struct amf_ue *ue, const struct ngap_pdu_session_resource_modify_indication *mi);
void amf_sm_notify(struct amf_ue *ue, const struct ngap_pdu_session_resource_notify *n);
/* Tell the SMF the UE's allowed NSSAI (after an accept or a change of it). */
void amf_sm_allowed_sync(struct amf_ue *ue);
/* Network-requested release (TS 24.501 6.3.3) of the sessions whose S-NSSAI is not in
 * ue->allowed, with 5GSM cause. Returns the sessions asked to release. */
unsigned amf_sm_release_disallowed(struct amf_ue *ue, uint8_t cause);
void amf_paging_stop(struct amf_ue *ue);

/* ---- logging ---- */
/* The prefix ("ue=N gmm{SUB-STATE}") is formatted when a line is logged, not at every
 * transition: the dispatcher moves through several sub-states per registration. */
#define amf_ue_log(lvl, ue, ...)                                                      \
	do {                                                                          \
		if (log_enabled(lvl, "amf"))                                          \
			log_msg(lvl, "amf", amf_ue_logpfx(ue), __VA_ARGS__);          \
	} while (0)

#endif
