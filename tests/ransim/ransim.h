/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * ransim - a gNB and UE simulator for solocore's N2/N1 (tests, e2e, later solocore-load).
 *
 * One ransim drives G simulated gNBs (one SCTP association each to the AMF, or to each AMF
 * of a set with cfg.amfs, over common/sctp: kernel SCTP or usrsctp raw IP / UDP) and N
 * simulated UEs on ONE ev loop. Each gNB runs NG Setup (PLMN, TAC, slices) on each
 * association, then carries the UE-associated
 * signalling of its UEs, spread over streams 1..ostreams-1 (TS 38.412 7).
 *
 * Each UE behaves like a real UE with a USIM (TS 24.501, TS 33.501):
 *  - Registration Request with a SUCI (null scheme, profile A or profile B,
 *    concealed with common/crypto), or a 5G-GUTI that the AMF does not know
 *    (answered with Identity Response, SUCI);
 *  - 5G-AKA, UE side: AUTN MAC and SQN freshness checked like a USIM (MAC
 *    failure -> Authentication Failure #20, stale SQN -> #21 with AUTS);
 *  - Security Mode Command: the MAC of every protected downlink message is
 *    verified (a failure is counted and the message dropped, TS 24.501 4.4.4),
 *    ciphered downlink is deciphered, the uplink is integrity protected and
 *    ciphered with the selected NIA/NEA;
 *  - Registration Complete, Configuration Update Complete, deregistration
 *    (normal or switch-off), UE Context Release Complete.
 * Every UE procedure is an explicit state machine driven by received messages
 * (ue.c); the gNB (gnb.c) only routes PDUs by RAN-UE-NGAP-ID. At most
 * `concurrency` UEs are in flight at once; nothing is allocated per message.
 *
 * Results: per-procedure counts and latencies, failures by cause, NGAP PDUs
 * counted in each direction by message type (ransim_report()).
 */
#ifndef SOLOCORE_TESTS_RANSIM_RANSIM_H
#define SOLOCORE_TESTS_RANSIM_RANSIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/sctp/sctp.h"

struct ev_loop;
struct ransim;

#define RANSIM_MAX_GNBS 64
#define RANSIM_MAX_AMFS 8           /* AMFs of the set one ransim connects to (issue 20) */
#define RANSIM_SUPI_MAX 24

/* One SIM (db/SIMS.md TOML: [imsi-...] ki, opc or op, amf, sqn). */
struct ransim_sim {
	char supi[RANSIM_SUPI_MAX];  /* "imsi-001010000000001" */
	uint8_t k[16], opc[16];
	uint64_t sqn;                /* SQN the USIM has already accepted (0: fresh card) */
};

/* Load every [imsi-...] table of a SIM file. *out is malloc'd (free()). 0 or -errno (err filled). */
int ransim_sims_load(const char *path, struct ransim_sim **out, unsigned *n, char *err, size_t errsz);

enum ransim_dereg {
	RANSIM_DEREG_NONE = 0,    /* stay registered until the end */
	RANSIM_DEREG_NORMAL,      /* Deregistration Request, wait for Accept and the release */
	RANSIM_DEREG_SWITCH_OFF,  /* switch-off: no Accept expected, only the N2 release */
};

enum ransim_suci {
	RANSIM_SUCI_NULL = 0, RANSIM_SUCI_A = 1, RANSIM_SUCI_B = 2,
};

/* --handover-mode: how ransim_handover() moves a UE (gnb_xn.c, gnb_n2ho.c). */
enum ransim_ho_mode {
	RANSIM_HO_XN = 0,            /* Xn handover: PATH SWITCH REQUEST from the target (TS 38.413 8.4.4) */
	RANSIM_HO_N2,                /* N2 handover with direct forwarding (DirectForwardingPathAvailability) */
	RANSIM_HO_N2_INDIRECT,       /* N2 handover, forwarding through the UPF (no direct path) */
};
/* --handover-fail: an N2 handover that must not move the UE. */
enum ransim_ho_fail {
	RANSIM_HO_FAIL_NONE = 0,
	RANSIM_HO_FAIL_TARGET,       /* the target answers HANDOVER FAILURE (TS 38.413 8.4.2.3) */
	RANSIM_HO_FAIL_CANCEL,       /* the source sends HANDOVER CANCEL after the command (8.4.5) */
};

struct ransim_cfg {
	/* transport */
	struct n2sctp_cfg sctp;      /* backend, encap, UDP ports ... */
	char addr[64];               /* AMF address */
	uint16_t port;               /* AMF SCTP port (38412) */
	/* An AMF set (issue 20 item 4, TS 23.501 5.21): every gNB connects to each of these AMFs
	 * and runs NG Setup with each (TS 38.413 8.7.1); each UE's Initial UE Message goes to
	 * the AMF serving the GUAMI of its 5G-GUTI, else another of the same set, else by
	 * Relative AMF Capacity (gnb_amf.c, amf_sel.c). When one association goes down its UEs
	 * come back through another AMF. n_amfs 0: the single AMF at addr:port, as before;
	 * a port of 0 means `port`, a udp_peer_port of 0 sctp.udp_peer_port (usrsctp UDP). */
	struct { char addr[64]; uint16_t port, udp_peer_port; } amfs[RANSIM_MAX_AMFS];
	unsigned n_amfs;
	char local_addr[64];         /* "" = any */
	/* network */
	char mcc[4], mnc[4];         /* serving PLMN (gNB) */
	char home_mcc[4], home_mnc[4]; /* UE home PLMN in the SUCI ("" = serving PLMN) */
	uint32_t tac;
	/* TAC of gNB i (NG Setup, ULI), when i < n_gnb_tacs; the others use tac (--gnb-tacs). */
	uint32_t gnb_tacs[RANSIM_MAX_GNBS];
	unsigned n_gnb_tacs;
	uint8_t sst;                 /* gNB's supported slice and the UE's requested slice */
	uint32_t sd;                 /* 0xffffff = none */
	uint8_t req_sst;             /* requested S-NSSAI (defaults to sst/sd) */
	uint32_t req_sd;
	/* load */
	unsigned n_gnbs, n_ues, concurrency;
	/* UE behaviour */
	uint8_t ue_ia, ue_ea;        /* UE security capability octets (0x80 = IA0/EA0 ...) */
	int expect_nia, expect_nea;  /* -1: any; else the algorithm the AMF must pick */
	enum ransim_suci suci;
	uint8_t hn_key_id;
	uint8_t hn_pub[65];
	size_t hn_pub_len;
	unsigned restart_after_ms;   /* sessions: once every UE holds, after this many ms from the
	                              * start, every gNB restarts (ABORT, fresh NG Setup) and its UEs
	                              * come back with a SERVICE REQUEST (rs_gnb_restart) */
	unsigned handover_after_ms;  /* sessions: once every UE holds its session, MS ms after the start
	                              * and every MS after that, `handovers` rounds of Xn handover:
	                              * each UE to the next gNB (ransim_handover) */
	unsigned handovers;          /* rounds (0 = 1) */
	enum ransim_ho_mode handover_mode; /* Xn (default) or N2, direct or indirect forwarding */
	enum ransim_ho_fail handover_fail; /* N2: a target failure or a cancel instead of the move */
	bool svc_ies_clear;          /* old behaviour: SERVICE REQUEST's non-cleartext IEs in the
	                              * clear, no NAS message container (not TS 24.501 4.4.6) */
	bool unknown_guti;           /* first Registration Request carries an unknown 5G-GUTI */
	bool expect_cuc;             /* wait for Configuration Update Command after Registration Complete */
	bool bad_mac;                /* send one Registration Complete with a corrupted MAC first */
	bool drop_assoc;             /* abort gNB 0's association on the first Authentication Request,
				      * reconnect, and register its UEs again */
	bool reregister;             /* after registering: gNB-initiated release to CM-IDLE, then a
				      * periodic registration update with the 5G-GUTI, integrity
				      * protected with the current context (TS 24.501 4.4.6, 5.5.1.3) */
	enum ransim_dereg dereg;
	/* PDU sessions (issue 6): after registration (and the CUC) the UE asks for PDU session
	 * `psi` (UL NAS Transport, TS 24.501 6.4.1.2); with `cycle` it then runs the rest of the
	 * 27-message cycle: gNB-initiated AN release, Service Request with uplink data status,
	 * UE-requested PDU session release, deregistration. A rejected establishment is the
	 * UE's failure ("pdu_reject_<5GSM cause>") and the UE deregisters. */
	bool session;                /* establish a PDU session after registration */
	bool cycle;                  /* the full 27-message cycle (implies session) */
	bool radio_cap;              /* UE Radio Capability Info Indication after each ICS Response */
	bool unknown_service;        /* first message: a Service Request with a 5G-S-TMSI the AMF
				      * does not know (expects Service Reject, TS 24.501 5.6.1.5) */
	uint8_t psi;                 /* PDU session identity (1..15) */
	/* PDU session type asked for (enum nas_pdu_type): IPv4v6 by default, as phones ask
	 * (TS 24.501 6.4.1.2, TS 23.501 5.8.2.2); the accept must grant one that fits (6.4.1.3) */
	uint8_t pdu_type;
	char dnn[64];                /* DNN in the UL NAS Transport ("" = none: the default DNN) */
	bool pdu_snssai;             /* S-NSSAI (req_sst/req_sd) in the UL NAS Transport */
	uint32_t hold_ms;            /* stay registered this long before deregistering */
	uint32_t gnb_id_base;        /* gNB i's gNB ID: gnb_id_base + i (0: 0x100), 22 bits */
	bool ps_guess;               /* --ps-guess: UE 0's gNB sends PATH SWITCH REQUESTs naming
				      * IDs around UE 0's own AMF UE NGAP ID (n2_guess.c, issue 31) */
	unsigned passes;             /* run every UE's plan this many times (0 = 1); a UE starts its
				      * next pass once its previous one finished (load tests) */
	unsigned sim_offset;         /* UE i uses sims[(sim_offset + i) % n_sims] */
	uint32_t ue_timeout_ms;      /* a UE waiting longer for the network fails ("timeout") */
	/* adversary (issue 13 item 4, adv.c): UE 0 is the victim (register, PDU session, hold);
	 * a forger that knows its IMSI, SUCI, 5G-GUTI and 5G-S-TMSI but not its K runs the attack
	 * on its own RAN-UE-NGAP-IDs, once per gNB; the victim deregisters at the end. */
	const char *attack;          /* NULL: none; ransim_attack_names() */
	const char *attack_events;   /* phase lines appended here; each waits for FILE.<phase>.ack */
	uint32_t attack_quiet_ms;    /* a forger step ends after this long without a message (3000) */
	uint32_t attack_window_ms;   /* traffic windows before and after the attack (2000) */
	/* output */
	const char *pcap;            /* write every NGAP PDU as IPv4/SCTP to this pcap file */
	const char *amf_ids;         /* --amf-ids: "SUPI AMF-UE-NGAP-ID" per N2 connection, as
				      * the AMF first names it (issue 31: are they guessable?) */
	bool verbose;
};

/* Defaults: 127.0.0.1:38412, usrsctp raw, PLMN 001/01, TAC 1, SST 1 SD 010203, 1 gNB, 1 UE,
 * concurrency 1, all algorithms offered, null-scheme SUCI, normal deregistration. */
void ransim_cfg_init(struct ransim_cfg *cfg);

/* Create. sims[0..n_sims) are used round robin by the UEs (UE i: sims[(sim_offset + i) % n_sims]);
 * they are copied. NULL + *err on failure. */
struct ransim *ransim_new(struct ev_loop *loop, const struct ransim_cfg *cfg,
			  const struct ransim_sim *sims, unsigned n_sims, int *err);
/* Connect the gNBs; UEs start once their gNB's NG Setup succeeded. 0 or -errno. */
int ransim_start(struct ransim *rs);
/* True when every UE has finished, with success or failure (a gNB that fails or loses its
 * association fails its UEs, so a broken run ends too). */
bool ransim_done(const struct ransim *rs);
/* Start no more UE runs; ransim_done() once those in flight have finished. */
void ransim_stop(struct ransim *rs);
/* UE runs finished so far (every pass), and currently in flight. */
uint64_t ransim_finished(const struct ransim *rs);
unsigned ransim_in_flight(const struct ransim *rs);
/* Gracefully SHUTDOWN the associations (call when done, then run the loop briefly). */
void ransim_shutdown(struct ransim *rs);
/* Abort every association (SCTP ABORT, RFC 9260 9.1): the gNBs vanish, no NG procedure. */
void ransim_abort(struct ransim *rs);
/* --restart-after: every gNB restarts (rs_gnb_restart). */
void ransim_restart(struct ransim *rs);
/* One round of Xn handover (TS 23.502 4.9.1.2.2): every UE holding its PDU session with its
 * user plane moves from its gNB to the next one (idx + 1 mod n_gnbs, which must be READY):
 * the target sends PATH SWITCH REQUEST (TS 38.413 8.4.4.2) with its own DL tunnel; on the
 * ACKNOWLEDGE the UE is the target's (new AMF UE NGAP ID, {NCC, NH} checked against the UE's
 * own chain) and the source forgets it (over Xn: no NGAP). Returns the requests sent. */
unsigned ransim_handover(struct ransim *rs);
/* The same for UE idx alone (solocore-load handover paces them one by one): 0 once its request
 * went out, -EAGAIN when it cannot move now (no session with its user plane up, a handover
 * still running, a failure, a gNB not READY), -ENOENT, or another -errno. */
int ransim_handover_ue(struct ransim *rs, unsigned idx);
/* UE idx, REGISTERED and connected with its plan done (dereg none) or between steps: the gNB
 * releases it to CM-IDLE (UE CONTEXT RELEASE REQUEST, TS 38.413 8.3.2, user inactivity); the UE
 * keeps its PDU session without a user plane and stays idle (TS 23.502 4.2.6) until
 * ransim_ue_service(). 0 once the request went out, -ENOENT, -EAGAIN (not in that state). */
int ransim_ue_idle(struct ransim *rs, unsigned idx);
/* UE idx, CM-IDLE by ransim_ue_idle(): SERVICE REQUEST (TS 24.501 5.6.1.2) with the uplink data
 * and PDU session status of the session it holds. 0, -ENOENT, -EAGAIN (not CM-IDLE yet). */
int ransim_ue_service(struct ransim *rs, unsigned idx);
/* UE idx's 5GSM view of its PDU session: 1 held (PDU SESSION ACTIVE), 0 not, -ENOENT. */
int ransim_ue_session(const struct ransim *rs, unsigned idx);
/* UE idx's first failure cause of its current run ("" while all went to plan, also after the
 * plan finished), NULL for no such UE. */
const char *ransim_ue_failure(const struct ransim *rs, unsigned idx);
/* Accepts NULL. */
void ransim_free(struct ransim *rs);

/* The adversary's attacks, one per line "name spec-clause" (usage text). */
void ransim_attack_list(FILE *out);
/* -1 for an unknown attack; else the SUCI scheme it needs (enum ransim_suci), or 3 for any. */
int ransim_attack_suci(const char *name);

/* Measured procedures. Registration: Initial UE Message -> Registration Accept; the steps
 * inside it: Initial UE (or Identity Response) -> Authentication Request, Authentication
 * Response -> Security Mode Command, Security Mode Complete -> Registration Accept;
 * configuration update: Registration Complete -> Configuration Update Command;
 * deregistration: Deregistration Request -> UE Context Release Command. */
/* PDU session establishment: UL NAS Transport -> PDU Session Resource Setup Request; AN
 * release: UE Context Release Request -> Command; service request: Initial UE Message ->
 * Initial Context Setup Request; PDU session release: UL NAS Transport -> PDU Session
 * Resource Release Command; cycle: the first Initial UE Message -> the last UE Context
 * Release Command (the whole 27-message cycle as the tester sees it, UE crypto included). */
enum ransim_proc { RANSIM_P_NG_SETUP = 0, RANSIM_P_REGISTRATION, RANSIM_P_AUTH_REQ, RANSIM_P_AUTH,
		   RANSIM_P_SMC, RANSIM_P_CUC, RANSIM_P_DEREGISTRATION, RANSIM_P_PDU_EST, RANSIM_P_AN_RELEASE,
		   RANSIM_P_SERVICE, RANSIM_P_PDU_REL, RANSIM_P_CYCLE, RANSIM_P_COUNT };
const char *ransim_proc_name(enum ransim_proc p);

struct ransim_stats {
	uint64_t started[RANSIM_P_COUNT], done[RANSIM_P_COUNT];
	uint64_t ues_registered;     /* UEs that reached REGISTERED at least once */
	uint64_t ues_ok;             /* UEs that finished their whole plan */
	uint64_t ues_failed;
	uint64_t ngap_tx, ngap_rx;
	uint64_t dl_mac_fail;        /* protected downlink NAS whose MAC did not verify */
	uint64_t auth_mac_fail, auth_sync_fail; /* USIM verdicts sent as Authentication Failure */
	uint64_t identity_requests, bad_mac_sent, assoc_drops, cuc_received;
	uint64_t stream_violations;  /* UE-associated PDU on stream 0 or the reverse (TS 38.412 7) */
	uint64_t amf_cfg_updates;    /* AMF CONFIGURATION UPDATEs acknowledged (TS 38.413 8.7.3) */
	/* --ps-guess: guesses sent; answered by ERROR INDICATION unknown-local-UE-NGAP-ID, by
	 * another ERROR INDICATION, by PATH SWITCH REQUEST ACKNOWLEDGE (a UE moved), FAILURE */
	uint64_t ps_guess_sent, ps_guess_error_ind, ps_guess_other, ps_guess_ack, ps_guess_fail;
	uint64_t reregistrations;    /* periodic registration updates accepted */
	uint64_t pdu_established;    /* PDU Session Establishment Accepts that passed every check */
	uint64_t pdu_rejected;
	uint64_t service_accepts, service_rejects;
	uint64_t pdu_released;       /* PDU Session Release Commands answered with a Complete */
	uint64_t pdu_net_released;   /* ... of them network-requested (PTI 0, TS 24.501 6.3.3) */
	uint64_t pdu_net_released_39; /* ... of those with 5GSM cause #39 reactivation requested */
	uint64_t pdu_local_released; /* sessions released locally: the network's PDU session status
				      * showed them inactive (TS 24.501 5.6.1.4.1, 5.5.1.3.4) */
	uint64_t pdu_reestablished;
	uint64_t pdu_type_narrowed;  /* IPv4v6 asked, one family granted (#50 / #51, TS 24.501 6.4.1.3) */
	uint64_t pdu_ipv6;           /* sessions granted IPv6 (IPv6 or IPv4v6) */  /* re-establishments after #39 accepted (6.3.3.3, 6.4.1) */
	uint64_t cycles;             /* UEs that completed the whole 27-message cycle */
	uint64_t gnb_restarts;       /* --restart-after: associations aborted and set up again */
	uint64_t restart_ues;        /* UEs with a PDU session on a restarted gNB */
	uint64_t restart_svc_ok;     /* of those, back with a SERVICE ACCEPT and the session set up */
	/* Xn handover (ransim_handover) */
	uint64_t ps_sent;            /* PATH SWITCH REQUESTs sent by a target */
	uint64_t ps_acked;           /* ... answered with an ACKNOWLEDGE that passed every check */
	uint64_t ps_failed;          /* ... answered with a PATH SWITCH REQUEST FAILURE (UE back on its source) */
	uint64_t ps_errors;          /* ACKNOWLEDGEs that failed a check (NH, session, IDs; causes listed) */
	uint64_t ps_ncc_last;        /* the NCC of the last ACKNOWLEDGE */
	uint64_t ps_caps_corrected;  /* ACKNOWLEDGEs carrying UE security capabilities (TS 33.501 6.7.3.1) */
	uint64_t ps_released;        /* sessions in a ReleasedListPSAck */
	uint64_t xn_src_released;    /* source contexts released over Xn after an ACKNOWLEDGE */
	uint64_t end_markers;        /* End Markers (TS 29.281 7.3.2) on a source's old TEID, one awaited */
	uint64_t end_markers_other;  /* ... on a TEID where none was awaited */
	uint64_t ul_after_ho, dl_after_ho; /* G-PDUs of UEs once their first handover was acknowledged */
	/* Mobility registration after a cell change out of the TAI list (TS 24.501 5.5.1.3.2 a) */
	uint64_t mob_reg_sent;       /* REGISTRATION REQUESTs "mobility updating" sent (ue_mob.c) */
	uint64_t mob_reg_accepted;   /* ... answered by an ACCEPT whose TAI list holds the new TAI */
	/* N2 handover (--handover-mode n2 / n2-indirect, gnb_n2ho.c) */
	uint64_t n2ho_required;      /* HANDOVER REQUIREDs sent by a source (TS 38.413 8.4.1.2) */
	uint64_t n2ho_requests;      /* HANDOVER REQUESTs a target took for a UE it simulates (8.4.2.2) */
	uint64_t n2ho_request_acks;  /* ... answered with HANDOVER REQUEST ACKNOWLEDGE */
	uint64_t n2ho_failures_sent; /* HANDOVER FAILUREs sent by a target (8.4.2.3) */
	uint64_t n2ho_commands;      /* HANDOVER COMMANDs received by a source */
	uint64_t n2ho_prep_failures; /* HANDOVER PREPARATION FAILUREs received by a source (8.4.1.3) */
	uint64_t n2ho_prep_fail_cause; /* the last one's cause: group << 8 | value */
	uint64_t n2ho_ul_status;     /* UPLINK RAN STATUS TRANSFERs sent (8.4.6) */
	uint64_t n2ho_dl_status;     /* DOWNLINK RAN STATUS TRANSFERs received by a target (8.4.7) */
	uint64_t n2ho_notify;        /* HANDOVER NOTIFYs sent: the UE arrived (8.4.3) */
	uint64_t n2ho_src_released;  /* source contexts released by the AMF (8.3.3) after the notify */
	uint64_t n2ho_done;          /* handovers complete without an error */
	uint64_t n2ho_cancels;       /* HANDOVER CANCELs sent (8.4.5) */
	uint64_t n2ho_cancel_acks;   /* HANDOVER CANCEL ACKNOWLEDGEs received */
	uint64_t n2ho_tgt_released;  /* target contexts released by the AMF before any notify */
	uint64_t n2ho_errors;        /* checks failed (NH, transfers, containers, causes; causes listed) */
	uint64_t n2ho_unexpected;    /* messages the handover state or contexts did not expect */
	uint64_t n2ho_ncc_last;      /* the NCC of the last HANDOVER REQUEST */
	uint64_t n2ho_fwd_direct;    /* Handover Command Transfers forwarding to the target's own tunnel */
	uint64_t n2ho_fwd_indirect;  /* ... to another one (the UPF's) */
	uint64_t n2ho_fwd_none;      /* ... without a forwarding tunnel */
	uint64_t n2ho_fwd_sent, n2ho_fwd_em_sent; /* source: DL G-PDUs / End Markers sent on to it */
	uint64_t n2ho_fwd_rx, n2ho_fwd_em_rx;     /* target: G-PDUs / End Markers on its DL forwarding TEID */
	uint64_t n2ho_fwd_unknown;   /* on a forwarding TEID no handover gave */
	/* QoS changes from the network (a subscription or policy change, TS 23.502 4.3.3.2) */
	uint64_t ue_ctx_mods;        /* UE CONTEXT MODIFICATION REQUESTs answered with a RESPONSE
				      * (TS 38.413 8.3.4.2) */
	uint64_t ue_ambr_ul_last, ue_ambr_dl_last; /* the UE-AMBR of the last one, bit/s (0: none) */
	uint64_t pdu_mod_requests;   /* PDU SESSION RESOURCE MODIFY REQUESTs answered (8.2.3.2) */
	uint64_t pdu_mod_commands;   /* PDU SESSION MODIFICATION COMMANDs applied and answered with a
				      * COMPLETE (TS 24.501 6.3.2.3) */
	uint64_t pdu_mod_rejected;   /* ... answered with a COMMAND REJECT (6.3.2.4: no such session) */
	uint64_t sess_ambr_ul_last, sess_ambr_dl_last; /* the session-AMBR of the last applied command */
};
/* What one UE holds of its QoS, as its gNB and the UE itself took it from the network
 * (bit/s, 0: never received). */
struct ransim_ue_qos {
	uint64_t ue_ambr_ul, ue_ambr_dl;     /* gNB: UE-AMBR (TS 38.413 9.3.1.58) of the last INITIAL
					      * CONTEXT SETUP, PDU SESSION RESOURCE SETUP or UE CONTEXT
					      * MODIFICATION REQUEST */
	uint64_t n2_ambr_ul, n2_ambr_dl;     /* gNB: session-AMBR of the last Setup or Modify Request
					      * Transfer (9.3.4.1, 9.3.4.3) */
	uint64_t sess_ambr_ul, sess_ambr_dl; /* UE: session-AMBR in force (TS 24.501 9.11.4.14: from the
					      * Establishment Accept, then each Modification Command) */
	uint32_t ue_ctx_mods;                /* UE CONTEXT MODIFICATION REQUESTs for this UE */
	uint32_t pdu_mods;                   /* PDU SESSION MODIFICATION COMMANDs it applied */
};
/* One AMF of the set (0..n-1, in configuration order), as the gNBs saw it. */
struct ransim_amf_stats {
	bool ready;                  /* gNB 0's association up and NG Setup done */
	uint8_t capacity;            /* Relative AMF Capacity of its last NG SETUP RESPONSE */
	uint64_t ng_setups;          /* NG SETUP RESPONSEs from it, all gNBs */
	uint64_t assigned;           /* Initial UE Messages sent to it, all reasons: */
	uint64_t by_guami, by_set, by_capacity, by_any; /* see amf_sel.h */
	uint64_t lost;               /* UE contexts failed over when its association went down */
	uint64_t fo_reg;             /* registrations after a failover it accepted */
};
/* 0, or -ENOENT for no such AMF. */
int ransim_amf_stats(const struct ransim *rs, unsigned ai, struct ransim_amf_stats *out);
/* The failovers of the run: UEs lost with their AMF, UEs registered again through another
 * (and of those with a session, the session established again), the time from the first UE
 * lost to the last one registered again, and the per-UE time to re-register. */
struct ransim_failover {
	uint64_t lost, back, sess_back;
	uint64_t time_us;
	uint32_t p50_us, p99_us, max_us;
};
void ransim_failover(const struct ransim *rs, struct ransim_failover *out);

/* G-PDUs and End Markers of gNB g (0..n_gnbs-1); -ENOENT. */
int ransim_gnb_n3(const struct ransim *rs, unsigned g, uint64_t *ul, uint64_t *dl, uint64_t *end_markers);
/* UE idx's serving gNB, its DL TEID there, path switches acknowledged and NCC: 0, or -ENOENT. */
int ransim_ue_ho(const struct ransim *rs, unsigned idx, unsigned *gnb, uint32_t *dl_teid, unsigned *handovers,
		 unsigned *ncc);
/* The N2 handover of UE idx: its state (RS_N2HO_*, 0 = none) and N2 handovers notified: 0, or -ENOENT. */
int ransim_ue_n2ho(const struct ransim *rs, unsigned idx, unsigned *state, unsigned *gnb);
/* Whether the handover rounds did what --handover-mode / --handover-fail asked: 0, or -1 with
 * the reason in why. */
int ransim_handover_check(const struct ransim *rs, char *why, size_t cap);
/* UE idx's QoS (0..n_ues-1): 0, or -ENOENT. */
int ransim_ue_qos(const struct ransim *rs, unsigned idx, struct ransim_ue_qos *out);
/* NGAP PDUs counted in one direction (0: sent, 1: received) for one message (ngap_msg_name()
 * spelling, e.g. "InitialUEMessage"); 0 if none. */
uint64_t ransim_ngap_count(const struct ransim *rs, int dir, const char *name);
void ransim_get_stats(const struct ransim *rs, struct ransim_stats *out);
/* Failures of one cause, e.g. "reg_reject_7", "auth_reject", "timeout". 0 if none. */
uint64_t ransim_failures(const struct ransim *rs, const char *cause);
/* Human readable report, one "key value" item per line (stable for scripts). */
void ransim_report(const struct ransim *rs, FILE *out);

#endif
