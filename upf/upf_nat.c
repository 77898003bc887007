/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * upf_nat.c - the user-space half of NAT on N6 (issue 19 item 3; upf/README.md "NAT"): the
 * parameters, the idle sweep of the connection table the XDP program fills (nat_fwd / nat_rev,
 * upf/upf_bpf.h), the removal of a session's connections, and the ICMP errors that quote a
 * translated packet (translated back here and sent down the UE's tunnel). TS 23.501 5.8.2
 * (user plane functions; UE IP address management, 5.8.2.2) leaves the address the UE's packets
 * carry on N6 to the deployment: this is the UPF translating it.
 *
 * Timeouts (RFC 4787 4.3 REQ-5, RFC 5382 5 REQ-5, RFC 5508 3.2 REQ-1, RFC 7857 2.1 "TCP session
 * tracking", in spirit), from the later of the last uplink and the last downlink packet:
 *   UDP   120 s once answered (REQ-5: at least 2 min), 30 s while no answer came back;
 *   TCP   7440 s (2 h 4 min, RFC 5382 REQ-5) once answered, 75 s while no answer came back
 *         (the SYN-only state: an unanswered SYN is given up, RFC 7857 2.1), and
 *         240 s (the transitory 4 min, RFC 5382 REQ-5 / RFC 7857 2.1) after a FIN or an RST
 *         either way. No full TCP state machine: "answered" is "a packet came back".
 *   ICMP  60 s (RFC 5508 REQ-1).
 * The last-seen times are the clock user space publishes to the program (nat_now_ns, every
 * UPF_NH_REVALIDATE_MS), written by the program at most once a second per direction, and the
 * sweep runs every UPF_NAT_SWEEP_MS: an entry lives up to about 2 s past its timeout.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "common/log.h"
#include "upf/upf_int.h"
#include "upf/upf.skel.h"

#define MOD "upf"

#define NS 1000000000ull
#define NAT_UDP_NS (120 * NS)
#define NAT_UDP_UNANSWERED_NS (30 * NS)
#define NAT_TCP_EST_NS (7440 * NS)
#define NAT_TCP_SYN_NS (75 * NS)
#define NAT_TCP_TRANS_NS (240 * NS)
#define NAT_ICMP_NS (60 * NS)
#define NAT_BATCH 4096
#define NAT_MAX_CONNS_MAX (1u << 24)

int upf_nat_params(struct upf_params *p)
{
	uint32_t pool = ntohl(p->ue_pool_addr), nat = ntohl(p->nat_addr);

	if (!p->nat_addr)
		return 0;
	if (!p->nat_port_lo && !p->nat_port_hi) {
		p->nat_port_lo = 1024;
		p->nat_port_hi = 65535;
	}
	/* Port 0 is no port (and an ICMP identifier 0 is legal but left out with it). */
	if (!p->nat_port_lo || p->nat_port_lo > p->nat_port_hi)
		return -EINVAL;
	if (!p->nat_max_conns)
		p->nat_max_conns = 65536;
	if (p->nat_max_conns > NAT_MAX_CONNS_MAX)
		return -ERANGE;
	/* Issue 31 point 5: limits by default (RFC 6888 REQ-4), off only when asked. */
	if (!p->nat_conns_per_session)
		p->nat_conns_per_session = UPF_NAT_CONNS_PER_SESSION;
	if (!p->nat_conns_per_remote)
		p->nat_conns_per_remote = UPF_NAT_CONNS_PER_REMOTE;
	/* The NAT address is ours on N6, not a UE's. (It may be the N3 address, one interface for
	 * both: the program then never hands out UDP 2152, which it takes as GTP-U.) */
	if (p->ue_pool_plen >= 1 && p->ue_pool_plen <= 32 &&
	    ((pool ^ nat) >> (32 - p->ue_pool_plen)) == 0)
		return -EINVAL;
	return 0;
}

/* The program's limits: 0 there is "none" (its branches pruned at load). */
static uint32_t nat_quota_cfg(const struct upf *u)
{
	return u->p.nat_conns_per_session == UPF_NAT_UNLIMITED ? 0 : u->p.nat_conns_per_session;
}

static uint32_t nat_rshare_cfg(const struct upf *u)
{
	return u->p.nat_conns_per_remote == UPF_NAT_UNLIMITED ? 0 : u->p.nat_conns_per_remote;
}

int upf_nat_setup(struct upf *u)
{
	struct upf_bpf *sk = u->skel;
	uint32_t seed = 0;
	int rc;

	if (!u->p.nat_addr)
		return 0;   /* the maps keep one entry, the program's NAT branches are pruned */
	if (getrandom(&seed, sizeof(seed), GRND_NONBLOCK) != sizeof(seed))
		seed = (uint32_t)upf_mono_ns();
	sk->rodata->cfg_nat_addr = u->p.nat_addr;
	sk->rodata->cfg_nat_port_lo = u->p.nat_port_lo;
	sk->rodata->cfg_nat_port_n = (uint32_t)u->p.nat_port_hi - u->p.nat_port_lo + 1;
	sk->rodata->cfg_nat_seed = seed;
	sk->rodata->cfg_nat_quota = nat_quota_cfg(u);
	sk->rodata->cfg_nat_rshare = nat_rshare_cfg(u);
	sk->rodata->cfg_nat_skip = u->p.nat_addr == u->p.n3_addr ? UPF_GTPU_PORT : 0;
	if ((rc = bpf_map__set_max_entries(sk->maps.nat_fwd, u->p.nat_max_conns)) ||
	    (rc = bpf_map__set_max_entries(sk->maps.nat_rev, u->p.nat_max_conns)) ||
	    (rc = bpf_map__set_max_entries(sk->maps.nat_hp, u->p.nat_max_conns)) ||
	    (rc = bpf_map__set_max_entries(sk->maps.nat_frag_ul, UPF_NAT_FRAG_MAX)) ||
	    (rc = bpf_map__set_max_entries(sk->maps.nat_frag_dl, UPF_NAT_FRAG_MAX)) ||
	    (nat_quota_cfg(u) &&
	     (rc = bpf_map__set_max_entries(sk->maps.nat_quota, u->p.max_sessions))) ||
	    (nat_rshare_cfg(u) &&
	     (rc = bpf_map__set_max_entries(sk->maps.nat_rshare, u->p.nat_max_conns))))
		return rc < 0 ? rc : -EINVAL;
	u->nat_keys = calloc(NAT_BATCH, sizeof(struct upf_nat_key));
	u->nat_vals = calloc(NAT_BATCH, sizeof(struct upf_nat_val));
	if (!u->nat_keys || !u->nat_vals)
		return -ENOMEM;
	u->nat_sweep_ns = upf_mono_ns();
	sk->bss->nat_now_ns = u->nat_sweep_ns;   /* the program's clock until the first tick */
	return 0;
}

int upf_nat_mapped(struct upf *u)
{
	long pg = sysconf(_SC_PAGESIZE);
	void *a;

	if (!u->p.nat_addr)
		return 0;
	/* The clock again now that the program is loaded: verifying it takes a while (a second
	 * and more on a loaded machine), and the first connections would otherwise be stamped
	 * that much in the past (the sweep's ages are against the real clock). */
	u->nat_sweep_ns = upf_mono_ns();
	__atomic_store_n(&u->skel->bss->nat_now_ns, u->nat_sweep_ns, __ATOMIC_RELEASE);
	if (!nat_quota_cfg(u))
		return 0;
	u->nat_quota_len = ((size_t)u->p.max_sessions * sizeof(uint64_t) + (size_t)pg - 1) & ~((size_t)pg - 1);
	a = mmap(NULL, u->nat_quota_len, PROT_READ | PROT_WRITE, MAP_SHARED, bpf_map__fd(u->skel->maps.nat_quota), 0);
	if (a == MAP_FAILED)
		return -errno;
	u->nat_quota = a;
	return 0;
}

void upf_nat_free(struct upf *u)
{
	if (u->nat_quota)
		munmap(u->nat_quota, u->nat_quota_len);
	u->nat_quota = NULL;
	free(u->nat_keys);
	free(u->nat_vals);
	u->nat_keys = NULL;
	u->nat_vals = NULL;
}

static struct upf_nat_rkey rkey_of(const struct upf_nat_key *k, const struct upf_nat_val *v)
{
	struct upf_nat_rkey rk = { .rem_addr = k->rem_addr, .nat_port = v->nat_port,
				   .rem_port = k->rem_port, .proto = k->proto };
	return rk;
}

/* The timeout of a connection (file comment); dn: its reverse entry, NULL if gone. */
static uint64_t nat_timeout(const struct upf_nat_key *k, const struct upf_nat_val *v,
			    const struct upf_nat_rval *dn)
{
	bool answered = dn && dn->last_ns;
	uint8_t f = v->flags | (dn ? dn->flags : 0);

	switch (k->proto) {
	case 6:
		if (f & (UPF_NAT_F_FIN | UPF_NAT_F_RST))
			return NAT_TCP_TRANS_NS;
		return answered ? NAT_TCP_EST_NS : NAT_TCP_SYN_NS;
	case 17:
		return answered ? NAT_UDP_NS : NAT_UDP_UNANSWERED_NS;
	default:
		return NAT_ICMP_NS;
	}
}

/* The shortest timeout a connection of this protocol can have: below it, no need to read the
 * reverse entry (the common case of a live flow costs nothing but its batch read). */
static uint64_t nat_timeout_min(uint8_t proto)
{
	return proto == 6 ? NAT_TCP_SYN_NS : proto == 17 ? NAT_UDP_UNANSWERED_NS : NAT_ICMP_NS;
}

/* Hairpinning (RFC 4787 REQ-9, upf_bpf.h struct upf_nat_hval): the connection k was the anchor
 * of its port's holder in nat_hp: the holder goes with it (the program only ever inserts with
 * BPF_NOEXIST, so the entry read here is the one deleted). Another live connection with that
 * port takes the port over on its next touch (upf_nat.bpf.h nat_get, within a second of its
 * traffic). One lookup per deleted connection, on the control thread. */
static void nat_hp_release(struct upf *u, const struct upf_nat_key *k, const struct upf_nat_val *v)
{
	struct upf_nat_hkey hk = { .nat_port = v->nat_port, .proto = k->proto };
	struct upf_nat_hval hv;
	int fd = bpf_map__fd(u->skel->maps.nat_hp);

	if (bpf_map_lookup_elem(fd, &hk, &hv))
		return;
	if (hv.ue_addr == k->ue_addr && hv.ue_port == k->ue_port && hv.rem_addr == k->rem_addr &&
	    hv.rem_port == k->rem_port)
		bpf_map_delete_elem(fd, &hk);
}

/* The connection k of session sess_id is gone: its place toward the remote back (upf_nat.bpf.h
 * nat_rshare), the entry deleted with its last connection. Not atomic with the program's
 * increment: one made between the read and the write is lost, which lets the session one more
 * connection there, never one fewer. */
static void nat_share_put(struct upf *u, const struct upf_nat_key *k, uint32_t sess_id)
{
	struct upf_nat_skey sk = { .sess_id = sess_id, .rem_addr = k->rem_addr, .rem_port = k->rem_port,
				   .proto = k->proto };
	int fd = bpf_map__fd(u->skel->maps.nat_rshare);
	uint64_t n;

	if (bpf_map_lookup_elem(fd, &sk, &n))
		return;
	if (n <= 1) {
		bpf_map_delete_elem(fd, &sk);
		return;
	}
	n--;
	bpf_map_update_elem(fd, &sk, &n, BPF_EXIST);
}

static bool nat_del(struct upf *u, const struct upf_nat_key *k, const struct upf_nat_val *v)
{
	struct upf_nat_rkey rk = rkey_of(k, v);
	bool gone = bpf_map_delete_elem(bpf_map__fd(u->skel->maps.nat_fwd), k) == 0;

	/* The forward entry first: a new uplink packet of the flow then allocates afresh (the
	 * old port is still reserved for a moment and is skipped). */
	bpf_map_delete_elem(bpf_map__fd(u->skel->maps.nat_rev), &rk);
	if (gone)
		nat_hp_release(u, k, v);
	/* The session's share back (only for an entry this call removed: a racing sweep and
	 * session removal must not give it back twice). */
	if (gone && u->nat_quota && v->sess_id < u->p.max_sessions &&
	    __atomic_load_n(&u->nat_quota[v->sess_id], __ATOMIC_RELAXED))
		__atomic_fetch_sub(&u->nat_quota[v->sess_id], 1, __ATOMIC_RELAXED);
	if (gone && nat_rshare_cfg(u))
		nat_share_put(u, k, v->sess_id);
	return gone;
}

/* Walk nat_fwd in batches from cur (resumed where it stopped; a hash batch resumes by bucket,
 * which inserts and deletes meanwhile do not move: an entry is at worst seen twice or missed
 * once in a pass), at most max_batches (< 0: to the end); pred() true deletes the entry, after
 * its batch was read. The entries seen, or -errno; cur->mid false once the end is reached. */
struct nat_cursor {
	uint64_t tok;
	bool mid;
};

typedef bool (*nat_pred)(struct upf *u, const struct upf_nat_key *k, const struct upf_nat_val *v,
			 uint64_t arg);

static int nat_walk(struct upf *u, struct nat_cursor *cur, int max_batches, nat_pred pred, uint64_t arg,
		    uint64_t *deleted)
{
	int fd = bpf_map__fd(u->skel->maps.nat_fwd);
	struct upf_nat_key *keys = u->nat_keys;
	struct upf_nat_val *vals = u->nat_vals;
	int seen = 0;

	for (int b = 0; max_batches < 0 || b < max_batches; b++) {
		uint64_t out = 0;
		uint32_t n = NAT_BATCH;
		int rc = bpf_map_lookup_batch(fd, cur->mid ? &cur->tok : NULL, &out, keys, vals, &n, NULL);

		if (rc < 0 && rc != -ENOENT) {
			log_rl(LOGL_WARN, MOD, NULL, "NAT sweep: batch lookup failed: %s", strerror(-rc));
			cur->mid = false;
			return rc;
		}
		for (uint32_t i = 0; i < n; i++) {
			seen++;
			if (pred(u, &keys[i], &vals[i], arg) && nat_del(u, &keys[i], &vals[i]))
				(*deleted)++;
		}
		if (rc == -ENOENT || n == 0) {
			cur->mid = false;
			break;
		}
		cur->tok = out;
		cur->mid = true;
	}
	return seen;
}

static bool nat_expired(struct upf *u, const struct upf_nat_key *k, const struct upf_nat_val *v, uint64_t now)
{
	const struct upf_sess *s = v->sess_id < u->p.max_sessions ? &u->sess[v->sess_id] : NULL;
	struct upf_nat_rkey rk;
	struct upf_nat_rval dn;
	uint64_t last = v->last_ns;

	/* A connection whose session is gone (or is another one now) is never valid again. */
	if (!s || !s->used || !s->r.nat || s->r.ue_addr != k->ue_addr)
		return true;
	if (now < last || now - last < nat_timeout_min(k->proto))
		return false;
	rk = rkey_of(k, v);
	if (bpf_map_lookup_elem(bpf_map__fd(u->skel->maps.nat_rev), &rk, &dn))
		return now - last >= nat_timeout(k, v, NULL);
	if (dn.last_ns > last)
		last = dn.last_ns;
	return now >= last && now - last >= nat_timeout(k, v, &dn);
}

int upf_nat_sweep(struct upf *u, uint64_t now_ns)
{
	struct nat_cursor cur = { 0 };

	if (!u->p.nat_addr)
		return 0;
	return nat_walk(u, &cur, -1, nat_expired, now_ns, &UPF_USTAT(u, UPF_STAT_NAT_EXPIRED));
}

static uint64_t nat_active(struct upf *u)
{
	uint32_t key = UPF_CNT_NAT_NEW;
	const uint64_t *pc = u->pcpu;
	uint64_t made = 0;

	if (bpf_map_lookup_elem(bpf_map__fd(u->skel->maps.counters), &key, u->pcpu))
		return UINT64_MAX;
	for (int c = 0; c < u->ncpus; c++)
		made += pc[c];
	return made - UPF_USTAT(u, UPF_STAT_NAT_EXPIRED) - UPF_USTAT(u, UPF_STAT_NAT_REMOVED);
}

void upf_nat_tick(struct upf *u)
{
	struct nat_cursor cur = { u->nat_tok, u->nat_mid };
	uint64_t now = upf_mono_ns(), active;
	int budget;

	if (!u->p.nat_addr)
		return;
	/* The clock the program stamps connections with (upf.bpf.c nat_now_ns). */
	__atomic_store_n(&u->skel->bss->nat_now_ns, now, __ATOMIC_RELEASE);
	/* A pass over the table every UPF_NAT_SWEEP_MS, in slices on the 100 ms ticks so that the
	 * control thread is never held for the whole table (a pass of 200,000 entries is about
	 * 50 ms, tests/bench/upf/README.md): about an eighth of the table per tick. */
	if (!u->nat_mid) {
		if (now - u->nat_sweep_ns < UPF_NAT_SWEEP_MS * 1000000ull)
			return;
		u->nat_sweep_ns = now;
	}
	active = nat_active(u);
	budget = active == UINT64_MAX ? 1 : (int)(1 + active / (NAT_BATCH * 8ull));
	nat_walk(u, &cur, budget, nat_expired, now, &UPF_USTAT(u, UPF_STAT_NAT_EXPIRED));
	u->nat_tok = cur.tok;
	u->nat_mid = cur.mid;
}

static bool nat_of_sess(struct upf *u, const struct upf_nat_key *k, const struct upf_nat_val *v, uint64_t id)
{
	(void)u;
	(void)k;
	return v->sess_id == id;
}

void upf_nat_session_gone(struct upf *u, uint32_t id)
{
	struct nat_cursor cur = { 0 };

	if (!u->p.nat_addr || !u->sess[id].r.nat || !u->sess[id].r.ue_addr)
		return;
	/* Nothing in the table: no walk (e.g. the last connection has aged out already). */
	if (nat_active(u) == 0)
		return;
	/* The session's UE address may go to another session at once: its connections must not
	 * translate answers toward it. One walk of the table (O(connections); README). */
	nat_walk(u, &cur, -1, nat_of_sess, id, &UPF_USTAT(u, UPF_STAT_NAT_REMOVED));
	/* Its rule is gone, so no connection of it is being made: the next session of this id
	 * starts with its whole share. */
	if (u->nat_quota)
		__atomic_store_n(&u->nat_quota[id], 0, __ATOMIC_RELAXED);
}

/* ---- ICMP errors about translated packets (RFC 5508 4; an error refreshes no connection, RFC 7857 2.7) ---- */

static uint16_t rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static void wr16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static uint16_t csum(const uint8_t *p, size_t len)
{
	uint32_t s = 0;

	for (size_t i = 0; i + 1 < len; i += 2)
		s += rd16(p + i);
	if (len & 1)
		s += (uint32_t)p[len - 1] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

/* RFC 1624 eqn. 3 for a 32-bit and a 16-bit field (host-order words). */
static uint16_t csum_upd(uint16_t hc, uint32_t oa, uint32_t na, uint16_t op, uint16_t np)
{
	uint32_t s = (uint16_t)~hc;

	s += (uint16_t)~(oa >> 16) + (uint16_t)~(oa & 0xffff) + (na >> 16) + (na & 0xffff);
	s += (uint16_t)~op + np;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

int upf_nat_icmp_err(struct upf *u, uint8_t *pkt, size_t len, uint32_t *ue_out)
{
	struct upf_nat_rkey rk = { 0 };
	struct upf_nat_rval rv;
	size_t tot, ql4;
	uint8_t *ic, *q;
	uint32_t qsrc, ue;
	uint16_t qport;
	int qproto;

	if (len < 20 + 8 + 20 + 8 || pkt[0] != 0x45 || pkt[9] != 1)
		return -EINVAL;
	tot = rd16(pkt + 2);
	if (tot < 20 + 8 + 20 + 8 || tot > len)
		return -EINVAL;
	ic = pkt + 20;
	q = ic + 8;
	if ((q[0] >> 4) != 4 || (q[0] & 0x0f) < 5)
		return -EINVAL;
	ql4 = (size_t)(q[0] & 0x0f) * 4;
	if (28 + ql4 + 8 > tot)
		return -EINVAL;
	memcpy(&qsrc, q + 12, 4);
	if (qsrc != u->p.nat_addr)
		return -ENOENT;
	qproto = q[9];
	memcpy(&rk.rem_addr, q + 16, 4);
	rk.proto = (uint8_t)qproto;
	if (qproto == 6 || qproto == 17) {
		memcpy(&rk.nat_port, q + ql4, 2);
		memcpy(&rk.rem_port, q + ql4 + 2, 2);
	} else if (qproto == 1 && q[ql4] == 8) {
		memcpy(&rk.nat_port, q + ql4 + 4, 2);
	} else {
		return -ENOENT;
	}
	if (bpf_map_lookup_elem(bpf_map__fd(u->skel->maps.nat_rev), &rk, &rv))
		return -ENOENT;
	ue = rv.ue_addr;
	/* The quoted packet as the UE sent it: source address and port (identifier) back, its
	 * header checksum and (when quoted) its transport checksum updated (RFC 1624). */
	memcpy(q + 12, &ue, 4);
	wr16(q + 10, 0);
	wr16(q + 10, csum(q, ql4));
	qport = rd16(q + ql4 + (qproto == 1 ? 4 : 0));
	if (qproto == 1) {
		wr16(q + ql4 + 2, csum_upd(rd16(q + ql4 + 2), 0, 0, qport, ntohs(rv.ue_port)));
		memcpy(q + ql4 + 4, &rv.ue_port, 2);
	} else {
		size_t co = qproto == 6 ? 16 : 6;

		if (28 + ql4 + co + 2 <= tot && (qproto == 6 || rd16(q + ql4 + co))) {
			uint16_t c = csum_upd(rd16(q + ql4 + co), ntohl(qsrc), ntohl(ue), qport, ntohs(rv.ue_port));

			wr16(q + ql4 + co, (c || qproto == 6) ? c : 0xffff);
		}
		memcpy(q + ql4, &rv.ue_port, 2);
	}
	/* The error itself goes to the UE: destination, header and ICMP checksums. */
	memcpy(pkt + 16, &ue, 4);
	wr16(pkt + 10, 0);
	wr16(pkt + 10, csum(pkt, 20));
	wr16(ic + 2, 0);
	wr16(ic + 2, csum(ic, tot - 20));
	*ue_out = ue;
	return (int)tot;
}
