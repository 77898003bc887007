/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * upf_n4 - the PFCP server of the standalone UPF (`solocore upf`, TS 29.244):
 * a UDP socket on <addr>:8805 on the control thread's ev loop that programs
 * the same XDP rules as the in-process path (upf/upf.h), through the same
 * upf_session_* calls the SMF makes in one process.
 *
 * Node procedures (TS 29.244 6.2, 7.4):
 *   - Heartbeat Request -> Response with our Recovery Time Stamp (7.4.2),
 *     with or without an association.
 *   - Our own Heartbeat Requests to each associated CP (heartbeat_ms), and
 *     the Session Report Requests, sent again per T1 / N1 (6.4; upf_n4_tick).
 *   - Association Setup / Update / Release (6.2.6, 7.4.4), one association
 *     per CP Node ID and per source IP (at most UPF_N4_PEER_MAX), bound to the
 *     IP its Setup came from (issue 31). A Setup for a Node ID already
 *     associated from the same IP replaces the association and deletes its
 *     sessions (6.2.6.2.2: we never offer session retention); from another IP
 *     it is refused with Cause 64 and changes nothing. A Release deletes them
 *     (6.2.6.4). A CP that answers no heartbeat for release_ms loses its
 *     association and sessions. The state machine is one const table
 *     (upf_n4_node.c).
 *   - A session message or an Association Update / Release from a node
 *     without an association, or from another IP than its association's:
 *     Cause 72 "No established PFCP Association" (6.2.6.1).
 *   - A new Recovery Time Stamp in a Heartbeat Request purges nothing until
 *     our own heartbeat to the bound IP is answered with it (TS 23.007 19A).
 *   - Optional allow-list (params.allow, upf.n4_peers): other senders are
 *     dropped before decoding; per-association session quota; random UP
 *     SEIDs and CHOOSE TEIDs.
 * Transaction layer (6.4): the response to every request but a heartbeat is
 * kept per (peer address, port, sequence number) for UPF_N4_TXN_KEEP_MS, in
 * the cache region of the sender's association (or a shared one); a duplicate is
 * answered with the saved bytes and not executed again. A response whose
 * sequence number matches no request of ours is dropped and counted.
 * Errors (7.6): version != 1 -> Version Not Supported Response (7.4.4.7); a
 * request the codec rejects -> its response type with the cause of
 * pfcp_err_cause() and the Offending IE where the response has one; a
 * Heartbeat Request that cannot be read (its response has no Cause), an
 * unknown message type or a malformed response -> dropped and counted.
 *
 * Sessions (7.5, 5.2) map onto ONE upf_session_rule each (what the XDP
 * program does): one uplink PDR (source interface Access, F-TEID with CHOOSE
 * or our N3 address(es), outer header removal GTP-U/UDP/IPv4 or /IPv6), one
 * downlink PDR (source interface Core, UE IPv4 in the pool and / or a /64 in
 * pool6), their FARs (uplink FORW to Core; downlink FORW with outer header
 * creation GTP-U/UDP/IPv4 or /IPv6 -> gNB tunnel, or BUFF -> UPF_DL_BUFFER), at most one QER (MBR -> session-AMBR,
 * QFI, gates open) and one URR (volume, reported at deletion). Anything else
 * gets Cause 73 "Rule creation/modification failure" with the Offending IE
 * and one log line naming it. upf_n4.c's header comment lists the details.
 *
 * Thread model: the control thread only; nothing blocks, nothing allocates
 * after upf_n4_open().
 */
#ifndef SOLOCORE_UPF_UPF_N4_H
#define SOLOCORE_UPF_UPF_N4_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct upf;
struct ev_loop;
struct upf_n4;

#define UPF_N4_PEER_MAX 16        /* CP functions associated at once */
#define UPF_N4_RCVBUF (8 << 20)    /* socket receive buffer (SO_RCVBUFFORCE as root, else up to rmem_max) */
#define UPF_N4_TXN_KEEP_MS 15000  /* > T1 x N1 of a usual CP (3 s x 3 + slack), TS 29.244 6.4 */

/* A DNN of the UPF's own configuration, for NAT (dnns[].nat). */
struct upf_n4_dnn {
	const char *name;         /* the DNN, as the Network Instance names it (text, no labels) */
	uint32_t pool;            /* its IPv4 pool, network order; plen 0: none */
	uint8_t plen;
	bool nat;                 /* source NAT of its sessions' IPv4 uplink to upf_params.nat_addr */
};

/* One entry of the N4 allow-list (upf_n4_params.allow) */
struct upf_n4_prefix {
	uint32_t addr;            /* network order */
	uint8_t plen;
};
#define UPF_N4_ALLOW_MAX 16

struct upf_n4_params {
	/* The data path. NULL: rules are checked and answered but installed
	 * nowhere (the fuzzer and tests without BPF). */
	struct upf *upf;
	struct ev_loop *loop;     /* the socket is served on it; NULL: call upf_n4_process() */
	uint32_t addr;            /* N4 IPv4 (network order): bound, and our Node ID */
	uint16_t port;            /* host order; 0: 8805 */
	/* No socket: every datagram we would send goes to send() instead
	 * (fuzzer, in-process tests). */
	bool no_socket;
	void (*send)(void *arg, uint32_t addr, uint16_t port, const uint8_t *buf, size_t len);
	void *send_arg;
	/* The data path's ranges, as given to upf_open(). */
	uint32_t n3_addr;         /* network order: the F-TEID address we hand out */
	uint32_t ue_pool_addr;    /* network order */
	uint8_t ue_pool_plen;
	/* IPv6 (TS 23.501 5.8.2.2): the prefix the sessions' /64s come from (upf_params.ue_pool6),
	 * ue_pool6_plen 0: none (a UE IP Address with V6 is refused, cause 73). */
	uint8_t ue_pool6[16];
	uint8_t ue_pool6_plen;
	/* Our N3 IPv6 (upf_params.n3_addr6), all zero: none. With it our F-TEIDs carry it too
	 * (8.2.3: V4 and V6), and a downlink FAR may name an IPv6 gNB (8.2.56 GTP-U/UDP/IPv6). */
	uint8_t n3_addr6[16];
	/* The DNNs this UPF serves (its own configuration's dnns[]): a session whose PDR names one
	 * in its Network Instance (8.2.4), or, without one, whose UE IPv4 lies in its pool, gets
	 * NAT on N6 when that DNN has nat (the data path needs upf_params.nat_addr then). May be
	 * NULL; the array must outlive the server. */
	const struct upf_n4_dnn *dnns;
	unsigned n_dnns;
	uint32_t max_sessions;    /* session ids 0..max_sessions-1; also PFCP sessions */
	uint32_t max_teid;        /* uplink TEIDs 1..max_teid (>= max_sessions) */
	uint32_t recovery_ts;     /* our Recovery Time Stamp, NTP seconds; 0: now */
	/* Our own requests (the Session Report Request) are sent again after t1_ms
	 * without an answer, n1 times at most, with the same sequence number
	 * (TS 29.244 6.4); 0: 3000 ms / 3. */
	uint32_t t1_ms;
	uint8_t n1;
	/* A Heartbeat Request to each associated CP function this often (7.4.2, 6.2.2);
	 * one unanswered after N1 retransmissions marks the CP unreachable (counted, logged;
	 * its sessions are kept: the user plane goes on forwarding, and a CP that comes back
	 * after a restart is known by its new Recovery Time Stamp, which purges them).
	 * 0: 10000 ms. */
	uint32_t heartbeat_ms;
	/* A CP unreachable this long (no answer to our heartbeats) loses its association and
	 * its sessions, so the slot of a CP that is gone (or of a stranger's setup that never
	 * answers) is free again (TS 29.244 6.2.6.4 by the UP's decision). 0: 60000 ms. */
	uint32_t release_ms;
	/* Sessions one association may hold (TS 29.244 8.2.1 cause 75 beyond); 0:
	 * max_sessions / 2, so one association never takes the whole table. */
	uint32_t sessions_per_peer;
	/* Optional allow-list (upf.n4_peers): PFCP only from these IPv4 prefixes (network
	 * order, plen 0..32); anything else is dropped before decoding and counted
	 * (UPF_N4_RX_NOT_ALLOWED). n_allow 0: from anyone. Copied at open. */
	const struct upf_n4_prefix *allow;
	unsigned n_allow;
};


int upf_n4_open(const struct upf_n4_params *p, struct upf_n4 **out);
/* Accepts NULL. Sessions are left in the data path (upf_close removes them). */
void upf_n4_close(struct upf_n4 *n);

/* Read and answer every pending datagram without blocking; the number handled or -errno. */
int upf_n4_process(struct upf_n4 *n);
/* One datagram from addr:port (network / host order) through the server, as
 * if it came from the socket. Answers go out the usual way. */
void upf_n4_input(struct upf_n4 *n, uint32_t addr, uint16_t port, const uint8_t *buf, size_t len);
/* The data path's on_dl_data (upf_params.on_dl_data): a Session Report
 * Request with a Downlink Data Report (7.5.8) for a buffering session whose
 * downlink FAR asked for it (BUFF with NOCP, 8.2.26). */
void upf_n4_dl_data(struct upf_n4 *n, uint32_t session_id);
/* The data path's on_err_ind (upf_params.on_err_ind): a gNB's Error Indication about the
 * session's downlink tunnel becomes a Session Report Request with an Error Indication Report
 * (Report Type ERIR, Remote F-TEID; TS 29.244 5.10, 7.5.8.4) to the session's CP function,
 * retransmitted like the other reports; the rules are left as they are (the CP decides). */
struct upf_err_ind;
void upf_n4_err_ind(struct upf_n4 *n, const struct upf_err_ind *ei);
/* Retransmit our requests that are due at now_ns (CLOCK_MONOTONIC) and give up on
 * those sent n1 + 1 times: a report the CP never answered is counted
 * (UPF_N4_REPORT_TIMEOUT); the session reports again in its next buffering period
 * (the data path notifies once per period, upf.h on_dl_data). With a loop this runs on a timer (every t1 / 4); without one, call it.
 * Heartbeats to the associated CP functions are sent from here too. Returns the number of
 * requests sent (again). */
int upf_n4_tick(struct upf_n4 *n, uint64_t now_ns);
/* The bound socket's fd (or -1). */
int upf_n4_fd(const struct upf_n4 *n);
/* Established PFCP sessions and associations. */
uint32_t upf_n4_sessions(const struct upf_n4 *n);
uint32_t upf_n4_associations(const struct upf_n4 *n);

enum upf_n4_counter {
	UPF_N4_RX = 0,            /* datagrams received */
	UPF_N4_TX,                /* datagrams sent */
	UPF_N4_RX_DUP,            /* duplicate requests answered from the transaction cache */
	UPF_N4_RX_BAD,            /* requests the codec rejected, answered with a cause */
	UPF_N4_RX_DROPPED,        /* unanswerable: unknown type, short, unreadable heartbeat, bad response */
	UPF_N4_RX_STALE_RSP,      /* responses matching no request of ours */
	UPF_N4_VERSION_NOT_SUPP,  /* Version Not Supported Responses sent */
	UPF_N4_NO_ASSOC,          /* requests answered with cause 72 */
	UPF_N4_HEARTBEAT,
	UPF_N4_ASSOC_SETUP,
	UPF_N4_ASSOC_UPDATE,
	UPF_N4_ASSOC_RELEASE,
	UPF_N4_SESS_EST,          /* accepted */
	UPF_N4_SESS_MOD,
	UPF_N4_SESS_DEL,
	UPF_N4_SESS_REJECTED,     /* establishment / modification / deletion refused with a cause */
	UPF_N4_SESS_PURGED,       /* deleted by an association re-setup or release */
	UPF_N4_REPORT_SENT,       /* Session Report Requests */
	UPF_N4_REPORT_RSP,        /* ... answered */
	UPF_N4_TX_FAILED,         /* sendto or (a bug) our own encoding failed */
	UPF_N4_TXN_UNCACHED,      /* responses too long for the cache: a duplicate would be executed again */
	UPF_N4_REPORT_RETX,       /* Session Report Requests sent again (T1 expired, 6.4) */
	UPF_N4_REPORT_TIMEOUT,    /* ... never answered after N1 retransmissions: given up */
	UPF_N4_HB_SENT,           /* our Heartbeat Requests (retransmissions included) */
	UPF_N4_HB_ANSWERED,
	UPF_N4_CP_UNREACHABLE,    /* a CP function stopped answering our heartbeats */
	/* issue 31: what strangers try */
	UPF_N4_RX_NOT_ALLOWED,    /* datagrams from outside upf.n4_peers: dropped undecoded */
	UPF_N4_FOREIGN,           /* a message for an association from another address than its own */
	UPF_N4_ASSOC_REFUSED,     /* Association Setups refused (Node ID bound elsewhere, table full) */
	UPF_N4_ASSOC_EXPIRED,     /* associations released after heartbeat loss + release timer */
	UPF_N4_RESTART_UNCONFIRMED, /* a new Recovery Time Stamp our own heartbeat did not confirm */
	UPF_N4_SESS_QUOTA,        /* establishments refused: the association's session quota */
	UPF_N4__MAX
};
/* out must hold UPF_N4__MAX entries. */
int upf_n4_counters(const struct upf_n4 *n, uint64_t *out, size_t cnt);
const char *upf_n4_counter_name(unsigned idx);

#endif
