/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * upf - the solocore user plane: an XDP program on the N3 and N6 interfaces
 * (upf/bpf/upf.bpf.c) and the function-call API the SMF drives it with.
 *
 * Data path (in the kernel, per packet, no user space):
 *   uplink   GTP-U G-PDU to UDP 2152 -> rule by TEID -> inner source must be
 *            the UE's -> session-AMBR UL -> decapsulate -> FIB -> redirect
 *   downlink IPv4 to a UE pool address -> rule by UE address -> AMBR DL ->
 *            encapsulate (GTP-U + PDU Session Container, DL, QFI) -> redirect
 *   forward  G-PDU or End Marker to UPF_FWD_TEID(id) (indirect data forwarding
 *            in an N2 handover) -> tunnel by id -> new outer IPv4/UDP from N3,
 *            the target gNB's TEID -> XDP_TX / redirect (upf_fwd_create below)
 *   NAT      (issue 19 item 3; sessions with rule.nat, params.nat_addr set) uplink IPv4
 *            TCP / UDP / ICMP echo leaves from nat_addr:port (connection tracked in BPF
 *            hash maps, port chosen in XDP on the first packet); answers to nat_addr are
 *            translated back before the downlink lookup; idle entries swept from user
 *            space (upf/README.md "NAT on N6": timeouts, limits, what is not done)
 *
 * Exception path (user space, on the control thread):
 *   - a UDP socket bound to <n3_addr>:2152 receives what the program passes
 *     to the kernel: Echo Request (answered with Echo Response, TS 29.281
 *     7.2.2), G-PDUs with an unknown TEID (answered with a rate-limited Error
 *     Indication, TS 29.281 7.3.1), Error Indications from peers (handed to
 *     on_err_ind) and other messages (counted). End Markers are counted and
 *     dropped in XDP, except on a forwarding tunnel, where they are relayed.
 *     G-PDUs and End Markers on a forwarding tunnel that the program passed to
 *     the kernel (no neighbour entry yet, outer fragments) are relayed here.
 *   - a BPF ring buffer carries downlink packets of sessions in the BUFFER
 *     state: they are queued per session (bounded), on_dl_data() is called on
 *     the first one so the SMF/AMF can page the UE, and they are sent (through
 *     the UDP socket, encapsulated) when the session is modified to ACTIVE.
 *     This ring replaces an AF_XDP socket: the idle path is rare and bounded,
 *     and it needs no UMEM or queue binding on the interfaces.
 *
 * Identifiers we allocate ourselves, so lookups are direct array indexes:
 *   - session id:  0 .. max_sessions-1 (the SMF's session slot)
 *   - uplink TEID: 1 .. max_teid (local F-TEID of N3)
 *   - UE address:  inside ue_pool_addr/ue_pool_plen
 *
 * Rule updates are O(1) writes into mmap'ed maps, each rule in two versioned
 * slots (upf/upf_bpf.h), safe while traffic flows: a packet sees the old rule
 * or the new one, never a mix, and a writer stalled mid-update never stalls
 * traffic. Per-session counters live next to the rules (atomic adds).
 *
 * Next hops: bpf_fib_lookup, behind a per-CPU cache revalidated every 100 ms
 * (see no_nh_cache and upf_nexthop_flush()).
 *
 * Kernel requirements: BPF, XDP, ring buffers, bpf_xdp_load_bytes (5.18+);
 * checked on 6.1 (Debian 12, in UML) and 6.18.
 * net.ipv4.ip_forward=1 (bpf_fib_lookup refuses otherwise and the packets
 * take the kernel path). The rule slots assume x86-64 load ordering. The XDP
 * object is GPL (bpf_fib_lookup is a GPL-only helper).
 *
 * Thread model: every function runs on the control thread; none blocks.
 */
#ifndef SOLOCORE_UPF_UPF_H
#define SOLOCORE_UPF_UPF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "upf/upf_bpf.h"   /* enum upf_counter, shared with the XDP program */

struct upf;
struct ev_loop;

enum upf_xdp_mode {
	UPF_XDP_AUTO = 0,     /* native (driver) mode, generic if the driver refuses */
	UPF_XDP_NATIVE,
	UPF_XDP_GENERIC,
	UPF_XDP_NONE,         /* load the program and maps but attach nowhere (tests, benchmarks) */
};

/* NAT limits (upf_params.nat_conns_per_session / nat_conns_per_remote; upf/README.md "NAT"):
 * the defaults of 0 and the value that turns a limit off. */
#define UPF_NAT_CONNS_PER_SESSION 1024u
#define UPF_NAT_CONNS_PER_REMOTE 256u
#define UPF_NAT_UNLIMITED UINT32_MAX

/* An Error Indication matched to a session (upf_params.on_err_ind, upf_n4c_peer.on_err_ind):
 * the session and the remote F-TEID the gNB no longer knows (TS 29.244 7.5.8.4 Remote F-TEID). */
struct upf_err_ind {
	uint32_t session_id;
	uint32_t teid;               /* the gNB's downlink TEID (TEID Data I, TS 29.281 8.3) */
	uint32_t addr;               /* its IPv4, network order (GTP-U Peer Address, 8.4); 0: IPv6 */
	uint8_t addr6[16];
};

struct upf_params {
	const char *n3_ifname;       /* toward the gNBs */
	const char *n6_ifname;       /* toward the data network; NULL or equal: one interface for both */
	enum upf_xdp_mode xdp_mode;
	uint32_t n3_addr;            /* local N3 IPv4, network order: outer source (DL), destination (UL) */
	/* Local N3 IPv6 (issue 19 item 2, TS 29.281 4.4.2, TS 38.414 5.1), all zero: none. With it
	 * the program also takes G-PDUs in outer IPv6 to this address, a second GTP-U socket is
	 * bound to [n3_addr6]:2152, and a session whose rule names a gNB by gnb_addr6 gets its
	 * downlink in outer IPv6 from here. */
	uint8_t n3_addr6[16];
	uint32_t ue_pool_addr;       /* UE pool, network order, e.g. 10.45.0.0 */
	uint8_t ue_pool_plen;        /* prefix length, 10..30 (128 bytes of map per address) */
	/* IPv6 (issue 19, TS 23.501 5.8.2.2): the prefix the sessions' /64s come from, network
	 * order, length 44..64 (one /64 per session, 128 bytes of map per /64: a /48 is 65,536
	 * sessions and 8 MiB). ue_pool6_plen 0: no IPv6 (IPv6 packets are not the UPF's). */
	uint8_t ue_pool6[16];
	uint8_t ue_pool6_plen;
	/* NAT on N6 (issue 19 item 3): the sessions whose rule has nat set have their uplink IPv4
	 * source translated to nat_addr (network order; normally N6's own address) with a port of
	 * nat_port_lo..nat_port_hi (ICMP echo: the identifier), and the answers translated back
	 * before the downlink lookup. Connections tracked in BPF maps of nat_max_conns entries
	 * (0: 65536). nat_addr 0: no NAT (a rule with nat set is -EINVAL). */
	uint32_t nat_addr;
	uint16_t nat_port_lo, nat_port_hi;   /* host order; 0, 0: 1024..65535 */
	uint32_t nat_max_conns;
	/* Connections one session may hold at once (RFC 6888 REQ-4), 0: UPF_NAT_CONNS_PER_SESSION,
	 * UPF_NAT_UNLIMITED: no limit. A new one past it is dropped and counted (drop_nat_quota);
	 * its existing ones are unaffected (issue 31 point 5: one UE cannot fill the table). */
	uint32_t nat_conns_per_session;
	/* Connections one session may hold at once toward one remote endpoint (protocol, address,
	 * port; ICMP echo: address), whose NAT ports are one pool for all UEs: 0:
	 * UPF_NAT_CONNS_PER_REMOTE, UPF_NAT_UNLIMITED: no limit; past it: drop_nat_remote_share. */
	uint32_t nat_conns_per_remote;
	uint32_t max_sessions;       /* session ids 0..max_sessions-1; default 65536 */
	uint32_t max_teid;           /* uplink TEIDs 1..max_teid; 0: max_sessions */
	/* Sessions at once whose uplink TEID lies outside 1..max_teid (a PFCP CP chose it: TS
	 * 29.244 5.5.3.1, any 32-bit value but the forwarding TEIDs): a BPF hash map TEID -> entry
	 * of a second rule array, looked up only for TEIDs past max_teid (128 bytes per entry).
	 * 0: max_sessions, at most 65,536. */
	uint32_t max_cp_teids;
	uint32_t buffer_per_session; /* downlink packets buffered per idle session; default 16 */
	uint32_t buffer_total;       /* packets buffered over all sessions; default 1024 */
	uint32_t err_ind_per_s;      /* Error Indication rate limit; default 100 */
	uint32_t ambr_burst_ms;      /* session-AMBR burst tolerance; default 10 */
	uint32_t exc_ring_bytes;     /* exception ring size, power of two; default 1 MiB */
	/* The next-hop cache (in front of bpf_fib_lookup) keys on the destination
	 * and the ingress interface; set this if routing depends on more
	 * (policy routing by source address, marks). */
	bool no_nh_cache;
	/* The exception fds and the next-hop revalidation timer (every 100 ms)
	 * run on this loop. NULL: call upf_process() yourself, at least every
	 * 100 ms while forwarding. */
	struct ev_loop *loop;
	/* Downlink data arrived for a session in UPF_DL_BUFFER (first packet only,
	 * re-armed when the session becomes active). Called on the control thread. */
	void (*on_dl_data)(void *arg, uint32_t session_id);
	/* A gNB sent an Error Indication (TS 29.281 7.3.1) naming the downlink tunnel of an
	 * installed session whose downlink is active: it no longer knows that tunnel. Only an
	 * Error Indication that names exactly a session's downlink tunnel (TEID Data I = its
	 * gnb_teid, GTP-U Peer Address = its gnb_addr / gnb_addr6) and comes from that very
	 * address is reported; any other is counted (err_ind_ignored) and changes nothing (an
	 * N3 sender that is not the tunnel's gNB cannot tear it down). The data path itself
	 * changes nothing either: the control plane decides (TS 29.244 5.10, TS 23.527 5.3),
	 * normally deactivating the session's user plane. Called on the control thread, at most
	 * err_ind_per_s times a second (an index lookup, upf_tidx.c). May be NULL. */
	void (*on_err_ind)(void *arg, const struct upf_err_ind *ei);
	void *cb_arg;
};

enum upf_dl_state {
	UPF_DL_ACTIVE = 0,   /* downlink forwarded to gnb_addr/gnb_teid */
	UPF_DL_BUFFER,       /* user plane deactivated: buffer and notify */
};

struct upf_session_rule {
	/* Local uplink TEID; 0: no uplink rule. 1..max_teid index the rule array directly; any
	 * other but UPF_FWD_TEID(0..max_sessions-1) goes through the hash (max_cp_teids). */
	uint32_t ul_teid;
	uint32_t ue_addr;        /* UE IPv4, network order, inside the pool; 0: none (IPv6 only) */
	/* The session's /64 (its first 8 octets, network order) inside ue_pool6: downlink to any
	 * address in it goes to this session, uplink must come from one (anti-spoofing), a Router
	 * Solicitation is answered with a Router Advertisement of it (TS 23.501 5.8.2.2.2).
	 * All zero: no IPv6. At least one of ue_addr and ue_prefix6. Fixed for the session's
	 * life, like ul_teid (upf_session_modify: -EINVAL if it changes). */
	uint8_t ue_prefix6[8];
	/* Source NAT of the session's IPv4 uplink to upf_params.nat_addr (per DNN, off by default:
	 * the SMF sets it from dnns[].nat). Fixed for the session's life. */
	bool nat;
	/* The session's DNN, sent over N4 as the downlink PDR's Network Instance (TS 29.244 8.2.4)
	 * so a remote UPF can apply its per-DNN policy (NAT); NULL: none. Not used in process.
	 * The string outlives the session (the SMF's configuration). */
	const char *dnn;
	uint32_t gnb_addr;       /* gNB N3 IPv4, network order (needed when ACTIVE) ... */
	uint8_t gnb_addr6[16];   /* ... or, gnb_addr 0, its IPv6 (needs upf_params.n3_addr6) */
	uint32_t gnb_teid;       /* gNB's downlink TEID */
	uint8_t qfi;             /* QoS flow (1..63); 0 in UL accepts any */
	uint64_t ambr_ul_bps;    /* session-AMBR, bits/s; 0 = not policed */
	uint64_t ambr_dl_bps;
	enum upf_dl_state dl_state;
	/* Drop the session's uplink / downlink in the data path, counted per session (ul_drops /
	 * dl_drops) and drop_far: a FAR with Apply Action DROP (TS 29.244 8.2.26, 5.2.1), or a URR
	 * at its Volume / Time Quota (5.2.2.2). dl_drop wins over UPF_DL_BUFFER (nothing buffered). */
	bool ul_drop, dl_drop;
};

struct upf_session_stats {
	uint64_t ul_pkts, ul_bytes;    /* forwarded, inner IP bytes */
	uint64_t dl_pkts, dl_bytes;
	uint64_t ul_drops, dl_drops;   /* policed or refused */
	uint32_t buffered;             /* downlink packets waiting in user space */
};

/* Load the program, size the maps, attach to n3 (and n6) in the requested
 * mode: all interfaces or none (rollback). A program of ours left attached by
 * a crashed run is replaced; a foreign XDP program makes it fail with -EBUSY.
 * 0 or -errno. */
int upf_open(const struct upf_params *p, struct upf **out);
/* Detach, close sockets, free. Accepts NULL. */
void upf_close(struct upf *u);

/* Install the rules of a session. -EEXIST if the id is in use, -ERANGE for an
 * id, TEID or UE address outside the configured ranges, -EADDRINUSE if the
 * TEID or UE address belongs to another session, -EINVAL for a bad rule. */
int upf_session_create(struct upf *u, uint32_t id, const struct upf_session_rule *r);
/* Replace the rules of a session (TEID, UE address, gNB tunnel, QFI, AMBR,
 * state). Going from BUFFER to ACTIVE sends the buffered downlink packets. An
 * ACTIVE session whose downlink tunnel changes (a handover, TS 23.502 4.9.1)
 * switches in one rule write, then gets an End Marker on the old tunnel
 * (TS 23.501 5.8.2.9, TS 29.281 7.3.2) so the old gNB knows its last packet.
 * -ENOENT if not installed. */
int upf_session_modify(struct upf *u, uint32_t id, const struct upf_session_rule *r);
/* Remove; buffered packets are dropped. -ENOENT if not installed. */
int upf_session_remove(struct upf *u, uint32_t id);
/* Counters of one session, summed over CPUs. */
int upf_session_stats(struct upf *u, uint32_t id, struct upf_session_stats *out);
/* ---- uplink PDRs with selecting SDF filters (issue 32; TS 29.244 5.2.1, 8.2.5) ----
 * A session of the common shape (one uplink rule, its UE address as the only filter) needs
 * none of this and keeps the direct path. A session with more uplink PDRs gets them here: the
 * program matches them, in precedence order and with the session's own uplink PDR among them
 * (main_precedence; its filter is the UE's address and /64), before the direct path; the first
 * whose filter matches decides (UPF_PDR_FORW and the session's own: the direct path; DROP:
 * dropped, counted drop_sdf; TO_CP: sent on in a G-PDU to cp_addr:2152, TEID cp_teid,
 * counted ul_to_cp). None matching: the direct path's own checks decide. At most UPF_PDR_MAX
 * entries with the session's own (one per family it has). */
struct upf_ul_pdr {
	uint32_t precedence;     /* 8.2.11: the lowest value first */
	uint8_t action;          /* UPF_PDR_FORW, UPF_PDR_DROP, UPF_PDR_TO_CP (upf/upf_bpf.h) */
	/* Flow Description, an IPFilterRule (TS 29.212 5.4.2): "permit out PROTO from A [PORTS] to
	 * B [PORTS]", PROTO "ip" or a number, A / B "any", "assigned" or an address[/length],
	 * PORTS one port or lo-hi; as for downlink (the UE is "to"). NULL: any packet. */
	const char *flow;
	size_t flow_len;
	bool has_tos;            /* ToS / Traffic Class (8.2.5 TTC): value under mask */
	uint8_t tos, tos_mask;
	bool has_flow_label;     /* IPv6 Flow Label (8.2.5 FL), 20 bits: IPv6 packets only */
	uint32_t flow_label;
	uint32_t cp_addr;        /* UPF_PDR_TO_CP: the CP function's GTP-U IPv4 (network order) */
	uint32_t cp_teid;        /* ... and TEID (host order) */
};
/* Install (replace) session id's list; n 0 removes it (back to the direct path alone). 0,
 * -ENOENT (no such session), -ERANGE, -E2BIG (more than UPF_PDR_MAX entries), -EINVAL (a flow
 * description not understood: negation, a port list, options; an action), -EOPNOTSUPP over
 * PFCP. Removed with the session. The session's own entries are built from its rule as it is
 * now: after an upf_session_modify that changes ue_addr, install the list again. */
int upf_session_pdrs(struct upf *u, uint32_t id, uint32_t main_precedence, const struct upf_ul_pdr *pdrs,
		     unsigned n);

/* The CP function's packets for the UE (a PDR of Source Interface CP-function with the
 * downlink FAR, Open5GS's cp2up: the SMF's Router Advertisement answering the RS its up2cp PDR
 * brought): G-PDUs from cp_addr (network order; 0: off) to TEID upf_cp2up_teid(u, id) go down
 * the session's downlink tunnel (when active; else dropped). They reach user space (a TEID
 * past max_teid no session holds), rare by nature. 0, -ENOENT, -ERANGE, -EOPNOTSUPP (PFCP). */
int upf_session_cp2up(struct upf *u, uint32_t id, uint32_t cp_addr);
/* max_teid + 1 + id: never an uplink TEID the UPF chooses (1..max_teid). */
uint32_t upf_cp2up_teid(const struct upf *u, uint32_t id);

/* Can no session take this uplink TEID: held by one (a session other than id; UINT32_MAX: any),
 * or never an uplink TEID (0, a forwarding TEID, UPF_FWD_TEID)? For a CP-chosen F-TEID
 * (TS 29.244 5.5.3.1) before installing it. Over PFCP: false. */
bool upf_teid_taken(const struct upf *u, uint32_t teid, uint32_t id);

/* ---- indirect data forwarding (TS 23.502 4.9.1.3.2 steps 9-11, 4.9.1.3.3; TS 29.281) ----
 * One DL forwarding tunnel per session id (0..max_sessions-1): GTP-U packets, G-PDUs and End
 * Markers (the source gNB sends its End Marker after the last forwarded packet, TS 23.501
 * 5.8.2.9, TS 29.281 7.3.2), that reach our N3 address with TEID UPF_FWD_TEID(id) are sent on to
 * peer_addr:2152 (network order) with TEID peer_teid (the target gNB's DL forwarding tunnel):
 * outer source our N3 address, new outer IPv4/UDP header (TTL 64, UDP checksum 0), GTP-U flags,
 * optional fields, extension headers (PDU Session Container) and T-PDU unchanged. The TEIDs are
 * outside the uplink range (bit 31 set), so a forwarding tunnel never collides with a session's.
 *
 * Where it runs: in the XDP program, next to the uplink (one test of bit 31 on the TEID, then
 * a separate fwd_relay()): a handover moves the UE's whole downlink through the tunnel for its
 * few ms, and the program relays at the cost of an uplink packet (tests/bench/upf/README.md:
 * tens of ns against a few us per packet for the socket), with no copy to user space, and the
 * End Marker takes the same path as the packets before it. The UDP socket relays only what
 * the program hands to the kernel: no neighbour entry for the target yet (the socket's send
 * resolves it; a packet still queued there when the neighbour appears can be overtaken by
 * the next one, relayed in XDP), an outer fragment, or no program attached (UPF_XDP_NONE).
 *
 * No tunnel for a forwarding TEID (never created, removed, id out of range): a G-PDU gets the
 * rate-limited Error Indication of any unknown TEID (TS 29.281 7.3.1), an End Marker is dropped;
 * both counted (drop_fwd_no_tunnel). A target on one of our own addresses is refused at
 * create (N3) or dropped as drop_fib (another local address), and the socket never relays a
 * packet that comes from our N3 address: no relay loop. Like an uplink TEID, the tunnel accepts any sender: the
 * SMF gives no source gNB address, and what it relays goes only to the target the SMF named.
 *
 * A tunnel is created or removed, never modified; upf_session_remove removes the session's
 * tunnel too, upf_close all of them. Create: 0, -EEXIST (one already for id, left unchanged),
 * -ERANGE (id), -EINVAL (peer_addr 0 or our own N3 address: a loop). Remove: 0, -ERANGE (id), -ENOENT (none). */
/* UPF_FWD_TEID_BIT (0x80000000u) is in upf/upf_bpf.h, which the XDP program shares. */
#define UPF_FWD_TEID(id) (UPF_FWD_TEID_BIT | (uint32_t)(id))
int upf_fwd_create(struct upf *u, uint32_t id, uint32_t peer_addr, uint32_t peer_teid);
int upf_fwd_remove(struct upf *u, uint32_t id);
/* The tunnel's own F-TEID, the one the source gNB forwards to (TS 38.413 9.3.4.10): in process
 * fixed, our N3 address and UPF_FWD_TEID(id). A UPF over PFCP (issue 32) allocates it when it
 * advertised FTUP (a CHOOSE in a Create PDR, answered later): upf_fwd_prepare asks for it ahead
 * of the target (the SMF at the Handover Required, its FAR DROP until upf_fwd_create names the
 * target), upf_fwd_tunnel gives it once answered. upf_fwd_create without a prepare asks at
 * once. Prepare: 0, -EEXIST (one already), -ERANGE, -ENOENT (no such session over PFCP),
 * -ENOTCONN. Tunnel: 0 with *addr (network order) / *teid (host order), -ENOENT (none asked),
 * -EINPROGRESS (asked, not answered yet), -ERANGE. upf_fwd_remove removes a prepared one too. */
int upf_fwd_prepare(struct upf *u, uint32_t id);
int upf_fwd_tunnel(struct upf *u, uint32_t id, uint32_t *addr, uint32_t *teid);

/* ---- a UPF driven over PFCP (N4, TS 29.244): `upf.mode: pfcp` (issue 18 item 3) ----
 * The SMF drives a remote UPF (`solocore upf` or any standard one) through the very same
 * calls as the in-process one: upf_n4c_peer_add() returns a struct upf whose
 * upf_session_create / _modify / _remove / _stats, upf_counters, upf_close ... speak PFCP
 * instead of writing XDP maps. The SMF does not know which one it holds.
 *
 * One endpoint (struct upf_n4c) = one UDP socket on <addr>:8805 (TS 29.244 4.2.2: requests
 * from the UPF, the Session Report Request, come to port 8805) shared by every peer.
 * Per peer: Association Setup from us (retried until answered), Heartbeat every
 * heartbeat_ms, every request of ours retransmitted after t1_ms up to n1 times (6.4); a peer
 * that answers none of n1+1 heartbeat sends, or that comes back with another Recovery Time
 * Stamp (TS 23.007 19A), has lost our sessions: on_session_lost(id, UPF_LOST_PEER) for
 * each, the association is set up again.
 *
 * Sessions are asynchronous underneath: the call checks the rule, records it and sends the
 * request; it returns 0 (or the in-process error codes for a bad argument, and -ENOTCONN
 * while the peer has no association). The establishment is answered later through
 * on_est_done (issue 32: TS 23.502 4.3.2.2.1 steps 10a/10b come before the N1N2 transfer of
 * step 11, so the SMF accepts the session towards the UE only then): accepted with the
 * uplink F-TEID, refused (a Cause other than 1) or not answered after n1 retransmissions;
 * upf_session_pending() says whether that answer is still to come. The F-TEID: when the UPF
 * advertises FTUP in its Association Setup (UP Function Features, 8.2.25) the request asks
 * it to choose one (CHOOSE, with a CHOOSE ID, 8.2.3) and on_est_done gives the one of its
 * Created PDR (7.5.3.2); otherwise it is the CP's (5.5.3.1): ul_teid on the peer's n3_addr,
 * with upf_n4c_params.node_id in its high bits so that two SMF nodes on one UPF never
 * collide (upf_n4c_cp_teid). The UE address is the SMF's. Without on_est_done (tests,
 * tools) the old contract holds: nothing to wait for, a refused or unanswered establishment
 * -> on_session_lost. At most one request per session is in flight; changes made meanwhile
 * are coalesced into one Session Modification sent when the answer comes; a modification
 * keeps the F-TEID of the establishment (ul_teid must be the one on_est_done gave).
 * A refused or unanswered modification -> on_session_lost(id, UPF_LOST_REFUSED /
 * UPF_LOST_TIMEOUT): the SMF releases the session.
 * Downlink data for a buffering session (Session Report Request, Downlink Data Report) ->
 * on_dl_data(id), as in process. upf_session_stats gives the volumes of the last Usage
 * Report (deletion / report). The forwarding tunnel (upf_fwd_*) is PDR 3 / FAR 3 in Session
 * Modifications (upf_n4c_sess.c); a refused one is dropped (upf_fwd_tunnel -ENOENT), the
 * session kept. A modification that moves an active downlink carries SNDEM (8.2.31). */
enum upf_lost_reason {
	UPF_LOST_REFUSED = 1,   /* the UPF refused the establishment / modification */
	UPF_LOST_TIMEOUT,       /* no answer to a session request after n1 retransmissions */
	UPF_LOST_PEER,          /* the peer restarted (new Recovery Time Stamp), released the
				 * association, or stayed unreachable path_release_ms */
};

/* The answer to a Session Establishment Request (upf_n4c_peer.on_est_done). */
enum upf_est_status {
	UPF_EST_OK = 0,          /* Cause 1 "Request accepted": ul_teid / n3_addr are the F-TEID */
	UPF_EST_NO_RESOURCES,    /* refused for want of resources (Cause 74 "PFCP entity in
				  * congestion", 75 "No resources available", TS 29.244 8.2.1) */
	UPF_EST_REFUSED,         /* refused with another Cause, or accepted without the UP F-SEID
				  * (7.5.3.1) or without the Created PDR a CHOOSE asked for (7.5.3.2) */
	UPF_EST_TIMEOUT,         /* no answer after T1 x N1 (6.4) */
};
struct upf_est_result {
	enum upf_est_status status;
	uint8_t cause;           /* the PFCP Cause received; 0 without an answer */
	uint32_t ul_teid;        /* UPF_EST_OK: the uplink F-TEID, host order ... */
	uint32_t n3_addr;        /* ... on this IPv4 (network order) */
};

struct upf_n4c;

struct upf_n4c_params {
	struct ev_loop *loop;        /* required: socket, retransmission and heartbeat timers */
	uint32_t addr;               /* our N4 IPv4 (network order): bound (port 8805) and our Node ID */
	uint16_t port;               /* host order; 0: 8805 */
	uint32_t max_sessions;       /* session ids 0..max_sessions-1, shared by every peer */
	uint32_t heartbeat_ms;       /* 0: 5000 */
	uint32_t t1_ms;              /* 0: 3000 */
	uint8_t n1;                  /* 0: 3 */
	uint32_t recovery_ts;        /* our Recovery Time Stamp, NTP seconds; 0: now */
	/* This SMF node (the cluster's node id, conf cluster.node_id; 0: none): the high bits of
	 * the TEIDs we allocate for a UPF without FTUP (upf_n4c_cp_teid). */
	uint64_t node_id;
	/* A peer whose heartbeats go unanswered is unreachable, not restarted: its sessions are
	 * kept this long (ms) before they are released (TS 23.007 19A; upf.n4_path_release_timer);
	 * 0: 60000 */
	uint32_t path_release_ms;
	/* No socket: every datagram goes to send() (tests, fuzzer); answers come in through
	 * upf_n4c_input(). */
	bool no_socket;
	void (*send)(void *arg, uint32_t addr, uint16_t port, const uint8_t *buf, size_t len);
	void *send_arg;
};

struct upf_n4c_peer {
	const char *name;            /* for logs and metrics ("upf1") */
	uint32_t addr;               /* the UPF's N4 IPv4 (network order) */
	uint16_t port;               /* host order; 0: 8805 */
	uint32_t n3_addr;            /* the UPF's N3 IPv4: the address of our F-TEIDs */
	void (*on_dl_data)(void *arg, uint32_t session_id);
	void (*on_session_lost)(void *arg, uint32_t session_id, enum upf_lost_reason why);
	/* The Session Establishment of session_id was answered, or not answered after T1 x N1
	 * (issue 32): r says how and, accepted, with which uplink F-TEID. Once per
	 * upf_session_create, never from inside it; not for a session removed meanwhile (a late
	 * answer is matched to its request by sequence number and to the session by the CP SEID's
	 * generation, and then only its PFCP session is deleted). A refused or unanswered one
	 * counts as removed by the client: the SMF still calls upf_session_remove. May be NULL
	 * (see above). */
	void (*on_est_done)(void *arg, uint32_t session_id, const struct upf_est_result *r);
	/* A Session Report Request with an Error Indication Report (TS 29.244 7.5.8.4, Report
	 * Type ERIR) for one of our sessions: ei as in process (upf_params.on_err_ind), the
	 * first Remote F-TEID. Called after the Report Response went. May be NULL. */
	void (*on_err_ind)(void *arg, const struct upf_err_ind *ei);
	/* The association came up (true) or was lost (false). May be NULL. */
	void (*on_state)(void *arg, bool up);
	void *cb_arg;
};

#define UPF_N4C_PEER_MAX 16

/* 0, -EINVAL, -ENOMEM, or the socket's -errno. */
int upf_n4c_open(const struct upf_n4c_params *p, struct upf_n4c **out);
/* Releases the associations (best effort, no wait) and frees every peer's struct upf:
 * call upf_close() on none of them afterwards. Accepts NULL. */
void upf_n4c_close(struct upf_n4c *c);
/* A peer: its struct upf, owned by the endpoint (upf_close on it only removes the peer).
 * Association setup starts at once. -ENOSPC beyond UPF_N4C_PEER_MAX, -EEXIST for an address
 * already added, -EINVAL. */
int upf_n4c_peer_add(struct upf_n4c *c, const struct upf_n4c_peer *pp, struct upf **out);
/* One datagram from addr:port as if it came from the socket (no_socket mode, tests). */
void upf_n4c_input(struct upf_n4c *c, uint32_t addr, uint16_t port, const uint8_t *buf, size_t len);
int upf_n4c_fd(const struct upf_n4c *c);
/* After upf_session_create(u, id) returned 0: is its establishment still to be answered
 * through on_est_done (a PFCP peer with that callback)? false in process: the rules are in. */
bool upf_session_pending(const struct upf *u, uint32_t id);
/* The TEID the client puts in the F-TEID for a UPF without FTUP (TS 29.244 5.5.3.1): the
 * rule's ul_teid (the SMF's: session id + 1, at most max_sessions) in the low bits, node_id's
 * low bits above them (ul_teid itself with node_id 0). Two SMF nodes on one UPF collide only
 * if their node ids agree in those high bits (max_sessions 65,536: 17 low bits, node ids
 * equal modulo 32,768). */
uint32_t upf_n4c_cp_teid(const struct upf_n4c *c, uint32_t ul_teid);

/* The endpoint's own counters (enum upf_n4c_counter, summed over peers). upf_counters() on a
 * peer's struct upf gives the in-process counters, all 0 over N4: the UPF's data-path counters
 * are on the UPF (solocore upf's /metrics). */
enum upf_n4c_counter {
	UPF_N4C_TX, UPF_N4C_TX_FAILED, UPF_N4C_RX, UPF_N4C_RX_BAD,
	UPF_N4C_RX_STALE,       /* a response that matches no request in flight (late, duplicate) */
	UPF_N4C_RX_DUP,         /* a request of the peer seen again: the same answer again */
	UPF_N4C_RETX, UPF_N4C_TIMEOUT,
	UPF_N4C_EST, UPF_N4C_MOD, UPF_N4C_DEL, UPF_N4C_REFUSED,
	UPF_N4C_EST_OK, UPF_N4C_DEL_OK,   /* ... answered with Cause 1 */
	UPF_N4C_REPORT, UPF_N4C_DL_DATA, UPF_N4C_ASSOC_UP, UPF_N4C_PEER_LOST,
	UPF_N4C_SESS_LOST,      /* on_session_lost calls */
	UPF_N4C_PEER_RESUMED,   /* an unreachable peer answered again, same Recovery Time Stamp */
	UPF_N4C__MAX
};
int upf_n4c_counters_get(const struct upf_n4c *c, uint64_t *out, size_t n);
const char *upf_n4c_counter_name(unsigned idx);

/* Can sessions be placed on this UPF now? Always true in process; over PFCP, while the
 * association is up (or being set up again after the UPF restarted: the establishment is
 * held until it is, TS 23.527 4.3.2), not while the peer is unreachable (heartbeats
 * unanswered: its sessions are kept, new ones go elsewhere). */
bool upf_ready(const struct upf *u);
/* The N3 address gNBs send uplink to for sessions on this UPF (upf_params.n3_addr, or the
 * peer's n3_addr). */
uint32_t upf_n3_addr(const struct upf *u);

/* Global counters (enum upf_counter), summed over CPUs, plus the user-space
 * ones below. out must hold UPF_STAT__MAX entries. */
enum upf_ustat {
	UPF_STAT_ECHO_RSP_SENT = UPF_CNT__MAX,
	UPF_STAT_ERR_IND_SENT,
	UPF_STAT_ERR_IND_LIMITED,   /* unknown TEID, Error Indication suppressed by the rate limit */
	UPF_STAT_BUF_DROPPED,       /* buffer bound reached, or session gone */
	UPF_STAT_BUF_RELEASED,      /* buffered packets sent after reactivation */
	UPF_STAT_NEXTHOP_SENT,      /* downlink sent through the kernel for lack of a neighbour */
	UPF_STAT_SOCK_BAD,          /* malformed packet on the GTP-U socket */
	UPF_STAT_END_MARKER_SENT,   /* End Markers on an old downlink path (upf_session_modify) */
	UPF_STAT_FWD_SENT,          /* indirect forwarding relayed by the socket (UPF_CNT_FWD_KERNEL) */
	UPF_STAT_FWD_SENT_BYTES,    /* ... their GTP-U bytes */
	UPF_STAT_FWD_SEND_FAILED,   /* ... that the socket refused (no route, buffer full) */
	UPF_STAT_RA_SENT,           /* Router Advertisements answering a UE's Router Solicitation */
	UPF_STAT_RS_DROPPED,        /* Router Solicitations not answered: invalid (RFC 4861 6.1.1),
				     * no IPv6 prefix, no active downlink, rate limit */
	/* NAT on N6 (upf/README.md "NAT"); the data-path counters are UPF_CNT_NAT_*. */
	UPF_STAT_NAT_ACTIVE,        /* connections in the table now (a gauge) */
	UPF_STAT_NAT_EXPIRED,       /* connections removed by the idle sweep (RFC 4787 / 7857 timeouts) */
	UPF_STAT_NAT_REMOVED,       /* connections removed with their session */
	UPF_STAT_NAT_ICMP_ERR_SENT, /* ICMP errors translated back and sent down the UE's tunnel */
	UPF_STAT_NAT_ICMP_ERR_DROPPED, /* ... that could not be (no connection, no session, malformed) */
	UPF_STAT_NAT_UL_SENT,       /* translated uplink sent by the raw socket (no neighbour in XDP yet) */
	UPF_STAT_NAT_UL_FAILED,     /* ... that the socket refused */
	UPF_STAT_END_MARKER_FAILED, /* End Markers the GTP-U socket refused (buffer full under a flood) */
	/* Error Indications from gNBs (TS 29.281 7.3.1): reported (on_err_ind), ignored (no
	 * active downlink tunnel of ours is (GTP-U Peer Address, TEID Data I), or the sender is
	 * not that tunnel's gNB: forged or stale), or left for later by the rate limit. */
	UPF_STAT_ERR_IND_REPORTED,
	UPF_STAT_ERR_IND_IGNORED,
	UPF_STAT_ERR_IND_RX_LIMITED,
	UPF_STAT__MAX
};
int upf_counters(struct upf *u, uint64_t *out, size_t n);
/* Short name of a counter ("ul_fwd", "drop_bad_src" ...), or NULL. */
const char *upf_counter_name(unsigned idx);

/* Handle pending exception work (socket and ring) without blocking. Returns
 * the number of items handled or -errno. Called by the loop callbacks. */
int upf_process(struct upf *u);
/* Forget every cached next hop now (after a route or neighbour change that
 * must take effect before the next periodic revalidation). */
void upf_nexthop_flush(struct upf *u);
/* The fds upf_process() serves (for callers without an ev_loop): the GTP-U socket, the
 * exception ring, then the IPv6 GTP-U socket with upf_params.n3_addr6. Returns how many. */
#define UPF_MAX_FDS 3
int upf_fds(const struct upf *u, int fds[UPF_MAX_FDS]);

/* For benchmarks and tests: the XDP program fd and the attached ifindexes. */
int upf_prog_fd(const struct upf *u);

#endif
