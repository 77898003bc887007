/* SPDX-License-Identifier: AGPL-3.0-or-later */
/* ransim internals: shared by gnb.c, ue.c, ue_nas.c, stats.c (not a public header). */
#ifndef SOLOCORE_TESTS_RANSIM_RS_INT_H
#define SOLOCORE_TESTS_RANSIM_RS_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "common/crypto/crypto.h"
#include "common/ev.h"
#include "common/nas/nas.h"
#include "common/ngap/ngap.h"
#include "amf_sel.h"
#include "gtpu.h"
#include "ransim.h"

#define RS_PDU_MAX 4096            /* largest NGAP PDU / NAS message we build */
#define RS_MAX_CAUSES 48           /* distinct failure causes kept in the report */
#define RS_NGAP_PROCS 64           /* procedure codes counted (TS 38.413 9.4: 0..55 used) */
/* TS 33.501 6.4.3.1: the BEARER input of NIA/NEA is the NAS connection identifier, 1 for
 * 3GPP access (2 for non-3GPP) as real UEs, UERANSIM, Open5GS, free5gc and our AMF use it. */
#define RS_NAS_BEARER 1
/* The downlink TEID gNB g gives for UE idx (Setup Response / Path Switch Request Transfer;
 * gtpu.c maps it back): 0x1 | gNB (6 bits) | UE index (22 bits). With one gNB the UE index
 * has all 28 bits (the TEIDs of before the Xn handover). */
#define RS_TEID_UE_BITS 22
#define RS_GNB_DL_TEID_AT(g, idx) (0x10000000u | (uint32_t)(g) << RS_TEID_UE_BITS | (uint32_t)(idx))
#define RS_GNB_DL_TEID(idx) RS_GNB_DL_TEID_AT(0, idx)
/* The DL forwarding TEID target gNB g gives for UE idx in an N2 handover (Handover Request
 * Acknowledge Transfer, gnb_n2ho.c): 0x2 | gNB | UE index, apart from the DL TEIDs. */
#define RS_GNB_FWD_TEID_BASE 0x20000000u
#define RS_GNB_FWD_TEID_AT(g, idx) (RS_GNB_FWD_TEID_BASE | (uint32_t)(g) << RS_TEID_UE_BITS | (uint32_t)(idx))

/* UE procedure states (TS 24.501 5.1.3.2 seen from the UE, reduced to what the simulator drives). */
enum rs_ue_state {
	RS_UE_NULL = 0,          /* not started yet */
	RS_UE_WAIT_AUTH,         /* Registration Request sent: identity, authentication or reject */
	RS_UE_WAIT_SMC,          /* Authentication Response sent: security mode, re-auth or reject */
	RS_UE_WAIT_ACCEPT,       /* Security Mode Complete sent: Registration Accept or Reject */
	RS_UE_WAIT_CUC,          /* Registration Complete sent: Configuration Update Command */
	RS_UE_REGISTERED,        /* plan has no deregistration: stays here */
	RS_UE_WAIT_IDLE,         /* UE Context Release Request sent (going to CM-IDLE) */
	RS_UE_WAIT_DEREG_ACCEPT, /* Deregistration Request (normal) sent */
	RS_UE_WAIT_RELEASE,      /* waiting for UE Context Release Command */
	RS_UE_WAIT_PDU_ACCEPT,   /* PDU Session Establishment Request sent */
	RS_UE_WAIT_SVC_ACCEPT,   /* Service Request sent */
	RS_UE_WAIT_PDU_REL,      /* PDU Session Release Request sent */
	RS_UE_DONE,              /* finished (ok or failed: see fail_cause) */
	RS_UE_STATE_COUNT
};

struct rs_gnb;
struct rs_gtpu;
struct rs_adv;
struct rs_ue;

/* Handover observer (solocore-load handover, load_ho.c): the handover code and the N3 side
 * report each step of a UE's handover and each G-PDU with the gNB it went through, so that a
 * load driver can time the procedure and the user-plane interruption per UE. Called at the
 * moment of the event (before any other processing of it); fn NULL: nobody listens. */
enum rs_ho_ev {
	RS_HO_EV_PREPARED = 0, /* N2: HANDOVER COMMAND taken by the source (TS 38.413 8.4.1.2) */
	RS_HO_EV_DONE,         /* Xn: PATH SWITCH REQUEST ACKNOWLEDGE passed its checks (8.4.4.2);
				* N2: HANDOVER NOTIFY sent by the target (8.4.3.2) */
	RS_HO_EV_FAILED,       /* the handover did not happen or its answer failed a check */
	RS_HO_EV_DL,           /* a downlink G-PDU for the UE arrived at gNB `gnb` */
	RS_HO_EV_UL,           /* an uplink G-PDU of the UE left through gNB `gnb` */
};
struct rs_ho_obs {
	void (*fn)(void *arg, const struct rs_ue *ue, enum rs_ho_ev ev, unsigned gnb);
	void *arg;
};

/* N2 handover of one UE (gnb_n2ho.c): the state of its handover state machine, and the
 * contexts the source and the target hold meanwhile. */
enum rs_n2ho_state {
	RS_N2HO_NONE = 0,        /* no N2 handover */
	RS_N2HO_PREP,            /* source: HANDOVER REQUIRED sent (TNGRELOCprep) */
	RS_N2HO_EXEC,            /* source: HANDOVER COMMAND taken, UL RAN STATUS sent, forwarding */
	RS_N2HO_ARRIVING,        /* target: DL RAN STATUS taken, the UE on its way */
	RS_N2HO_NOTIFIED,        /* target: HANDOVER NOTIFY sent; source: waits for its release */
	RS_N2HO_CANCELLING,      /* source: HANDOVER CANCEL sent */
	RS_N2HO_CANCEL_ACKED,    /* ... acknowledged, the target's release still due */
	RS_N2HO_CANCEL_TGT_GONE, /* ... the target released, the acknowledge still due */
	RS_N2HO_STATE_COUNT
};

struct rs_n2ho {
	uint8_t st;                /* enum rs_n2ho_state */
	bool timer_init, tgt_ctx, fwd_on;
	uint8_t fwd_src;           /* the source gNB that forwards while fwd_on */
	int16_t tgt_fwd_gnb;       /* 1 + the gNB whose DL forwarding TEID for this UE is valid, 0: none */
	struct rs_gnb *src, *tgt;
	uint32_t src_ran_id, tgt_ran_id;
	uint64_t src_amf_id, tgt_amf_id;
	struct ngap_security_context sc; /* {NCC, NH} of the HANDOVER REQUEST, for the UE's arrival */
	uint32_t tgt_ul_teid;              /* UL tunnel of the Handover Request Transfer */
	struct rs_n3_addr tgt_upf_addr;
	uint32_t fwd_teid;                 /* the Handover Command Transfer's DL forwarding tunnel */
	struct rs_n3_addr fwd_addr;
	uint8_t status[24];        /* the RAN Status Transfer container the source sent */
	uint8_t status_len;
	uint16_t attempts;         /* HANDOVER REQUIREDs sent for this UE */
	struct ev_timer timer;
};

struct rs_ue {
	struct ransim *rs;
	struct rs_gnb *gnb;
	const struct ransim_sim *sim;
	uint32_t idx;              /* index in rs->ues */
	uint8_t amf;               /* the AMF (association of ue->gnb) of its UE-associated logical
				    * NG connection, chosen at each Initial UE Message (amf_sel.c) */
	/* AMF failover (gnb_amf.c): its AMF's association went down */
	bool fo_pending;           /* the registration after the failover is running */
	bool fo_had_sess;          /* ... and the UE held a PDU session on the lost AMF */
	bool fo_sess_pending;      /* ... which it establishes again once registered */
	uint64_t fo_t_lost;        /* when the association went down (ns) */
	struct rs_n2 *fo_lost_on;  /* ... that association, until the failover starts */
	bool rrc_has_guti;         /* the next Initial UE Message's NAS names this 5G-GUTI /
				    * 5G-S-TMSI, which the UE gave in RRC too (gnb_amf.c) */
	struct nas_guti rrc_guti;
	uint32_t ran_id;           /* RAN-UE-NGAP-ID of the current N2 connection: idx + k * n_ues,
				    * a fresh one per connection as gNBs do (ran_id % n_ues = idx) */
	enum rs_ue_state st;
	char fail[32];             /* "" while all goes to plan, else the first failure cause */
	bool started, finished, registered_once, fake_guti_sent, rereg_done, holding, held;
	bool has_amf_id;
	bool forger;               /* the adversary's UE (adv.c), not one of rs->ues */
	uint64_t amf_ue_id;
	/* PDU session (ue_sm.c) */
	bool sess_tried, sess_up, idle_done, rel_tried, dereg_sent;
	bool restart_idle;         /* gNB restarted: CM-IDLE, SERVICE REQUEST at its NG Setup */
	bool restart_wait;         /* that SERVICE REQUEST sent, its accept not yet seen */
	/* network-requested release (TS 24.501 6.3.3) and local release (5.6.1.4.1, 5.5.1.3.4) */
	bool reest_pending;        /* released with #39: establish the same PSI / DNN / S-NSSAI again
				    * at the next point where the UE may (6.3.3.3, 6.4.1) */
	bool reest;                /* the establishment running is that re-establishment */
	bool idle_hold;            /* ransim_ue_idle(): stay CM-IDLE after the release command */
	bool cm_idle;              /* ... and now CM-IDLE, until ransim_ue_service() */
	unsigned runs;             /* plans started (passes), or failed before their start */
	uint8_t pti;
	uint8_t qfi;               /* QFI of the Setup Request Transfer (checked against the QoS rule) */
	uint32_t ue_addr;          /* network order; 0: the session has no IPv4 */
	uint8_t iid6[8];           /* the interface identifier of an IPv6 session (9.11.4.10) */
	uint8_t sess_type;         /* PDU session type granted */
	uint8_t addr6[16];         /* global IPv6 address once an RA gave the /64 */
	bool has_addr6;
	bool rs_sent;              /* a Router Solicitation for this session went up */
	uint8_t rs_count;          /* ... how many (RFC 4861 6.3.7: MAX_RTR_SOLICITATIONS 3) */
	uint64_t rs_ns;            /* ... the last one's time */
	struct rs_n3_addr n3_upf_addr; /* UPF's N3 address of the Setup Request Transfer, of the
					* gNB's N3 family (rs_tla_get); family 0: none */
	uint32_t n3_ul_teid;       /* the UPF's uplink TEID there (0: no tunnel yet) */
	struct ransim_ue_qos qos;  /* AMBRs as the gNB and the UE hold them (gnb_mod.c, ue_sm.c) */
	/* Xn handover (gnb_xn.c). The AS context the serving gNB holds, passed over Xn: */
	struct ngap_ue_sec_cap as_caps; /* UE security capabilities of the ICS Request */
	uint8_t nh[32];            /* UE side: NH of NCC ncc (TS 33.501 6.9.2.1.1) */
	uint8_t ncc;
	bool nh_valid;
	bool ho_pending;           /* PATH SWITCH REQUEST sent by ue->gnb (the target) */
	struct rs_gnb *ho_src;     /* the source while pending; its old RAN-UE-NGAP-ID and AMF UE NGAP ID */
	uint32_t ho_src_ran_id;
	uint64_t ho_src_amf_id;
	int16_t dl_old_gnb;        /* the source whose TEID still carries downlink until its End Marker (-1) */
	uint32_t handovers;        /* path switches acknowledged, N2 handovers notified */
	struct rs_n2ho n2;         /* N2 handover (gnb_n2ho.c) */
	/* USIM */
	struct crypto_usim_sqn usim;
	/* NAS security context (TS 33.501 6.7.2) */
	uint8_t ngksi;             /* 7 = no key */
	uint8_t kamf[32], kint[16], kenc[16];
	bool has_kamf, sec;
	uint8_t nia, nea;
	uint32_t ul_count, dl_count;
	uint32_t kgnb_count;       /* uplink COUNT of Security Mode Complete (K_gNB input, TS 33.501 A.9) */
	bool has_guti;
	struct nas_guti guti;
	/* Registration area (ue_mob.c): the TAI list of the last REGISTRATION ACCEPT (TACs of
	 * the serving PLMN, TS 24.501 9.11.3.9), and a mobility registration waiting for its
	 * accept (the REGISTERED rows of ue.c's table take it). */
	uint32_t tais[NAS_TAI_MAX];
	uint8_t n_tais;
	bool mob_reg_pending;
	uint8_t initial[192];      /* the initial NAS message as sent (TS 24.501 4.4.6 container) */
	uint8_t initial_len;
	uint64_t t0[RANSIM_P_COUNT]; /* procedure start times (ns) */
	struct ev_timer guard;
};

enum rs_gnb_state { RS_GNB_IDLE = 0, RS_GNB_CONNECTING, RS_GNB_SETUP, RS_GNB_READY, RS_GNB_DOWN };

/* One NG-C association of a gNB, to one AMF of the set (TS 38.413 8.7.1: an NG Setup on
 * each; TS 23.501 5.21: the gNB connects to every AMF it may select). */
struct rs_n2 {
	struct rs_gnb *g;
	unsigned ai;                 /* the AMF: rs->amfs[ai], g->sel.e[ai] */
	enum rs_gnb_state st;
	struct n2sctp *ep;
	struct n2sctp_assoc *a;
	uint16_t ostreams;
	uint32_t peer_ip;            /* for the pcap */
	uint16_t local_port, peer_port;
	uint64_t t_setup;
};

struct rs_gnb {
	struct ransim *rs;
	unsigned idx;
	/* one AMF: its association's state; several: READY once no NG Setup is outstanding and
	 * at least one AMF is READY, DOWN when none is left */
	enum rs_gnb_state st;
	struct rs_n2 n2[RS_AMF_MAX];
	struct rs_amf_set sel;       /* per AMF: Served GUAMIs, Relative AMF Capacity (amf_sel.c) */
	unsigned rx_amf;             /* the association of the PDU being handled */
	uint32_t gnb_id;
	uint32_t local_ip;           /* for the pcap */
};

/* AMF set (issue 20 item 4): per AMF, what the gNBs saw and did. */
struct rs_amf_st {
	uint64_t ng_setups;          /* NG SETUP RESPONSEs (all gNBs) */
	uint64_t assigned[RS_SEL_HOW_COUNT]; /* Initial UE Messages sent to it, by selection reason */
	uint64_t lost;               /* UE contexts failed over when its association went down */
	uint64_t fo_reg;             /* registrations after a failover accepted by it */
};

/* G-PDUs and End Markers per gNB (gtpu.c), Xn handover counters (gnb_xn.c). */
struct rs_gnb_n3 {
	uint64_t ul_packets, dl_packets, end_markers;
};

struct rs_cause {
	char name[32];
	uint64_t n;
};

/* Latency histogram in microseconds, log-linear (32 sub-buckets per power of two: within
 * 3 %), fixed size whatever the run length; mean, min and max are exact. */
#define RS_LAT_SUB 32
#define RS_LAT_BUCKETS (28 * RS_LAT_SUB)
struct rs_lat {
	uint64_t n, sum;
	uint32_t min, max;
	uint32_t b[RS_LAT_BUCKETS];
};
void rs_lat_add(struct rs_lat *l, uint32_t us);
/* Upper bound of the bucket holding the p-th percentile (capped at max). */
uint32_t rs_lat_pct(const struct rs_lat *l, unsigned p);

struct ransim {
	struct ev_loop *loop;
	struct ransim_cfg cfg;
	struct ransim_sim *sims;
	unsigned n_sims;
	struct rs_ue *ues;
	struct rs_gnb gnbs[RANSIM_MAX_GNBS];
	unsigned next_ue;            /* next UE index to start */
	unsigned in_flight;
	uint64_t finished;           /* UE runs finished, all passes */
	unsigned pass;               /* current pass of the scheduler (cfg.passes) */
	bool stopping;               /* ransim_stop(): no new UE runs */
	bool dropped_once;
	bool in_schedule, resched;   /* rs_schedule() re-entry guard */
	struct rs_n3_addr gnb_n3_addr; /* gNB N3 address given in Setup Response Transfers (family 0:
				      * the gNB's SCTP IPv4 address), set by rs_gtpu_new() */
	struct rs_gtpu *gtpu;        /* N3 traffic (gtpu.c), NULL without */
	struct rs_gnb_n3 n3[RANSIM_MAX_GNBS];
	struct rs_adv *adv;          /* the adversary (adv.c, cfg.attack), NULL without */
	FILE *amf_ids;               /* cfg.amf_ids, NULL without */
	/* the AMF set (cfg.amfs, else cfg.addr:port alone) */
	struct { char addr[64]; uint16_t port, udp_peer_port; } amfs[RS_AMF_MAX];
	unsigned n_amfs;
	struct rs_amf_st amf_st[RS_AMF_MAX];
	/* failover: first UE lost, last one registered again; per-UE time to re-register */
	uint64_t fo_t_first, fo_t_last;
	uint64_t fo_wall_ms;         /* the first loss, CLOCK_REALTIME ms (outage measured by scripts) */
	uint64_t fo_lost, fo_back, fo_sess_back, fo_fresh;
	struct rs_lat fo_lat;
	uint8_t plmn[3];             /* serving PLMN, wire coding */
	struct nas_plmn nplmn, home;
	char snn[64];                /* serving network name (TS 24.501 9.12.1) */
	struct ransim_stats st;
	struct rs_cause causes[RS_MAX_CAUSES];
	unsigned n_causes;
	uint64_t ngap_cnt[2][3][RS_NGAP_PROCS]; /* [0 tx / 1 rx][pdu type][proc] */
	struct rs_lat lat[RANSIM_P_COUNT];
	struct pcapw *pcap;
	/* scratch, reused per message (no allocation on the message path) */
	struct ngap_msg rx, tx;
	struct nas_msg nas_rx, nas_tx;
	uint8_t ngap_buf[RS_PDU_MAX];
	uint8_t nas_buf[RS_PDU_MAX];
	uint8_t nas_plain[RS_PDU_MAX];
	uint8_t svc_cont[64];        /* SERVICE REQUEST's NAS message container (TS 24.501 4.4.6) */
	uint8_t suci_out[128];
	struct nas_msg gsm;           /* the 5GSM message inside a DL / UL NAS Transport */
	uint8_t gsm_buf[512];
	uint8_t dnn_buf[64];
	uint8_t xfer_buf[4][128];
	struct nas_qos_rules qos_rules;
	struct ngap_setup_request_transfer xfer_req;
	struct ngap_setup_response_transfer xfer_rsp;     /* Setup Response Transfers of one NGAP response */
	struct rs_ho_obs ho_obs;     /* handover observer (solocore-load handover); fn NULL: none */
};

/* ---- gnb.c ---- */
/* Connect g to every AMF (an association and NG Setup each). 0 or -errno. */
int rs_gnb_connect(struct rs_gnb *g);
/* Close every association of g: SCTP ABORT (free) or a graceful SHUTDOWN. */
void rs_gnb_abort(struct rs_gnb *g);
void rs_gnb_shutdown(struct rs_gnb *g);
/* Send UE-associated NGAP on the UE's stream; counts and writes the pcap. 0 or -errno. */
int rs_gnb_send_ue(struct rs_gnb *g, const struct rs_ue *ue, const struct ngap_msg *m);
/* --restart-after: ABORT the association, reconnect with a fresh NG Setup, and bring the
 * UEs that held a PDU session back with a SERVICE REQUEST. */
void rs_gnb_restart(struct rs_gnb *g);
/* The UE that holds ran_ue_id on g (the adversary's forger included), else NULL (counted). */
struct rs_ue *rs_gnb_ue(struct rs_gnb *g, uint32_t ran_ue_id);
/* Drop the association abruptly (drop_assoc scenario) and reconnect. */
void rs_gnb_drop(struct rs_gnb *g);
/* gNB-initiated UE Context Release Request (TS 38.413 8.3.2), cause user inactivity. */
int rs_gnb_release_request(struct rs_gnb *g, const struct rs_ue *ue);
void rs_uli(const struct ransim *rs, struct ngap_uli *uli);
/* The TAC of gNB g (cfg.gnb_tacs, else cfg.tac), and the ULI of its cell (TAI with it). */
uint32_t rs_gnb_tac(const struct rs_gnb *g);
void rs_gnb_uli(const struct rs_gnb *g, struct ngap_uli *uli);

/* ---- gnb_amf.c: the AMF set (issue 20 item 4, TS 23.501 5.21) ---- */
/* The AMF for ue's new UE-associated logical connection (amf_sel.c over g's AMFs) into
 * ue->amf; with several AMFs and a 5G-GUTI held, the 5G-S-TMSI the UE gave in RRC into *tmsi
 * (TS 38.413 9.2.5.1) and true. Counted per AMF. */
bool rs_gnb_pick_amf(struct rs_gnb *g, struct rs_ue *ue, struct ngap_5g_s_tmsi *tmsi);
/* NG SETUP RESPONSE on link l: its Served GUAMI List and Relative AMF Capacity kept. */
void rs_gnb_amf_setup(struct rs_n2 *l, const struct ngap_ng_setup_response *r);
/* Link l went down while other AMFs of g are READY: its UE contexts are released locally
 * (TS 23.502 4.2.7.2: a failed AMF's UE-TNLA bindings dropped) and each UE goes on through another AMF. */
void rs_gnb_amf_lost(struct rs_n2 *l);
/* A failover registration accepted (ue.c): counted, timed. */
void rs_amf_fo_registered(struct rs_ue *ue);
/* The AMF-set lines of the report (nothing with one AMF). */
void rs_amf_report(const struct ransim *rs, FILE *out);

/* ---- gnb_mod.c: the gNB's side of the network's QoS changes ---- */
/* The UE-AMBR the gNB enforces for ue from now on (TS 38.413 9.3.1.58). */
void rs_gnb_take_ue_ambr(struct rs_ue *ue, const struct ngap_ambr *a);
/* UE CONTEXT MODIFICATION REQUEST (TS 38.413 8.3.4): the UE-AMBR recorded, RESPONSE sent. */
void rs_gnb_ue_ctx_mod(struct rs_gnb *g, const struct ngap_ue_context_modification_request *r);
/* PDU SESSION RESOURCE MODIFY REQUEST (8.2.3): each session's Modify Request Transfer taken,
 * RESPONSE with a Modify Response Transfer per session, then the NAS-PDU to the UE. */
void rs_gnb_pdu_modify(struct rs_gnb *g, const struct ngap_pdu_session_resource_modify_request *r);

/* ---- gnb_xn.c: the Xn handover (TS 23.502 4.9.1.2.2, TS 38.413 8.4.4) ---- */
/* PATH SWITCH REQUEST ACKNOWLEDGE / FAILURE received by target g. */
void rs_gnb_ps_ack(struct rs_gnb *g, const struct ngap_path_switch_request_ack *k);
void rs_gnb_ps_failure(struct rs_gnb *g, const struct ngap_path_switch_request_failure *f);
/* The downlink TEID of UE ue at its serving gNB, and that gNB's DL tunnel for it (the N3
 * address, `--gnb-n3` or the gNB's SCTP address). */
uint32_t rs_ue_dl_teid(const struct rs_ue *ue);
void rs_ue_dl_tunnel(const struct rs_ue *ue, struct ngap_gtp_tunnel *t);
/* Step an NH chain {*ncc, nh} (TS 33.501 6.9.2.1.1, A.10: NH = KDF(K_AMF, NH)) up to NCC
 * want, at most 7 steps: 0, or -errno. */
int rs_nh_step(const uint8_t kamf[32], uint8_t *ncc, uint8_t nh[32], uint8_t want);

/* ---- gnb_n2ho.c: the N2 handover (TS 23.502 4.9.1.3, TS 38.413 8.4.1-8.4.3, 8.4.5-8.4.7) ---- */
/* One round (--handover-mode n2 / n2-indirect): HANDOVER REQUIRED for every UE that can go. */
unsigned rs_n2ho_round(struct ransim *rs);
/* One UE's N2 handover to the next gNB: 0 once its HANDOVER REQUIRED went out, -EAGAIN when it
 * cannot go now, else -errno. */
int rs_n2ho_ue(struct rs_ue *ue);
/* NGAP for the handover contexts of gNB g. */
void rs_gnb_ho_request(struct rs_gnb *g, const struct ngap_handover_request *r);
void rs_gnb_ho_command(struct rs_gnb *g, const struct ngap_handover_command *c);
void rs_gnb_ho_prep_failure(struct rs_gnb *g, const struct ngap_handover_preparation_failure *f);
void rs_gnb_dl_ran_status(struct rs_gnb *g, const struct ngap_ran_status_transfer *t);
void rs_gnb_ho_cancel_ack(struct rs_gnb *g, const struct ngap_handover_cancel_ack *k);
/* A UE CONTEXT RELEASE COMMAND for a handover context of g (the source after the notify, the
 * target before): answered and true; false when it is not one (gnb.c handles it). */
bool rs_n2ho_release_cmd(struct rs_gnb *g, const struct ngap_ue_context_release_command *c);
/* Source: a DL G-PDU (or End Marker) on gNB gi's TEID of ue, the whole datagram p: sent on to
 * the forwarding tunnel while forwarding (TEID rewritten in place); true when consumed. */
bool rs_n2ho_src_forward(struct ransim *rs, struct rs_ue *ue, unsigned gi, uint8_t *p, size_t len, bool end_marker);
/* Target: a G-PDU / End Marker on gNB gi's forwarding TEID of UE idx: counted, true when valid. */
bool rs_n2ho_fwd_arrived(struct ransim *rs, unsigned idx, unsigned gi, bool end_marker);
const char *rs_n2ho_state_name(unsigned st);
const char *rs_ho_mode_name(enum ransim_ho_mode m);
/* Stop the UEs' handover timers (ransim_free). */
void rs_n2ho_free(struct ransim *rs);

/* ---- ho_cont.c: the RAN transparent containers (TS 38.413 9.3.1.29-9.3.1.31) ---- */
struct rs_s2t {
	uint32_t ue_idx;           /* the simulator's UE index (AS context, see ho_cont.c) */
	uint8_t psi, qfi;
	bool dl_forwarding;        /* DL forwarding proposed for the flow */
	uint8_t plmn[3];
	uint64_t source_cell, target_cell; /* NR cell identities (36 bits) */
	uint32_t time_in_cell_s;
};
int rs_enc_s2t_container(const struct rs_s2t *s, uint8_t *out, size_t cap);
/* The UE index of a Source to Target container made by rs_enc_s2t_container, or -errno. */
int rs_dec_s2t_ue(const uint8_t *p, size_t n);
int rs_enc_t2s_container(uint8_t transaction, uint8_t *out, size_t cap);
int rs_enc_ran_status(uint32_t ul_count, uint32_t dl_count, uint8_t *out, size_t cap);

/* ---- gtpu.c ---- */
/* One datagram to addr:2152 from the N3 socket: 0 or -errno (-EAFNOSUPPORT: addr is not of
 * the socket's family). */
int rs_gtpu_send(struct ransim *rs, const struct rs_n3_addr *addr, const uint8_t *p, size_t len);
bool rs_n3_addr_eq(const struct rs_n3_addr *a, const struct rs_n3_addr *b);
/* The N3 address gNB g gives in its DL tunnels: --gnb-n3, else its SCTP IPv4 address. */
void rs_gnb_n3_addr(const struct rs_gnb *g, struct rs_n3_addr *out);
/* TS 38.413 9.3.2.4, TS 38.414 5.1: a as a TransportLayerAddress, 32 bits (IPv4) or 128 (IPv6). */
void rs_tla_put(const struct rs_n3_addr *a, struct ngap_gtp_tunnel *t);
/* The core's end of tunnel t for a gNB whose N3 is of family fam: 32 bits (IPv4), 128 (IPv6)
 * or 160 (IPv4 then IPv6, the part of fam taken). 0; -EAFNOSUPPORT: no address of fam (a
 * gNB of that family cannot use the tunnel); -EINVAL: another length, or an all-zero
 * address. *out is zeroed (family 0) on failure. */
int rs_tla_get(const struct ngap_gtp_tunnel *t, int fam, struct rs_n3_addr *out);
/* The family of the gNBs' N3 (AF_INET without --gnb-n3). */
int rs_n3_family(const struct ransim *rs);

/* ---- ue.c ---- */
void rs_ue_init(struct ransim *rs, struct rs_ue *ue, uint32_t idx);
/* Start the UE's plan (Registration Request in an Initial UE Message). */
void rs_ue_start(struct rs_ue *ue);
/* One downlink NAS PDU for this UE (from DL NAS Transport or ICS Request). */
void rs_ue_nas_rx(struct rs_ue *ue, const uint8_t *nas, size_t len);
/* UE Context Release Command for this UE. */
void rs_ue_release_cmd(struct rs_ue *ue);
/* The gNB's association went away: the UE's procedure is over. */
void rs_ue_assoc_lost(struct rs_ue *ue);
/* Initial Context Setup Request: check K_gNB (TS 33.501 A.9). */
void rs_ue_check_kgnb(struct rs_ue *ue, const uint8_t key[32]);
/* Reset an unfinished UE so that it can be started again (drop_assoc scenario). */
void rs_ue_reset(struct rs_ue *ue);
/* Record the first failure cause of the UE (later ones are ignored). */
void rs_ue_fail(struct rs_ue *ue, const char *cause);
const char *rs_ue_state_name(enum rs_ue_state s);

/* ue.c, shared with ue_sm.c */
int rs_ue_send_nas(struct rs_ue *ue, const struct nas_msg *m, uint8_t sht, bool initial, bool corrupt);
/* An encoded NAS PDU as it is, in an Initial UE Message or an Uplink NAS Transport. */
int rs_ue_send_nas_pdu(struct rs_ue *ue, const uint8_t *nas, size_t len, bool initial);
/* Deregistration Request (normal or switch-off) with the current context; the next state. */
enum rs_ue_state rs_ue_deregister(struct rs_ue *ue, enum ransim_dereg how);
void rs_ue_set_state(struct rs_ue *ue, enum rs_ue_state st);
void rs_ue_finish(struct rs_ue *ue);
/* The next step of the UE's plan once registered (or after a session step). */
enum rs_ue_state rs_ue_next_step(struct rs_ue *ue);

/* ---- ue_sm.c: PDU sessions and service request (TS 24.501 5.6.1, 6.4) ---- */
typedef enum rs_ue_state (*rs_ue_action)(struct rs_ue *ue, const struct nas_msg *m);
enum rs_ue_state rs_sm_establish(struct rs_ue *ue);
enum rs_ue_state rs_sm_release(struct rs_ue *ue);
/* UE Context Release Command in WAIT_IDLE during a cycle: Service Request. */
void rs_sm_service_request(struct rs_ue *ue);
/* The first message of the unknown_service plan. */
void rs_sm_unknown_service(struct rs_ue *ue);
enum rs_ue_state rs_sm_on_dl_nas(struct rs_ue *ue, const struct nas_msg *m);
enum rs_ue_state rs_sm_on_svc_accept(struct rs_ue *ue, const struct nas_msg *m);
enum rs_ue_state rs_sm_on_svc_reject(struct rs_ue *ue, const struct nas_msg *m);
/* PDU SESSION MODIFICATION COMMAND (rs->gsm, TS 24.501 6.3.2.3): the session-AMBR applied
 * and a COMPLETE sent, or a COMMAND REJECT #43 without such a session (6.3.2.4). */
void rs_sm_on_mod_command(struct rs_ue *ue);
/* PDU SESSION RELEASE COMMAND (rs->gsm): the UE-requested release's answer (6.4.3.3) or a
 * network-requested release (PTI 0, 6.3.3.2) in any state where the session exists, answered
 * with PDU SESSION RELEASE COMPLETE with the Command's PTI (6.3.3.3); cause #39 arms the
 * re-establishment. Returns the next state. */
enum rs_ue_state rs_sm_on_release_command(struct rs_ue *ue);
/* The network shows the UE's session inactive (PDU session status IE of a SERVICE ACCEPT or
 * REGISTRATION ACCEPT): local release without any signalling (TS 24.501 5.6.1.4.1,
 * 5.5.1.3.4), counted; a pending #39 re-establishment still follows. */
void rs_sm_local_release(struct rs_ue *ue);
/* The #39 re-establishment when one is due and the session is down (rs_ue_next_step runs it
 * first): the next state (WAIT_PDU_ACCEPT), or st when none is due. */
enum rs_ue_state rs_sm_reestablish_due(struct rs_ue *ue, enum rs_ue_state st);
/* gNB side: a PDU session item of a PDU Session Resource Setup / ICS Request (the Setup
 * Request Transfer checked: UPF N3 address, TEID, QFI); builds the Setup Response Transfer
 * (gNB DL TEID and address) into out. Returns its length or -errno (failure recorded). */
int rs_sm_setup_item(struct rs_ue *ue, const struct ngap_pdu_sess_item *it, uint8_t *out, size_t cap);

/* ---- ue_fo.c: the UE's side of an AMF failover (issue 20 item 4) ---- */
/* Its AMF is gone (gnb_amf.c): registration again through another AMF of the set. */
void rs_ue_fo_start(struct rs_ue *ue);
/* REGISTRATION ACCEPT of that registration (ue.c on_reg_accept): the next state. */
enum rs_ue_state rs_ue_fo_accept(struct rs_ue *ue, const struct nas_registration_accept *a);

/* ---- ue_mob.c: the UE's registration area (TS 24.501 5.3.4, 5.5.1.3) ---- */
/* The TAI list of a REGISTRATION ACCEPT taken (the serving PLMN's TAIs). */
void rs_ue_take_tai_list(struct rs_ue *ue, const struct nas_registration_accept *a);
/* ue is served by g now (a handover, Xn or N2, has completed): when g's TAI is not in the
 * UE's TAI list, REGISTRATION REQUEST "mobility updating" over g (TS 24.501 5.5.1.3.2 a).
 * 0, 1 when one was sent, or -errno. */
int rs_ue_cell_changed(struct rs_ue *ue, struct rs_gnb *g);
/* REGISTRATION ACCEPT / REJECT of that mobility registration (ue.c's table, REGISTERED). */
enum rs_ue_state rs_ue_on_mob_accept(struct rs_ue *ue, const struct nas_msg *m);
enum rs_ue_state rs_ue_on_mob_reject(struct rs_ue *ue, const struct nas_msg *m);

/* ---- ue_nas.c ---- */
/* Encode m for ue: plain (sht 0) or protected (2 / 4) with the current context. Returns the
 * length in out or -errno. corrupt_mac: flip MAC bits (and do not advance the COUNT). */
int rs_nas_wrap(struct rs_ue *ue, const struct nas_msg *m, uint8_t sht, uint8_t *out, size_t cap,
		bool corrupt_mac);
/* Unprotect and decode a downlink NAS PDU into *m (pointing into rs scratch or nas).
 * 0; -EBADMSG undecodable; -EACCES MAC failure (counted, drop); -EPERM unprotected
 * message not allowed once security is on. */
int rs_nas_unwrap(struct rs_ue *ue, const uint8_t *nas, size_t len, struct nas_msg *m);
/* Build the UE's mobile identity for a Registration Request / Identity Response. */
int rs_nas_suci(struct rs_ue *ue, struct nas_mobile_id *id);

/* ---- n2_guess.c: --ps-guess (issue 31) ---- */
/* UE 0 registered: its gNB sends the PATH SWITCH REQUEST guesses (once). */
void rs_guess_fire(struct rs_ue *ue);
/* An answer to a guess (ERROR INDICATION / PATH SWITCH outcome on a guess's RAN UE NGAP
 * ID): counted, true; anything else false. */
bool rs_guess_answer(struct rs_gnb *g, const struct ngap_msg *m);

/* ---- adv.c: the adversary (issue 13 item 4): UE 0 is the victim, one forger UE ---- */
/* Set up rs->adv for cfg.attack (0; -EINVAL for an unknown attack, -ENOMEM). */
int rs_adv_new(struct ransim *rs);
void rs_adv_free(struct ransim *rs);
/* The attack is over and the victim has finished (ransim_done()). */
bool rs_adv_done(const struct ransim *rs);
/* The forger when it holds ran_id on g, else NULL (gnb.c routing). */
struct rs_ue *rs_adv_forger(struct ransim *rs, const struct rs_gnb *g, uint32_t ran_id);
/* A downlink NAS PDU / a UE Context Release Command for the forger. */
void rs_adv_forger_nas(struct rs_ue *f, const uint8_t *nas, size_t len);
void rs_adv_forger_release(struct rs_ue *f);
/* A UE Context Release Command for the victim (counted while the attack runs). */
void rs_adv_victim_release(struct rs_ue *ue);
/* The victim's plan after each step (replaces rs_ue_next_step's plan). */
enum rs_ue_state rs_adv_victim_next(struct rs_ue *ue);
/* Every uplink NAS PDU of the victim as sent (kept for the replays). */
void rs_adv_capture(struct rs_ue *ue, uint8_t type, const uint8_t *nas, size_t len);
void rs_adv_report(const struct ransim *rs, FILE *out);

/* The handover observer, if any (struct rs_ho_obs). */
#define RS_HO_NOTE(rs, ue, ev, gnb) \
	do { \
		if ((rs)->ho_obs.fn) \
			(rs)->ho_obs.fn((rs)->ho_obs.arg, (ue), (ev), (gnb)); \
	} while (0)

/* ---- stats.c ---- */
void rs_count_ngap(struct ransim *rs, int dir, const uint8_t *buf, size_t len);
/* The QoS-change counters and last values: "key value" lines, or JSON members each
 * followed by a comma (ransim_report, load_report). */
void rs_qos_report(const struct ransim *rs, bool json, FILE *out);
/* The Xn handover counters, per-gNB G-PDUs and End Markers (and, as text, a ue_ho line per
 * UE that moved): "key value" lines, or JSON members each followed by a comma. */
void rs_ho_report(const struct ransim *rs, bool json, FILE *out);
void rs_cause_add(struct ransim *rs, const char *cause);
void rs_proc_start(struct rs_ue *ue, enum ransim_proc p);
void rs_proc_done(struct rs_ue *ue, enum ransim_proc p);
/* The scheduler: start UEs while below the concurrency limit. */
void rs_schedule(struct ransim *rs);
/* A UE finished (DONE): account and schedule the next one. */
void rs_ue_finished(struct rs_ue *ue);
uint64_t rs_now_ns(void);

#endif
