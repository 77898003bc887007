// SPDX-License-Identifier: GPL-2.0-only
/*
 * upf.bpf.c - the solocore user plane in XDP, one program for N3 and N6.
 *
 *   uplink   Eth/IPv4/UDP 2152/GTP-U G-PDU [ext headers] / inner IPv4
 *            -> rule = ul_rules[TEID] (past max_teid: ul_rules[ul_teids{TEID}], a TEID a
 *               PFCP CP chose); inner source == UE; AMBR; strip;
 *               next hop (cache, else bpf_fib_lookup) + bpf_redirect (toward N6)
 *   forward  Eth/IPv4/UDP 2152/GTP-U G-PDU or End Marker, TEID with bit 31 (UPF_FWD_TEID)
 *            -> fwd_rules[TEID & ~bit]; new outer IPv4/UDP from N3 to the target gNB, its
 *               TEID, GTP-U payload untouched; next hop + XDP_TX / bpf_redirect (toward N3)
 *   downlink Eth/IPv4 with destination inside the UE pool
 *            -> rule = dl_rules[dst - pool]; AMBR; push IPv4/UDP/GTP-U with
 *               the DL PDU Session Container (TS 38.415 5.5.2.1) carrying the
 *               QFI; next hop to the gNB + bpf_redirect (toward N3)
 *   IPv6     (issue 19, TS 23.501 5.8.2.2: one /64 per PDU session, inside ue_pool6)
 *            uplink: a G-PDU whose inner packet is IPv6 -> same rule by TEID; source in
 *               the session's /64; strip; bpf_fib_lookup AF_INET6 + bpf_redirect. A Router
 *               Solicitation (RFC 4861 4.1) goes to user space through the ring, which
 *               answers with a Router Advertisement (upf_exc.c).
 *            downlink: Eth/IPv6 to an address of pool6 -> dl6_rules[its /64 index];
 *               encapsulated exactly as IPv4 (outer IPv4 to the gNB, GTP-U, container).
 *   NAT      (issue 19 item 3, cfg_nat_addr set, pruned at load otherwise) uplink of a session
 *            with UPF_RULE_NAT: inner IPv4 source -> cfg_nat_addr:port (nat_ul); downlink to
 *            cfg_nat_addr: a connection's answer -> the UE's address:port (nat_dl), then the
 *            usual downlink; ICMP errors about translated packets -> user space.
 *
 * Everything else is decided here with a counter: ARP, non-IPv4 and foreign
 * IPv4 go to the kernel (XDP_PASS) on purpose; GTP-U signalling (Echo, Error
 * Indication, unknown TEID) is passed to the UPF's UDP socket on port 2152 in
 * user space; downlink data for an idle session is copied into a ring buffer
 * for user space to buffer and is dropped here. Rules are read under the
 * sequence lock described in upf/upf_bpf.h.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/in.h>
#include <linux/udp.h>
#include <linux/tcp.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#include "upf/upf_bpf.h"

#ifndef AF_INET
#define AF_INET 2
#endif
#ifndef AF_INET6
#define AF_INET6 10
#endif
#define ICMPV6_PROTO 58          /* IPPROTO_ICMPV6 */
#define ND_ROUTER_SOLICIT 133    /* RFC 4861 4.1 */
#define IPV6_FRAG_HDR 44         /* RFC 8200 4.5 */

#define barrier() asm volatile("" ::: "memory")
/* Make a 16-bit wire value visibly bounded for older verifiers (6.1 loses
 * the bounds of a byte swap); clang would drop a plain & 0xffff. */
#define BOUND16(x) asm volatile("%[v] &= 0xffff" : [v] "+r"(x))
#define READ_ONCE(x) (*(volatile typeof(x) *)&(x))

/* Set by user space before load (skeleton .rodata). */
const volatile __be32 cfg_n3_addr = 0;   /* local N3 address; 0: accept any outer destination */
const volatile __u32 cfg_ue_base = 0;    /* UE pool base, host order */
/* IPv6 pool (ue_pool6): its first 64 bits in host order, and 64 - its length; the /64 of a
 * destination d is ours when (d_hi - base) >> shift == 0, and (d_hi - base) indexes dl6_rules.
 * cfg_ue6_on 0: no pool6, IPv6 is passed to the kernel like any non-IPv4 frame. */
const volatile __u32 cfg_ue6_on = 0;
const volatile __u64 cfg_ue6_base = 0;
const volatile __u32 cfg_ue6_shift = 0;
/* Our N3 IPv6 (upf_params.n3_addr6) as on the wire; cfg_n3_6_on 0: no outer IPv6, pruned. */
const volatile __u32 cfg_n3_addr6[4] = { 0 };
const volatile __u32 cfg_n3_6_on = 0;
/* Forwarding TEIDs are UPF_FWD_TEID_BIT | id with id below this (max_sessions); any other TEID
 * with bit 31 is an uplink one (a CP may choose it). */
const volatile __u32 cfg_fwd_n = 0;
/* TEIDs 1..cfg_max_teid index ul_rules directly; the entries past it are ul_teids' */
const volatile __u32 cfg_max_teid = 0;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct upf_ul_rule);
	__uint(max_entries, 1);          /* resized from upf_params before load */
} ul_rules SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct upf_dl_rule);
	__uint(max_entries, 1);
} dl_rules SEC(".maps");

/* Uplink rules of TEIDs past max_teid (a CP-chosen TEID anywhere in 32 bits, TS 29.244 5.5.3.1):
 * ul_teids maps the TEID to an entry of ul_rules past max_teid (upf_params.max_cp_teids of
 * them), same layout and sequence lock. Looked up only for a TEID past cfg_max_teid; one
 * array for both keeps the verifier's states mergeable (a rule pointer from two maps would
 * double the paths after the lookup). Not preallocated: a deleted element is freed after an
 * RCU grace period, never reused under a reader. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u32);
	__type(value, __u32);
	__uint(max_entries, 1);          /* upf_params.max_cp_teids */
} ul_teids SEC(".maps");

/* Uplink PDR lists of the sessions with selecting SDF filters (UPF_RULE_SDF), upf_bpf.h. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u32);
	__type(value, struct upf_pdr_list);
	__uint(max_entries, 1);          /* upf_params.max_sdf_sessions */
} ul_pdrs SEC(".maps");

/* IPv6 downlink rules by /64 index inside pool6 (upf_bpf.h); one placeholder entry without pool6
 * (the program references the map either way; the branch to it is dead then). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct upf_dl_rule);
	__uint(max_entries, 1);
} dl6_rules SEC(".maps");

/* Indirect forwarding tunnels by session id (TEID UPF_FWD_TEID(id)), see fwd_relay(). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct upf_fwd_rule);
	__uint(max_entries, 1);
} fwd_rules SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, UPF_CNT__MAX);
} counters SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);
} exc_ring SEC(".maps");

/* Next-hop cache in front of bpf_fib_lookup (which costs more than the rest
 * of the program): per CPU, direct-mapped by destination, valid while its
 * generation equals nh_gen. User space bumps nh_gen every
 * UPF_NH_REVALIDATE_MS (and on demand), so a route or neighbour change is
 * seen within that time. Only successful lookups are cached. */
volatile __u32 nh_gen = 1;
const volatile __u32 cfg_nh_cache = 1;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct upf_nh);
	__uint(max_entries, UPF_NH_SLOTS);
} nh_cache SEC(".maps");

/* The same for the IPv6 uplink (route6), same generation. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct upf_nh6);
	__uint(max_entries, UPF_NH_SLOTS);
} nh6_cache SEC(".maps");

struct exc_rec {
	struct upf_exc_hdr h;
	__u8 data[UPF_EXC_MAX_PKT];
};

/* GTP-U header, TS 29.281 5.1 (mandatory part). */
struct gtpu_hdr {
	__u8 flags;
	__u8 type;
	__be16 len;
	__be32 teid;
};

#define GTP_HDR_LEN 8
#define GTP_OPT_LEN 4      /* sequence number, N-PDU number, next extension type */
#define GTP_FLAGS_VER_PT 0x30
#define GTP_FLAG_E 0x04
#define GTP_FLAG_S 0x02
#define GTP_FLAG_PN 0x01
/* Downlink header we push: Eth is reused, then IPv4, UDP, GTP-U + options + PDU Session Container. */
#define DL_GTP_LEN (GTP_HDR_LEN + GTP_OPT_LEN + 4)
#define DL_ENCAP_LEN (sizeof(struct iphdr) + sizeof(struct udphdr) + DL_GTP_LEN)
#define DL_ENCAP6_LEN (sizeof(struct ipv6hdr) + sizeof(struct udphdr) + DL_GTP_LEN)
/* uplink()'s verdict for a hairpinned packet (not an XDP action): upf_xdp() continues with the
 * downlink. */
#define UPF_V_HAIRPIN 0x100

static __always_inline int count(__u32 c, int action)
{
	__u64 *v = bpf_map_lookup_elem(&counters, &c);

	if (v)
		*v += 1;
	return action;
}

static __always_inline void count_n(__u32 c, __u64 n)
{
	__u64 *v = bpf_map_lookup_elem(&counters, &c);

	if (v)
		*v += n;
}

/* Session-AMBR (TS 23.501 5.7.1.8) as GCRA: a token bucket expressed as a
 * theoretical arrival time. The read-modify-write of tat is deliberately not
 * atomic: two CPUs racing lose one packet's cost, which lets at most one extra
 * packet through; an atomic would bounce the cache line on every packet. */
static __always_inline int ambr_ok(__u64 *tatp, __u32 cost_q8, __u32 tau_us, __u32 len)
{
	__u64 now, tat;

	if (!cost_q8)
		return 1;
	now = bpf_ktime_get_ns();
	tat = *tatp;
	if (tat < now)
		tat = now;
	if (tat - now > (__u64)tau_us * 1000)
		return 0;
	*tatp = tat + (((__u64)len * cost_q8) >> 8);
	return 1;
}

/* Retries cover a reader that raced two complete rewrites of its rule
 * (each retry is a cache-line transfer); a writer stalled mid-write
 * never makes a reader retry: it reads the other slot. */
#define UPF_RULE_RETRIES 8

/* The newest complete slot: even sequence number, the larger of the two.
 * x86-64 (TSO) keeps loads in order, so compiler barriers suffice; user space
 * publishes with release stores. Returns the slot index or -1. */
static __always_inline int slot_pick(__u32 s0, __u32 s1)
{
	if (!(s0 & 1) && ((s1 & 1) || (__s32)(s0 - s1) >= 0))
		return 0;
	if (!(s1 & 1))
		return 1;
	return -1;
}

static __always_inline int ul_read(struct upf_ul_rule *r, struct upf_ul_slot *out)
{
#pragma clang loop unroll(disable)
	for (int i = 0; i < UPF_RULE_RETRIES; i++) {
		__u32 s0 = READ_ONCE(r->s[0].seq), s1 = READ_ONCE(r->s[1].seq);
		int k = slot_pick(s0, s1);
		struct upf_ul_slot *sl;

		if (k < 0)
			continue;
		sl = &r->s[k & 1];
		barrier();
		*out = *(volatile struct upf_ul_slot *)sl;
		barrier();
		if (READ_ONCE(sl->seq) == (k ? s1 : s0))
			return 0;
	}
	return -1;
}

static __always_inline int dl_read(struct upf_dl_rule *r, struct upf_dl_slot *out)
{
#pragma clang loop unroll(disable)
	for (int i = 0; i < UPF_RULE_RETRIES; i++) {
		__u32 s0 = READ_ONCE(r->s[0].seq), s1 = READ_ONCE(r->s[1].seq);
		int k = slot_pick(s0, s1);
		struct upf_dl_slot *sl;

		if (k < 0)
			continue;
		sl = &r->s[k & 1];
		barrier();
		*out = *(volatile struct upf_dl_slot *)sl;
		barrier();
		if (READ_ONCE(sl->seq) == (k ? s1 : s0))
			return 0;
	}
	return -1;
}

/* Next hop toward dst for a packet that came in on iif: the cache, else
 * bpf_fib_lookup (filling the cache). 0 with *out set, or RT_FAIL | the
 * BPF_FIB_LKUP_RET_* code of the failed lookup: visibly non-zero, so no
 * verifier (6.1 tracks no "!= 0") walks a failure into the success path. */
#define RT_FAIL 0x100
/* A next hop in memory, zeroed: defined on every path, including the ones
 * only an older verifier (6.1, which ignores ranges on "== 0") walks from a
 * failed lookup into the success branch. */
#define NH_DECLARE(nh) \
	struct upf_nh nh; \
	__builtin_memset(&nh, 0, sizeof(nh)); \
	asm volatile("" : : "r"(&nh) : "memory")
#define RT_IS(rc, code) ((rc) == (RT_FAIL | (code)))
/* The lookups that mean "no route at all" (a drop), as opposed to "no neighbour yet" or the
 * MTU, which the kernel path can still serve. */
#define RT_NO_ROUTE(rc) (RT_IS(rc, BPF_FIB_LKUP_RET_BLACKHOLE) || RT_IS(rc, BPF_FIB_LKUP_RET_UNREACHABLE) || \
			 RT_IS(rc, BPF_FIB_LKUP_RET_PROHIBIT))
static __always_inline int route(struct xdp_md *ctx, __be32 src, __be32 dst, __u8 tos, __u8 proto,
				 __u16 tot_len, struct upf_nh *out)
{
	__u32 iif = ctx->ingress_ifindex;
	__u32 k = (bpf_ntohl(dst) * 2654435761u) >> (32 - UPF_NH_SLOTS_LOG2);
	struct upf_nh *e = cfg_nh_cache ? bpf_map_lookup_elem(&nh_cache, &k) : NULL;
	__u32 gen = nh_gen;

	/* A longer packet than the lookup saw goes through bpf_fib_lookup
	 * again: it checks the egress MTU (BPF_FIB_LKUP_RET_FRAG_NEEDED). */
	if (e && e->gen == gen && e->dst == dst && e->iif == iif && tot_len <= e->max_len) {
		*out = *e;
		return 0;
	}

	struct bpf_fib_lookup fib = {
		.family = AF_INET,
		.tos = tos,
		.l4_protocol = proto,
		.tot_len = tot_len,
		.ipv4_src = src,
		.ipv4_dst = dst,
		.ifindex = iif,
	};
	int rc = bpf_fib_lookup(ctx, &fib, sizeof(fib), 0);

	if (rc != BPF_FIB_LKUP_RET_SUCCESS)
		return RT_FAIL | (rc & 0xff);
	out->gen = gen;
	out->dst = dst;
	out->iif = iif;
	out->oif = fib.ifindex;
	out->max_len = tot_len;
	__builtin_memcpy(out->dmac, fib.dmac, ETH_ALEN);
	__builtin_memcpy(out->smac, fib.smac, ETH_ALEN);
	if (e)
		*e = *out;
	return 0;
}

/* Next hop toward an IPv6 destination (an inner one on the uplink, an IPv6 gNB on the
 * downlink): the per-CPU cache nh6_cache, revalidated with the IPv4 one (nh_gen), else
 * bpf_fib_lookup AF_INET6 (which costs about 90 ns here, three times the rest of the uplink:
 * tests/bench/upf/README.md). src, dst: 16 octets as on the wire, on the stack or in rodata;
 * tot_len the whole IPv6 packet, for the egress MTU check (an IPv6 router never fragments: a
 * larger packet takes the kernel path, which answers Packet Too Big, RFC 8200 5). Same return
 * convention as route(). */
static __always_inline int route6_to(struct xdp_md *ctx, const __u32 *src, const __u32 *dst, __be32 flowinfo,
				     __u8 proto, __u16 tot_len, struct upf_nh *out)
{
	__u32 iif = ctx->ingress_ifindex, d[4];
	__u32 gen = nh_gen, k;
	struct upf_nh6 *e;
	int rc;

	__builtin_memcpy(d, dst, sizeof(d));
	k = ((d[0] ^ d[1] ^ d[2] ^ d[3]) * 2654435761u) >> (32 - UPF_NH_SLOTS_LOG2);
	e = cfg_nh_cache ? bpf_map_lookup_elem(&nh6_cache, &k) : NULL;
	if (e && e->gen == gen && e->iif == iif && tot_len <= e->max_len && e->dst[0] == d[0] &&
	    e->dst[1] == d[1] && e->dst[2] == d[2] && e->dst[3] == d[3]) {
		out->oif = e->oif;
		__builtin_memcpy(out->dmac, e->dmac, ETH_ALEN);
		__builtin_memcpy(out->smac, e->smac, ETH_ALEN);
		return 0;
	}

	struct bpf_fib_lookup fib = {
		.family = AF_INET6,
		.l4_protocol = proto,
		.tot_len = tot_len,
		.ifindex = iif,
	};

	fib.flowinfo = flowinfo;
	__builtin_memcpy(fib.ipv6_src, src, 16);
	__builtin_memcpy(fib.ipv6_dst, d, 16);
	rc = bpf_fib_lookup(ctx, &fib, sizeof(fib), 0);
	if (rc != BPF_FIB_LKUP_RET_SUCCESS)
		return RT_FAIL | (rc & 0xff);
	out->oif = fib.ifindex;
	__builtin_memcpy(out->dmac, fib.dmac, ETH_ALEN);
	__builtin_memcpy(out->smac, fib.smac, ETH_ALEN);
	if (e) {
		e->gen = gen;
		e->iif = iif;
		__builtin_memcpy(e->dst, d, sizeof(d));
		e->oif = fib.ifindex;
		e->max_len = tot_len;
		__builtin_memcpy(e->dmac, fib.dmac, ETH_ALEN);
		__builtin_memcpy(e->smac, fib.smac, ETH_ALEN);
	}
	return 0;
}

/* route6_to for an IPv6 header in the packet (the caller checked its 40 bytes). */
static __always_inline int route6(struct xdp_md *ctx, struct ipv6hdr *ip6, __u16 tot_len, struct upf_nh *out)
{
	__u32 sa[4], da[4];

	__builtin_memcpy(sa, &ip6->saddr, sizeof(sa));
	__builtin_memcpy(da, &ip6->daddr, sizeof(da));
	/* Traffic class and flow label, for policy routing on them. */
	return route6_to(ctx, sa, da, *(__be32 *)ip6 & bpf_htonl(0x0fffffff), ip6->nexthdr, tot_len, out);
}

static __always_inline __u16 csum_fold(__u32 s)
{
	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	return (__u16)~s;
}

/* Header checksum of an IPv4 header without options (the caller checked its 20 bytes). */
static __always_inline void ip_csum(struct iphdr *ip)
{
	__u16 *w = (void *)ip;
	__u32 sum = 0;

	ip->check = 0;
#pragma unroll
	for (int i = 0; i < 10; i++)
		sum += w[i];
	ip->check = csum_fold(sum);
}

/* Indirect data forwarding (TS 23.502 4.9.1.3.2 steps 9-11, 4.9.1.3.3 step 3): a G-PDU or an
 * End Marker to TEID UPF_FWD_TEID(id) leaves again toward the target gNB's DL forwarding
 * tunnel, fwd_rules[id]. We end the source's tunnel and start the target's (TS 29.281 4.3): a
 * new outer IPv4/UDP header from our N3 address, the peer's TEID; the GTP-U flags, optional
 * fields, extension headers (the PDU Session Container, TS 38.415) and T-PDU stay as they came.
 * The End Marker the source sends after its last forwarded packet is relayed the same way, so
 * the target knows the forwarded stream is over (TS 23.501 5.8.2.9, TS 29.281 7.3.2).
 * Done here, not on the socket: forwarding lasts the few ms of a handover but carries the
 * whole downlink of the UE then; the socket relays only what the kernel gets (no neighbour
 * entry yet, an outer fragment). The caller checked the lengths of IPv4, UDP and GTP-U. */
static __always_inline int fwd_relay(struct xdp_md *ctx, __u32 udp_len, __be32 teid, __u8 type)
{
	__u32 key = bpf_ntohl(teid) & ~UPF_FWD_TEID_BIT;
	struct upf_fwd_rule *e = bpf_map_lookup_elem(&fwd_rules, &key);
	struct upf_fwd_rule f = { 0 };
	void *data, *end, *stop;
	__u64 w;

	if (e) {
		/* One 64-bit load: the whole old tunnel or the whole new one (upf_bpf.h). */
		w = READ_ONCE(*(__u64 *)e);
		__builtin_memcpy(&f, &w, sizeof(f));
	}
	if (!f.peer_addr)
		/* TS 29.281 7.3.1: a G-PDU for a tunnel we do not have gets an Error Indication
		 * (user space, rate limited); an End Marker gets nothing. */
		return count(UPF_CNT_DROP_FWD_NO_TUNNEL, type == UPF_GTP_GPDU ? XDP_PASS : XDP_DROP);

	data = (void *)(long)ctx->data;
	end = (void *)(long)ctx->data_end;
	/* Outer IPv4 / Ethernet padding after the datagram is not relayed. */
	stop = data + sizeof(struct ethhdr) + sizeof(struct iphdr) + udp_len;
	if (stop < end && bpf_xdp_adjust_tail(ctx, -(int)(end - stop)))
		return count(UPF_CNT_DROP_HEADROOM, XDP_DROP);
	data = (void *)(long)ctx->data;
	end = (void *)(long)ctx->data_end;

	struct ethhdr *eth = data;
	struct iphdr *ip = (void *)(eth + 1);
	struct udphdr *udp = (void *)(ip + 1);
	struct gtpu_hdr *gtp = (void *)(udp + 1);
	__be32 src = cfg_n3_addr ? cfg_n3_addr : ip->daddr;

	if ((void *)(gtp + 1) > end)
		return count(UPF_CNT_DROP_HEADROOM, XDP_DROP);
	/* The relayed packet is the UDP datagram: bytes the source put after it inside its IPv4
	 * packet (total length > 20 + UDP length) were cut above, so the length is ours, also
	 * for the kernel path below (which would drop a packet shorter than its header says). */
	__u16 tot = sizeof(struct iphdr) + udp_len;

	if (ip->tot_len != bpf_htons(tot)) {
		ip->tot_len = bpf_htons(tot);
		ip_csum(ip);
	}
	NH_DECLARE(nh);
	int rc = route(ctx, src, f.peer_addr, ip->tos, IPPROTO_UDP, tot, &nh);

	/* NOT_FWDED: the target is one of our own addresses; relaying there (through the
	 * kernel to our socket) would loop. */
	if (RT_NO_ROUTE(rc) || RT_IS(rc, BPF_FIB_LKUP_RET_NOT_FWDED))
		return count(UPF_CNT_DROP_FIB, XDP_DROP);
	if (rc != 0)
		/* No neighbour yet (or the MTU): the kernel hands it, unchanged, to our socket,
		 * which relays it (upf_exc.c) and so resolves the neighbour. */
		return count(UPF_CNT_FWD_KERNEL, XDP_PASS);

	ip->saddr = src;
	ip->daddr = f.peer_addr;
	ip->ttl = 64;              /* a new tunnel starts here, not a routed hop */
	ip_csum(ip);
	udp->source = bpf_htons(UPF_GTPU_PORT);
	udp->dest = bpf_htons(UPF_GTPU_PORT);
	udp->check = 0;            /* optional over IPv4 (RFC 768), as on our downlink */
	gtp->teid = f.peer_teid;
	__builtin_memcpy(eth->h_dest, nh.dmac, ETH_ALEN);
	__builtin_memcpy(eth->h_source, nh.smac, ETH_ALEN);

	count_n(UPF_CNT_FWD_BYTES, udp_len - sizeof(*udp));
	if (type == UPF_GTP_END_MARKER)
		count(UPF_CNT_FWD_END_MARKER, 0);
	count(UPF_CNT_FWD_PKTS, 0);
	/* Source and target gNB sit behind N3: out the way it came, without a redirect. */
	if (nh.oif == ctx->ingress_ifindex)
		return XDP_TX;
	return bpf_redirect(nh.oif, 0);
}

/* The uplink PDRs of session sess (ul_pdrs) against the inner packet at off (TS 29.244 5.2.1:
 * in precedence order, the first match wins; 8.2.5 / TS 29.212 5.4.2 filters: protocol,
 * addresses under masks, port ranges, ToS / Traffic Class, Flow Label). UPF_PDR_* | the entry's
 * index << 8, or -1: none matches (or no list). A function of its own (not inlined): its loop
 * is verified once at its one call site, whose result is dead after the caller's two tests,
 * so the states after it merge. Not global: 6.1's verifier takes a global function's ctx
 * argument for plain memory. */
static __attribute__((noinline)) int upf_sdf_match(struct xdp_md *ctx, __u32 sess, __u32 off)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	struct upf_pdr_list *l = bpf_map_lookup_elem(&ul_pdrs, &sess);
	struct ipv6hdr *ip6 = NULL;
	__u32 sa = 0, da = 0, fl = 0, fam, sp = 0, dp = 0, ports = 0;
	__u8 proto, tos, *v, *l4;

	/* Scalars and packet pointers only: the caller's stack is nearly all of the 512 bytes. */
	if (!l)
		return -1;
	off &= 0x1ff;
	v = data + off;
	if ((void *)(v + 1) > end)
		return -1;
	if (*v >> 4 == 4) {
		struct iphdr *ip = (void *)v;

		if ((void *)(ip + 1) > end)
			return -1;
		fam = UPF_SDF_V4;
		proto = ip->protocol;
		tos = ip->tos;
		sa = ip->saddr;
		da = ip->daddr;
		/* Ports only in a first fragment (RFC 791: later ones carry none). */
		l4 = (ip->frag_off & bpf_htons(0x1fff)) ? NULL : (void *)v + (((__u32)ip->ihl * 4) & 0x3c);
	} else if (*v >> 4 == 6) {
		__u32 w;

		ip6 = (void *)v;
		if ((void *)(ip6 + 1) > end)
			return -1;
		fam = UPF_SDF_V6;
		w = bpf_ntohl(*(__be32 *)ip6);
		tos = (w >> 20) & 0xff;
		fl = w & 0xfffff;
		proto = ip6->nexthdr;
		l4 = (void *)(ip6 + 1);   /* extension headers are not walked: no ports behind them */
	} else {
		return -1;
	}
	if (l4 && (proto == IPPROTO_TCP || proto == IPPROTO_UDP || proto == 132) && (void *)(l4 + 4) <= end) {
		sp = ((__u32)l4[0] << 8) | l4[1];
		dp = ((__u32)l4[2] << 8) | l4[3];
		ports = 1;
	}
	for (int i = 0; i < UPF_PDR_MAX; i++) {
		struct upf_pdr *p;

		if (i >= (int)l->n)
			break;
		p = &l->p[i];
		if (!(p->flags & fam) || (p->proto && p->proto != proto))
			continue;
		if (ip6) {
			__u32 *s6 = (__u32 *)&ip6->saddr, *d6 = (__u32 *)&ip6->daddr;

			if (((s6[0] ^ p->src[0]) & p->smask[0]) | ((s6[1] ^ p->src[1]) & p->smask[1]) |
			    ((s6[2] ^ p->src[2]) & p->smask[2]) | ((s6[3] ^ p->src[3]) & p->smask[3]) |
			    ((d6[0] ^ p->dst[0]) & p->dmask[0]) | ((d6[1] ^ p->dst[1]) & p->dmask[1]) |
			    ((d6[2] ^ p->dst[2]) & p->dmask[2]) | ((d6[3] ^ p->dst[3]) & p->dmask[3]))
				continue;
		} else if (((sa ^ p->src[0]) & p->smask[0]) | ((da ^ p->dst[0]) & p->dmask[0])) {
			continue;
		}
		if ((p->flags & UPF_SDF_TOS) && (tos & p->tos_mask) != p->tos)
			continue;
		if ((p->flags & UPF_SDF_FL) && fl != p->fl)
			continue;
		if ((p->flags & UPF_SDF_PORTS) &&
		    (!ports || sp < p->sport_lo || sp > p->sport_hi || dp < p->dport_lo || dp > p->dport_hi))
			continue;
		return p->action | i << 8;
	}
	return -1;
}

/* The GTP-U exceptions: signalling goes to the UDP socket in user space. */
static __always_inline int gtp_signalling(__u8 type)
{
	switch (type) {
	case UPF_GTP_ECHO_REQ:
		return count(UPF_CNT_ECHO_REQ, XDP_PASS);
	case UPF_GTP_ECHO_RSP:
		return count(UPF_CNT_ECHO_RSP, XDP_PASS);
	case UPF_GTP_ERR_IND:
		return count(UPF_CNT_ERR_IND, XDP_PASS);
	case UPF_GTP_END_MARKER:
		/* TS 29.281 7.3.2: marks the end of a path; nothing to forward. */
		return count(UPF_CNT_END_MARKER, XDP_DROP);
	default:
		return count(UPF_CNT_GTP_OTHER, XDP_PASS);
	}
}

/* Copy len bytes of the packet from off into the ring for user space: a downlink inner packet
 * (buffering, no next hop) or an uplink Router Solicitation. The packet is dropped here. */
static __always_inline int to_user_at(struct xdp_md *ctx, __u32 off, __u32 len, __u32 sess_id, __be32 ue,
				      __u32 reason)
{
	struct exc_rec *rec;

	if (len > UPF_EXC_MAX_PKT || len < sizeof(struct iphdr))
		return count(UPF_CNT_DROP_EXC_FULL, XDP_DROP);
	rec = bpf_ringbuf_reserve(&exc_ring, sizeof(*rec), 0);
	if (!rec)
		return count(UPF_CNT_DROP_EXC_FULL, XDP_DROP);
	rec->h.sess_id = sess_id;
	rec->h.len = len;
	rec->h.ue_addr = ue;
	rec->h.reason = reason;
	/* Re-check next to the call so the verifier sees both bounds; the
	 * barriers stop clang from folding them into one unsigned compare,
	 * which the 6.1 verifier reads as "may be zero". */
	asm volatile("" : "+r"(len));
	if (len > UPF_EXC_MAX_PKT)
		goto discard;
	asm volatile("" : "+r"(len));
	if (len < sizeof(struct iphdr))
		goto discard;
	if (bpf_xdp_load_bytes(ctx, off, rec->data, len)) {
discard:
		bpf_ringbuf_discard(rec, 0);
		return count(UPF_CNT_DROP_EXC_FULL, XDP_DROP);
	}
	bpf_ringbuf_submit(rec, 0);
	return count(reason, XDP_DROP);
}

/* The downlink inner packet after the Ethernet header, to user space. */
static __always_inline int to_user(struct xdp_md *ctx, __u32 sess_id, __be32 ue, __u32 reason)
{
	return to_user_at(ctx, sizeof(struct ethhdr), ctx->data_end - ctx->data - sizeof(struct ethhdr),
			  sess_id, ue, reason);
}

#include "upf_nat.bpf.h"

/* Uplink G-PDU whose inner packet, at off, is IPv6 (TS 23.501 5.8.2.2): the rule r of its TEID
 * is read and valid, the GTP-U header walked (hdr_len: outer IP (l3len octets) + UDP + GTP-U,
 * pdu_qfi from the container). Kept out of the IPv4 path, which pays only its version test. */
static __always_inline int uplink6(struct xdp_md *ctx, struct upf_ul_rule *rule, struct upf_ul_slot *r,
				   __u32 off, __u32 udp_len, __u32 hdr_len, __u32 pdu_qfi, __u32 l3len)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	struct ipv6hdr *ip6 = data + (off & 0x1ff);
	__u32 ilen = udp_len - sizeof(struct udphdr) - (hdr_len - l3len - sizeof(struct udphdr));
	struct ethhdr eth;
	__u64 src;

	if ((void *)(ip6 + 1) > end)
		return count(UPF_CNT_DROP_INNER, XDP_DROP);
	/* RFC 4861 6.1.1 / 6.2.6, TS 23.501 5.8.2.2.2: a Router Solicitation from the UE comes from
	 * its link-local address (or ::), not from its /64: checked before the source. User space
	 * validates it (hop limit 255, checksum, code, options) and answers with a Router
	 * Advertisement of the session's prefix. An RS behind extension headers is not recognised
	 * (the UE has no reason to add any); one on a session without IPv6 is refused below, so
	 * it never takes ring space from buffered downlink. */
	if (ip6->nexthdr == ICMPV6_PROTO && (r->flags & UPF_RULE_V6)) {
		__u8 *icmp = (void *)(ip6 + 1);

		if ((void *)(icmp + 1) <= end && icmp[0] == ND_ROUTER_SOLICIT)
			return to_user_at(ctx, off & 0x1ff, ilen, r->sess_id, 0, UPF_CNT_UL_RS);
	}
	if (!(r->flags & UPF_RULE_V6)) {
		__sync_fetch_and_add(&rule->st.drops, 1);
		return count(UPF_CNT_DROP_FAMILY, XDP_DROP);
	}
	/* Anti-spoofing: the source's first 64 bits are the session's prefix. */
	__builtin_memcpy(&src, &ip6->saddr, sizeof(src));
	if (src != r->prefix6) {
		__sync_fetch_and_add(&rule->st.drops, 1);
		return count(UPF_CNT_DROP_BAD_SRC6, XDP_DROP);
	}
	if (r->qfi && pdu_qfi && (pdu_qfi & 0x3f) != r->qfi) {
		__sync_fetch_and_add(&rule->st.drops, 1);
		return count(UPF_CNT_DROP_QFI, XDP_DROP);
	}
	/* RFC 8200 3: the payload length must fit what the tunnel carried (0 is a jumbogram, RFC
	 * 2675, which no N3 link carries). */
	__u32 itot = bpf_ntohs(ip6->payload_len);

	BOUND16(itot);
	itot += sizeof(*ip6);
	if (itot == sizeof(*ip6) || itot > ilen)
		return count(UPF_CNT_DROP_INNER, XDP_DROP);
	if (!ambr_ok(&rule->tat_ns, r->cost_q8, r->tau_us, ilen)) {
		__sync_fetch_and_add(&rule->st.drops, 1);
		return count(UPF_CNT_DROP_AMBR_UL, XDP_DROP);
	}

	NH_DECLARE(nh);
	/* Looked up before the strip, straight from the header in the packet. */
	int rc = route6(ctx, ip6, (__u16)itot, &nh);

	if (RT_NO_ROUTE(rc)) {
		__sync_fetch_and_add(&rule->st.drops, 1);
		return count(UPF_CNT_DROP_FIB, XDP_DROP);
	}
	/* Bytes after the UDP datagram (outer padding) are not part of the inner packet. */
	void *stop = data + sizeof(struct ethhdr) + l3len + udp_len;

	if (stop < end && bpf_xdp_adjust_tail(ctx, -(int)(end - stop)))
		return count(UPF_CNT_DROP_HEADROOM, XDP_DROP);
	data = (void *)(long)ctx->data;
	if (data + sizeof(eth) > (void *)(long)ctx->data_end)
		return count(UPF_CNT_DROP_HEADROOM, XDP_DROP);
	__builtin_memcpy(&eth, data, sizeof(eth));
	if (bpf_xdp_adjust_head(ctx, (int)hdr_len))
		return count(UPF_CNT_DROP_HEADROOM, XDP_DROP);
	data = (void *)(long)ctx->data;
	end = (void *)(long)ctx->data_end;
	if (data + sizeof(eth) > end)
		return count(UPF_CNT_DROP_HEADROOM, XDP_DROP);
	eth.h_proto = bpf_htons(ETH_P_IPV6);
	__builtin_memcpy(data, &eth, sizeof(eth));

	__sync_fetch_and_add(&rule->st.pkts, 1);
	__sync_fetch_and_add(&rule->st.bytes, ilen);
	if (l3len != sizeof(struct iphdr))
		count(UPF_CNT_UL_N3V6, 0);
	if (rc == 0) {
		struct ethhdr *e = data;

		__builtin_memcpy(e->h_dest, nh.dmac, ETH_ALEN);
		__builtin_memcpy(e->h_source, nh.smac, ETH_ALEN);
		count(UPF_CNT_UL6_FWD, 0);
		return bpf_redirect(nh.oif, 0);
	}
	/* No neighbour entry yet: the kernel forwards it and resolves the neighbour (NDP). */
	return count(UPF_CNT_UL_KERNEL, XDP_PASS);
}

/* An uplink GTP-U datagram: l3 the outer header, l3len its length (IPv4 without options: 20;
 * IPv6 without extension headers: 40; constants, each call site its own copy), l3pay the octets
 * after it the header claims. */
static __always_inline int uplink(struct xdp_md *ctx, void *l3, __u32 l3len, __u32 l3pay)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	struct udphdr *udp = l3 + l3len;
	struct gtpu_hdr *gtp = (void *)(udp + 1);
	__u32 off, udp_len, hdr_len, pdu_qfi = 0, key;
	struct upf_ul_rule *rule;
	struct upf_ul_slot r;
	struct iphdr *iip;
	struct ethhdr eth;
	__u8 *p, next;

	if ((void *)(gtp + 1) > end)
		return count(UPF_CNT_DROP_MALFORMED, XDP_DROP);
	/* TS 29.281 5.1: version 1, protocol type GTP. */
	if ((gtp->flags & 0xf0) != GTP_FLAGS_VER_PT)
		return count(UPF_CNT_DROP_MALFORMED, XDP_DROP);
	udp_len = bpf_ntohs(udp->len);
	BOUND16(udp_len);
	if (udp_len < sizeof(*udp) + GTP_HDR_LEN ||
	    udp_len > l3pay ||
	    (void *)udp + udp_len > end ||
	    bpf_ntohs(gtp->len) != udp_len - sizeof(*udp) - GTP_HDR_LEN)
		return count(UPF_CNT_DROP_MALFORMED, XDP_DROP);
	/* TS 23.502 4.9.1.3.3: data and End Markers on an indirect forwarding tunnel. */
	if ((gtp->teid & bpf_htonl(UPF_FWD_TEID_BIT)) &&
	    (gtp->type == UPF_GTP_GPDU || gtp->type == UPF_GTP_END_MARKER) &&
	    (bpf_ntohl(gtp->teid) & ~UPF_FWD_TEID_BIT) < cfg_fwd_n) {
		/* The forwarding tunnels are IPv4: one reached over IPv6 is relayed by the socket. */
		if (l3len != sizeof(struct iphdr))
			return count(UPF_CNT_FWD_KERNEL, XDP_PASS);
		return fwd_relay(ctx, udp_len, gtp->teid, gtp->type);
	}
	if (gtp->type != UPF_GTP_GPDU)
		return gtp_signalling(gtp->type);

	/* Optional fields and the extension-header chain (TS 29.281 5.2). */
	off = sizeof(struct ethhdr) + l3len + sizeof(*udp) + GTP_HDR_LEN;
	if (gtp->flags & (GTP_FLAG_E | GTP_FLAG_S | GTP_FLAG_PN)) {
		p = data + off;
		if ((void *)(p + GTP_OPT_LEN) > end)
			return count(UPF_CNT_DROP_MALFORMED, XDP_DROP);
		next = (gtp->flags & GTP_FLAG_E) ? p[3] : 0;
		off += GTP_OPT_LEN;
		for (int i = 0; i < UPF_GTP_MAX_EXT && next; i++) {
			__u32 elen;

			off &= 0xff;
			p = data + off;
			if ((void *)(p + 4) > end)
				return count(UPF_CNT_DROP_MALFORMED, XDP_DROP);
			elen = (__u32)p[0] * 4;     /* length in 4-octet units */
			if (!elen || elen > 64)
				return count(UPF_CNT_DROP_MALFORMED, XDP_DROP);
			if (next == UPF_GTP_EXT_PDU_SESSION) {
				/* TS 38.415 5.5.2.2: UL PDU SESSION INFORMATION, QFI in octet 2. */
				pdu_qfi = 0x100 | (p[2] & 0x3f);
			}
			/* The last octet of each header names the next one. */
			p = data + ((off + elen - 1) & 0x1ff);
			if ((void *)(p + 1) > end)
				return count(UPF_CNT_DROP_MALFORMED, XDP_DROP);
			next = *p;
			off += elen;
		}
		if (next)
			return count(UPF_CNT_DROP_MALFORMED, XDP_DROP);
	}
	off &= 0x1ff;
	hdr_len = off - sizeof(struct ethhdr);

	key = bpf_ntohl(gtp->teid);
	if (key > cfg_max_teid) {
		/* Past max_teid: a CP-chosen TEID (ul_teids -> its entry), or unknown. */
		__u32 *x = bpf_map_lookup_elem(&ul_teids, &key);

		if (!x)
			return count(UPF_CNT_UNKNOWN_TEID, XDP_PASS);
		key = *x;
	}
	rule = bpf_map_lookup_elem(&ul_rules, &key);
	if (!rule)
		return count(UPF_CNT_UNKNOWN_TEID, XDP_PASS);
	if (ul_read(rule, &r))
		return count(UPF_CNT_DROP_RULE_BUSY, XDP_DROP);
	/* Not valid, a session with selecting SDF filters (issue 32: its PDRs first), or one whose
	 * uplink is dropped (FAR DROP or a quota reached, TS 29.244 8.2.26, 5.2.2.2): one test for
	 * all three, so the common shape pays nothing for the others. */
	if ((r.flags & (UPF_RULE_VALID | UPF_RULE_SDF | UPF_RULE_DROP)) != UPF_RULE_VALID) {
		if (!(r.flags & UPF_RULE_VALID))
			return count(UPF_CNT_UNKNOWN_TEID, XDP_PASS);
		int m = -1;

		if (r.flags & UPF_RULE_SDF) {
			m = upf_sdf_match(ctx, r.sess_id, off);
			if (m >= 0 && (m & 0xff) == UPF_PDR_DROP) {
				__sync_fetch_and_add(&rule->st.drops, 1);
				return count(UPF_CNT_DROP_SDF, XDP_DROP);
			}
			if (m >= 0 && (m & 0xff) == UPF_PDR_TO_CP)
				return to_user_at(ctx, off, udp_len - sizeof(*udp) - (hdr_len - l3len - sizeof(*udp)),
						  r.sess_id, (__u32)m >> 8, UPF_CNT_UL_TO_CP);
		}
		/* The session's own uplink PDR's FAR (or its quota) drops; a further PDR with a
		 * forwarding FAR of its own that matched is not the session's PDR. */
		if ((r.flags & UPF_RULE_DROP) && !(m >= 0 && (m & 0xff) == UPF_PDR_FORW)) {
			__sync_fetch_and_add(&rule->st.drops, 1);
			return count(UPF_CNT_DROP_FAR, XDP_DROP);
		}
	}

	iip = data + off;
	if ((void *)(iip + 1) > end)
		return count(UPF_CNT_DROP_INNER, XDP_DROP);
	if (iip->version != 4) {
		if (iip->version == 6)
			return uplink6(ctx, rule, &r, off, udp_len, hdr_len, pdu_qfi, l3len);
		return count(UPF_CNT_DROP_INNER, XDP_DROP);
	}
	/* An IPv6-only session has no IPv4 source to match (ue_addr 0 in its rule). */
	if (iip->saddr != r.ue_addr || !(r.flags & UPF_RULE_V4)) {
		__sync_fetch_and_add(&rule->st.drops, 1);
		return count(r.flags & UPF_RULE_V4 ? UPF_CNT_DROP_BAD_SRC : UPF_CNT_DROP_FAMILY, XDP_DROP);
	}
	if (r.qfi && pdu_qfi && (pdu_qfi & 0x3f) != r.qfi) {
		__sync_fetch_and_add(&rule->st.drops, 1);
		return count(UPF_CNT_DROP_QFI, XDP_DROP);
	}
	__u32 ilen = udp_len - sizeof(*udp) - (hdr_len - l3len - sizeof(*udp));
	if (!ambr_ok(&rule->tat_ns, r.cost_q8, r.tau_us, ilen)) {
		__sync_fetch_and_add(&rule->st.drops, 1);
		return count(UPF_CNT_DROP_AMBR_UL, XDP_DROP);
	}

	/* The route is the UE's: looked up with its own source. After NAT the source is one of
	 * our addresses, which a forwarding lookup from N3 refuses (a martian to the kernel). */
	__be32 isrc = iip->saddr;
	/* Hairpinning (upf_nat.bpf.h): the holder of the destination port; hp_on 0: not one. */
	__be32 hp_ue = 0;
	__u32 hp_port = 0, hp_on = 0;

	/* NAT on N6 (cfg_nat_addr 0: pruned at load, the plain path pays nothing). */
	if (cfg_nat_addr && (r.flags & UPF_RULE_NAT)) {
		__u32 why = 0;

		if (iip->daddr == cfg_nat_addr) {
			why = nat_hp_peek(iip, end, &hp_ue, &hp_port);
			hp_on = 1;
		}
		if (!why)
			why = nat_ul(iip, end, r.sess_id);
		if (!why && hp_on)
			why = nat_hp_back(iip, end, hp_ue, hp_port);
		if (why) {
			__sync_fetch_and_add(&rule->st.drops, 1);
			return count(why, XDP_DROP);
		}
	}
	__be32 idst = iip->daddr;
	__u8 itos = iip->tos, iproto = iip->protocol;
	__u16 itot = bpf_ntohs(iip->tot_len);
	NH_DECLARE(nh);

	/* Bytes after the UDP datagram (outer IPv4 padding) are not part of
	 * the inner packet. */
	if ((void *)udp + udp_len < end &&
	    bpf_xdp_adjust_tail(ctx, -(int)(end - ((void *)udp + udp_len))))
		return count(UPF_CNT_DROP_HEADROOM, XDP_DROP);
	data = (void *)(long)ctx->data;
	if (data + sizeof(eth) > (void *)(long)ctx->data_end)
		return count(UPF_CNT_DROP_HEADROOM, XDP_DROP);
	/* Strip: keep the Ethernet header, drop outer IP/UDP/GTP-U. */
	__builtin_memcpy(&eth, data, sizeof(eth));
	eth.h_proto = bpf_htons(ETH_P_IP);   /* the outer one may have been IPv6 */
	if (bpf_xdp_adjust_head(ctx, (int)hdr_len))
		return count(UPF_CNT_DROP_HEADROOM, XDP_DROP);
	data = (void *)(long)ctx->data;
	end = (void *)(long)ctx->data_end;
	if (data + sizeof(eth) > end)
		return count(UPF_CNT_DROP_HEADROOM, XDP_DROP);
	__builtin_memcpy(data, &eth, sizeof(eth));

	if (cfg_nat_addr && hp_on) {
		/* RFC 4787 REQ-9: never out to N6; upf_xdp() sends it down the holder's session. */
		__sync_fetch_and_add(&rule->st.pkts, 1);
		__sync_fetch_and_add(&rule->st.bytes, ilen);
		if (l3len != sizeof(struct iphdr))
			count(UPF_CNT_UL_N3V6, 0);
		return UPF_V_HAIRPIN;
	}

	int rc = route(ctx, isrc, idst, itos, iproto, itot, &nh);

	if (RT_NO_ROUTE(rc)) {
		__sync_fetch_and_add(&rule->st.drops, 1);
		return count(UPF_CNT_DROP_FIB, XDP_DROP);
	}
	/* Forwarded here or by the kernel below. */
	__sync_fetch_and_add(&rule->st.pkts, 1);
	__sync_fetch_and_add(&rule->st.bytes, ilen);
	if (l3len != sizeof(struct iphdr))
		count(UPF_CNT_UL_N3V6, 0);
	if (rc == 0) {
		struct ethhdr *e = data;

		__builtin_memcpy(e->h_dest, nh.dmac, ETH_ALEN);
		__builtin_memcpy(e->h_source, nh.smac, ETH_ALEN);
		count(UPF_CNT_UL_FWD, 0);
		return bpf_redirect(nh.oif, 0);
	}
	/* No neighbour entry yet (or forwarding off): the kernel forwards the
	 * decapsulated packet and resolves ARP, later packets take the fast path.
	 * A translated one it would drop (our own source from N3): user space sends it. */
	if (cfg_nat_addr && (r.flags & UPF_RULE_NAT))
		return to_user(ctx, r.sess_id, 0, UPF_CNT_NAT_UL_KERNEL);
	return count(UPF_CNT_UL_KERNEL, XDP_PASS);
}

/* The DL GTP-U header in front of an inner packet of ilen octets (the caller checked the
 * DL_GTP_LEN octets at g). TS 29.281 5.1 + TS 38.415 5.5.2.1: E=1, G-PDU, length after the
 * first 8 octets, TEID; seq/N-PDU 0, next type 0x85; container length 1, PDU type 0 (DL PDU
 * SESSION INFORMATION), QFI, no further header. */
static __always_inline void dl_gtp_hdr(__u8 *g, __u32 ilen, const struct upf_dl_slot *r)
{
	g[0] = GTP_FLAGS_VER_PT | GTP_FLAG_E;
	g[1] = UPF_GTP_GPDU;
	*(__be16 *)(g + 2) = bpf_htons(ilen + GTP_OPT_LEN + 4);
	*(__be32 *)(g + 4) = r->gnb_teid;
	*(__u32 *)(g + 8) = 0;
	g[11] = UPF_GTP_EXT_PDU_SESSION;
	g[12] = 1;
	g[13] = 0x00;
	g[14] = r->qfi & 0x3f;
	g[15] = 0;
}

/* The one's-complement sum (RFC 1071) of the ilen octets of the inner packet at l3, known from
 * its headers alone when its own checksums are right: an IPv4 header sums to zero with its
 * checksum, a TCP, UDP or ICMPv6 segment to the complement of its pseudo-header (RFC 9293
 * 3.1, RFC 768, RFC 8200 8.1, RFC 4443 2.3), an ICMP message to zero (RFC 792). The outer
 * UDP checksum IPv6 requires (RFC 8200 8.1) then costs a few header words, not a pass over the
 * payload (what Linux calls local checksum offload). -1 where it is not known so: a fragment,
 * UDP without a checksum, IPv6 extension headers, any other protocol. A packet whose inner
 * checksum is wrong gets a wrong outer one: the gNB drops what the UE would have dropped. */
static __always_inline int inner_sum(void *l3, void *end, __u32 ilen, __u32 *out)
{
	__u8 *v = l3;

	if ((void *)(v + 1) > end)
		return -1;
	if (*v >> 4 == 4) {
		struct iphdr *ip = l3;
		__u32 hl, l4, ps;
		__u16 *c;

		if ((void *)(ip + 1) > end || (ip->frag_off & bpf_htons(0x3fff)))
			return -1;
		hl = (__u32)ip->ihl * 4;
		if (hl < sizeof(*ip) || hl > ilen)
			return -1;
		l4 = ilen - hl;
		if (ip->protocol == IPPROTO_ICMP) {
			*out = 0;
			return 0;
		}
		if (ip->protocol == IPPROTO_UDP) {
			c = l3 + (hl & 0x3c) + 6;
			if ((void *)(c + 1) > end || !*c)
				return -1;
		} else if (ip->protocol != IPPROTO_TCP) {
			return -1;
		}
		ps = (ip->saddr & 0xffff) + (ip->saddr >> 16) + (ip->daddr & 0xffff) + (ip->daddr >> 16) +
		     bpf_htons((__u16)ip->protocol) + bpf_htons((__u16)l4);
		*out = csum_fold(ps);
		return 0;
	}
	if (*v >> 4 == 6) {
		struct ipv6hdr *ip6 = l3;
		__u16 *w = l3, *c;
		__u32 hs = 0, ps = 0, l4 = ilen - sizeof(*ip6);
		__u8 nh;

		if ((void *)(ip6 + 1) > end)
			return -1;
		nh = ip6->nexthdr;
		if (nh == IPPROTO_UDP) {
			c = (void *)(ip6 + 1) + 6;
			if ((void *)(c + 1) > end || !*c)
				return -1;
		} else if (nh != IPPROTO_TCP && nh != ICMPV6_PROTO) {
			return -1;
		}
#pragma unroll
		for (int i = 0; i < 20; i++)
			hs += w[i];
#pragma unroll
		for (int i = 4; i < 20; i++)
			ps += w[i];
		ps += bpf_htons((__u16)l4) + bpf_htons((__u16)nh);
		*out = hs + csum_fold(ps);
		return 0;
	}
	return -1;
}

/* The outer flow label of a downlink packet in outer IPv6 (RFC 6437 3; RFC 6438 4: a tunnel end
 * point sets it from the inner flow, so that routers hashing on the outer 3-tuple spread the
 * tunnel's flows as they would spread the inner ones). Hash of the inner source and
 * destination, protocol and, for TCP and UDP, the ports (the caller's inner_sum() checked the
 * inner header and refused fragments, so the ports are there); the same inner flow always
 * gets the same label, and a hashed flow never gets 0 (RFC 6437 3: 0 means "no label"), 1
 * instead. Not keyed with a secret: the inner flow is visible to anyone who sees the label's
 * packet anyway (RFC 6437 6, security: the concern is guessing it from off the path). */
static __always_inline __u32 fl_mix(__u32 h, __u32 w)
{
	h ^= w;
	h *= 0x9e3779b1u;
	return h ^ (h >> 16);
}

static __always_inline __u32 flow_label(void *l3, void *end)
{
	__u8 *v = l3;
	__u32 h = 0x6a09e667u, *p;
	__u8 proto = 0;

	if ((void *)(v + 1) > end)
		return 1;
	if (*v >> 4 == 4) {
		struct iphdr *ip = l3;

		if ((void *)(ip + 1) > end)
			return 1;
		proto = ip->protocol;
		h = fl_mix(h, ip->saddr);
		h = fl_mix(h, ip->daddr);
		p = l3 + (((__u32)ip->ihl * 4) & 0x3c);
	} else {
		struct ipv6hdr *ip6 = l3;
		__u32 *a = (void *)&ip6->saddr;

		if ((void *)(ip6 + 1) > end)
			return 1;
		proto = ip6->nexthdr;
#pragma unroll
		for (int i = 0; i < 8; i++)
			h = fl_mix(h, a[i]);
		p = (void *)(ip6 + 1);
	}
	h = fl_mix(h, proto);
	if ((proto == IPPROTO_TCP || proto == IPPROTO_UDP) && (void *)(p + 1) <= end)
		h = fl_mix(h, *p);   /* both ports in one word */
	h = (h ^ (h >> 20)) & 0xfffff;
	return h ? h : 1;
}

/* The downlink toward a gNB on IPv6 (UPF_RULE_GNB6, TS 38.414 5.1): as dl_out, in outer IPv6
 * from cfg_n3_addr6 with the UDP checksum (RFC 8200 8.1) from inner_sum(); what inner_sum()
 * cannot sum, or without a neighbour entry, is sent by user space on the IPv6 GTP-U socket
 * (the kernel sums it). The inner packet follows the Ethernet header (dl_out trimmed it). */
static __always_inline int dl_out6(struct xdp_md *ctx, struct upf_dl_rule *rule, struct upf_dl_slot *r,
				   __u32 ilen, __be32 ue, __u32 fwd_cnt)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	__u32 isum = 0, sum, label;
	__u32 src[4], dst[4];

	if (inner_sum(data + sizeof(struct ethhdr), end, ilen, &isum))
		return to_user(ctx, r->sess_id, ue, UPF_CNT_DL_N3V6_USER);
	label = flow_label(data + sizeof(struct ethhdr), end);
	__builtin_memcpy(dst, r->gnb_addr6, sizeof(dst));
	/* One volatile read per word: a memcpy of the const array would be folded to its
	 * compile-time zeros, not read from the rodata user space set. */
#pragma unroll
	for (int i = 0; i < 4; i++)
		src[i] = cfg_n3_addr6[i];

	NH_DECLARE(nh);
	int rc = route6_to(ctx, src, dst, bpf_htonl(label), IPPROTO_UDP, ilen + DL_ENCAP6_LEN, &nh);

	if (RT_NO_ROUTE(rc)) {
		__sync_fetch_and_add(&rule->st.drops, 1);
		return count(UPF_CNT_DROP_FIB, XDP_DROP);
	}
	if (rc != 0)
		return to_user(ctx, r->sess_id, ue, UPF_CNT_DL_NEXTHOP);
	if (bpf_xdp_adjust_head(ctx, -(int)DL_ENCAP6_LEN))
		return count(UPF_CNT_DROP_HEADROOM, XDP_DROP);
	data = (void *)(long)ctx->data;
	end = (void *)(long)ctx->data_end;

	struct ethhdr *eth = data;
	struct ipv6hdr *oip = (void *)(eth + 1);
	struct udphdr *udp = (void *)(oip + 1);
	__u8 *g = (void *)(udp + 1);
	__u16 *w;

	if ((void *)(g + DL_GTP_LEN) > end)
		return count(UPF_CNT_DROP_HEADROOM, XDP_DROP);
	__builtin_memcpy(eth->h_dest, nh.dmac, ETH_ALEN);
	__builtin_memcpy(eth->h_source, nh.smac, ETH_ALEN);
	eth->h_proto = bpf_htons(ETH_P_IPV6);

	/* Version 6, traffic class 0, the inner flow's label (flow_label above). */
	*(__be32 *)oip = bpf_htonl(0x60000000 | label);
	oip->payload_len = bpf_htons(ilen + sizeof(*udp) + DL_GTP_LEN);
	oip->nexthdr = IPPROTO_UDP;
	oip->hop_limit = 64;
	__builtin_memcpy(&oip->saddr, src, 16);
	__builtin_memcpy(&oip->daddr, dst, 16);

	udp->source = bpf_htons(UPF_GTPU_PORT);
	udp->dest = bpf_htons(UPF_GTPU_PORT);
	udp->len = oip->payload_len;
	udp->check = 0;

	dl_gtp_hdr(g, ilen, r);

	/* Pseudo-header (addresses, UDP length, next header), UDP header, GTP-U: 8-octet aligned
	 * words of what was just written, plus the inner packet's sum. */
	sum = isum + udp->len + bpf_htons(IPPROTO_UDP);
	w = (void *)&oip->saddr;
#pragma unroll
	for (int i = 0; i < 16; i++)
		sum += w[i];
	w = (void *)udp;
#pragma unroll
	for (int i = 0; i < 4 + DL_GTP_LEN / 2; i++)
		sum += w[i];
	udp->check = csum_fold(sum);
	if (!udp->check)
		udp->check = 0xffff;   /* RFC 768: a computed zero is sent as all ones */

	__sync_fetch_and_add(&rule->st.pkts, 1);
	__sync_fetch_and_add(&rule->st.bytes, ilen);
	count(fwd_cnt, 0);
	count(UPF_CNT_DL_N3V6, 0);
	return bpf_redirect(nh.oif, 0);
}

/* The downlink of either family once its rule r (entry rule) is found: the inner packet (at l3,
 * ilen bytes, inside the frame) is trimmed of link padding, buffered in user space, policed,
 * or encapsulated toward the gNB (outer IPv4 whatever the inner family) and redirected;
 * fwd_cnt counts it then (UPF_CNT_DL_FWD or UPF_CNT_DL6_FWD). ue: the IPv4 destination for
 * the exception record, 0 for IPv6. */
static __always_inline int dl_out(struct xdp_md *ctx, struct upf_dl_rule *rule, struct upf_dl_slot *rp,
				  void *l3, __u32 ilen, __be32 ue, __u32 fwd_cnt)
{
	struct upf_dl_slot r = *rp;
	void *data, *end = (void *)(long)ctx->data_end;

	/* Ethernet padding of short frames is not part of the IP packet. */
	if (l3 + ilen < end &&
	    bpf_xdp_adjust_tail(ctx, -(int)(end - (l3 + ilen))))
		return count(UPF_CNT_DROP_HEADROOM, XDP_DROP);
	/* Idle (buffered in user space) or dropped (FAR DROP or a quota reached, TS 29.244
	 * 8.2.26, 5.2.2.2; DROP wins): one test for both on the forwarding path. */
	if (r.flags & (UPF_RULE_BUFFER | UPF_RULE_DROP)) {
		if (r.flags & UPF_RULE_DROP) {
			__sync_fetch_and_add(&rule->st.drops, 1);
			return count(UPF_CNT_DROP_FAR, XDP_DROP);
		}
		return to_user(ctx, r.sess_id, ue, UPF_CNT_DL_BUFFERED);
	}
	if (!ambr_ok(&rule->tat_ns, r.cost_q8, r.tau_us, ilen)) {
		__sync_fetch_and_add(&rule->st.drops, 1);
		return count(UPF_CNT_DROP_AMBR_DL, XDP_DROP);
	}
	if (cfg_n3_6_on && (r.flags & UPF_RULE_GNB6))
		return dl_out6(ctx, rule, &r, ilen, ue, fwd_cnt);

	NH_DECLARE(nh);
	int rc = route(ctx, cfg_n3_addr, r.gnb_addr, 0, IPPROTO_UDP, ilen + DL_ENCAP_LEN, &nh);

	if (RT_NO_ROUTE(rc)) {
		__sync_fetch_and_add(&rule->st.drops, 1);
		return count(UPF_CNT_DROP_FIB, XDP_DROP);
	}
	if (rc != 0)
		/* User space sends it through the kernel, which resolves ARP. */
		return to_user(ctx, r.sess_id, ue, UPF_CNT_DL_NEXTHOP);

	if (bpf_xdp_adjust_head(ctx, -(int)DL_ENCAP_LEN))
		return count(UPF_CNT_DROP_HEADROOM, XDP_DROP);
	data = (void *)(long)ctx->data;
	end = (void *)(long)ctx->data_end;

	struct ethhdr *eth = data;
	struct iphdr *oip = (void *)(eth + 1);
	struct udphdr *udp = (void *)(oip + 1);
	__u8 *g = (void *)(udp + 1);

	if ((void *)(g + DL_GTP_LEN) > end)
		return count(UPF_CNT_DROP_HEADROOM, XDP_DROP);
	__builtin_memcpy(eth->h_dest, nh.dmac, ETH_ALEN);
	__builtin_memcpy(eth->h_source, nh.smac, ETH_ALEN);
	eth->h_proto = bpf_htons(ETH_P_IP);

	oip->version = 4;
	oip->ihl = 5;
	oip->tos = 0;
	oip->tot_len = bpf_htons(ilen + DL_ENCAP_LEN);
	oip->id = 0;
	oip->frag_off = bpf_htons(0x4000);  /* DF */
	oip->ttl = 64;
	oip->protocol = IPPROTO_UDP;
	oip->saddr = cfg_n3_addr;
	oip->daddr = r.gnb_addr;
	ip_csum(oip);

	udp->source = bpf_htons(UPF_GTPU_PORT);
	udp->dest = bpf_htons(UPF_GTPU_PORT);
	udp->len = bpf_htons(ilen + sizeof(*udp) + DL_GTP_LEN);
	udp->check = 0;  /* optional over IPv4 (RFC 768) */

	dl_gtp_hdr(g, ilen, &r);

	__sync_fetch_and_add(&rule->st.pkts, 1);
	__sync_fetch_and_add(&rule->st.bytes, ilen);
	count(fwd_cnt, 0);
	return bpf_redirect(nh.oif, 0);
}

static __always_inline int downlink(struct xdp_md *ctx, struct iphdr *iip)
{
	struct upf_dl_rule *rule;
	struct upf_dl_slot r;
	__u32 ilen, key;

	/* Answers to translated connections come back to nat_addr (pruned without NAT). */
	if (cfg_nat_addr && iip->daddr == cfg_nat_addr) {
		int v = nat_dl(ctx, iip);

		if (v >= 0)
			return v;
	}
	key = bpf_ntohl(iip->daddr) - cfg_ue_base;
	rule = bpf_map_lookup_elem(&dl_rules, &key);
	if (!rule)
		return count(UPF_CNT_PASS_OTHER, XDP_PASS);
	if (dl_read(rule, &r))
		return count(UPF_CNT_DROP_RULE_BUSY, XDP_DROP);
	if (!(r.flags & UPF_RULE_VALID))
		return count(UPF_CNT_DROP_NO_SESSION, XDP_DROP);

	ilen = bpf_ntohs(iip->tot_len);
	BOUND16(ilen);
	if (ilen < sizeof(*iip) || (void *)iip + ilen > (void *)(long)ctx->data_end)
		return count(UPF_CNT_DROP_INNER, XDP_DROP);
	return dl_out(ctx, rule, &r, iip, ilen, iip->daddr, UPF_CNT_DL_FWD);
}

/* Downlink IPv6 (TS 23.501 5.8.2.2): a destination inside pool6 belongs to the session that
 * holds its /64 (bits plen..63 index dl6_rules); any interface identifier is the UE's. */
static __always_inline int downlink6(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	struct ipv6hdr *ip6 = data + sizeof(struct ethhdr);
	struct upf_dl_rule *rule;
	struct upf_dl_slot r;
	__u64 hi, d;
	__u32 key, ilen;

	if ((void *)(ip6 + 1) > end)
		return count(UPF_CNT_PASS_OTHER, XDP_PASS);
	__builtin_memcpy(&hi, &ip6->daddr, sizeof(hi));
	d = bpf_be64_to_cpu(hi) - cfg_ue6_base;
	/* Outside pool6 (our own addresses, NDP, multicast): the kernel's. */
	if (d >> cfg_ue6_shift)
		return count(UPF_CNT_PASS_OTHER, XDP_PASS);
	key = (__u32)d;
	rule = bpf_map_lookup_elem(&dl6_rules, &key);
	if (!rule)
		return count(UPF_CNT_PASS_OTHER, XDP_PASS);
	if (dl_read(rule, &r))
		return count(UPF_CNT_DROP_RULE_BUSY, XDP_DROP);
	if (!(r.flags & UPF_RULE_VALID))
		return count(UPF_CNT_DROP_NO_SESSION6, XDP_DROP);
	ilen = bpf_ntohs(ip6->payload_len);
	BOUND16(ilen);
	/* Payload length 0 is a jumbogram (RFC 2675): not carried over N3. */
	if (!ilen)
		return count(UPF_CNT_DROP_INNER, XDP_DROP);
	ilen += sizeof(*ip6);
	if ((void *)ip6 + ilen > end)
		return count(UPF_CNT_DROP_INNER, XDP_DROP);
	return dl_out(ctx, rule, &r, ip6, ilen, 0, UPF_CNT_DL6_FWD);
}

/* Outer IPv6 on N3 (TS 29.281 4.4.2, TS 38.414 5.1): UDP to [cfg_n3_addr6]:2152 is our GTP-U;
 * -1 for anything else (downlink6 or the kernel). Extension headers (a fragment header
 * included) go to the kernel: reassembled there, the socket sees them, as outer IPv4 fragments.
 * The UDP checksum is not verified, as over IPv4: the inner packet carries its own. */
static __always_inline int from_n3v6(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	struct ipv6hdr *ip6 = data + sizeof(struct ethhdr);
	struct udphdr *udp = (void *)(ip6 + 1);
	__u32 d[4];

	if ((void *)(ip6 + 1) > end)
		return -1;
	__builtin_memcpy(d, &ip6->daddr, sizeof(d));
	if (d[0] != cfg_n3_addr6[0] || d[1] != cfg_n3_addr6[1] || d[2] != cfg_n3_addr6[2] ||
	    d[3] != cfg_n3_addr6[3])
		return -1;
	if (ip6->nexthdr != IPPROTO_UDP)
		return count(ip6->nexthdr == IPV6_FRAG_HDR ? UPF_CNT_PASS_FRAG : UPF_CNT_PASS_OTHER, XDP_PASS);
	if ((void *)(udp + 1) > end || udp->dest != bpf_htons(UPF_GTPU_PORT))
		return count(UPF_CNT_PASS_OTHER, XDP_PASS);
	__u32 pay = bpf_ntohs(ip6->payload_len);

	BOUND16(pay);
	return uplink(ctx, ip6, sizeof(*ip6), pay);
}

SEC("xdp")
int upf_xdp(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip = (void *)(eth + 1);
	int v;

	if ((void *)(ip + 1) > end)
		return count(UPF_CNT_PASS_NON_IP, XDP_PASS);
	if (eth->h_proto != bpf_htons(ETH_P_IP)) {
		if (eth->h_proto != bpf_htons(ETH_P_IPV6))
			return count(UPF_CNT_PASS_NON_IP, XDP_PASS);
		/* cfg_n3_6_on and cfg_ue6_on are constant at load: the verifier prunes what is off. */
		if (cfg_n3_6_on) {
			v = from_n3v6(ctx);
			if (cfg_nat_addr && v == UPF_V_HAIRPIN)
				goto hairpin;
			if (v >= 0)
				return v;
		}
		if (cfg_ue6_on)
			return downlink6(ctx);
		return count(UPF_CNT_PASS_NON_IP, XDP_PASS);
	}
	if (ip->protocol == IPPROTO_UDP && (!cfg_n3_addr || ip->daddr == cfg_n3_addr)) {
		struct udphdr *udp = (void *)(ip + 1);

		if (ip->ihl != 5 || (ip->frag_off & bpf_htons(0x3fff))) {
			/* Options or fragments on the outer header: leave it to the
			 * kernel (reassembly), user space sees it on the socket. */
			if (ip->ihl == 5 && (void *)(udp + 1) <= end &&
			    udp->dest != bpf_htons(UPF_GTPU_PORT))
				return count(UPF_CNT_PASS_OTHER, XDP_PASS);
			return count(UPF_CNT_PASS_FRAG, XDP_PASS);
		}
		if ((void *)(udp + 1) > end)
			return count(UPF_CNT_PASS_OTHER, XDP_PASS);
		if (udp->dest == bpf_htons(UPF_GTPU_PORT)) {
			v = uplink(ctx, ip, sizeof(*ip), bpf_ntohs(ip->tot_len) - sizeof(*ip));
			if (!cfg_nat_addr || v != UPF_V_HAIRPIN)
				return v;
			goto hairpin;
		}
	}
	return downlink(ctx, ip);
hairpin:
	/* A hairpinned uplink (upf_nat.bpf.h), now Ethernet / IPv4 to the holder's UE address: the
	 * downlink of that session, as if it had come from N6 (one copy of downlink(): the
	 * verifier walks it from here too; the stack stays the one frame's). */
	data = (void *)(long)ctx->data;
	end = (void *)(long)ctx->data_end;
	ip = data + sizeof(struct ethhdr);
	if ((void *)(ip + 1) > end)
		return count(UPF_CNT_DROP_HEADROOM, XDP_DROP);
	return downlink(ctx, ip);
}

char LICENSE[] SEC("license") = "GPL";
