/* SPDX-License-Identifier: AGPL-3.0-or-later */
/* upf_n4 internals: shared by upf_n4*.c only. */
#ifndef SOLOCORE_UPF_UPF_N4_INT_H
#define SOLOCORE_UPF_UPF_N4_INT_H

#include <netinet/in.h>

#include "common/pfcp/pfcp.h"
#include "upf/upf.h"
#include "common/ev.h"
#include "upf/upf_n4.h"

#define N4_MOD "upf-n4"
/* Transaction cache (TS 29.244 6.4): one direct-mapped region per association and one for
 * senders without one, so no other peer's traffic can evict an association's answers. */
#define N4_TXN_PER_PEER 1024       /* power of two: a region is direct-mapped by sequence number */
#define N4_TXN_SLOTS ((UPF_N4_PEER_MAX + 1) * N4_TXN_PER_PEER)
#define N4_RND_BATCH 256           /* random words per getrandom() call */
#define N4_TXN_RSP_MAX 512         /* longest response kept for duplicates */
#define N4_OUT_MAX 2048            /* our longest message (a deletion response with reports) */
/* Session Report Requests awaiting their response (6.4), with their bytes: 565 KB. Usage
 * reports of many sessions come in bursts at the N4 tick: 1,024 a tick (about 1,365 a second
 * at the default T1) before the CP's answers free their places. */
#define N4_REPORT_MAX 1024
#define N4_REPORT_BYTES 512        /* a Session Report Request with N4_URR_MAX usage reports */
/* Sessions the N4 tick reads the counters of for URR reports (5.2.2): a read is ~11-16 ns
 * (mmap'ed counters, upf_session_stats), so about 1 ms a tick for this many */
#define N4_URR_SWEEP 65536
#define N4_T1_MS 3000              /* TS 29.244 6.4: T1 and N1 are operator settings; the usual values */
#define N4_N1 3
#define N4_HEARTBEAT_MS 10000
#define N4_RELEASE_MS 60000
#define N4_NONE UINT32_MAX
#define NTP_UNIX_OFFSET 2208988800u /* 1900-01-01 to 1970-01-01, RFC 5905 */

/* One association state machine per peer slot (TS 29.244 6.2.6) */
enum n4_as_state { N4_AS_IDLE = 0, N4_AS_ASSOCIATED, N4_AS__MAX };
enum n4_as_event {
	N4_EV_SETUP = 0, N4_EV_UPDATE, N4_EV_RELEASE, N4_EV_SESSION,
	N4_EV_PEER_RESTART,        /* a new Recovery Time Stamp, confirmed by our own heartbeat */
	N4_EV_SETUP_FOREIGN,       /* a Setup for this Node ID from another address than the bound one */
	N4_EV_EXPIRE,              /* no heartbeat answered for release_ms */
	N4_EV__MAX
};

struct n4_peer {
	enum n4_as_state state;
	struct pfcp_node_id node;  /* fqdn points into peer-owned copy below */
	uint8_t fqdn[255];          /* 8.2.38: at most 255 octets */
	uint32_t addr;             /* where its requests come from, network order */
	uint16_t port;             /* host order */
	uint32_t recovery;
	uint32_t n_sess;
	/* our heartbeats to it (6.2.2): the one outstanding, and when the next goes */
	uint32_t hb_seq;           /* 0: none outstanding */
	uint8_t hb_tries;
	bool unreachable;          /* the last one went unanswered */
	/* a Heartbeat Request with another Recovery Time Stamp: our own heartbeat asks the
	 * bound peer before anything is purged (a spoofed one is not confirmed) */
	bool restart_check;
	uint64_t hb_at_ns, hb_next_ns;
	uint64_t unreach_ns;       /* when it became unreachable: released after release_ms */
};

struct n4_txn {
	uint32_t addr;
	uint16_t port;
	uint16_t len;              /* 0: empty */
	uint32_t seq;
	uint32_t req_hash;         /* of the request: a duplicate is the same bytes (6.4) */
	uint8_t type;
	uint64_t at_ns;
	uint8_t rsp[N4_TXN_RSP_MAX];
};

/* Rules per session beyond the one UL / one DL PDR (issue 32): free5GC puts a flow QER and
 * the session-AMBR QER, and two URRs, on each PDR. */
#define N4_QER_MAX 2
#define N4_URR_MAX 2
enum { N4_UL = 1, N4_DL = 2 };   /* which of the two data path PDRs carry a QER / URR */

/* A QER as created / last updated: 8.2.8 MBR in kbps (40 bits on the wire; held up to
 * UINT32_MAX, 4.29 Tbit/s, above which nothing is policed in practice); 0: none */
struct n4_qer {
	uint32_t id;
	uint32_t mbr_ul_kbps, mbr_dl_kbps;
	uint8_t pdrs;              /* N4_UL | N4_DL */
	uint8_t qfi;               /* 0: the QER carries none */
};

/* A URR (TS 29.244 5.2.2, upf_n4_urr.c): volume and / or duration measured from the data
 * path's per-session counters of the PDRs that carry it; the current measurement started at
 * start_ntp (its Start Time, 8.2.83; NTP seconds from the monotonic clock, upf_n4_urr.c
 * ntp_at) with the counters at base[] */
enum { N4_B_ULB, N4_B_DLB, N4_B_ULP, N4_B_DLP, N4_B__MAX };
struct n4_urr {
	uint32_t id;
	uint8_t pdrs;              /* N4_UL | N4_DL */
	uint8_t method;            /* PFCP_MM_VOLUM | PFCP_MM_DURAT (8.2.40) */
	uint8_t thresh_flags;      /* PFCP_VOL_TOVOL / ULVOL / DLVOL of the Volume Threshold (8.2.13) */
	bool fresh;                /* created in the modification being handled: starts once accepted */
	uint32_t triggers;         /* PFCP_RT_* (8.2.19) */
	uint32_t period_s;         /* Measurement Period (8.2.18, PERIO); 0: none */
	uint32_t time_thresh_s;    /* Time Threshold (8.2.14, TIMTH); 0: none */
	uint32_t start_ntp;
	uint32_t seqn;             /* UR-SEQN of its next report (8.2.54) */
	uint32_t next_perio;       /* NTP seconds of the next periodic report; 0: none */
	uint64_t thresh[3];        /* total, UL, DL octets, as thresh_flags says */
	uint64_t base[N4_B__MAX];  /* the session's counters when this measurement started */
	/* Volume Quota (8.2.50) / Time Quota (8.2.51), 5.2.2.2: measured from when it was
	 * provisioned (qbase: UL, DL octets then; qstart_ntp), not from the last report; at the
	 * quota the PDRs carrying it drop (quota_hit, n4_sess.quota_drop) until a new quota */
	uint8_t quota_flags;       /* PFCP_VOL_TOVOL / ULVOL / DLVOL of the Volume Quota; 0: none */
	bool quota_hit;
	bool quota_new;            /* provisioned in the modification being handled: starts once accepted */
	uint32_t time_quota_s;     /* 0: none */
	uint32_t qstart_ntp;
	uint64_t quota[3];
	uint64_t qbase[2];
};

/* One PFCP session = one data path session (same id) */
struct n4_sess {
	bool used;
	bool nocp;                 /* downlink FAR BUFF + NOCP: report downlink data (8.2.26) */
	bool reported;             /* a report was sent since the last BUFF */
	bool watched;              /* on the list of sessions the URR sweep reads (upf_n4_urr.c) */
	bool failed;               /* fail names the rule a refusal is about (8.2.80, with cause 73) */
	uint8_t fteid_flags;       /* CHOOSE: the families of the F-TEID we allocated (8.2.3 V4 / V6) */
	uint8_t cp2up_families;    /* the same for the cp2up PDR's */
	uint8_t peer;
	uint8_t n_qer, n_urr;
	/* N4_UL | N4_DL: the direction's FAR is DROP (8.2.26) / a URR of its PDR reached its
	 * quota (5.2.2.2); either sets r.ul_drop / r.dl_drop (n4_drop_sync) */
	uint8_t far_drop, quota_drop;
	uint16_t ul_pdr, dl_pdr;   /* PDR IDs (0: none) */
	/* Open5GS's auxiliary PDRs (upf_n4_rule.c): up2cp (Access, the UL PDR's TEID, the RS
	 * filter) and cp2up (Source Interface CP-function, TEID n4_cp2up_teid()); 0: none */
	uint16_t up2cp_pdr, cp2up_pdr;
	uint32_t up2cp_far;
	uint32_t ul_far, dl_far;   /* rule IDs (0: none) */
	/* the indirect forwarding tunnel (upf_n4_fwd.c): its PDR and FAR IDs (0: none), its
	 * target (the data path's tunnel, upf_fwd_create; 0: none, DROP) */
	uint16_t fwd_pdr;
	uint32_t fwd_far;
	uint32_t fwd_addr, fwd_teid;
	struct n4_qer qers[N4_QER_MAX];
	struct n4_urr urrs[N4_URR_MAX];
	uint32_t tag;              /* random at each use, never 0: the UP SEID's high half (5.2) */
	uint32_t next_free;
	uint64_t cp_seid;
	uint32_t cp_addr;          /* CP F-SEID IPv4 (network order) */
	uint32_t w_next, w_prev;   /* that list's links */
	struct pfcp_rule_id fail;
	struct upf_session_rule r;
};

/* The data path's drop of each direction: its FAR DROP or a quota reached (upf.h ul_drop) */
static inline void n4_drop_sync(struct n4_sess *s)
{
	s->r.ul_drop = ((s->far_drop | s->quota_drop) & N4_UL) != 0;
	s->r.dl_drop = ((s->far_drop | s->quota_drop) & N4_DL) != 0;
}

struct n4_report {
	uint32_t seq;              /* 0: free (we never use 0) */
	uint32_t sess;
	uint32_t addr;             /* the CP it went to: only its answer counts */
	uint64_t cp_seid;          /* the session it reports on (the slot may be reused) */
	uint64_t at_ns;            /* last sent */
	uint8_t tries;             /* retransmissions so far */
	/* A usage report (USAR, 7.5.8.3): the request's bytes, re-sent as they were (6.4); 0: a
	 * Downlink Data Report, rebuilt from the session */
	uint16_t len;
	uint8_t bytes[N4_REPORT_BYTES];
};

struct upf_n4 {
	struct upf_n4_params p;
	int fd;
	uint32_t recovery;
	uint32_t next_seq;         /* our requests: 1..PFCP_SEQ_MAX */
	struct n4_peer peers[UPF_N4_PEER_MAX];
	uint32_t n_assoc;
	struct n4_sess *sess;      /* p.max_sessions */
	uint32_t free_head;
	/* Slots never used yet: fresh..max_sessions-1, not chained, so the table's pages stay
	 * untouched (not resident) until sessions reach them. */
	uint32_t fresh;
	uint32_t n_sess;
	struct n4_txn *txn;        /* N4_TXN_SLOTS */
	struct n4_report reports[N4_REPORT_MAX];
	struct ev_timer retx_timer;   /* with a loop: upf_n4_tick every T1 / 4 */
	uint64_t *teid_used;       /* bitmap of uplink TEIDs 0..max_teid our sessions hold */
	/* The sessions with a URR that reports on its own (PERIO / VOLTH / TIMTH), linked through
	 * their slots, and where the sweep goes on (upf_n4_urr.c) */
	uint32_t w_head, w_cursor, n_watch;
	uint32_t ntp0;             /* NTP seconds at mono0_ns: Start / End Times (8.2.83 / 8.2.84) */
	uint64_t mono0_ns;
	uint32_t rnd[N4_RND_BATCH];
	unsigned rnd_left;
	struct upf_n4_prefix allow[UPF_N4_ALLOW_MAX];
	uint64_t cnt[UPF_N4__MAX];
	/* the message being handled, its answer (one each: 16.5 KB, pfcp.h) */
	struct pfcp_msg in, out;
	uint32_t from_addr;        /* sender of the message being handled */
	uint32_t in_hash;          /* hash_fnv1a of its bytes */
	uint16_t from_port;
	uint8_t obuf[N4_OUT_MAX];
};

/* upf_n4.c */
uint64_t n4_now_ns(const struct upf_n4 *n);
/* A word from the CSPRNG (getrandom, N4_RND_BATCH at a time) */
uint32_t n4_rand32(struct upf_n4 *n);
/* Forget the cached answers of association slot peer (it was released) */
void n4_txn_clear_peer(struct upf_n4 *n, int peer);
/* Encode n->out and send it to addr:port; the bytes or -errno. */
int n4_send_out(struct upf_n4 *n, uint32_t addr, uint16_t port);
void n4_rsp_init(struct upf_n4 *n, uint8_t type, uint64_t seid);
void n4_own_node_id(const struct upf_n4 *n, struct pfcp_node_id *id);

/* upf_n4_node.c: node messages, through the association table */
void n4_node_rx(struct upf_n4 *n);
/* Our heartbeats: send / retransmit what is due (upf_n4_tick); the answer to one. */
int n4_heartbeat_tick(struct upf_n4 *n, uint64_t now_ns);
void n4_heartbeat_rsp(struct upf_n4 *n);
/* The peer slot of an established association with this Node ID, or -1 */
int n4_peer_find(const struct upf_n4 *n, const struct pfcp_node_id *id);
/* Which association a session message from from_addr belongs to, or -1 */
int n4_peer_by_addr(const struct upf_n4 *n, uint32_t addr);

/* Release association slot peer on our own decision (heartbeat loss): sessions purged */
void n4_peer_expire(struct upf_n4 *n, int peer);
/* A session message: finds its association, then the state table */
void n4_session_dispatch(struct upf_n4 *n);

/* upf_n4_sess.c */
void n4_sess_rx(struct upf_n4 *n, int peer);
void n4_sess_purge_peer(struct upf_n4 *n, int peer);
int n4_sess_init(struct upf_n4 *n);
void n4_report_rsp(struct upf_n4 *n);
/* The CP's SEID of the sender's session our SEID names, or 0 (7.2.2.4.2) */
uint64_t n4_sess_cp_seid(struct upf_n4 *n, uint64_t seid);

/* upf_n4_rule.c: Create PDR / FAR / QER / URR -> one upf_session_rule. 0, or the
 * cause with *offending set to the IE type. */
int n4_rules_from_est(struct upf_n4 *n, const struct pfcp_sess_est_req *e, struct n4_sess *s,
		      bool *choose, uint16_t *offending);
/* upf_n4_sdf.c: further uplink PDRs with selecting SDF filters (issue 32). Check one (used:
 * the data path entries taken so far), 0 or the cause with *offending; install those of the
 * request for session id once created in the data path, 0 or the cause. */
int n4_sdf_check(const struct pfcp_sess_est_req *e, const struct pfcp_pdr *d, unsigned *used,
		 uint16_t *offending);
int n4_sdf_install(struct upf_n4 *n, const struct pfcp_sess_est_req *e, const struct n4_sess *s, uint32_t id,
		   uint16_t *offending);
/* Is d a further uplink PDR of s asking CHOOSE (its Created PDR carries the uplink TEID)? */
bool n4_sdf_chooses(const struct n4_sess *s, const struct pfcp_pdr *d);
/* The cp2up PDR's TEID of session id: above max_teid, never in the data path's uplink array */
uint32_t n4_cp2up_teid(const struct upf_n4 *n, uint32_t id);
/* upf_n4_mod.c: a Session Modification's rule changes onto s (a copy); *choose: a created
 * uplink PDR asks for a TEID (CHOOSE) */
int n4_rules_update(struct upf_n4 *n, const struct pfcp_sess_mod_req *m, struct n4_sess *s, bool *choose,
		    uint16_t *offending);
/* The checks of one rule, shared by the establishment and the modification (upf_n4_mod.c):
 * 0, or the cause with *off set to the Offending IE. n4_unsupported logs the reason and gives
 * cause 73. */
int n4_unsupported(uint16_t ie, uint16_t *off, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int n4_pdr_common(const struct pfcp_pdr *d, uint16_t *off);
int n4_pdr_ul(struct upf_n4 *n, const struct pfcp_pdr *d, struct n4_sess *s, bool *choose, uint16_t *off);
int n4_pdr_dl(struct upf_n4 *n, const struct pfcp_pdr *d, struct n4_sess *s, uint16_t *off);
int n4_ul_ue_ip(const struct pfcp_ue_ip *ip, const struct n4_sess *s, uint16_t *off);
int n4_far_ul(const struct pfcp_far *f, struct n4_sess *s, uint16_t *off);
int n4_far_dl(const struct upf_n4 *n, const struct pfcp_far *f, struct n4_sess *s, uint16_t *off);
int n4_qer_take(const struct pfcp_qer *c, struct n4_qer *q, uint16_t *off);
int n4_qers_apply(struct n4_sess *s, uint16_t *off);
struct n4_qer *n4_qer_of(struct n4_sess *s, uint32_t id);
/* The QER and URR IDs of a data path PDR (dir N4_UL / N4_DL) into the session's sets */
int n4_pdr_refs(const struct pfcp_pdr *d, uint8_t dir, struct n4_sess *s, uint16_t *off);
/* Name the rule a refusal is about (8.2.80) */
void n4_fail_rule(struct n4_sess *s, uint8_t type, uint32_t id);

/* upf_n4_fwd.c: the indirect forwarding tunnel of a Session Modification (TS 23.502
 * 4.9.1.3.2-3): its Create / Update / Remove PDR and FAR taken out of m onto t (a copy of
 * session id), *choose when its F-TEID is ours to choose (a Created PDR, UPF_FWD_TEID(id));
 * 0 or cause 73 with *off. Then, once the rest is accepted, n4_fwd_apply puts the change from
 * s to t into the data path (upf_fwd_create / _remove): 0 or -errno. */
int n4_fwd_take(struct upf_n4 *n, struct pfcp_sess_mod_req *m, uint32_t id, struct n4_sess *t, bool *choose,
		uint16_t *off);
int n4_fwd_apply(struct upf_n4 *n, uint32_t id, const struct n4_sess *s, const struct n4_sess *t);

/* upf_n4_urr.c: URRs (5.2.2). Take a Create URR (create) or an Update URR into u: 0, or cause 73
 * with *off set. */
int n4_urr_take(struct upf_n4 *n, const struct pfcp_urr *c, struct n4_urr *u, bool create, uint16_t *off);
/* Start measuring every URR of session id (established now) */
void n4_urr_start(struct upf_n4 *n, struct n4_sess *s, uint32_t id);
/* 5.2.2.2: quota_drop (and r.ul_drop / dl_drop) from the URRs at their quota */
void n4_urr_quota_sync(struct n4_sess *s);
/* Create / Update / Remove / Query URR of a modification (7.5.4.4, 7.5.4.9, 7.5.4.10) onto t:
 * 0 or cause 73 with *off and t's failed rule set */
int n4_urr_mod(struct upf_n4 *n, const struct pfcp_sess_mod_req *m, struct n4_sess *t, uint16_t *off);
/* The Usage Reports of a modification's response (7.5.5.2): every URR queried (Query URR, or
 * all with QAURR: IMMER), every URR removed (TERMR), from s (before) and t (after) */
void n4_urr_mod_reports(struct upf_n4 *n, const struct pfcp_sess_mod_req *m, struct n4_sess *s,
			struct n4_sess *t, uint32_t id);
/* The data path session was rebuilt: its counters went from before to after; the URRs'
 * measurements go on */
void n4_urr_rebase(struct n4_sess *s, const struct upf_session_stats *before, const struct upf_session_stats *after);
/* The final report of each URR in the deletion response (7.5.7.2, TERMR) */
void n4_urr_final(struct upf_n4 *n, struct n4_sess *s, uint32_t id);
/* Session id on the sweep's list when one of its URRs reports on its own, off it otherwise;
 * n4_urr_unwatch: off it (the session goes) */
void n4_urr_watch(struct upf_n4 *n, uint32_t id);
void n4_urr_unwatch(struct upf_n4 *n, uint32_t id);
/* The threshold and periodic reports that are due (from upf_n4_tick): Session Report Requests
 * (7.5.8, USAR); the number sent */
int n4_urr_tick(struct upf_n4 *n, uint64_t now_ns);
/* upf_n4_sess.c: send n->out (a Session Report Request for session id) with sequence number
 * seq and keep its bytes for retransmission (6.4) */
int n4_report_track(struct upf_n4 *n, struct n4_sess *s, uint32_t id, uint32_t seq, bool keep);

#endif
