/* SPDX-License-Identifier: GPL-2.0-only */
/* upf_nat.bpf.h - NAT on N6 for upf.bpf.c (included once, after to_user(); not a public header:
 * it uses the program's helpers and maps). */
/* ---- NAT on N6 (issue 19 item 3; upf/README.md "NAT") ----
 * Source NAT of the IPv4 uplink of sessions whose rule carries UPF_RULE_NAT (TS 23.501 5.8.2:
 * the address UE traffic carries on N6 is the deployment's choice): TCP and UDP by port, ICMP
 * echo by its identifier (RFC 4787 / RFC 5508 behaviour approximated, see the README). Maps:
 * nat_fwd by (proto, UE address, UE port, remote address, remote port) gives the NAT port,
 * nat_rev by (proto, NAT port, remote address, remote port) gives the UE address and port back.
 * Not LRU: a live flow is never evicted to make room; a full table drops the new connection and
 * counts it (UPF_CNT_NAT_FULL). Idle entries are deleted by user space (upf_nat.c).
 * The port of a new connection is chosen here, on its first packet: a start hashed from the UE
 * endpoint with a secret (RFC 6056 3.3.3, RFC 7857 2.9: not guessable from outside), then at most
 * NAT_PROBES ports inserted into nat_rev with BPF_NOEXIST (the insert is the reservation, so two
 * CPUs cannot take the same port). The hash leaves the remote out: one UE endpoint gets the same
 * NAT port toward every remote unless that port is taken for that remote (endpoint-independent
 * in the common case, RFC 4787 REQ-1; see the README for when it is not).
 * Checksums are updated incrementally (RFC 1624 eqn. 3, HC' = ~(~HC + ~m + m')), the IPv4
 * header's for the address, TCP/UDP's for the pseudo-header address and the port, ICMP's for
 * the identifier; a UDP checksum of 0 (none, RFC 768) stays 0, a computed 0 is sent as 0xffff. */
const volatile __be32 cfg_nat_addr = 0;    /* 0: no NAT, the branches below are pruned at load */
const volatile __u32 cfg_nat_port_lo = 1024;
const volatile __u32 cfg_nat_port_n = 64512; /* ports in the range, >= 1 */
const volatile __u32 cfg_nat_seed = 0;
/* A port never handed out (host order; 0: none): 2152 when nat_addr is the N3 address, whose UDP
 * 2152 is GTP-U (upf_xdp sends it to uplink()). */
const volatile __u32 cfg_nat_skip = 0;
/* The connections' clock: CLOCK_MONOTONIC ns as user space last published it (upf_nat_tick,
 * every UPF_NH_REVALIDATE_MS). One load instead of bpf_ktime_get_ns per packet, which costs
 * about 15 ns here (tests/bench/upf/README.md); the timeouts are seconds, and the sweep that
 * reads these times runs on the same thread that publishes the clock, so a stalled control
 * thread only makes live entries look older by the stall, never younger. */
volatile __u64 nat_now_ns = 0;

#define NAT_PROBES 16
#define NAT_TOUCH_NS 1000000000ull  /* last-seen times are kept to 1 s: fewer stores to shared lines */
#define IPPROTO_ICMP_ 1
#define ICMP_ECHOREPLY_ 0
#define ICMP_DEST_UNREACH_ 3
#define ICMP_ECHO_ 8
#define ICMP_TIME_EXCEEDED_ 11
#define ICMP_PARAMETERPROB_ 12

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, struct upf_nat_key);
	__type(value, struct upf_nat_val);
	__uint(max_entries, 1);          /* nat_max_conns before load; 1 without NAT */
} nat_fwd SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, struct upf_nat_rkey);
	__type(value, struct upf_nat_rval);
	__uint(max_entries, 1);
} nat_rev SEC(".maps");

/* Hairpinning (RFC 4787 6 REQ-9): nat_hp (proto, NAT port) -> the UE endpoint holding that port
 * (upf_bpf.h struct upf_nat_hval). The first endpoint given a port owns it here; a port
 * overloaded toward other remotes (README "Port allocation") keeps its first owner, and the
 * exact connection in nat_rev, when there is one, wins over nat_hp (nat_hp_back). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, struct upf_nat_hkey);
	__type(value, struct upf_nat_hval);
	__uint(max_entries, 1);          /* nat_max_conns before load with NAT */
} nat_hp SEC(".maps");

/* k's connection (port nat_port, network order) as the holder of its port in nat_hp, unless
 * the port has one. BPF_NOEXIST: never moves a live owner. */
static __always_inline void nat_hp_claim(const struct upf_nat_key *k, __u16 nat_port, __u32 sess_id)
{
	struct upf_nat_hkey hk = { .nat_port = nat_port, .proto = k->proto };
	struct upf_nat_hval hv = { .ue_addr = k->ue_addr, .rem_addr = k->rem_addr, .ue_port = k->ue_port,
				   .rem_port = k->rem_port, .sess_id = sess_id };

	bpf_map_update_elem(&nat_hp, &hk, &hv, BPF_NOEXIST);
}

/* Fragments (RFC 791 2.3; RFC 6864 4.1: the ID is unique per source, destination and protocol
 * while a datagram can live). Only a first fragment carries ports, so:
 *   uplink: every fragment of a UE datagram leaves from nat_addr with a new ID taken from one
 *     counter (two UEs sending the same ID to one remote would otherwise collide in the remote's
 *     reassembly, all their fragments now coming from nat_addr); the ID is remembered per
 *     (UE, remote, protocol, old ID) in nat_frag_ul, so the fragments of one datagram share it
 *     in whatever order they come. The first fragment gets its port as a whole packet would (an
 *     incremental update of the L4 checksum covers the whole datagram, RFC 1624), the later
 *     ones only the address and the ID.
 *   downlink: a first fragment to nat_addr is translated by its ports and its UE remembered
 *     per (remote, protocol, ID) in nat_frag_dl; the later ones find the UE there. A later
 *     fragment before its first one (reordered) finds nothing: XDP_PASS, pass_nat_frag, as for
 *     the host's own fragments.
 * No reassembly, no buffering, all in XDP. LRU maps: a mapping lives NAT_FRAG_TTL_NS at most
 * and needs no sweep; one evicted under pressure costs one datagram. */
#define NAT_FRAG_TTL_NS 5000000000ull
struct nat_frag_ukey {
	__be32 ue_addr;
	__be32 rem_addr;
	__be16 id;
	__u8 proto;
	__u8 pad;
};
struct nat_frag_uval {
	__u64 t_ns;
	__be16 id;         /* the ID on N6 */
	__u16 pad[3];
};
struct nat_frag_dkey {
	__be32 rem_addr;
	__be16 id;
	__u8 proto;
	__u8 pad;
};
struct nat_frag_dval {
	__u64 t_ns;
	__be32 ue_addr;
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__type(key, struct nat_frag_ukey);
	__type(value, struct nat_frag_uval);
	__uint(max_entries, 1);          /* UPF_NAT_FRAG_MAX before load with NAT */
} nat_frag_ul SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__type(key, struct nat_frag_dkey);
	__type(value, struct nat_frag_dval);
	__uint(max_entries, 1);
} nat_frag_dl SEC(".maps");

/* Connections per session (RFC 6888 REQ-4: a subscriber's share of the ports is limitable):
 * counted up here when one is made, down by user space when it goes (mmapped, atomic both
 * sides). cfg_nat_quota 0: no limit, the map keeps one entry and is not touched. */
const volatile __u32 cfg_nat_quota = 0;
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, __u64);            /* array elements are 8-byte aligned anyway */
	__uint(max_entries, 1);          /* max_sessions before load with a quota */
} nat_quota SEC(".maps");

/* A session's share of the ports toward one remote endpoint (issue 31 point 5; RFC 6888 REQ-4,
 * RFC 6269: the ports of a shared address are what its subscribers compete for). nat_rev's
 * key holds the remote, so toward one (proto, address, port) there are cfg_nat_port_n ports for
 * all UEs together, and one session holding its whole quota there (a popular resolver, a CDN)
 * would leave the other UEs pressure drops toward it. Counted per (session, remote endpoint)
 * in nat_rshare: up here with a new connection, down in user space when one is deleted (not
 * atomic with this side: a race loses an increment, never refuses wrongly); an entry goes at
 * zero. cfg_nat_rshare 0: no limit, the map keeps one entry and is not touched. */
const volatile __u32 cfg_nat_rshare = 0;
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, struct upf_nat_skey);
	__type(value, __u64);
	__uint(max_entries, 1);          /* nat_max_conns before load with a share */
} nat_rshare SEC(".maps");

/* The IDs handed out on N6 (with cfg_nat_seed added: not the UE's sequence). */
volatile __u32 nat_frag_seq = 0;

/* RFC 1624 eqn. 3 over 16-bit words in network order (the one's complement sum does not care
 * about byte order, RFC 1071 2.B). */
static __always_inline __u16 csum_fold32(__u32 s)
{
	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	return (__u16)~s;
}

static __always_inline __u32 csum_sub32(__u32 s, __u32 old, __u32 new)
{
	return s + (__u16)~(old & 0xffff) + (__u16)~(old >> 16) + (new & 0xffff) + (new >> 16);
}

static __always_inline __u16 csum_upd(__u16 hc, __be32 oa, __be32 na, __u16 op, __u16 np)
{
	__u32 s = (__u16)~hc;

	s = csum_sub32(s, oa, na);
	s += (__u16)~op + np;
	return csum_fold32(s);
}

/* nat_new's share key, per CPU (the program runs to its end on one CPU): on the stack it took
 * nat_new's chain past the verifier's 512 bytes. Keys and the zero value by pointers into
 * .rodata, which helpers accept as they do the stack. */
struct nat_scratch {
	struct upf_nat_skey sk;
};
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct nat_scratch);
	__uint(max_entries, 1);
} nat_scratch SEC(".maps");
static const __u32 nat_zero32 = 0;
static const __u64 nat_zero64 = 0;

/* The session's place toward k's remote endpoint (nat_rshare above): its counter, taken (+1),
 * or NULL with *drop set (the share is used up, or no entry could be made). */
static __always_inline __u64 *nat_share_take(const struct upf_nat_key *k, __u32 sess_id, __u32 *drop)
{
	struct nat_scratch *sc = bpf_map_lookup_elem(&nat_scratch, &nat_zero32);
	__u64 *s;

	*drop = UPF_CNT_NAT_FULL;
	if (!sc)
		return NULL;
	sc->sk.sess_id = sess_id;
	sc->sk.rem_addr = k->rem_addr;
	sc->sk.rem_port = k->rem_port;
	sc->sk.proto = k->proto;
	sc->sk.pad = 0;
	s = bpf_map_lookup_elem(&nat_rshare, &sc->sk);
	if (!s) {
		bpf_map_update_elem(&nat_rshare, &sc->sk, &nat_zero64, BPF_NOEXIST);   /* EEXIST: another CPU's */
		s = bpf_map_lookup_elem(&nat_rshare, &sc->sk);
	}
	if (!s)
		return NULL;
	*drop = UPF_CNT_NAT_REMOTE_SHARE;
	/* As the quota: two CPUs may both pass at share - 1. */
	if (READ_ONCE(*s) >= cfg_nat_rshare)
		return NULL;
	__sync_fetch_and_add(s, 1);
	return s;
}

/* A new connection that will not be made gives back what nat_new took: the session's quota
 * place and its share toward the remote (the entry goes with its last connection; the key is
 * still this CPU's scratch). */
static __always_inline void nat_new_undo(__u64 *q, __u64 *s)
{
	struct nat_scratch *sc;

	if (q)
		__sync_fetch_and_add(q, -1);
	if (s && __sync_fetch_and_add(s, -1) == 1 &&
	    (sc = bpf_map_lookup_elem(&nat_scratch, &nat_zero32)))
		bpf_map_delete_elem(&nat_rshare, &sc->sk);
}

/* A new connection for k (uplink 5-tuple) of session sess_id: reserve a port in nat_rev, then
 * publish nat_fwd. The NAT port (network order) in the low 16 bits, or -UPF_CNT_NAT_FULL /
 * -UPF_CNT_NAT_PRESSURE / -UPF_CNT_NAT_QUOTA / -UPF_CNT_NAT_REMOTE_SHARE. Out of line: verified
 * once, only new connections pay for it. */
static __noinline int nat_new(struct upf_nat_key *k, __u32 sess_id, __u32 tcpf)
{
	struct upf_nat_rkey rk = { .rem_addr = k->rem_addr, .rem_port = k->rem_port, .proto = k->proto };
	struct upf_nat_rval rv = { .ue_addr = k->ue_addr, .ue_port = k->ue_port };
	struct upf_nat_val v = { .last_ns = nat_now_ns, .sess_id = sess_id, .flags = (__u8)tcpf };
	__u32 n = cfg_nat_port_n, h, i, drop = UPF_CNT_NAT_FULL;
	__u64 *q = NULL, *s = NULL;
	long rc;

	if (!n)
		return -UPF_CNT_NAT_PRESSURE;
	if (cfg_nat_quota) {
		q = bpf_map_lookup_elem(&nat_quota, &sess_id);
		if (!q)
			return -UPF_CNT_NAT_FULL;
		/* Two CPUs may both pass at quota - 1: the limit is exceeded by at most the CPUs. */
		if (READ_ONCE(*q) >= cfg_nat_quota)
			return -UPF_CNT_NAT_QUOTA;
		__sync_fetch_and_add(q, 1);
	}
	if (cfg_nat_rshare && !(s = nat_share_take(k, sess_id, &drop))) {
		nat_new_undo(q, NULL);
		return -(int)drop;
	}
	/* One port per UE endpoint whatever the remote (endpoint-independent mapping, RFC 4787
	 * REQ-1), spread over the range by a full 32-bit finalizer (MurmurHash3's fmix32). The
	 * port used to enter multiplied by a constant after << 16, which left its mixing to one
	 * shift: consecutive UE ports clustered, and 16 probes found no free port for 1 session in
	 * 30 at a few hundred flows (upf_nat t_starve / t_limits_off failing at 114 and 412 of
	 * 64,512 ports; a simulation of the old hash: 3 % of seeds at 256 flows, 0 % now). */
	h = (k->ue_addr ^ cfg_nat_seed) * 2654435761u;
	h ^= (__u32)k->ue_port << 16 | k->proto;
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	h ^= h >> 16;
	h %= n;
#pragma clang loop unroll(disable)
	for (i = 0; i < NAT_PROBES; i++) {
		__u32 port = cfg_nat_port_lo + h;

		rk.nat_port = bpf_htons((__u16)port);
		rc = port == cfg_nat_skip ? -17 : bpf_map_update_elem(&nat_rev, &rk, &rv, BPF_NOEXIST);
		if (rc == 0)
			break;
		if (rc != -17 /* EEXIST: taken for this remote, try the next */)
			goto full;
		h = h + 1 < n ? h + 1 : 0;
	}
	if (i == NAT_PROBES) {
		nat_new_undo(q, s);
		return -UPF_CNT_NAT_PRESSURE;
	}
	v.nat_port = rk.nat_port;
	rc = bpf_map_update_elem(&nat_fwd, k, &v, BPF_NOEXIST);
	if (rc) {
		struct upf_nat_val *o;

		bpf_map_delete_elem(&nat_rev, &rk);
		nat_new_undo(q, s);
		/* EEXIST: another CPU created this connection meanwhile: use its port. */
		o = rc == -17 ? bpf_map_lookup_elem(&nat_fwd, k) : NULL;
		if (!o)
			return -UPF_CNT_NAT_FULL;
		return o->nat_port;
	}
	count(UPF_CNT_NAT_NEW, 0);
	nat_hp_claim(k, rk.nat_port, sess_id);
	return rk.nat_port;
full:
	nat_new_undo(q, s);
	return -UPF_CNT_NAT_FULL;
}

/* The connection of k (uplink 5-tuple) of session sess_id: found (its last-seen time and the
 * TCP flags tcpf noted) or created. Its NAT port (network order, >= 0), or -counter. */
static __noinline int nat_get(struct upf_nat_key *k, __u32 sess_id, __u32 tcpf)
{
	struct upf_nat_val *v = bpf_map_lookup_elem(&nat_fwd, k);
	__u64 now;

	if (!v)
		return nat_new(k, sess_id, tcpf);
	now = nat_now_ns;
	if (now - v->last_ns >= NAT_TOUCH_NS) {
		v->last_ns = now;
		/* The port's holder went with its anchor connection (upf_nat.c nat_del): a live
		 * connection with that port takes it over, at most once a second per connection,
		 * so a mapping in use is hairpinnable again within a second. */
		struct upf_nat_hkey hk = { .nat_port = v->nat_port, .proto = k->proto };

		if (!bpf_map_lookup_elem(&nat_hp, &hk))
			nat_hp_claim(k, v->nat_port, v->sess_id);
	}
	/* FIN / RST shorten the timeout (transitory, RFC 7857 2.1 "TCP session tracking"; upf_nat.c). */
	if (tcpf & ~v->flags)
		v->flags |= tcpf;
	return v->nat_port;
}

/* The N6 ID of the uplink fragment ip (see "Fragments" above), found or made. */
static __noinline __u32 nat_frag_id(struct iphdr *ip)
{
	struct nat_frag_ukey k = { .ue_addr = ip->saddr, .rem_addr = ip->daddr, .id = ip->id,
				   .proto = ip->protocol };
	struct nat_frag_uval *v = bpf_map_lookup_elem(&nat_frag_ul, &k), nv = { .t_ns = nat_now_ns };

	if (v && nv.t_ns - v->t_ns < NAT_FRAG_TTL_NS)
		return v->id;
	nv.id = (__u16)(__sync_fetch_and_add(&nat_frag_seq, 1) + cfg_nat_seed);
	bpf_map_update_elem(&nat_frag_ul, &k, &nv, BPF_ANY);   /* LRU: makes room itself */
	return nv.id;
}

/* TCP flags byte (RFC 9293 3.1) -> UPF_NAT_F_*. */
static __always_inline __u32 nat_tcpf(__u8 f)
{
	return (f & 0x01 ? UPF_NAT_F_FIN : 0) | (f & 0x04 ? UPF_NAT_F_RST : 0);
}

/* Uplink of a NAT session: the inner IPv4 packet ip (20-byte header checked by the caller,
 * source = the UE's) gets source nat_addr and its connection's port. 0, or the counter of the
 * reason to drop it. Each protocol checks its own header length with a constant, which is what
 * the verifier can follow. */
static __always_inline __u32 nat_ul(struct iphdr *ip, void *end, __u32 sess_id)
{
	struct upf_nat_key k = { .ue_addr = ip->saddr, .rem_addr = ip->daddr };
	__be32 na = cfg_nat_addr, sa = ip->saddr;
	__u8 *l4 = (void *)(ip + 1), proto = ip->protocol;
	__u16 *sp, *ck, c, oid = ip->id, nid = oid;
	int np;

	if (ip->ihl != 5 || (proto != IPPROTO_TCP && proto != IPPROTO_UDP && proto != IPPROTO_ICMP_))
		return UPF_CNT_NAT_DROP_PROTO;
	if (ip->frag_off & bpf_htons(0x3fff)) {   /* MF or an offset: "Fragments" above */
		nid = (__u16)nat_frag_id(ip);
		count(UPF_CNT_NAT_FRAG_UL, 0);
		if (ip->frag_off & bpf_htons(0x1fff)) {   /* no L4 header in it */
			ip->check = csum_upd(ip->check, sa, na, oid, nid);
			ip->saddr = na;
			ip->id = nid;
			count(UPF_CNT_NAT_UL, 0);
			return 0;
		}
	}
	k.proto = proto;
	if (proto == IPPROTO_TCP) {
		if (l4 + 20 > (__u8 *)end)
			return UPF_CNT_DROP_INNER;
		sp = (void *)l4;
		ck = (void *)(l4 + 16);
		k.ue_port = sp[0];
		k.rem_port = sp[1];
		np = nat_get(&k, sess_id, nat_tcpf(l4[13]));
		if (np < 0)
			return (__u32)-np;
		*ck = csum_upd(*ck, sa, na, *sp, (__u16)np);
		*sp = (__u16)np;
	} else if (proto == IPPROTO_UDP) {
		if (l4 + 8 > (__u8 *)end)
			return UPF_CNT_DROP_INNER;
		sp = (void *)l4;
		ck = (void *)(l4 + 6);
		k.ue_port = sp[0];
		k.rem_port = sp[1];
		np = nat_get(&k, sess_id, 0);
		if (np < 0)
			return (__u32)-np;
		if (*ck) {   /* RFC 768: 0 is "no checksum" and stays so; a computed 0 is 0xffff */
			c = csum_upd(*ck, sa, na, *sp, (__u16)np);
			*ck = c ? c : 0xffff;
		}
		*sp = (__u16)np;
	} else if (proto == IPPROTO_ICMP_) {
		/* RFC 5508 3 / RFC 7857 2.11 (ICMP query mappings): echo by its identifier; anything else a UE sends (replies, errors)
		 * has no connection to follow. */
		if (l4 + 8 > (__u8 *)end)
			return UPF_CNT_DROP_INNER;
		if (l4[0] != ICMP_ECHO_ || l4[1] != 0)
			return UPF_CNT_NAT_DROP_PROTO;
		sp = (void *)(l4 + 4);
		ck = (void *)(l4 + 2);
		k.ue_port = *sp;
		np = nat_get(&k, sess_id, 0);
		if (np < 0)
			return (__u32)-np;
		*ck = csum_upd(*ck, 0, 0, *sp, (__u16)np);   /* no pseudo-header in ICMP */
		*sp = (__u16)np;
	}
	ip->check = csum_upd(ip->check, sa, na, oid, nid);
	ip->saddr = na;
	ip->id = nid;
	count(UPF_CNT_NAT_UL, 0);
	return 0;
}

/* The reverse entry of rk: the UE address and port (network order) into *ue / *up, the
 * last-seen time and TCP flags noted. 0, or -1 for no connection. */
static __noinline int nat_rev_get(struct upf_nat_rkey *rk, __u32 tcpf, __be32 *ue, __u16 *up)
{
	struct upf_nat_rval *rv = bpf_map_lookup_elem(&nat_rev, rk);
	__u64 now;

	if (!rv)
		return -1;
	now = nat_now_ns;
	if (now - rv->last_ns >= NAT_TOUCH_NS)
		rv->last_ns = now;
	if (tcpf & ~rv->flags)
		rv->flags |= tcpf;
	*ue = rv->ue_addr;
	*up = rv->ue_port;
	return 0;
}

/* Downlink IPv4 to nat_addr (20-byte header checked by the caller): a reply of a connection is
 * translated back to its UE address and port, then takes the usual downlink path, which the
 * caller continues (returns -1); anything else is the host's own traffic (XDP_PASS, counted) or
 * an ICMP error for user space (a verdict >= 0). */
static __always_inline int nat_dl(struct xdp_md *ctx, struct iphdr *ip)
{
	void *end = (void *)(long)ctx->data_end;
	struct upf_nat_rkey rk = { .rem_addr = ip->saddr };
	__u8 *l4 = (void *)(ip + 1), proto = ip->protocol;
	__be32 da = ip->daddr, ue = 0;
	__u16 *dp, *ck, up = 0, c;
	__u32 frag = ip->frag_off & bpf_htons(0x3fff);

	if (ip->ihl != 5)
		return count(UPF_CNT_NAT_DL_NO_MATCH, XDP_PASS);
	if (ip->frag_off & bpf_htons(0x1fff)) {   /* a later fragment: its UE from the first */
		struct nat_frag_dkey dk = { .rem_addr = ip->saddr, .id = ip->id, .proto = proto };
		struct nat_frag_dval *dv = bpf_map_lookup_elem(&nat_frag_dl, &dk);

		if (!dv || nat_now_ns - dv->t_ns >= NAT_FRAG_TTL_NS)
			return count(UPF_CNT_NAT_DL_FRAG, XDP_PASS);
		ue = dv->ue_addr;
		count(UPF_CNT_NAT_FRAG_DL, 0);
		goto addr;
	}
	rk.proto = proto;
	if (proto == IPPROTO_TCP) {
		if (l4 + 20 > (__u8 *)end)
			return count(UPF_CNT_NAT_DL_NO_MATCH, XDP_PASS);
		dp = (void *)(l4 + 2);
		ck = (void *)(l4 + 16);
		rk.rem_port = *(__u16 *)l4;
		rk.nat_port = *dp;
		if (nat_rev_get(&rk, nat_tcpf(l4[13]), &ue, &up))
			return count(UPF_CNT_NAT_DL_NO_MATCH, XDP_PASS);
		*ck = csum_upd(*ck, da, ue, *dp, up);
		*dp = up;
	} else if (proto == IPPROTO_UDP) {
		if (l4 + 8 > (__u8 *)end)
			return count(UPF_CNT_NAT_DL_NO_MATCH, XDP_PASS);
		dp = (void *)(l4 + 2);
		ck = (void *)(l4 + 6);
		rk.rem_port = *(__u16 *)l4;
		rk.nat_port = *dp;
		if (nat_rev_get(&rk, 0, &ue, &up))
			return count(UPF_CNT_NAT_DL_NO_MATCH, XDP_PASS);
		if (*ck) {
			c = csum_upd(*ck, da, ue, *dp, up);
			*ck = c ? c : 0xffff;
		}
		*dp = up;
	} else if (proto == IPPROTO_ICMP_) {
		if (l4 + 8 > (__u8 *)end)
			return count(UPF_CNT_NAT_DL_NO_MATCH, XDP_PASS);
		if (l4[0] == ICMP_DEST_UNREACH_ || l4[0] == ICMP_TIME_EXCEEDED_ || l4[0] == ICMP_PARAMETERPROB_) {
			/* RFC 5508 4 (ICMP error forwarding): an error about a packet we translated goes to
			 * the UE with the quoted packet translated back: user space does it (rare). */
			struct iphdr *q = (void *)(l4 + 8);
			__u8 *ql4 = (void *)(q + 1);

			if ((void *)(ql4 + 8) > end || q->ihl != 5 || q->saddr != cfg_nat_addr)
				return count(UPF_CNT_NAT_DL_NO_MATCH, XDP_PASS);
			rk.rem_addr = q->daddr;
			rk.proto = q->protocol;
			if (q->protocol == IPPROTO_TCP || q->protocol == IPPROTO_UDP) {
				/* The quoted packet is ours: from our port to the remote's. */
				rk.nat_port = *(__u16 *)ql4;
				rk.rem_port = *(__u16 *)(ql4 + 2);
			} else if (q->protocol == IPPROTO_ICMP_ && ql4[0] == ICMP_ECHO_) {
				rk.nat_port = *(__u16 *)(ql4 + 4);
			} else {
				return count(UPF_CNT_NAT_DL_NO_MATCH, XDP_PASS);
			}
			if (!bpf_map_lookup_elem(&nat_rev, &rk))
				return count(UPF_CNT_NAT_DL_NO_MATCH, XDP_PASS);
			return to_user(ctx, 0, da, UPF_CNT_NAT_ICMP_ERR);
		}
		if (l4[0] != ICMP_ECHOREPLY_)
			return count(UPF_CNT_NAT_DL_NO_MATCH, XDP_PASS);
		dp = (void *)(l4 + 4);
		ck = (void *)(l4 + 2);
		rk.nat_port = *dp;
		if (nat_rev_get(&rk, 0, &ue, &up))
			return count(UPF_CNT_NAT_DL_NO_MATCH, XDP_PASS);
		*ck = csum_upd(*ck, 0, 0, *dp, up);
		*dp = up;
	} else {
		return count(UPF_CNT_NAT_DL_NO_MATCH, XDP_PASS);
	}
	if (frag) {   /* a first fragment (MF, offset 0): the later ones will ask for its UE */
		struct nat_frag_dkey dk = { .rem_addr = ip->saddr, .id = ip->id, .proto = proto };
		struct nat_frag_dval dv = { .t_ns = nat_now_ns, .ue_addr = ue };

		bpf_map_update_elem(&nat_frag_dl, &dk, &dv, BPF_ANY);
		count(UPF_CNT_NAT_FRAG_DL, 0);
	}
addr:
	ip->check = csum_upd(ip->check, da, ue, 0, 0);
	ip->daddr = ue;
	count(UPF_CNT_NAT_DL, 0);
	return -1;
}


/* ---- Hairpinning (RFC 4787 6 REQ-9, RFC 5382 REQ-8, RFC 5508 REQ-7) ----
 * An uplink packet of a NAT session to nat_addr (the caller checked the destination) must not
 * leave on N6: it is translated as if it went out (nat_ul: source nat_addr and the sender's own
 * mapped port, REQ-9 b), then back toward the UE endpoint that holds the destination port, and
 * goes down that session's tunnel (nat_hp_back, then upf_xdp() takes the downlink). nat_hp_peek, before nat_ul
 * (which would make a connection), finds that endpoint by the destination port (TCP, UDP) or
 * the identifier (echo request) in nat_hp: 0 with *ue / *up set, or the counter to drop by.
 * No holder: dropped and counted (drop_nat_no_mapping), as a packet arriving from outside for
 * an external port without a mapping has nothing to be delivered to: the endpoint-independent
 * filtering of RFC 4787 5 (REQ-8) passes only what a mapping covers, and RFC 5382 REQ-4 lets
 * an unsolicited SYN be dropped silently. The host's own services on nat_addr are therefore
 * not reachable from NAT sessions. Fragments are not hairpinned (no ports in the later ones):
 * drop_nat_proto. */
static __always_inline __u32 nat_hp_peek(struct iphdr *ip, void *end, __be32 *ue, __u32 *up)
{
	struct upf_nat_hkey hk = { .proto = ip->protocol };
	__u8 *l4 = (void *)(ip + 1);
	struct upf_nat_hval *hv;

	if (ip->ihl != 5 || (ip->frag_off & bpf_htons(0x3fff)))
		return UPF_CNT_NAT_DROP_PROTO;
	if ((void *)(l4 + 8) > end)
		return UPF_CNT_DROP_INNER;
	if (hk.proto == IPPROTO_TCP || hk.proto == IPPROTO_UDP)
		hk.nat_port = *(__u16 *)(l4 + 2);
	else if (hk.proto == IPPROTO_ICMP_ && l4[0] == ICMP_ECHO_ && l4[1] == 0)
		hk.nat_port = *(__u16 *)(l4 + 4);
	else
		return UPF_CNT_NAT_DROP_PROTO;
	hv = bpf_map_lookup_elem(&nat_hp, &hk);
	if (!hv)
		return UPF_CNT_NAT_HAIRPIN_NO_MAP;
	*ue = hv->ue_addr;
	*up = hv->ue_port;
	return 0;
}


/* The second half of a hairpin (RFC 4787 6 REQ-9; RFC 5382 REQ-8 for TCP, RFC 5508 REQ-7 for
 * ICMP query sessions), on the inner packet ip still inside the tunnel: nat_ul translated it
 * out (source nat_addr and the sender's mapped port, REQ-9 b); its destination goes back to the
 * UE endpoint holding the destination port (ue, up: nat_hp's holder, network order). For TCP
 * and UDP the exact connection in nat_rev (remote = nat_addr and the sender's mapped port) wins
 * over the holder: it exists once the other side has hairpinned toward the sender, and is right
 * even when the port is overloaded toward another remote; its last-seen time is noted as an
 * answer. An echo request carries one identifier for both roles: it is delivered with the
 * holder's own identifier (its answer, an echo reply from a NAT session, is not translated:
 * drop_nat_proto). Checksums incremental (RFC 1624), a UDP checksum 0 stays 0. 0, or the
 * counter to drop by. The caller then strips the tunnel and upf_xdp() runs the downlink of the
 * holder's session (AMBR, buffering, encapsulation toward its gNB, dl_fwd). */
static __always_inline __u32 nat_hp_back(struct iphdr *ip, void *end, __be32 ue, __u32 up)
{
	struct upf_nat_rkey rk = { .rem_addr = ip->saddr, .proto = ip->protocol };
	__u8 *l4 = (void *)(ip + 1);
	__be32 da = ip->daddr, eue = 0;
	__u16 *dp, *ck, nup = (__u16)up, eup = 0, c;

	if (rk.proto == IPPROTO_TCP) {
		if (l4 + 20 > (__u8 *)end)
			return UPF_CNT_DROP_INNER;
		dp = (void *)(l4 + 2);
		ck = (void *)(l4 + 16);
		rk.rem_port = *(__u16 *)l4;
		rk.nat_port = *dp;
		if (!nat_rev_get(&rk, nat_tcpf(l4[13]), &eue, &eup)) {
			ue = eue;
			nup = eup;
		}
		*ck = csum_upd(*ck, da, ue, *dp, nup);
		*dp = nup;
	} else if (rk.proto == IPPROTO_UDP) {
		if (l4 + 8 > (__u8 *)end)
			return UPF_CNT_DROP_INNER;
		dp = (void *)(l4 + 2);
		ck = (void *)(l4 + 6);
		rk.rem_port = *(__u16 *)l4;
		rk.nat_port = *dp;
		if (!nat_rev_get(&rk, 0, &eue, &eup)) {
			ue = eue;
			nup = eup;
		}
		if (*ck) {   /* RFC 768: 0 is "no checksum"; a computed 0 is sent as 0xffff */
			c = csum_upd(*ck, da, ue, *dp, nup);
			*ck = c ? c : 0xffff;
		}
		*dp = nup;
	} else {
		/* ICMP echo request: nat_hp_peek let nothing else through. */
		if (l4 + 8 > (__u8 *)end)
			return UPF_CNT_DROP_INNER;
		dp = (void *)(l4 + 4);
		ck = (void *)(l4 + 2);
		*ck = csum_upd(*ck, 0, 0, *dp, nup);   /* no pseudo-header in ICMP */
		*dp = nup;
	}
	ip->check = csum_upd(ip->check, da, ue, 0, 0);
	ip->daddr = ue;
	count(UPF_CNT_NAT_HAIRPIN, 0);
	return 0;
}
