/* SPDX-License-Identifier: AGPL-3.0-or-later */
/* upf internals shared by upf.c (maps, attach, rules) and upf_exc.c (exception path). */
#ifndef SOLOCORE_UPF_UPF_INT_H
#define SOLOCORE_UPF_UPF_INT_H

#include "common/ev.h"
#include "upf/upf.h"

#define UPF_NONE UINT32_MAX

struct upf_buf {
	uint32_t next;
	uint32_t len;
	uint8_t data[UPF_EXC_MAX_PKT];
};

struct upf_sess {
	bool used;
	bool notified;          /* on_dl_data called since the last activation */
	bool notify_queued;
	struct upf_session_rule r;
	uint32_t buf_head, buf_tail, buf_count;
	uint32_t notify_next;
	uint64_t ra_last_ns;    /* last Router Advertisement sent (RFC 4861 10 rate limit) */
	bool ra_pending;        /* an RS came while the downlink was not active: RA on activation */
	/* Counters carried over from rule entries the session moved away from. */
	uint64_t base[2][3];   /* [ul, dl][pkts, bytes, drops]; dl: both families */
	uint32_t ulx;          /* r.ul_teid past max_teid: its ulx entry + 1 (upf_ulx.c); 0: none */
	bool sdf;              /* a PDR list in ul_pdrs (upf_sdf.c), UPF_RULE_SDF in the uplink rule */
	uint32_t cp2up_from;   /* upf_session_cp2up: the CP's GTP-U IPv4 (network order); 0: none */
};

struct upf_bpf;
struct ring_buffer;

struct upf_n4c_p;

struct upf {
	/* Non-NULL: a UPF over PFCP (upf_n4c*.c); every public call goes there and nothing
	 * below is set. */
	struct upf_n4c_p *remote;
	struct upf_params p;
	struct upf_bpf *skel;
	int prog_fd;
	int ifindex[2];
	int nif;
	uint32_t attach_flags;

	struct upf_ul_rule *ul;     /* mmap of ul_rules */
	size_t ul_n, ul_map_len;
	struct upf_dl_rule *dl;     /* mmap of dl_rules */
	size_t dl_n, dl_map_len;
	uint32_t ue_base;           /* host order */
	struct upf_dl_rule *dl6;    /* mmap of dl6_rules; NULL without ue_pool6 */
	size_t dl6_n, dl6_map_len;
	uint64_t ue6_base;          /* first 64 bits of ue_pool6, host order, host bits cleared */
	struct upf_ul_rule *ulx;    /* ul + ul_n: the entries of TEIDs past max_teid (ul_teids) */
	size_t ulx_n;
	uint32_t *ulx_next;         /* free list of ulx entries */
	uint32_t ulx_free;
	int teids_fd;               /* ul_teids: TEID -> ulx index */
	int pdrs_fd;                /* ul_pdrs: session id -> its uplink PDR list (upf_sdf.c) */
	struct upf_fwd_rule *fwd;   /* mmap of fwd_rules, max_sessions entries */
	size_t fwd_map_len;

	struct upf_sess *sess;      /* max_sessions */
	uint32_t *tidx;             /* (gNB address, TEID) -> session id + 1 (upf_tidx.c) */
	uint32_t tidx_mask;
	uint64_t tidx_seed;
	struct upf_buf *bufs;       /* buffer_total */
	uint32_t buf_free;

	int ncpus;
	void *pcpu;                 /* scratch for per-CPU reads */

	int sock;                   /* UDP <n3_addr>:2152 */
	int sock6;                  /* UDP [n3_addr6]:2152 (IPV6_V6ONLY); -1 without n3_addr6 */
	int raw;                    /* NAT: raw IPv4 (IP_HDRINCL) for translated uplink without a neighbour */
	struct ring_buffer *rb;
	int ring_fd;
	bool in_ring;
	uint32_t notify_head;

	struct ev_timer nh_timer;   /* next-hop cache revalidation */
	uint64_t nh_last_ns;

	/* NAT (upf_nat.c): batch buffers of the sweep, time of the last sweep. */
	struct upf_nat_key *nat_keys;
	struct upf_nat_val *nat_vals;
	uint64_t nat_sweep_ns;      /* start of the last sweep pass */
	uint64_t nat_tok;           /* where the pass in progress resumes (a hash batch token) */
	bool nat_mid;               /* a pass is in progress */
	uint64_t *nat_quota;        /* mmap of nat_quota (connections per session); NULL: no limit */
	size_t nat_quota_len;

	double ei_tokens;           /* Error Indication rate limit */
	uint64_t ei_last_ns;
	double ei_rx_tokens;        /* the same for the Error Indications we look up (upf_tidx.c) */
	uint64_t ei_rx_last_ns;

	uint64_t ustat[UPF_STAT__MAX - UPF_CNT__MAX];
};

/* upf.c: the session's /64 as one host-order value; 0: none (an all-zero prefix is no prefix). */
uint64_t upf_prefix6_hi(const uint8_t p[8]);

/* upf.c: an IPv6 address that is not all zero (ours: upf_params.n3_addr6, a gNB's: gnb_addr6). */
bool upf_addr6_set(const uint8_t a[16]);
/* upf.c: the rule names the gNB's N3 end, IPv4 or IPv6. */
bool upf_rule_has_gnb(const struct upf_session_rule *r);

/* upf_tidx.c: the index of the sessions' downlink tunnels (gNB address / address6, gNB TEID)
 * for the Error Indication lookup. setup: at upf_open (0 or -ENOMEM); add / del: a session's
 * entry from its rule as it is in sess[id].r (del before the rule changes, add after); find:
 * the session whose ACTIVE downlink is that tunnel, or -ENOENT. */
int upf_tidx_setup(struct upf *u);
void upf_tidx_add(struct upf *u, uint32_t id);
void upf_tidx_del(struct upf *u, uint32_t id);
int upf_tidx_find(const struct upf *u, uint32_t addr, const uint8_t addr6[16], uint32_t teid);

/* upf.c: is an uplink rule installed for this TEID? */
bool upf_ul_valid(const struct upf *u, uint32_t teid);

/* upf_fwd.c: the forwarding tunnel of TEID UPF_FWD_TEID(id), as one atomic copy. 0, or
 * -ENOENT (none, or not a forwarding TEID). */
int upf_fwd_lookup(const struct upf *u, uint32_t teid, struct upf_fwd_rule *out);

/* upf.c: mmap an array map of n entries of esz bytes; NULL with errno. */
struct bpf_map;
void *upf_map_mmap(struct bpf_map *m, size_t n, size_t esz, size_t *len);
/* upf.c: the current version of an uplink rule, as the program would pick it. */
const struct upf_ul_slot *upf_ul_cur(const struct upf_ul_rule *e);

/* upf_ulx.c: uplink rules of TEIDs past max_teid (ul_teids -> ul_rules past max_teid,
 * upf/upf_bpf.h). x1 is an index into those entries + 1 (0: none), as upf_sess.ulx holds it. */
int upf_ulx_setup(struct upf *u);            /* before load: sizes, free list */
int upf_ulx_mapped(struct upf *u);           /* after load: the mmap */
void upf_ulx_free(struct upf *u);
/* A forwarding TEID (UPF_FWD_TEID of a session id in range)? */
bool upf_teid_fwd(const struct upf *u, uint32_t teid);
/* The ulx index (not + 1) ul_teids holds for teid. 0 or -ENOENT. */
int upf_ulx_find(const struct upf *u, uint32_t teid, uint32_t *x);
/* The uplink entry of teid: ul_rules[teid], or the x1 - 1th past max_teid; NULL: none. */
struct upf_ul_rule *upf_ul_entry(struct upf *u, uint32_t teid, uint32_t x1);
int upf_ulx_take(struct upf *u, uint32_t *x1);        /* 0 or -ENOSPC */
int upf_ulx_link(struct upf *u, uint32_t teid, uint32_t x1);   /* ul_teids insert: 0 or -errno */
void upf_ulx_unlink(struct upf *u, uint32_t teid);
void upf_ulx_put(struct upf *u, uint32_t x1);

/* upf.c: the session's uplink rule written again (its UPF_RULE_SDF flag changed). */
void upf_ul_republish(struct upf *u, uint32_t id);

/* upf_sdf.c: uplink PDRs with SDF filters (ul_pdrs, upf/upf_bpf.h). */
int upf_sdf_setup(struct upf *u);             /* before load */
void upf_sdf_mapped(struct upf *u);           /* after load */
/* IPFilterRule text (TS 29.212 5.4.2) -> an uplink entry; 0 or -EINVAL. */
int upf_sdf_parse(const char *text, size_t len, struct upf_pdr *out);
/* Session id's list goes (before its rules are cleared, or n 0 in upf_session_pdrs). */
void upf_sdf_gone(struct upf *u, uint32_t id);
/* A G-PDU (m, len bytes, checked GTP-U header) from from_v4 to teid that reached the socket:
 * true if it was a session's cp2up TEID (upf_session_cp2up), handled. */
bool upf_sdf_cp2up(struct upf *u, uint32_t teid, const uint8_t *m, size_t len, uint32_t from_v4);
/* A packet that matched entry idx (UPF_PDR_TO_CP) of session id's list, from the ring. */
void upf_sdf_to_cp(struct upf *u, uint32_t id, uint32_t idx, const uint8_t *pkt, size_t len);

/* upf.c: monotonic clock in ns. */
uint64_t upf_mono_ns(void);

/* upf_exc.c */
int upf_exc_open(struct upf *u);
void upf_exc_close(struct upf *u);
/* Drain the ring into buffers / the socket; run queued notifications. */
int upf_exc_drain(struct upf *u);
/* Send the buffered packets of a session (now active), in order. */
void upf_exc_release(struct upf *u, uint32_t id);
/* Free the buffered packets of a session. */
void upf_exc_flush(struct upf *u, uint32_t id);
int upf_exc_sock_rx(struct upf *u);
/* Encapsulate an inner IPv4 or IPv6 packet for a session and send it over the socket. */
int upf_exc_send_dl(struct upf *u, const struct upf_session_rule *r, const uint8_t *pkt, size_t len);
/* An ICMPv6 Router Solicitation from session id's UE (the inner packet, len bytes): answered
 * with a Router Advertisement of the session's /64 in its downlink tunnel (RFC 4861 6.2.6,
 * TS 23.501 5.8.2.2.2), or counted as dropped. */
void upf_exc_rs(struct upf *u, uint32_t id, const uint8_t *pkt, size_t len);
/* An End Marker on r's downlink tunnel (TS 29.281 7.3.2). 0 or -errno. */
int upf_exc_end_marker(struct upf *u, const struct upf_session_rule *r);

/* upf_nat.c: NAT on N6 (upf/README.md "NAT"). */
#define UPF_NAT_SWEEP_MS 1000
/* Defaults and checks of the NAT params; 0, -EINVAL, -ERANGE. */
int upf_nat_params(struct upf_params *p);
/* Before load: NAT constants of the program, sizes of its maps; sweep buffers. 0 or -errno. */
int upf_nat_setup(struct upf *u);
/* After the load: the quota map mmapped. 0 or -errno. */
int upf_nat_mapped(struct upf *u);
void upf_nat_free(struct upf *u);
/* One whole idle sweep as if the monotonic clock (the program's nat_now_ns) read now_ns: the
 * expired connections are deleted. The number of entries seen, or -errno. Tests drive time
 * through it; upf_nat_tick (every 100 ms) publishes the clock and does the same sweep in
 * slices, a pass every UPF_NAT_SWEEP_MS. */
int upf_nat_sweep(struct upf *u, uint64_t now_ns);
void upf_nat_tick(struct upf *u);
/* Session id (still installed, about to be cleared) goes: its connections are deleted. */
void upf_nat_session_gone(struct upf *u, uint32_t id);
/* An ICMP error to nat_addr (IPv4 packet, len bytes, from the ring) that quotes a translated
 * packet: translated back in place; *ue the UE address. Its length, or -errno. */
int upf_nat_icmp_err(struct upf *u, uint8_t *pkt, size_t len, uint32_t *ue);
/* upf.c: the session installed for a UE IPv4 address. 0 or -ENOENT. */
int upf_sess_by_ue(const struct upf *u, uint32_t ue_addr, uint32_t *id);

/* upf_n4c*.c: the public calls of upf.h for a PFCP peer (u->remote set). */
int upf_n4c_sess_create(struct upf *u, uint32_t id, const struct upf_session_rule *r);
int upf_n4c_sess_modify(struct upf *u, uint32_t id, const struct upf_session_rule *r);
int upf_n4c_sess_remove(struct upf *u, uint32_t id);
int upf_n4c_sess_stats(struct upf *u, uint32_t id, struct upf_session_stats *out);
int upf_n4c_counters(struct upf *u, uint64_t *out, size_t n);
bool upf_n4c_ready(const struct upf *u);
uint32_t upf_n4c_n3_addr(const struct upf *u);
/* Remove the peer from its endpoint (release the association, best effort) and free u. */
void upf_n4c_peer_close(struct upf *u);

#define UPF_USTAT(u, s) ((u)->ustat[(s) - UPF_CNT__MAX])

#endif
