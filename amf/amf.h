/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * amf - Access and Mobility Management Function (TS 23.501 6.2.1).
 *
 * N2 (NGAP, TS 38.413) towards gNBs, N1 (5GMM, TS 24.501) towards UEs, 5G-AKA
 * through ausf/ (TS 33.501 6.1.3.2) and security mode control (TS 33.501 6.7.2).
 *
 * Transport: the AMF never touches sockets itself. Bytes arrive through
 * amf_n2_rx() tagged with an association id and an SCTP stream, association
 * state through amf_n2_assoc_up()/amf_n2_assoc_down(), and every NGAP PDU the
 * AMF emits leaves through the send hook of struct amf_n2_ops. amf_start()
 * wires that hook to common/sctp (the configured backend); in-process tests
 * use amf_new() with their own hook.
 *
 * Sessions: with an SMF attached (amf_set_smf), UL NAS TRANSPORT of N1 SM goes to
 * smf_n1_rx and its answer out as DL NAS TRANSPORT or PDU Session Resource Setup /
 * Release / Modify Request; their responses (and the Initial Context Setup Response items)
 * go to smf_n2_rx. A UE context release deactivates the user planes, a service request
 * reactivates them in the Initial Context Setup Request, deregistration and the loss of the
 * gNB's association release every session; downlink data for a CM-IDLE UE pages it (T3513).
 *
 * Threading: everything runs on the thread of the ev_loop given at creation.
 */
#ifndef SOLOCORE_AMF_AMF_H
#define SOLOCORE_AMF_AMF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "common/conf.h"   /* struct conf_gnb_rule (n2.allowed_gnbs) */

struct ev_loop;
struct conf;
struct ausf;
struct udm;
struct amf;
struct smf;
struct smf_ue;
struct smf_amf_ops;

#define AMF_MAX_TACS 16
#define AMF_MAX_SLICES 8
#define AMF_NAME_MAX 64

struct amf_snssai {
	uint8_t sst;
	uint32_t sd; /* 24 bits; AMF_SD_NONE when absent */
};
#define AMF_SD_NONE 0xffffffu

/* NAS security algorithm identifiers (TS 24.501 9.11.3.34): 0..3 = NIA0..3 / NEA0..3 */
struct amf_cfg {
	uint8_t plmn[3];           /* PLMN identity as encoded on the wire (TS 24.008 10.5.1.13) */
	uint8_t amf_region_id;     /* 8 bits */
	uint16_t amf_set_id;       /* 10 bits */
	uint8_t amf_pointer;       /* 6 bits */
	char amf_name[AMF_NAME_MAX];
	uint8_t relative_capacity;
	uint32_t tacs[AMF_MAX_TACS]; /* 24-bit TACs served */
	unsigned n_tacs;
	/* Registration area of tacs[i] (TS 23.501 5.3.2.3, amf.registration_areas): a UE in
	 * tacs[i] gets every TAC of the same area as its TAI list. All 0 (the default): one
	 * area of every TAC. has_areas: areas were configured (a TAC added live by
	 * amf_set_tacs gets an area of its own; without, it joins the one area). */
	uint8_t tac_area[AMF_MAX_TACS];
	bool has_areas;
	struct amf_snssai slices[AMF_MAX_SLICES];
	unsigned n_slices;
	uint8_t integ_prio[4];     /* NIA ids, most preferred first */
	unsigned n_integ;
	uint8_t ciph_prio[4];      /* NEA ids, most preferred first */
	unsigned n_ciph;
	bool request_imeisv;       /* IMEISV request in Security Mode Command */
	/* Timers, seconds or milliseconds as named (TS 24.501 10.2). */
	uint32_t t3512_s;          /* periodic registration update */
	uint32_t t3513_ms;         /* paging (issue 6) */
	uint32_t t3522_ms;         /* network-initiated deregistration */
	uint32_t t3550_ms;         /* registration accept → complete */
	uint32_t t3555_ms;         /* configuration update command */
	uint32_t release_guard_ms; /* UE CONTEXT RELEASE COMMAND without COMPLETE: released anyway */
	/* N2 handover guards (TS 38.413 8.4.1: the gNB's TNGRELOCprep / TNGRELOCoverall have an AMF
	 * side here): HANDOVER REQUEST -> the target's answer; HANDOVER COMMAND -> NOTIFY, and
	 * NOTIFY -> the source's RELEASE COMPLETE. */
	uint32_t ho_prep_ms;
	uint32_t ho_overall_ms;
	uint32_t t3560_ms;         /* authentication / security mode */
	uint32_t t3570_ms;         /* identification */
	uint32_t mobile_reachable_s;   /* default T3512 + 4 min (TS 24.501 5.3.7) */
	uint32_t implicit_dereg_s;     /* default mobile reachable + 4 min */
	uint8_t ng_setup_time_to_wait; /* TS 38.413 9.3.1.56 TimeToWait enum (v1s=0 .. v60s=5) */
	uint32_t max_ues;
	uint32_t max_gnbs;
	char network_full_name[AMF_NAME_MAX];  /* "" = not sent */
	char network_short_name[AMF_NAME_MAX];
	bool send_tz;              /* local time zone in Configuration Update Command */
	/* TS 24.501 5.4.4: CONFIGURATION UPDATE COMMAND after every initial registration
	 * (QCore's cycle, messages 9-10) with the full network name (amf_name when
	 * network_full_name is "") and the time zone (UTC when not configured). */
	bool cuc_after_reg;
	int8_t tz_quarters;        /* offset from UTC in 15-minute steps */
	/* N2 */
	char n2_addr[64];
	uint16_t n2_port;
	char n2_backend[16];       /* "auto" | "kernel" | "usrsctp" */
	bool n2_udp_encap;         /* usrsctp over UDP (RFC 6951) instead of raw IP */
	uint16_t n2_udp_port;
	/* n2.allowed_gnbs (issue 31): a gNB matching none gets NG SETUP FAILURE and its
	 * association is closed; none (the default): any gNB. */
	struct conf_gnb_rule allowed_gnbs[CONF_MAX_ALLOWED_GNBS];
	unsigned n_allowed_gnbs;
	/* An NG Setup naming the Global RAN Node ID of a set-up association is refused, and
	 * that association is asked (AMF CONFIGURATION UPDATE) whether it is still there: no
	 * NGAP from it within this time and it is taken as lost (ngap_guard.c). */
	uint32_t gnb_probe_ms;
};

/* Fill cfg with the defaults of DESIGN.md (PLMN 001/01, TAC 1, SST 1 SD 010203 ...). */
void amf_cfg_default(struct amf_cfg *cfg);
/* Translate the runtime's configuration into cfg (starts from the defaults). 0 or -EINVAL. */
int amf_cfg_from_conf(struct amf_cfg *cfg, const struct conf *conf);

struct amf_n2_ops {
	/* Send one NGAP PDU on (assoc, stream) with PPID 60. Copy the bytes if needed;
	 * the AMF reuses buf after return. 0 or -errno. */
	int (*send)(void *arg, uint32_t assoc, uint16_t stream, const uint8_t *buf, size_t len);
	/* Ask the transport to abort an association (optional, may be NULL). */
	void (*close)(void *arg, uint32_t assoc);
	/* Ask for a graceful close (SCTP SHUTDOWN: what was sent is delivered first); optional,
	 * close() is used when NULL. */
	void (*shutdown)(void *arg, uint32_t assoc);
	void *arg;
};

/* Create an AMF with an explicit transport (tests, ransim-in-process). ausf and udm must outlive it.
 * NULL with *err = -errno on failure. */
struct amf *amf_new(struct ev_loop *loop, const struct amf_cfg *cfg, struct ausf *ausf,
		    struct udm *udm, const struct amf_n2_ops *ops, int *err);
/* Accepts NULL. Stops timers, releases every context. UE contexts are freed by deferred
 * calls (ev_defer) that reference the AMF: free it either when the loop will not run again
 * (then ev_loop_free, which drops deferred calls) or after one more ev_run_once(). */
void amf_free(struct amf *amf);

/* Production entry point: translate conf, create the AMF and open the N2 listener on the
 * configured address/port with the configured SCTP backend (n2.sctp). NULL + *err on failure. */
struct amf *amf_start(struct ev_loop *loop, const struct conf *conf, struct ausf *ausf,
		      struct udm *udm, int *err);
/* One-time crypto set-up (OpenSSL fetches and contexts for the KDFs and the configured
 * NIA/NEA) done now instead of on the first UE's messages. amf_start() calls it. 0 or -errno. */
int amf_warm_up(struct amf *amf);
/* Close the listener and free the AMF. Accepts NULL. Cost grows with the number of UE
 * slots ever used, not with max_ues. */
void amf_stop(struct amf *amf);

/* ---- session management (smf/smf.h) ----
 * Start-up order: amf = amf_start(...) (or amf_new); fill smf_params.ops with
 * amf_smf_ops(amf, &p.ops); smf = smf_new(&p, ...); amf_set_smf(amf, smf).
 * Shutdown: amf_stop(amf) first (it forgets the SMF: no call into it), then smf_free(smf)
 * with no loop iteration in between (the SMF's ops point at the AMF).
 * Without an SMF, N1 SM payloads go back to the UE with 5GMM cause #90. */
void amf_smf_ops(struct amf *amf, struct smf_amf_ops *ops);
void amf_set_smf(struct amf *amf, struct smf *smf);
/* Local SCTP port of the N2 listener (0 when created with amf_new). */
uint16_t amf_n2_port(const struct amf *amf);
/* usrsctp over UDP: the local UDP port of the listener (0 otherwise). */
uint16_t amf_n2_udp_port(const struct amf *amf);

/* Transport → AMF. */
void amf_n2_assoc_up(struct amf *amf, uint32_t assoc, uint16_t in_streams, uint16_t out_streams);
/* Association lost or restarted: every UE bound to that gNB is cleaned up (TS 23.502 4.2.6). */
void amf_n2_assoc_down(struct amf *amf, uint32_t assoc);
/* The association's peer (source) address, for n2.allowed_gnbs prefixes and the API. 0,
 * -ENOENT (no such association) or -EINVAL (longer than a sockaddr_storage). */
int amf_n2_assoc_peer(struct amf *amf, uint32_t assoc, const struct sockaddr *peer, socklen_t len);
/* AMF-initiated NG Reset of the whole interface of one gNB (TS 38.413 8.7.4.2.1): every UE of
 * that gNB loses its N2 connection. 0 or -ENOENT. */
int amf_n2_reset(struct amf *amf, uint32_t assoc);
/* One NGAP PDU received. Returns 0, or -errno when the PDU was dropped (counted). */
int amf_n2_rx(struct amf *amf, uint32_t assoc, uint16_t stream, const uint8_t *buf, size_t len);

/* ---- observation (tests, web, metrics) ---- */
enum amf_gmm_state {
	AMF_GMM_DEREGISTERED = 0,
	AMF_GMM_COMMON_PROCEDURE_INITIATED,
	AMF_GMM_REGISTERED,
	AMF_GMM_DEREGISTERED_INITIATED,
};
const char *amf_gmm_state_name(enum amf_gmm_state s);

struct amf_stats {
	uint64_t ngap_rx, ngap_tx, ngap_rx_bad;
	uint64_t gnbs;                 /* gNBs with a successful NG Setup */
	uint64_t ues;                  /* contexts in use */
	uint64_t registered;           /* UEs in REGISTERED */
	uint64_t reg_accepted, reg_rejected;
	uint64_t auth_ok, auth_mac_fail, auth_sync_fail, auth_reject;
	uint64_t smc_ok, smc_reject;
	uint64_t nas_mac_fail;         /* uplink NAS with a bad MAC, discarded (TS 24.501 4.4.4) */
	uint64_t nas_dropped;          /* other uplink NAS discarded */
	uint64_t t3550_expired, t3560_expired, t3570_expired, t3522_expired;
	uint64_t implicit_dereg;
	uint64_t dereg_ue, dereg_net;
	uint64_t sm_forwarded;         /* N1 SM payloads handed to the SMF */
	uint64_t sm_not_forwarded;     /* sent back with 5GMM #90 / #91 (TS 24.501 5.4.5.2.5) */
	uint64_t service_req, service_rej;
	uint64_t paging_sent;          /* PAGING messages (each gNB counts) incl. T3513 repeats */
	uint64_t paging_gave_up;
	uint64_t connected;            /* UEs in CM-CONNECTED (bound to a gNB) */
	/* N2 handover (TS 23.502 4.9.1.3, TS 38.413 8.4) */
	uint64_t ho_required;          /* HANDOVER REQUIREDs taken for a UE (not the foreign ones) */
	uint64_t ho_prep_failed;       /* HANDOVER PREPARATION FAILUREs sent, by reason below */
	uint64_t ho_prep_failed_target, ho_prep_failed_state, ho_prep_failed_sessions;
	uint64_t ho_prep_failed_refused, ho_prep_failed_guard;
	uint64_t ho_commands;          /* HANDOVER COMMANDs sent */
	uint64_t ho_notified;          /* handovers completed by HANDOVER NOTIFY */
	uint64_t ho_cancelled;         /* handovers cancelled (HANDOVER CANCEL, release, association loss) */
	uint64_t ho_guard_expired;     /* ho-prep / ho-overall expiries */
	uint64_t ho_refused;           /* handover messages with foreign IDs or in the wrong state */
	/* issue 31: NG Setups refused (n2.allowed_gnbs; a Global RAN Node ID another association
	 * holds) and holders taken as lost (no NGAP after the liveness question, ngap_guard.c) */
	uint64_t ng_setup_not_allowed, ng_setup_id_in_use, gnb_probe_lost;
};
void amf_get_stats(const struct amf *amf, struct amf_stats *out);

/* Snapshot of one UE, looked up by SUPI ("imsi-001010000000001"). */
enum amf_cm_state {
	AMF_CM_IDLE = 0,           /* no N2 connection (TS 23.501 5.3.3.2.2) */
	AMF_CM_CONNECTED,
};
const char *amf_cm_state_name(enum amf_cm_state s);

struct amf_ue_info {
	enum amf_gmm_state state;
	enum amf_cm_state cm;
	const char *supi;          /* "" before identification; valid until the context changes */
	uint64_t amf_ue_ngap_id;   /* UINT64_MAX when no NGAP association */
	uint32_t ran_ue_ngap_id;
	uint32_t assoc;
	uint32_t tmsi;             /* 5G-TMSI of the current 5G-GUTI */
	bool has_guti;
	bool sec_active;           /* NAS security context in use */
	uint8_t nia, nea;
	uint8_t ngksi;
	uint32_t ul_count, dl_count; /* NAS COUNTs (overflow << 8 | sqn) */
	uint32_t nas_mac_fail;     /* this UE's discarded messages */
	uint16_t psi_map;          /* PDU sessions the SMF holds for this UE (bit i = PSI i) */
	struct smf_ue *sm;         /* the UE's SMF handle (smf_sess_info), NULL when none */
	bool paging;               /* T3513 running */
};
/* 0, or -ENOENT. */
int amf_ue_info_by_supi(const struct amf *amf, const char *supi, struct amf_ue_info *out);
/* The 5G-GUTI of info (has_guti) in the usual one-string form: MCC MNC, AMF ID (region, set,
 * pointer: 6 hex digits), 5G-TMSI (8 hex digits), e.g. "00101" "010041" "0000abcd" joined.
 * snprintf-style length, or -ENOENT without a GUTI. */
int amf_guti_to_str(const struct amf *amf, const struct amf_ue_info *info, char *buf, size_t sz);

/* ---- walks for the web API (REST views) and metrics ----
 * Allocation-free reads of the AMF's own tables, on the control thread (never from another
 * thread). Pointers inside an info struct are valid during the callback only. A callback
 * returns 0 to go on or non-zero to stop; the walk then returns that value (0 when it ran to
 * the end). */
enum amf_gnb_state {
	AMF_GNB_CONNECTED = 0,     /* SCTP association up, no (successful) NG Setup */
	AMF_GNB_READY,             /* NG Setup done (TS 38.413 8.7.1) */
};
const char *amf_gnb_state_name(enum amf_gnb_state s);

struct sockaddr;
struct amf_gnb_info {
	uint32_t assoc;
	enum amf_gnb_state state;
	const char *name;              /* RAN node name, "" when the gNB sent none */
	uint8_t plmn[3];               /* PLMN of the global gNB ID, as on the wire */
	uint32_t gnb_id;               /* gNB ID of the global RAN node ID (TS 38.413 9.3.1.6) */
	uint8_t gnb_id_bits;           /* its length, 22..32 */
	const struct sockaddr *peer;   /* SCTP peer address; NULL with an amf_new() transport */
	uint32_t peer_len;
	const uint32_t *tacs;          /* 24-bit TACs it supports that we serve */
	unsigned n_tacs;
	const struct amf_snssai *slices; /* S-NSSAIs it supports in those TAs (our PLMN) */
	unsigned n_slices;
	uint32_t n_ues;                /* UEs with an N2 connection through it */
	uint16_t in_streams, out_streams;
	uint8_t paging_drx;            /* TS 38.413 9.3.1.90: 0=v32 1=v64 2=v128 3=v256 */
};
typedef int (*amf_gnb_walk_fn)(const struct amf_gnb_info *g, void *arg);
/* Every gNB association, in table order. */
int amf_gnb_walk(const struct amf *amf, amf_gnb_walk_fn fn, void *arg);
/* 0, or -ENOENT. */
int amf_gnb_info_by_assoc(const struct amf *amf, uint32_t assoc, struct amf_gnb_info *out);

typedef int (*amf_ue_walk_fn)(const struct amf_ue_info *u, void *arg);
/* Every UE context in pool order, starting at *cursor (0: the first; NULL: from the start,
 * no resume). When the callback stops the walk, *cursor is set to resume after that UE, and
 * to AMF_WALK_END when the walk ran to the end: pages of a REST list cost their length, not
 * the pool's. budget (with a cursor; 0: none) bounds the slots looked at in one call: past
 * it *cursor is where to go on, so a page over a sparse pool (10^6 slots once used, few in
 * use) costs at most budget slots, not the pool's high-water mark. */
#define AMF_WALK_END UINT32_MAX
int amf_ue_walk(const struct amf *amf, uint32_t *cursor, uint32_t budget, amf_ue_walk_fn fn, void *arg);

/* The fields of struct amf_stats for /metrics: name (snake case, no prefix), one line of
 * help, byte offset of its uint64_t in struct amf_stats, gauge (else a counter). Static
 * table in field order; *n gets its length. */
struct amf_stat_desc {
	const char *name;
	const char *help;
	uint16_t off;
	bool gauge;
};
const struct amf_stat_desc *amf_stats_desc(unsigned *n);
/* Number of UE contexts bound to the gNB of assoc. */
unsigned amf_gnb_ue_count(const struct amf *amf, uint32_t assoc);

/* GUTI reallocation by CONFIGURATION UPDATE COMMAND (TS 24.501 5.4.4). 0, -ENOENT, or -EAGAIN
 * when the UE is not connected and registered with no procedure running. */
int amf_guti_reallocate(struct amf *amf, const char *supi);

/* The subscribed UE-AMBR (udm_ue_ambr) of the registered UE with this SUPI is taken again
 * from the UDM (after a subscriber or policy change): a connected UE's gNB gets it in a UE
 * CONTEXT MODIFICATION REQUEST (TS 38.413 8.3.4), an idle UE's in its next Initial Context
 * Setup. 1 (sent), 0 (unchanged, idle or registering), -ENOENT (not registered here). */
int amf_ue_ambr_update(struct amf *amf, const char *supi);
/* The same for every UE (a policy or the network default changed), in bounded steps: from
 * *cursor (0 at the start) at most budget UE slots; *cursor = AMF_WALK_END when done.
 * Returns the number of UE CONTEXT MODIFICATION REQUESTs sent. */
int amf_ue_ambr_walk(struct amf *amf, uint32_t *cursor, uint32_t budget);

/* Network-initiated deregistration (TS 24.501 5.5.2.3), e.g. from the web UI. 0 or -ENOENT. */
int amf_deregister_supi(struct amf *amf, const char *supi, bool reregister);

/* ---- live network settings (web API: PATCH /api/v1/settings; amf/amf.c) ----
 * On the control thread. The PLMN and the AMF identity (GUAMI, name) are not changeable
 * live: they are in every GUTI handed out and in the gNBs' NG Setup state. */
/* Copy of the configuration the AMF runs with now. */
void amf_get_cfg(const struct amf *amf, struct amf_cfg *out);
/* Replace the served TACs (1..AMF_MAX_TACS, 24 bits each): from the next NG Setup / RAN
 * Configuration Update check, Registration Accept TAI list and paging on. 0 or -EINVAL. */
int amf_set_tacs(struct amf *amf, const uint32_t *tacs, unsigned n);
/* Replace the served S-NSSAIs (1..AMF_MAX_SLICES): new registrations' allowed NSSAI and
 * NG Setup Responses use them at once, and every gNB already set up gets an AMF
 * CONFIGURATION UPDATE with the new PLMN Support List (TS 38.413 8.7.3). Registered UEs
 * whose allowed NSSAI changes (subscribed ∩ served, requested where it applies) get a
 * CONFIGURATION UPDATE COMMAND with it (TS 24.501 5.4.4, acknowledged, T3555): at once
 * when connected, after their next service request when idle (a registration's accept
 * carries it instead); their sessions on an S-NSSAI no longer allowed are released with
 * 5GSM cause #36. A walk of the UE store in bounded steps (4096 slots now, the rest a step
 * per loop pass), no allocation. Returns the number of gNBs the AMF CONFIGURATION UPDATE
 * was sent to, or -EINVAL. */
int amf_set_slices(struct amf *amf, const struct amf_snssai *s, unsigned n);
/* The subscriptions changed (e.g. subscribers on the network's defaults after
 * amf_set_slices, udm_set_defaults_from_conf): every registered UE's allowed NSSAI is
 * computed again from its subscription and told as amf_set_slices does. amf_set_slices
 * alone looks up only the UEs its own change can affect, with the subscriptions as they
 * were. On the control thread, a walk of the store in the same bounded steps (10^6 UEs
 * looked up: 0.3-0.5 s of CPU over ~250 loop passes), no allocation. Returns the number of
 * UEs whose allowed NSSAI changed in the first step (the end of the walk is logged). */
int amf_nssai_resync(struct amf *amf);

/* Registration latency (TS 24.501 5.5.1.2): REGISTRATION REQUEST received -> REGISTRATION
 * COMPLETE (or the ACCEPT when no COMPLETE is expected), per registration that completed,
 * on the ev loop's cached clock (common/hist.h). */
struct hist;
void amf_reg_latency(const struct amf *amf, struct hist *out);

/* ---- NGAP messages and registrations by kind (/metrics) ----
 * Counted where the totals of struct amf_stats are (an array increment, no allocation).
 *
 * NGAP: by elementary procedure (its ProcedureCode, TS 38.413 9.4.7), direction and
 * NGAP-PDU type (enum ngap_pdu_type: 0 initiating, 1 successful, 2 unsuccessful outcome).
 * rx: PDUs that decoded and were dispatched (the others are ngap_rx_bad); tx: PDUs encoded
 * and handed to the transport (as ngap_tx). Codes at or above AMF_NGAP_PROC_SLOTS are not
 * counted here (solocore decodes and sends none). */
#define AMF_NGAP_PROC_SLOTS 64
#define AMF_NGAP_PDU_TYPES 3
enum amf_ngap_dir { AMF_NGAP_RX = 0, AMF_NGAP_TX = 1 };
/* The count for (proc, dir, type); 0 when out of range. */
uint64_t amf_ngap_msg_count(const struct amf *amf, unsigned proc, enum amf_ngap_dir dir, unsigned type);
/* TS 38.413 name of the elementary procedure of a ProcedureCode, as in the ASN.1 without
 * "id-" ("NGSetup", "InitialUEMessage", "PDUSessionResourceSetup"); NULL when unknown. */
const char *amf_ngap_proc_name(unsigned proc);

/* Registrations (TS 24.501 5.5.1): REGISTRATION ACCEPTs sent by 5GS registration type of
 * the request (TS 24.501 9.11.3.7: 1 initial, 2 mobility updating, 3 periodic updating,
 * 4 emergency, 5 SNPN onboarding; index = the 3-bit value), REGISTRATION REJECTs by 5GMM
 * cause (TS 24.501 9.11.3.2; index = the cause). Service requests (5.6.1): accepted and
 * rejected (SERVICE ACCEPT in the Initial Context Setup / SERVICE REJECT). */
#define AMF_REG_TYPES 8
struct amf_reg_counts {
	uint64_t accepted[AMF_REG_TYPES];
	uint64_t rejected[256];
	uint64_t service_accepted, service_rejected;
};
void amf_reg_counts(const struct amf *amf, struct amf_reg_counts *out);
/* "initial", "mobility", "periodic", "emergency", "snpn_onboarding", NULL for the others. */
const char *amf_reg_type_name(unsigned type);

#endif
