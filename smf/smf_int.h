/* SPDX-License-Identifier: AGPL-3.0-or-later */
/* smf internals: shared by the files of smf/ only. */
#ifndef SOLOCORE_SMF_SMF_INT_H
#define SOLOCORE_SMF_SMF_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "common/conf.h"
#include "common/ev.h"
#include "common/log.h"
#include "common/nas/nas.h"
#include "smf/smf.h"

#define MOD "smf"
#define SMF_NONE UINT32_MAX
#define SMF_QFI_DEFAULT 1          /* QFI of the default QoS flow */
#define SMF_QOS_RULE_DEFAULT 1     /* id of the default QoS rule */
#define SMF_CAUSE_MAX_SESSIONS 65  /* TS 24.501 9.11.4.2: maximum number of PDU sessions reached */
/* TS 24.501 9.11.4.2 causes of PDU session modification reject (6.4.2.4) not named in common/nas */
#define SMF_CAUSE_QOS_NOT_ACCEPTED 37   /* 5GS QoS not accepted */
#define SMF_CAUSE_QOS_SEMANTIC 83       /* semantic error in the QoS operation */
#define SMF_CAUSE_QOS_SYNTAX 84         /* syntactical error in the QoS operation */
#define SMF_MAX_ALLOWED_NSSAI 8         /* TS 24.501 9.11.3.37: up to 8 S-NSSAIs */

/* ---- IP pools (smf_pool.c) ---- */
struct smf_pool {
	uint32_t base;             /* host order, network address of the prefix */
	uint32_t size;             /* addresses in the prefix */
	uint32_t first, limit;     /* offsets handed out: first..limit-1 */
	uint8_t prefix6[8];        /* IPv6 pools (smf_pool6_*): the pool's first /64 */
	uint32_t hwm;              /* next never-used offset (starts at first: .0 is the network) */
	uint32_t *stack;           /* freed offsets, LIFO */
	uint32_t n_stack, cap_stack;
	uint64_t *inuse;           /* one bit per offset */
	uint32_t used;
};
int smf_pool_init(struct smf_pool *p, const char *cidr, uint32_t max_alloc);
void smf_pool_fini(struct smf_pool *p);
/* Network-order address, or 0 when exhausted. O(1). */
uint32_t smf_pool_alloc(struct smf_pool *p);
/* -EINVAL if not from this pool or not in use. O(1). */
int smf_pool_free(struct smf_pool *p, uint32_t addr);
/* IPv6: a pool of /64s ("x::/len", 48 <= len <= 64; TS 23.501 5.8.2.2.1 one /64 per
 * session), the same O(1) allocator. A /64 is its first 8 octets. */
int smf_pool6_init(struct smf_pool *p, const char *cidr6, uint32_t max_alloc);
int smf_pool6_alloc(struct smf_pool *p, uint8_t pfx[8]);   /* 0 or -ENOSPC */
int smf_pool6_free(struct smf_pool *p, const uint8_t pfx[8]);
/* The DNS servers of dnns[d], IPv4 and IPv6 apart (smf.c) */
void smf_parse_dns(struct smf *smf, unsigned d);
/* Index in dnns[0..n) of the DNN called name (TS 23.003 9.1: DNNs compare
 * case-insensitively), or -1. For the running list and for a proposed one. */
int smf_dnn_find(const struct conf_dnn *dnns, unsigned n, const char *name);

/* ---- FSM (smf_fsm.c) ---- */
enum smf_event {
	SMF_EV_EST_REQ = 0,        /* PDU SESSION ESTABLISHMENT REQUEST (accepted checks) */
	SMF_EV_N2_SETUP_OK,        /* Setup Response Transfer */
	SMF_EV_N2_SETUP_FAIL,      /* Setup Unsuccessful Transfer */
	SMF_EV_REL_REQ,            /* PDU SESSION RELEASE REQUEST */
	SMF_EV_NET_REL,            /* network-requested release */
	SMF_EV_REL_CPL,            /* PDU SESSION RELEASE COMPLETE */
	SMF_EV_N2_REL_RSP,         /* Release Response Transfer */
	SMF_EV_NET_MOD,            /* network-requested modification */
	SMF_EV_MOD_CPL,            /* PDU SESSION MODIFICATION COMPLETE */
	SMF_EV_MOD_CMD_REJ,        /* PDU SESSION MODIFICATION COMMAND REJECT */
	SMF_EV_N2_MOD_RSP,         /* Modify Response / Unsuccessful Transfer */
	SMF_EV_UP_DEACT,           /* AN release */
	SMF_EV_UP_REACT,           /* service request */
	SMF_EV_T3591,              /* expiry */
	SMF_EV_T3592,
	SMF_EV_STATUS_ABORT,       /* 5GSM STATUS from the UE aborting the running procedure */
	SMF_EV_LOCAL_REL,          /* local release (deregistration, status sync, #43) */
	SMF_EV_N2_MOD_IND,         /* Modify Indication Transfer: new gNB DL tunnel */
	SMF_EV_N2_PATH_SWITCH,     /* Path Switch Request Transfer: the target gNB's DL tunnel (smf_mob.c) */
	/* N2 handover (smf_ho.c, TS 23.502 4.9.1.3): ACTIVE only, the guard also in MODIFICATION_PENDING */
	SMF_EV_N2_HO_PREP,         /* Handover Required Transfer: the session goes into a handover */
	SMF_EV_N2_HO_ADMIT,        /* Handover Request Acknowledge Transfer: the target's tunnels */
	SMF_EV_N2_HO_NOTIFY,       /* HANDOVER NOTIFY: the downlink moves to the target */
	SMF_EV_HO_CANCEL,          /* cancelled / failed / not admitted before the notify */
	SMF_EV_HO_FWD_END,         /* source released (smf_ho_end) or the forwarding guard expired */
	/* N4 (issue 32, TS 23.502 4.3.2.2.1 step 10b): the UPF's Session Establishment Response */
	SMF_EV_N4_EST_OK,          /* accepted: the F-TEID in c->n4 */
	SMF_EV_N4_EST_FAIL,        /* refused or unanswered (c->n4) */
	SMF_EV__MAX
};

enum smf_up { SMF_UP_NONE = 0, SMF_UP_PENDING, SMF_UP_ACTIVE, SMF_UP_INACTIVE };

struct smf_sess {
	uint32_t ue;               /* index in smf->ues */
	uint32_t next_free;
	uint8_t in_use;
	uint8_t psi, pti;
	uint8_t state;             /* enum smf_state */
	uint8_t up;                /* enum smf_up */
	uint8_t dnn;               /* index in conf->dnns */
	uint8_t pdu_type, pdu_cause; /* granted type; cause #50 when narrowed */
	uint8_t five_qi, arp;
	uint8_t rel_cause;         /* 5GSM cause of the running release */
	uint8_t retx;
	uint8_t rel_n1_done, rel_n2_done, rel_n2_wait, rel_net;
	uint8_t mod_n2_wait;
	uint8_t upf_installed;
	uint8_t upf;               /* index in smf->upfs (when n_upfs) */
	uint8_t ambr_stale;        /* a subscription change skipped it: retried once ACTIVE (smf_policy.c) */
	/* N2 handover sub-state (smf_ho.c), written by the SMF_EV_*HO* actions only */
	uint8_t ho;                /* enum smf_ho_state */
	uint8_t ho_direct;         /* direct forwarding path available (Handover Required) */
	uint8_t ho_fwd;            /* an indirect forwarding tunnel UPF_FWD_TEID(slot) is in place */
	uint8_t ho_fwd_prep;       /* its F-TEID asked of the UPF at the preparation (upf_fwd_prepare) */
	uint32_t ho_gnb_addr, ho_gnb_teid; /* the target's DL tunnel (network / host order) until the notify */
	uint8_t ho_gnb_addr6[16];  /* ... its IPv6 when ho_gnb_addr is 0 */
	struct ngap_snssai snssai;
	uint32_t ue_addr;          /* network order; 0: none (IPv6 session) */
	uint8_t pfx6[8];           /* IPv6 / IPv4v6: the session's /64 (TS 23.501 5.8.2.2.1) */
	uint8_t iid[8];            /* ... and the interface identifier we gave (9.11.4.10) */
	uint8_t nat;               /* its DNN's nat at establishment: fixed for its life */
	/* What the accept answers of the request (SMF_EST_*, smf_msg_est_flags): kept for an accept
	 * sent after the N4 answer (SMF_ST_N4_PENDING) */
	uint8_t est_flags;
	uint32_t teid;             /* the UL F-TEID on the UPF: slot + 1 in process, the one the N4
				    * answer gave over PFCP (CHOOSE or upf_n4c_cp_teid) */
	uint32_t n3_addr;          /* ... its IPv4 (network order); 0: the UPF's (smf_sess_n3) */
	uint32_t gnb_addr, gnb_teid; /* network order / host order */
	uint8_t gnb_addr6[16];     /* gnb_addr 0: the gNB's N3 end is IPv6 (smf_tunnel_gnb) */
	uint64_t ambr_ul, ambr_dl, new_ambr_ul, new_ambr_dl;
	struct ev_timer timer;     /* T3591 or T3592 */
	struct ev_timer ho_timer;  /* guard of the indirect forwarding tunnel (smf_ho.c) */
	struct smf *smf;
};

struct smf_ue {
	void *cookie;
	uint32_t next_free;
	uint8_t in_use;
	char supi[24];
	uint32_t sess[SMF_PSI_MAX + 1]; /* slot per PSI, SMF_NONE when absent */
	uint8_t n_sess;
	uint8_t n_allowed;              /* Allowed NSSAI from the AMF (smf_ue_set_allowed_nssai); 0: not given */
	struct ngap_snssai allowed[SMF_MAX_ALLOWED_NSSAI];
};

struct smf {
	struct smf_params p;
	/* The DNNs and slices it serves: its own copy (smf_new, smf_dnns_replace, smf_set_slices),
	 * so a live settings change reaches it through a setter, never through a shared struct.
	 * A session refers to its DNN by index here. */
	struct conf_dnn dnns[CONF_MAX_DNNS];
	unsigned n_dnns;
	struct conf_slice slices[CONF_MAX_SLICES];
	unsigned n_slices;
	struct upf *upf;
	/* smf_upf.c: the UPFs sessions are placed on; none: upf above */
	struct smf_upf_ent {
		struct upf *u;
		char name[32];
		uint32_t dnn_mask;         /* bit d: dnns[d]; 0: every DNN */
		struct ngap_snssai slices[CONF_MAX_SLICES];
		uint8_t n_slices;          /* 0: every slice */
	} upfs[SMF_UPF_MAX];
	uint8_t n_upfs, upf_rr;
	/* TS 24.501 6.4.1.4.2: the T3396 value (s) sent with #26 when no ready UPF serves an
	 * establishment (conf upf.no_upf_backoff; 0: no Back-off timer value IE), so a UE whose
	 * session the UPF's loss released does not try again at once (issue 32) */
	uint32_t no_upf_backoff_s;
	struct smf_pool pools[CONF_MAX_DNNS];
	struct smf_pool pools6[CONF_MAX_DNNS];     /* size 0: the DNN has no pool6 */
	uint32_t dns[CONF_MAX_DNNS][CONF_MAX_DNS]; /* network order, IPv4 ones */
	uint8_t n_dns[CONF_MAX_DNNS];
	uint8_t dns6[CONF_MAX_DNNS][CONF_MAX_DNS][16];
	uint8_t n_dns6[CONF_MAX_DNNS];
	struct smf_sess *sess;
	uint32_t n_sess, sess_free, sess_hwm;
	struct smf_ue *ues;
	uint32_t n_ues, ue_free, ue_hwm;
	uint32_t t3591_ms, t3592_ms;
	uint32_t ho_fwd_guard_ms;
	uint8_t max_retx, max_per_ue;
	struct smf_stats st;
	uint8_t scratch_n1[SMF_N1_MAX];    /* for ops.send */
	uint8_t scratch_n2[SMF_N2_MAX];
	/* ev_now_ns() at each slot's PDU SESSION ESTABLISHMENT REQUEST (n_sess entries; the
	 * start of the setup latency, hist_add) */
	uint64_t *setup_t0;
	/* UPF counters of sessions already removed (smf_upf_totals adds the live ones) */
	struct smf_upf_totals retired;
};

/* An event with its input and output. */
struct smf_ev_ctx {
	struct smf_out *out;       /* may be NULL for events that send nothing */
	const struct nas_msg *msg; /* the 5GSM message, when there is one */
	uint8_t cause;
	const void *n2;            /* decoded transfer */
	const struct upf_est_result *n4; /* SMF_EV_N4_EST_*: the UPF's answer */
	int rc;                    /* result of the action for the caller */
};

int smf_fsm_dispatch(struct smf *smf, struct smf_sess *s, enum smf_event ev, struct smf_ev_ctx *c);
const char *smf_event_name(unsigned ev);
void smf_timer_cb(struct ev_loop *loop, struct ev_timer *t);
/* Action of SMF_EV_N2_PATH_SWITCH (smf_mob.c). */
int smf_a_path_switch(struct smf *smf, struct smf_sess *s, struct smf_ev_ctx *c);
/* Actions of the N2 handover events (smf_ho.c). */
int smf_a_ho_prep(struct smf *smf, struct smf_sess *s, struct smf_ev_ctx *c);
int smf_a_ho_admit(struct smf *smf, struct smf_sess *s, struct smf_ev_ctx *c);
int smf_a_ho_notify(struct smf *smf, struct smf_sess *s, struct smf_ev_ctx *c);
int smf_a_ho_cancel(struct smf *smf, struct smf_sess *s, struct smf_ev_ctx *c);
int smf_a_ho_fwd_end(struct smf *smf, struct smf_sess *s, struct smf_ev_ctx *c);
/* The dispatcher's on-enter step: a session entering a release, or whose user plane is no longer
 * active, leaves its handover and loses its forwarding tunnel (smf_ho.c). */
void smf_ho_leave(struct smf *smf, struct smf_sess *s);
void smf_ho_timer_cb(struct ev_loop *loop, struct ev_timer *t);
/* Shared by the Xn and N2 handover answers (smf_mob.c): the NGAP cause for an -errno, and a {cause}
 * transfer (9.3.4.14, 9.3.4.15, 9.3.4.18) of kind proc in out (n2_len 0 when it does not fit). */
struct ngap_cause smf_ho_cause_of(int rc);
void smf_msg_cause_transfer(uint8_t psi, const struct ngap_cause *cause, uint8_t proc, struct smf_out *out);
/* The TEID of a decoded GTP tunnel, host order. */
static inline uint32_t smf_tunnel_teid(const struct ngap_gtp_tunnel *t)
{
	return (uint32_t)t->teid[0] << 24 | (uint32_t)t->teid[1] << 16 | (uint32_t)t->teid[2] << 8 | t->teid[3];
}

/* ---- sessions (smf.c) ---- */
struct smf_sess *smf_sess_get(const struct smf *smf, const struct smf_ue *ue, uint8_t psi);
struct smf_sess *smf_sess_alloc(struct smf *smf, struct smf_ue *ue, uint8_t psi);
/* Remove UPF rules, free address, TEID and slot; state INACTIVE. */
void smf_sess_free(struct smf *smf, struct smf_sess *s);
struct smf_ue *smf_sess_ue(const struct smf *smf, const struct smf_sess *s);
/* UPF rule install / update from the session's state. */
int smf_upf_apply(struct smf *smf, struct smf_sess *s);
/* smf_upf.c: the session's UPF (NULL: none attached) and its N3 address (network order). */
struct upf *smf_sess_upf(const struct smf *smf, const struct smf_sess *s);
uint32_t smf_sess_n3(const struct smf *smf, const struct smf_sess *s);
/* ... and its N3 IPv6 (16 octets), NULL without one (PFCP peers: IPv4 only). */
const uint8_t *smf_sess_n3_6(const struct smf *smf, const struct smf_sess *s);
/* The gNB end of a DL tunnel t as the session's UPF can use it (TS 38.414 5.1, TS 38.413
 * 9.3.2.4: 32 bits IPv4, 128 IPv6, 160 both): IPv4 when the gNB gives one (0.0.0.0 is none),
 * else its IPv6 when our N3 has IPv6. 0 with *v4 (network order) or v6 set (the other
 * zeroed), -EAFNOSUPPORT when no family is common. */
int smf_tunnel_gnb(const struct smf *smf, const struct smf_sess *s, const struct ngap_gtp_tunnel *t,
		   uint32_t *v4, uint8_t v6[16]);
/* A ready UPF for a new session of DNN index dnn and slice: its index, or -ENODEV. */
int smf_upf_pick(struct smf *smf, unsigned dnn, const struct ngap_snssai *snssai);
/* s (with ambr_stale) has just entered ACTIVE: retry its session-AMBR on its timer, outside
 * the message being handled (smf_policy.c). */
void smf_policy_retry_arm(struct smf *smf, struct smf_sess *s);
/* Its timer fired in ACTIVE: the retry itself. */
void smf_policy_retry(struct smf *smf, struct smf_sess *s);
/* Hand an SMF-initiated output to the AMF. */
int smf_send(struct smf *smf, struct smf_sess *s, const struct smf_out *o);
/* Log with the per-session prefix "ue=<supi> psi=N sm{STATE}". */
void smf_slog(enum log_level lvl, const struct smf *smf, const struct smf_sess *s, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* ---- messages (smf_msg.c) ---- */
/* Encode into out->n1 / out->n2; each 0 or -ENOSPC / -EINVAL. */
/* What of the request the accept answers (always-on, ePCO DNS / MTU): into s->est_flags. */
enum { SMF_EST_ALWAYS_ON = 1, SMF_EST_DNS4 = 2, SMF_EST_DNS6 = 4, SMF_EST_MTU = 8 };
uint8_t smf_msg_est_flags(const struct nas_msg *req);
int smf_msg_est_accept(struct smf *smf, const struct smf_sess *s, struct smf_out *out);
int smf_msg_est_reject(struct smf_out *out, uint8_t psi, uint8_t pti, uint8_t cause);
/* ... with the Back-off timer value IE (TS 24.501 8.3.3.1, 9.11.2.5 GPRS timer 3): T3396 of
 * backoff_s seconds (6.4.1.4.2) */
int smf_msg_est_reject_backoff(struct smf_out *out, uint8_t psi, uint8_t pti, uint8_t cause, uint32_t backoff_s);
int smf_msg_setup_transfer(struct smf *smf, const struct smf_sess *s, struct smf_out *out);
int smf_msg_rel_command(const struct smf_sess *s, uint8_t pti, struct smf_out *out);
int smf_msg_rel_reject(struct smf_out *out, uint8_t psi, uint8_t pti, uint8_t cause);
int smf_msg_rel_transfer(const struct smf_sess *s, struct smf_out *out);
int smf_msg_mod_command(const struct smf_sess *s, struct smf_out *out); /* PTI s->pti */
int smf_msg_mod_reject(struct smf_out *out, uint8_t psi, uint8_t pti, uint8_t cause);
int smf_msg_mod_transfer(const struct smf_sess *s, struct smf_out *out);
int smf_msg_status(struct smf_out *out, uint8_t psi, uint8_t pti, uint8_t cause);
/* TS 38.413 9.3.4.7 / 9.3.4.x: the answer to a Modify Indication Transfer */
int smf_msg_mod_confirm(struct smf *smf, const struct smf_sess *s, const struct ngap_modify_indication_transfer *in,
			struct smf_out *out);
int smf_msg_mod_ind_fail(const struct smf_sess *s, struct smf_out *out);
void smf_nas_ambr(uint64_t bps, uint8_t *unit, uint16_t *val);
/* A GTP tunnel (TS 38.413 9.3.2.2) {addr_n (network order), teid (host order)}: 32 bits, or
 * with addr6 (16 octets) 160 bits, IPv4 then IPv6 (9.3.2.4), the gNB picks its family. */
void smf_msg_tunnel(struct ngap_gtp_tunnel *t, uint32_t addr_n, const uint8_t *addr6, uint32_t teid);

#endif
