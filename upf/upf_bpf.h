/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * upf_bpf - the layout shared by the XDP program (upf/bpf/upf.bpf.c) and user
 * space (upf/upf.c): rule values, per-session counters, global counters and
 * the exception record. Only <linux/types.h> types, so both compilers read it.
 *
 * Rules live in BPF_F_MMAPABLE array maps that user space writes through mmap:
 *   ul_rules[TEID]                  uplink, indexed by the local TEID we allocate
 *   dl_rules[UE address - pool]     downlink, indexed by the UE's offset in the pool
 *   dl6_rules[/64 index in pool6]   downlink IPv6: bits plen..63 of the destination, i.e. the
 *                                   session's /64 inside ue_pool6 (TS 23.501 5.8.2.2: one /64
 *                                   per PDU session); a placeholder of one entry without pool6
 *   ul_rules[ul_teids{TEID}]        uplink of a TEID past max_teid (one a PFCP CP chose: TS
 *                                   29.244 5.5.3.1 lets it pick any 32-bit value): the hash map
 *                                   ul_teids (TEID -> an index past max_teid) is looked up only
 *                                   for such a TEID, so the direct path pays one compare
 * (128 bytes each: the rule line, then the session's counters for that direction).
 * A rule element holds two slots. User space rewrites the older slot, bracketed
 * by its sequence number (odd while being written, then the next even number,
 * larger than the other slot's); the program reads the slot with the larger
 * even number and re-checks it after copying. A writer stalled in mid-write
 * (preempted, page fault) therefore never stalls the traffic: readers keep
 * using the other, complete slot. No packet ever acts on half a rule. The
 * AMBR state (tat_ns) is written by the program only.
 */
#ifndef SOLOCORE_UPF_UPF_BPF_H
#define SOLOCORE_UPF_UPF_BPF_H

#include <linux/types.h>

#define UPF_GTPU_PORT 2152

/* TS 29.281 6.1: GTP-U message types we look at. */
#define UPF_GTP_ECHO_REQ 1
#define UPF_GTP_ECHO_RSP 2
#define UPF_GTP_ERR_IND 26
#define UPF_GTP_END_MARKER 254
#define UPF_GTP_GPDU 255
/* TS 29.281 5.2.1 / TS 38.415: extension header type of the PDU Session Container. */
#define UPF_GTP_EXT_PDU_SESSION 0x85
/* Longest extension-header chain the program walks (each header >= 4 octets). */
#define UPF_GTP_MAX_EXT 4
/* Longest packet handed to user space for buffering (inner IPv4 or IPv6 packet). */
#define UPF_EXC_MAX_PKT 1600

#define UPF_RULE_VALID 0x1u
/* Downlink: the session's user plane is deactivated: hand packets to user space. */
#define UPF_RULE_BUFFER 0x2u
/* Uplink: the session has an IPv4 address (inner IPv4 accepted from ue_addr only) / an IPv6
 * prefix (inner IPv6 accepted from prefix6 only). A family the session lacks is refused. */
#define UPF_RULE_V4 0x4u
#define UPF_RULE_V6 0x8u
/* Uplink: the session's IPv4 uplink is source-NATed to cfg_nat_addr (upf_session_rule.nat). */
#define UPF_RULE_NAT 0x10u
/* Downlink: the gNB's N3 end is IPv6 (gnb_addr6): outer IPv6 from cfg_n3_addr6 (TS 29.281 4.4.2,
 * TS 38.414 5.1); without it gnb_addr, outer IPv4. */
#define UPF_RULE_GNB6 0x20u
/* Uplink: the session has PDRs with selecting SDF filters (TS 29.244 8.2.5): the packet is
 * matched against its PDR list (ul_pdrs{sess_id}, precedence order) before anything else. */
#define UPF_RULE_SDF 0x40u
/* Either direction: the session's PDR in that direction has a FAR with Apply Action DROP (TS
 * 29.244 8.2.26, 5.2.1), or one of its URRs has reached its Volume / Time Quota (5.2.2.2):
 * the packet is dropped and counted (st.drops, drop_far). Tested in the same mask as VALID /
 * SDF (uplink) and BUFFER (downlink): no further test on the forwarding path. */
#define UPF_RULE_DROP 0x80u

/* Session-AMBR (TS 23.501 5.7.1.8) as GCRA: cost_q8 is the cost of one byte
 * in ns << 8 (0: not policed), tau_us the burst tolerance. */

/* One version of an uplink rule. 32 bytes: both slots fill the rule's first cache line. */
struct upf_ul_slot {
	__u32 seq;        /* odd while user space writes this slot */
	__u8 flags;       /* UPF_RULE_* */
	__u8 qfi;         /* 0: accept any QFI in the PDU Session Container */
	__u16 pad;
	__u32 sess_id;    /* index into sess_stats */
	__be32 ue_addr;   /* inner IPv4 source must be this (UPF_RULE_V4) */
	__u32 cost_q8;
	__u32 tau_us;
	/* The session's /64, the first 8 octets of an IPv6 address as they are on the wire: the
	 * first 8 octets of an inner IPv6 source must equal it (UPF_RULE_V6). Inside the slot, so
	 * the sequence lock covers it like the rest of the rule: no ordering to argue. */
	__u64 prefix6;
};

/* Counters of one direction of a session, in the second cache line of its
 * rule (same page, adjacent line): one random memory access per packet
 * instead of three for a per-CPU map (pointer table + per-CPU chunk).
 * Added atomically; contended only when one session is processed on
 * several CPUs at once. */
struct upf_dir_stats {
	__u64 pkts;       /* forwarded */
	__u64 bytes;      /* inner IP bytes forwarded */
	__u64 drops;      /* policed or refused for this session */
};

/* ul_rules[TEID]: two cache lines, 128-byte aligned: the slots (written by user space), then
 * what the program writes per packet (AMBR state, counters). */
struct upf_ul_rule {
	struct upf_ul_slot s[2];
	__u64 tat_ns;     /* GCRA theoretical arrival time (program-owned) */
	struct upf_dir_stats st;
	__u64 pad[4];
};

/* One version of a downlink rule. 40 bytes: the two slots and the AMBR state take the first 88
 * bytes of the rule, the counters follow; a packet touches both lines either way. */
struct upf_dl_slot {
	__u32 seq;
	__u8 flags;
	__u8 qfi;         /* QFI written into the DL PDU Session Container */
	__u16 pad;
	__u32 sess_id;
	__be32 gnb_teid;  /* outer TEID (the gNB's) */
	__u32 cost_q8;
	__u32 tau_us;
	/* Outer destination: gnb_addr (IPv4), or with UPF_RULE_GNB6 the whole gnb_addr6. */
	union {
		__be32 gnb_addr;
		__be32 gnb_addr6[4];
	};
};

/* dl_rules[UE address - pool base] and dl6_rules[/64 index]: two cache lines. */
struct upf_dl_rule {
	struct upf_dl_slot s[2];
	__u64 tat_ns;
	struct upf_dir_stats st;
	__u64 pad[2];
};

/* ul_pdrs{session id}: the uplink PDRs of a session with selecting SDF filters (TS 29.244 5.2.1,
 * 8.2.5), one entry per SDF filter, in precedence order (the lowest value first); the first
 * whose filter matches decides, UPF_PDR_MAIN being the session's own uplink PDR (its UE IP
 * Address as the source filter). None matches: the usual checks of the direct path decide.
 * A BPF hash map (not preallocated): a list is replaced whole, under RCU. */
#define UPF_PDR_MAX 8
enum {
	UPF_PDR_MAIN = 0,      /* the session's uplink PDR: the direct path */
	UPF_PDR_FORW,          /* another PDR whose FAR forwards to Core: the direct path too */
	UPF_PDR_DROP,          /* FAR DROP (8.2.26): dropped, counted */
	UPF_PDR_TO_CP,         /* FAR FORW to CP-function with Outer Header Creation GTP-U/UDP/IPv4
				* (Open5GS's up2cp): to user space, sent on to cp_addr / cp_teid */
};
/* Which packets a filter applies to, and which of its fields are set */
#define UPF_SDF_V4 0x1
#define UPF_SDF_V6 0x2
#define UPF_SDF_TOS 0x4        /* ToS / Traffic Class under tos_mask (8.2.5 TTC) */
#define UPF_SDF_FL 0x8         /* IPv6 Flow Label (8.2.5 FL) */
#define UPF_SDF_PORTS 0x10     /* port ranges (TCP, UDP, SCTP) */
struct upf_pdr {
	__u8 action;           /* UPF_PDR_* */
	__u8 flags;            /* UPF_SDF_* */
	__u8 proto;            /* IP protocol / IPv6 next header; 0: any */
	__u8 tos, tos_mask;
	__u8 pad[3];
	/* The packet's ports, host order, inclusive; an uplink filter's "to" side is the packet's
	 * source (TS 29.212 5.4.2: IPFilterRule is written as downlink, swapped for uplink). */
	__u16 sport_lo, sport_hi, dport_lo, dport_hi;
	__u32 fl;              /* flow label, host order */
	__be32 cp_addr, cp_teid;
	/* Source and destination with masks, as on the wire (IPv4 in word 0) */
	__u32 src[4], smask[4], dst[4], dmask[4];
};
struct upf_pdr_list {
	__u32 n;
	__u32 pad;
	struct upf_pdr p[UPF_PDR_MAX];
};

/* Next-hop cache entry (per CPU), see route() in upf.bpf.c. */
#define UPF_NH_SLOTS_LOG2 10
#define UPF_NH_SLOTS (1u << UPF_NH_SLOTS_LOG2)
#define UPF_NH_REVALIDATE_MS 100
struct upf_nh {
	__u32 gen;        /* nh_gen when filled */
	__be32 dst;
	__u32 iif;        /* ingress ifindex of the lookup */
	__u32 oif;        /* egress ifindex */
	__u8 dmac[6];
	__u8 smac[6];
	__u16 max_len;    /* largest L3 length the lookup accepted (MTU check) */
	__u16 pad;
};

/* IPv6 next-hop cache entry (per CPU), see route6() in upf.bpf.c: the same as upf_nh, keyed on
 * the whole 128-bit destination. */
struct upf_nh6 {
	__u32 gen;
	__u32 iif;
	__u32 dst[4];     /* as on the wire */
	__u32 oif;
	__u8 dmac[6];
	__u8 smac[6];
	__u16 max_len;
	__u16 pad;
};

/* TEIDs with this bit set are indirect-forwarding tunnels (TEID = bit | session id, upf.h
 * UPF_FWD_TEID): outside the uplink range, so the program tells them apart with one test. */
#define UPF_FWD_TEID_BIT 0x80000000u

/* fwd_rules[session id]: one indirect-forwarding tunnel (TS 23.502 4.9.1.3.3), the target
 * gNB's DL forwarding F-TEID. Eight bytes, aligned, so user space publishes it in one 64-bit
 * store and the program reads it in one 64-bit load: a packet sees the old tunnel or the new
 * one, never half of each, without the sequence slots of the session rules (a tunnel is only
 * ever created or removed, never modified in place). peer_addr 0: no tunnel. */
struct upf_fwd_rule {
	__be32 peer_addr;  /* target gNB, outer destination */
	__be32 peer_teid;  /* its DL forwarding TEID */
} __attribute__((aligned(8)));

/* Global per-CPU counters, one per outcome; names in upf.c. */
enum upf_counter {
	UPF_CNT_UL_FWD = 0,        /* uplink G-PDU decapsulated and redirected */
	UPF_CNT_DL_FWD,            /* downlink packet encapsulated and redirected */
	UPF_CNT_UL_KERNEL,         /* decapsulated, no neighbour yet: to the kernel */
	UPF_CNT_DL_NEXTHOP,        /* encapsulation possible but no neighbour: to user space */
	UPF_CNT_PASS_NON_IP,       /* ARP and anything not IPv4: XDP_PASS */
	UPF_CNT_PASS_OTHER,        /* IPv4 that is neither our GTP-U nor for a UE: XDP_PASS */
	UPF_CNT_PASS_FRAG,         /* outer IPv4 fragment or options: XDP_PASS to the kernel */
	UPF_CNT_ECHO_REQ,          /* TS 29.281 7.2.1: to user space for the Echo Response */
	UPF_CNT_ECHO_RSP,
	UPF_CNT_ERR_IND,           /* Error Indication received: to user space */
	UPF_CNT_END_MARKER,        /* TS 29.281 7.3.2: counted, dropped */
	UPF_CNT_GTP_OTHER,         /* other GTP-U messages: to user space */
	UPF_CNT_UNKNOWN_TEID,      /* to user space: Error Indication (TS 29.281 7.3.1) */
	UPF_CNT_DROP_MALFORMED,    /* bad GTP-U version/PT, lengths, ext-header chain */
	UPF_CNT_DROP_INNER,        /* inner packet not IPv4 or truncated */
	UPF_CNT_DROP_BAD_SRC,      /* inner source is not the UE's address */
	UPF_CNT_DROP_QFI,          /* QFI not the one installed */
	UPF_CNT_DROP_AMBR_UL,      /* session-AMBR exceeded */
	UPF_CNT_DROP_AMBR_DL,
	UPF_CNT_DROP_NO_SESSION,   /* downlink to a pool address without a session */
	UPF_CNT_DL_BUFFERED,       /* downlink for an idle session: to user space */
	UPF_CNT_DROP_EXC_FULL,     /* exception ring full or packet too long for it */
	UPF_CNT_DROP_FIB,          /* no route (blackhole, unreachable, prohibit) */
	UPF_CNT_DROP_HEADROOM,     /* bpf_xdp_adjust_head refused */
	UPF_CNT_DROP_RULE_BUSY,    /* rule being rewritten for longer than the retries */
	UPF_CNT_FWD_PKTS,          /* indirect forwarding: G-PDU / End Marker relayed by XDP */
	UPF_CNT_FWD_BYTES,         /* ... their GTP-U bytes (header, extensions, T-PDU) */
	UPF_CNT_FWD_END_MARKER,    /* ... of which End Markers (TS 29.281 7.3.2) */
	UPF_CNT_FWD_KERNEL,        /* forwarding TEID, no neighbour / MTU: to the socket, relayed there */
	UPF_CNT_DROP_FWD_NO_TUNNEL,/* forwarding TEID without a tunnel (G-PDU: Error Indication) */
	/* IPv6 (issue 19). ul_fwd / dl_fwd above count IPv4 only, these IPv6 only. */
	UPF_CNT_UL6_FWD,           /* uplink G-PDU with inner IPv6 decapsulated and redirected */
	UPF_CNT_DL6_FWD,           /* downlink IPv6 encapsulated and redirected */
	UPF_CNT_DROP_BAD_SRC6,     /* inner IPv6 source outside the session's /64 */
	UPF_CNT_DROP_FAMILY,       /* inner IPv4 on a session without IPv4, IPv6 without a prefix */
	UPF_CNT_DROP_NO_SESSION6,  /* downlink to a /64 of pool6 without a session */
	UPF_CNT_UL_RS,             /* ICMPv6 Router Solicitation from a UE: to user space (RFC 4861 6.2.6) */
	/* NAT on N6 (issue 19 item 3, upf/README.md "NAT"). */
	UPF_CNT_NAT_UL,            /* uplink packets translated (source -> nat_addr:port) */
	UPF_CNT_NAT_DL,            /* downlink packets translated back (nat_addr:port -> UE) */
	UPF_CNT_NAT_NEW,           /* translations (connections) created */
	UPF_CNT_NAT_FULL,          /* no entry left in the connection table: dropped */
	UPF_CNT_NAT_PRESSURE,      /* no free port within the probes (range crowded): dropped */
	UPF_CNT_NAT_DROP_PROTO,    /* NAT session: not TCP / UDP / ICMP echo request, IPv4 options */
	UPF_CNT_NAT_FRAG_UL,       /* NAT session: uplink IPv4 fragments translated (in nat_ul) */
	UPF_CNT_NAT_DL_NO_MATCH,   /* to nat_addr, no connection: XDP_PASS (the host's own traffic) */
	UPF_CNT_NAT_DL_FRAG,       /* later fragment to nat_addr, no first one seen: XDP_PASS */
	UPF_CNT_NAT_ICMP_ERR,      /* ICMP error quoting a translated packet: to user space */
	UPF_CNT_NAT_UL_KERNEL,     /* translated uplink, no neighbour yet: to user space, sent from there */
	UPF_CNT_NAT_FRAG_DL,       /* downlink IPv4 fragments translated back (in nat_dl) */
	UPF_CNT_NAT_QUOTA,         /* new connection of a session at its nat_conns_per_session: dropped */
	/* Outer IPv6 on N3 (issue 19 item 2). */
	UPF_CNT_UL_N3V6,           /* of ul_fwd / ul6_fwd: uplink G-PDUs that came in outer IPv6 */
	UPF_CNT_DL_N3V6,           /* of dl_fwd / dl6_fwd: downlink sent in outer IPv6 */
	UPF_CNT_DL_N3V6_USER,      /* outer IPv6 whose UDP checksum the program cannot derive from the
				    * inner headers (fragment, UDP checksum 0, other protocols): to
				    * user space, sent on the IPv6 GTP-U socket */
	/* NAT hairpinning (RFC 4787 6 REQ-9, upf/README.md "NAT"). */
	UPF_CNT_NAT_HAIRPIN,       /* uplink of a NAT session to nat_addr:a mapped port, translated both
				    * ways and sent down the mapping's session (of dl_fwd) */
	UPF_CNT_NAT_HAIRPIN_NO_MAP,/* uplink of a NAT session to nat_addr:a port no mapping holds: dropped */
	/* NAT shares (issue 31 point 5, upf/README.md "NAT"). */
	UPF_CNT_NAT_REMOTE_SHARE,  /* new connection of a session at its nat_conns_per_remote toward that
				    * remote endpoint: dropped */
	/* Uplink PDRs with SDF filters (issue 32, ul_pdrs). */
	UPF_CNT_DROP_SDF,          /* matched a PDR whose FAR drops */
	UPF_CNT_UL_TO_CP,          /* matched a PDR whose FAR forwards to the CP function: to user space */
	UPF_CNT_DROP_FAR,          /* the session's UL / DL rule says drop (UPF_RULE_DROP: FAR DROP, quota) */
	UPF_CNT__MAX
};

/* NAT connection table (two BPF hash maps of nat_max_conns entries each, see upf.bpf.c):
 * nat_fwd by the uplink 5-tuple, nat_rev by the translated one. Ports (for ICMP echo: the
 * identifier, remote port 0) as on the wire. Each direction writes only its own entry: the
 * last-seen time (bpf_ktime_get_ns, CLOCK_MONOTONIC) and the TCP FIN / RST seen. */
/* Entries of each fragment map (nat_frag_ul, nat_frag_dl in upf_nat.bpf.h): datagrams in flight. */
#define UPF_NAT_FRAG_MAX 16384
#define UPF_NAT_F_FIN 0x1
#define UPF_NAT_F_RST 0x2
struct upf_nat_key {
	__be32 ue_addr;
	__be32 rem_addr;
	__be16 ue_port;
	__be16 rem_port;
	__u8 proto;
	__u8 pad[3];
};
struct upf_nat_val {
	__u64 last_ns;    /* last uplink packet */
	__u32 sess_id;
	__be16 nat_port;
	__u8 flags;       /* UPF_NAT_F_* seen in the uplink */
	__u8 pad;
};
struct upf_nat_rkey {
	__be32 rem_addr;
	__be16 nat_port;
	__be16 rem_port;
	__u8 proto;
	__u8 pad[3];
};
struct upf_nat_rval {
	__u64 last_ns;    /* last downlink packet; 0: never answered */
	__be32 ue_addr;
	__be16 ue_port;
	__u8 flags;       /* UPF_NAT_F_* seen in the downlink */
	__u8 pad;
};

/* A session's connections toward one remote endpoint (nat_rshare, upf_nat.bpf.h): the ports
 * toward (proto, rem_addr, rem_port) are one pool for every UE (nat_rev's key), so one session's
 * share of it is bounded. Value: __u64, the connections. */
struct upf_nat_skey {
	__u32 sess_id;
	__be32 rem_addr;
	__be16 rem_port;
	__u8 proto;
	__u8 pad;
};

/* Hairpinning (RFC 4787 6 REQ-9): which UE endpoint holds a NAT port, whatever the remote (the
 * endpoint-independent view of nat_fwd). nat_hp (proto, NAT port) -> the first endpoint given
 * that port, and one of its connections (the anchor: its nat_fwd key is ue_addr, ue_port,
 * rem_addr, rem_port, proto). Inserted by the program (BPF_NOEXIST) with a new connection and
 * again, if missing, when a connection's last-seen time is written (at most once a second);
 * deleted by user space together with its anchor connection (upf_nat.c nat_del). */
struct upf_nat_hkey {
	__be16 nat_port;
	__u8 proto;
	__u8 pad;
};
struct upf_nat_hval {
	__be32 ue_addr;
	__be32 rem_addr;  /* the anchor connection's remote */
	__be16 ue_port;
	__be16 rem_port;
	__u32 sess_id;
};

/* Exception record in the ring buffer: a downlink inner IPv4 or IPv6 packet, or an uplink
 * Router Solicitation (an inner IPv6 packet). User space tells the family by the version
 * nibble of data[0]. */
struct upf_exc_hdr {
	__u32 sess_id;
	__u32 len;        /* bytes of data[] */
	__be32 ue_addr;   /* IPv4 downlink: the destination; 0 for IPv6; UPF_CNT_UL_TO_CP: PDR index */
	__u32 reason;     /* UPF_CNT_DL_BUFFERED, UPF_CNT_DL_NEXTHOP, UPF_CNT_UL_RS, UPF_CNT_UL_TO_CP or
			   * UPF_CNT_NAT_ICMP_ERR (an IPv4 ICMP error to nat_addr, untranslated) */
};

#endif
