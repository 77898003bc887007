/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * n2sctp usrsctp backend, without usrsctp threads.
 *
 * usrsctp runs as a pure protocol engine: usrsctp_init_nothreads(), AF_CONN
 * sockets whose "addresses" are our own peer objects. The ev loop owns the
 * real socket underneath (a "wire"): raw IP protocol 132 or UDP (RFC 6951).
 *
 *   wire fd readable -> recvfrom -> peer = lookup/create by real address
 *                    -> usrsctp_conninput(peer, sctp packet)
 *   usrsctp output callback(peer, packet) -> sendto(peer->wire->fd, peer->addr)
 *   ev timer every 10 ms -> usrsctp_handle_timers(elapsed ms)
 *   socket upcall -> endpoint queued; the queue is drained with non-blocking
 *                    usrsctp_recvv after each input batch / timer tick, so user
 *                    callbacks never run inside usrsctp.
 *
 * A peer object stands for one remote (IP, UDP port) or (IP) on one wire;
 * usrsctp demultiplexes associations behind it by SCTP ports. usrsctp puts
 * the same handle in the source and destination of conninput, so listeners
 * bind the wildcard AF_CONN address (sconn_addr NULL) and accept any peer.
 *
 * Raw sockets see every SCTP packet of the network namespace: packets whose
 * destination port belongs to none of our endpoints are not fed to usrsctp
 * (it would answer them with ABORT, RFC 9260 8.4) but counted.
 */
#include "common/sctp/sctp_int.h"

#include "common/ev.h"
#include "common/log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>
#include <usrsctp.h>

#define MOD "sctp"
#define USR_TICK_MS       10u
#define USR_RX_BATCH      64
#define USR_READ_BATCH    256
#define USR_PEER_BUCKETS  1024u
#define USR_PEER_IDLE_NS  (30ull * 1000000000ull) /* forget an unused peer after this */
#define USR_GC_NS         1000000000ull
#define USR_WIRE_RCVBUF   (4 * 1024 * 1024)

struct usr_ep;

struct usr_wire {
	struct usr_wire *next;
	int fd;
	int family;
	enum n2sctp_encap encap;
	struct sockaddr_storage local; /* as bound (UDP: with the port) */
	uint16_t udp_port;             /* host order */
	bool shared;
	unsigned refs;
	struct usr_ep *eps;
	uint64_t rx_pkts, tx_pkts, rx_foreign, rx_bad, tx_errors;
};

struct usr_peer {
	struct usr_peer *anext;  /* by address */
	struct usr_peer *pnext;  /* by pointer: output callback validation */
	struct usr_wire *w;
	struct sockaddr_storage addr;
	socklen_t len;
	unsigned refs;           /* client endpoints pinning it + associations over it */
	uint64_t last_rx_ns;
};

struct usr_ep {
	struct n2sctp *ep;
	struct socket *so;
	struct usr_wire *w;
	struct usr_peer *cpeer;  /* client: the peer it connects to (pinned) */
	struct usr_ep *wnext;
	struct usr_ep *qnext;
	bool queued;
};

static struct {
	bool inited;
	bool in_engine;          /* inside our fd/timer handlers: they drain themselves */
	bool defer_pending;
	struct ev_loop *loop;
	struct ev_timer timer;
	uint64_t last_tick_ns, last_gc_ns;
	unsigned neps;
	struct usr_wire *wires;
	struct usr_peer *by_addr[USR_PEER_BUCKETS];
	struct usr_peer *by_ptr[USR_PEER_BUCKETS];
	struct usr_ep *q;
	uint8_t pkt[65536];
} G;

/* ---- peers ---- */

static uint32_t addr_hash(const struct usr_wire *w, const struct sockaddr_storage *ss)
{
	uint32_t h = (uint32_t)(uintptr_t)w * 2654435761u;
	const uint8_t *p;
	size_t n;

	if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)ss;
		p = s6->sin6_addr.s6_addr;
		n = 16;
		h ^= s6->sin6_port;
	} else {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)ss;
		p = (const uint8_t *)&s4->sin_addr;
		n = 4;
		h ^= s4->sin_port;
	}
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 16777619u;
	return h & (USR_PEER_BUCKETS - 1);
}

static uint32_t ptr_hash(const void *p)
{
	return (uint32_t)(((uintptr_t)p >> 4) * 2654435761u) & (USR_PEER_BUCKETS - 1);
}

static bool addr_eq(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET6) {
		const struct sockaddr_in6 *x = (const void *)a, *y = (const void *)b;
		return x->sin6_port == y->sin6_port && !memcmp(&x->sin6_addr, &y->sin6_addr, 16);
	}
	const struct sockaddr_in *x = (const void *)a, *y = (const void *)b;
	return x->sin_port == y->sin_port && x->sin_addr.s_addr == y->sin_addr.s_addr;
}

/* Key of a real address on a wire: raw IP has no port. */
static void peer_key(const struct usr_wire *w, const struct sockaddr *sa, struct sockaddr_storage *key,
		     socklen_t *len)
{
	memset(key, 0, sizeof(*key));
	if (sa->sa_family == AF_INET6) {
		memcpy(key, sa, sizeof(struct sockaddr_in6));
		((struct sockaddr_in6 *)key)->sin6_flowinfo = 0;
		if (w->encap == N2SCTP_ENCAP_RAW)
			((struct sockaddr_in6 *)key)->sin6_port = 0;
		*len = sizeof(struct sockaddr_in6);
	} else {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)sa;
		struct sockaddr_in *k4 = (struct sockaddr_in *)key;
		k4->sin_family = AF_INET;
		k4->sin_addr = s4->sin_addr;
		k4->sin_port = w->encap == N2SCTP_ENCAP_RAW ? 0 : s4->sin_port;
		*len = sizeof(struct sockaddr_in);
	}
}

static struct usr_peer *peer_find(struct usr_wire *w, const struct sockaddr_storage *key)
{
	struct usr_peer *p = G.by_addr[addr_hash(w, key)];

	while (p && !(p->w == w && addr_eq(&p->addr, key)))
		p = p->anext;
	return p;
}

static struct usr_peer *peer_valid(void *handle)
{
	struct usr_peer *p = G.by_ptr[ptr_hash(handle)];

	while (p && p != handle)
		p = p->pnext;
	return p;
}

static struct usr_peer *peer_get(struct usr_wire *w, const struct sockaddr *sa)
{
	struct sockaddr_storage key;
	socklen_t len;
	struct usr_peer *p;

	peer_key(w, sa, &key, &len);
	p = peer_find(w, &key);
	if (p)
		return p;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->w = w;
	p->addr = key;
	p->len = len;
	p->last_rx_ns = G.loop ? ev_now_ns(G.loop) : 0;
	uint32_t h = addr_hash(w, &key);
	p->anext = G.by_addr[h];
	G.by_addr[h] = p;
	h = ptr_hash(p);
	p->pnext = G.by_ptr[h];
	G.by_ptr[h] = p;
	usrsctp_register_address(p);
	return p;
}

static void peer_free(struct usr_peer *p)
{
	struct usr_peer **pp = &G.by_addr[addr_hash(p->w, &p->addr)];

	while (*pp && *pp != p)
		pp = &(*pp)->anext;
	if (*pp)
		*pp = p->anext;
	pp = &G.by_ptr[ptr_hash(p)];
	while (*pp && *pp != p)
		pp = &(*pp)->pnext;
	if (*pp)
		*pp = p->pnext;
	usrsctp_deregister_address(p);
	free(p);
}

/* Free unused peers: all of one wire (w != NULL), or idle ones everywhere. */
static void peers_sweep(struct usr_wire *w, uint64_t now)
{
	for (uint32_t i = 0; i < USR_PEER_BUCKETS; i++) {
		struct usr_peer *p = G.by_addr[i], *next;
		for (; p; p = next) {
			next = p->anext;
			if (w ? p->w == w : (p->refs == 0 && now - p->last_rx_ns > USR_PEER_IDLE_NS))
				peer_free(p);
		}
	}
}

/* ---- usrsctp glue ---- */

static int usr_output(void *addr, void *buf, size_t len, uint8_t tos, uint8_t set_df)
{
	struct usr_peer *p = peer_valid(addr);
	(void)tos;
	(void)set_df;

	if (!p)
		return 0; /* a dying association of a closed endpoint: nowhere to send */
	if (sendto(p->w->fd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL, (struct sockaddr *)&p->addr, p->len) < 0) {
		p->w->tx_errors++;
		return -1; /* usrsctp treats it as a loss and retransmits */
	}
	p->w->tx_pkts++;
	return 0;
}

static void usr_ep_read(struct usr_ep *e);

static void usr_drain(void)
{
	struct usr_ep *e;

	while ((e = G.q)) {
		G.q = e->qnext;
		e->queued = false;
		usr_ep_read(e);
	}
}

static void usr_deferred_drain(void *arg)
{
	(void)arg;
	G.defer_pending = false;
	usr_drain();
}

static void usr_upcall(struct socket *so, void *arg, int flags)
{
	struct usr_ep *e = arg;
	(void)so;
	(void)flags;

	if (!e->queued) {
		e->queued = true;
		e->qnext = G.q;
		G.q = e;
	}
	/* An upcall outside our own input/timer path (after a user send, say):
	 * drain before the loop sleeps. */
	if (!G.in_engine && !G.defer_pending && G.loop && ev_defer(G.loop, usr_deferred_drain, NULL) == 0)
		G.defer_pending = true;
}

static void usr_tick(struct ev_loop *loop, struct ev_timer *t)
{
	uint64_t now = ev_now_ns(loop);
	uint64_t ms = (now - G.last_tick_ns) / 1000000u;
	(void)t;

	G.in_engine = true;
	if (ms) {
		G.last_tick_ns += ms * 1000000u;
		usrsctp_handle_timers((uint32_t)ms);
	}
	/* Notifications raised from usrsctp's timers (CANT_STR_ASSOC after the
	 * last INIT, COMM_LOST after the last HEARTBEAT) are queued on the socket
	 * without an upcall (measured with usrsctp 0.9.5), so every endpoint is
	 * checked here; usrsctp_get_events is a cheap readability test. */
	for (struct usr_wire *w = G.wires; w; w = w->next)
		for (struct usr_ep *e = w->eps; e; e = e->wnext)
			if (!e->queued && (usrsctp_get_events(e->so) & SCTP_EVENT_READ)) {
				e->queued = true;
				e->qnext = G.q;
				G.q = e;
			}
	usr_drain();
	G.in_engine = false;
	if (now - G.last_gc_ns > USR_GC_NS) {
		G.last_gc_ns = now;
		peers_sweep(NULL, now);
	}
	if (G.neps)
		ev_timer_start(loop, &G.timer, USR_TICK_MS);
}

static int usr_global_attach(struct ev_loop *loop)
{
	if (!G.inited) {
		/* Port 0: usrsctp opens no UDP socket of its own; no threads at all. */
		usrsctp_init_nothreads(0, usr_output, NULL);
		usrsctp_sysctl_set_sctp_blackhole(0);
		G.inited = true;
	}
	if (G.loop && G.loop != loop) {
		log_error(MOD, "usrsctp: all endpoints of a process must share one ev loop");
		return -EXDEV;
	}
	if (!G.loop) {
		G.loop = loop;
		ev_timer_init(&G.timer, usr_tick, NULL);
		G.last_tick_ns = G.last_gc_ns = ev_update_now(loop);
		int rc = ev_timer_start(loop, &G.timer, USR_TICK_MS);
		if (rc < 0) {
			G.loop = NULL;
			return rc;
		}
	}
	G.neps++;
	return 0;
}

static void usr_global_detach(void)
{
	if (--G.neps == 0) {
		ev_timer_stop(G.loop, &G.timer);
		G.loop = NULL;
	}
}

/* ---- wires ---- */

static bool wire_port_ours(const struct usr_wire *w, uint16_t port)
{
	for (const struct usr_ep *e = w->eps; e; e = e->wnext)
		if (e->ep->port == port)
			return true;
	return false;
}

static void wire_read(struct ev_loop *loop, int fd, uint32_t events, void *arg)
{
	struct usr_wire *w = arg;
	uint64_t now = ev_now_ns(loop);
	(void)events;

	G.in_engine = true;
	for (int i = 0; i < USR_RX_BATCH; i++) {
		struct sockaddr_storage from;
		socklen_t fl = sizeof(from);
		ssize_t n = recvfrom(fd, G.pkt, sizeof(G.pkt), MSG_DONTWAIT, (struct sockaddr *)&from, &fl);
		if (n < 0)
			break;
		const uint8_t *p = G.pkt;
		size_t len = (size_t)n;
		uint8_t ecn = 0;
		if (w->encap == N2SCTP_ENCAP_RAW && w->family == AF_INET) {
			/* IPv4 raw sockets deliver the IP header (raw(7)); IPv6 ones do not. */
			size_t ihl = len ? (size_t)(p[0] & 0x0f) * 4 : 0;
			if (len < 20 || ihl < 20 || ihl > len || p[9] != IPPROTO_SCTP) {
				w->rx_bad++;
				continue;
			}
			ecn = p[1] & 3;
			p += ihl;
			len -= ihl;
		}
		if (len < 12) { /* RFC 9260 3.1: common header */
			w->rx_bad++;
			continue;
		}
		if (!wire_port_ours(w, (uint16_t)(p[2] << 8 | p[3]))) {
			w->rx_foreign++;
			continue;
		}
		struct usr_peer *peer = peer_get(w, (struct sockaddr *)&from);
		if (!peer) {
			w->rx_bad++;
			continue;
		}
		peer->last_rx_ns = now;
		w->rx_pkts++;
		usrsctp_conninput(peer, p, len, ecn);
	}
	usr_drain();
	G.in_engine = false;
}

static int sa_len(const struct sockaddr *sa)
{
	return sa->sa_family == AF_INET6 ? (int)sizeof(struct sockaddr_in6) : (int)sizeof(struct sockaddr_in);
}

static int wire_get(int family, enum n2sctp_encap encap, const struct sockaddr *local, uint16_t udp_port,
		    struct usr_wire **out)
{
	struct sockaddr_storage bind_addr;
	struct usr_wire *w;
	int fd, rc, rcvbuf = USR_WIRE_RCVBUF;

	memset(&bind_addr, 0, sizeof(bind_addr));
	if (local && local->sa_family == family)
		memcpy(&bind_addr, local, (size_t)sa_len(local));
	bind_addr.ss_family = (sa_family_t)family;
	/* The wire's port: UDP port for encapsulation, none for raw IP. */
	if (family == AF_INET6)
		((struct sockaddr_in6 *)&bind_addr)->sin6_port = encap == N2SCTP_ENCAP_UDP ? htons(udp_port) : 0;
	else
		((struct sockaddr_in *)&bind_addr)->sin_port = encap == N2SCTP_ENCAP_UDP ? htons(udp_port) : 0;

	bool shareable = encap == N2SCTP_ENCAP_RAW || udp_port != 0;
	for (w = G.wires; shareable && w; w = w->next) {
		if (w->shared && w->encap == encap && w->family == family &&
		    addr_eq(&w->local, &bind_addr)) {
			w->refs++;
			*out = w;
			return 0;
		}
	}
	fd = encap == N2SCTP_ENCAP_RAW ? socket(family, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_SCTP)
				       : socket(family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_UDP);
	if (fd < 0) {
		rc = -errno;
		if (encap == N2SCTP_ENCAP_RAW)
			log_error(MOD, "usrsctp: raw IP socket (protocol 132): %s%s", strerror(-rc),
				  rc == -EPERM ? " (needs root or CAP_NET_RAW; or use UDP encapsulation)" : "");
		else
			log_error(MOD, "usrsctp: UDP socket: %s", strerror(-rc));
		return rc;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	if (bind(fd, (struct sockaddr *)&bind_addr, (socklen_t)sa_len((struct sockaddr *)&bind_addr)) < 0) {
		char as[64];
		rc = -errno;
		log_error(MOD, "usrsctp: bind %s wire %s: %s", encap == N2SCTP_ENCAP_RAW ? "raw" : "udp",
			  n2sctp_addr_str((struct sockaddr *)&bind_addr, as, sizeof(as)), strerror(-rc));
		close(fd);
		return rc;
	}
	w = calloc(1, sizeof(*w));
	if (!w) {
		close(fd);
		return -ENOMEM;
	}
	socklen_t bl = sizeof(w->local);
	getsockname(fd, (struct sockaddr *)&w->local, &bl);
	w->udp_port = encap == N2SCTP_ENCAP_UDP ? ntohs(family == AF_INET6
			? ((struct sockaddr_in6 *)&w->local)->sin6_port
			: ((struct sockaddr_in *)&w->local)->sin_port) : 0;
	/* Share key: as asked (port 0 stays 0 for raw). */
	if (encap == N2SCTP_ENCAP_RAW)
		w->local = bind_addr;
	w->fd = fd;
	w->family = family;
	w->encap = encap;
	w->shared = shareable;
	w->refs = 1;
	rc = ev_fd_add(G.loop, fd, EV_READ, wire_read, w);
	if (rc < 0) {
		close(fd);
		free(w);
		return rc;
	}
	w->next = G.wires;
	G.wires = w;
	*out = w;
	return 0;
}

static void wire_put(struct usr_wire *w)
{
	if (--w->refs)
		return;
	struct usr_wire **pp = &G.wires;
	while (*pp && *pp != w)
		pp = &(*pp)->next;
	if (*pp)
		*pp = w->next;
	peers_sweep(w, 0);
	ev_fd_del(G.loop, w->fd);
	close(w->fd);
	free(w);
}

/* ---- endpoint ops ---- */

static int usr_send(struct n2sctp *ep, uint32_t assoc_id, uint16_t stream, uint32_t ppid,
		    const void *buf, size_t len, unsigned flags)
{
	struct usr_ep *e = ep->be;
	struct sctp_sndinfo si;

	memset(&si, 0, sizeof(si));
	si.snd_sid = stream;
	si.snd_ppid = htonl(ppid); /* opaque to SCTP: network order on the wire */
	si.snd_assoc_id = assoc_id;
	if (flags & N2SCTP_SEND_EOF)
		si.snd_flags = SCTP_EOF;
	else if (flags & N2SCTP_SEND_ABORT)
		si.snd_flags = SCTP_ABORT;
	/* usrsctp_sendv refuses a NULL buffer (EFAULT) even for an empty EOF/ABORT. */
	if (usrsctp_sendv(e->so, buf ? buf : (const void *)&si, len, NULL, 0, &si, sizeof(si),
			  SCTP_SENDV_SNDINFO, 0) < 0)
		return errno == EWOULDBLOCK ? -EAGAIN : -errno;
	return 0;
}

static int usr_peer_addr(struct n2sctp *ep, struct n2sctp_assoc *a, struct sockaddr_storage *ss, socklen_t *len)
{
	struct usr_ep *e = ep->be;
	struct sctp_setprim prim;
	socklen_t pl = sizeof(prim);

	memset(&prim, 0, sizeof(prim));
	prim.ssp_assoc_id = a->id;
	if (usrsctp_getsockopt(e->so, IPPROTO_SCTP, SCTP_PRIMARY_ADDR, &prim, &pl) < 0)
		return -errno;
	const struct sockaddr_conn *sc = (const struct sockaddr_conn *)&prim.ssp_addr;
	struct usr_peer *p = sc->sconn_family == AF_CONN ? peer_valid(sc->sconn_addr) : NULL;
	if (!p)
		return -ENOENT;
	if (!a->be_peer) {
		a->be_peer = p;
		p->refs++;
	}
	/* Report the peer's IP with its SCTP port, as the kernel backend does. */
	memcpy(ss, &p->addr, p->len);
	if (ss->ss_family == AF_INET6)
		((struct sockaddr_in6 *)ss)->sin6_port = sc->sconn_port;
	else
		((struct sockaddr_in *)ss)->sin_port = sc->sconn_port;
	*len = p->len;
	return 0;
}

static void usr_assoc_gone(struct n2sctp *ep, struct n2sctp_assoc *a)
{
	struct usr_peer *p = a->be_peer;
	(void)ep;

	if (p) {
		a->be_peer = NULL;
		p->refs--;
		p->last_rx_ns = G.loop ? ev_now_ns(G.loop) : 0;
	}
}

static void usr_close(struct n2sctp *ep)
{
	struct usr_ep *e = ep->be;

	if (!e)
		return;
	if (e->queued) {
		struct usr_ep **pp = &G.q;
		while (*pp && *pp != e)
			pp = &(*pp)->qnext;
		if (*pp)
			*pp = e->qnext;
	}
	if (e->so) {
		/* SO_LINGER 0: ABORT every association now (RFC 6458 8.1.4). */
		struct linger lg = { .l_onoff = 1, .l_linger = 0 };
		usrsctp_set_upcall(e->so, NULL, NULL);
		usrsctp_setsockopt(e->so, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
		usrsctp_close(e->so);
	}
	if (e->cpeer)
		e->cpeer->refs--;
	if (e->w) {
		struct usr_ep **pp = &e->w->eps;
		while (*pp && *pp != e)
			pp = &(*pp)->wnext;
		if (*pp)
			*pp = e->wnext;
		wire_put(e->w);
	}
	free(e);
	ep->be = NULL;
	usr_global_detach();
}

static const struct n2sctp_ops usr_ops = {
	.send = usr_send,
	.peer_addr = usr_peer_addr,
	.assoc_gone = usr_assoc_gone,
	.close = usr_close,
};

/* ---- receive ---- */

static void usr_notification(struct n2sctp *ep, const uint8_t *buf, size_t len)
{
	const union sctp_notification *sn = (const union sctp_notification *)buf;

	ep->st.notifications++;
	if (len < sizeof(sn->sn_header))
		return;
	if (sn->sn_header.sn_type == SCTP_ASSOC_CHANGE) {
		const struct sctp_assoc_change *sac = &sn->sn_assoc_change;
		if (len < sizeof(*sac))
			return;
		switch (sac->sac_state) {
		case SCTP_COMM_UP:
			n2sctp_core_up(ep, sac->sac_assoc_id, sac->sac_outbound_streams, sac->sac_inbound_streams);
			break;
		case SCTP_RESTART:
			n2sctp_core_restart(ep, sac->sac_assoc_id, sac->sac_outbound_streams,
					    sac->sac_inbound_streams);
			break;
		case SCTP_SHUTDOWN_COMP:
			n2sctp_core_down(ep, sac->sac_assoc_id, N2SCTP_DOWN_SHUTDOWN);
			break;
		case SCTP_CANT_STR_ASSOC:
			n2sctp_core_down(ep, sac->sac_assoc_id, N2SCTP_DOWN_CANT_START);
			break;
		case SCTP_COMM_LOST:
			/* RFC 6458 6.1.1: sac_info holds the ABORT chunk the peer sent, if any. */
			n2sctp_core_down(ep, sac->sac_assoc_id, sac->sac_length > sizeof(*sac)
					 ? N2SCTP_DOWN_ABORT : N2SCTP_DOWN_COMM_LOST);
			break;
		default:
			break;
		}
	} else if (sn->sn_header.sn_type == SCTP_SEND_FAILED_EVENT) {
		ep->st.tx_errors++;
	} else if (sn->sn_header.sn_type == SCTP_REMOTE_ERROR) {
		log_rl(LOGL_WARN, MOD, ep->name, "peer sent an ERROR chunk");
	}
}

static void usr_ep_read(struct usr_ep *e)
{
	struct n2sctp *ep = e->ep;
	int i;

	n2sctp_core_enter(ep);
	for (i = 0; i < USR_READ_BATCH && !ep->doomed; i++) {
		struct sctp_rcvinfo ri;
		struct sockaddr_conn from;
		socklen_t fl = sizeof(from), ril = sizeof(ri);
		unsigned it = 0;
		int flags = 0;
		ssize_t n = usrsctp_recvv(e->so, ep->rdbuf, N2SCTP_MAX_MSG, (struct sockaddr *)&from, &fl,
					  &ri, &ril, &it, &flags);
		if (n < 0 || (n == 0 && !(flags & MSG_NOTIFICATION)))
			break;
		bool eor = flags & MSG_EOR;
		if (flags & MSG_NOTIFICATION) {
			if (eor)
				usr_notification(ep, ep->rdbuf, (size_t)n);
			continue;
		}
		if (it != SCTP_RECVV_RCVINFO) {
			ep->st.rx_unknown_assoc++;
			continue;
		}
		n2sctp_core_data(ep, ri.rcv_assoc_id, ri.rcv_sid, ntohl(ri.rcv_ppid), ep->rdbuf, (size_t)n, eor);
	}
	if (i == USR_READ_BATCH && !ep->doomed && !e->queued) {
		e->queued = true; /* more to read: after the others had their turn */
		e->qnext = G.q;
		G.q = e;
	}
	n2sctp_core_leave(ep);
}

/* ---- set-up ---- */
/* RFC 6458 8.1.1, 8.1.2, 8.1.12: defaults for the socket's future associations.
 * Same shape as kern_timers in sctp_kern.c: the struct layouts and option numbers come
 * from two headers that cannot be included in one file. */
static int usr_timers(struct socket *s, const struct n2sctp_cfg *c)
{
	struct sctp_rtoinfo rto;
	struct sctp_assocparams ap;
	struct sctp_paddrparams pp;

	memset(&rto, 0, sizeof(rto));
	rto.srto_assoc_id = SCTP_FUTURE_ASSOC;
	rto.srto_initial = c->rto_initial_ms;
	rto.srto_max = c->rto_max_ms;
	rto.srto_min = c->rto_min_ms;
	memset(&ap, 0, sizeof(ap));
	ap.sasoc_assoc_id = SCTP_FUTURE_ASSOC;
	ap.sasoc_asocmaxrxt = c->max_retrans;
	memset(&pp, 0, sizeof(pp));
	pp.spp_assoc_id = SCTP_FUTURE_ASSOC;
	pp.spp_hbinterval = c->hb_interval_ms;
	pp.spp_pathmaxrxt = c->max_retrans;
	pp.spp_flags = c->hb_interval_ms ? SPP_HB_ENABLE : 0;
	if ((rto.srto_initial || rto.srto_max || rto.srto_min) &&
	    usrsctp_setsockopt(s, IPPROTO_SCTP, SCTP_RTOINFO, &rto, sizeof(rto)) < 0)
		return -errno;
	if (c->max_retrans && usrsctp_setsockopt(s, IPPROTO_SCTP, SCTP_ASSOCINFO, &ap, sizeof(ap)) < 0)
		return -errno;
	if ((c->hb_interval_ms || c->max_retrans) &&
	    usrsctp_setsockopt(s, IPPROTO_SCTP, SCTP_PEER_ADDR_PARAMS, &pp, sizeof(pp)) < 0)
		return -errno;
	return 0;
}


static int usr_bind_port(struct usr_ep *e, uint16_t want)
{
	struct sockaddr_conn sc;

	for (int tries = 0; tries < 64; tries++) {
		uint16_t port = want;
		if (!port) {
			uint16_t r = 0;
			if (getrandom(&r, sizeof(r), 0) != sizeof(r))
				r = (uint16_t)rand();
			port = (uint16_t)(49152u + r % 16384u); /* RFC 6335 dynamic range */
		}
		memset(&sc, 0, sizeof(sc));
		sc.sconn_family = AF_CONN;
		sc.sconn_port = htons(port);
		sc.sconn_addr = NULL; /* wildcard: any peer handle */
		if (usrsctp_bind(e->so, (struct sockaddr *)&sc, sizeof(sc)) == 0) {
			e->ep->port = port;
			return 0;
		}
		if (want || errno != EADDRINUSE)
			return -errno;
	}
	return -EADDRINUSE;
}

static int usr_open(struct n2sctp *ep, int family, const struct sockaddr *local)
{
	struct usr_ep *e;
	struct sctp_initmsg im;
	const uint16_t evtypes[] = { SCTP_ASSOC_CHANGE, SCTP_SHUTDOWN_EVENT, SCTP_SEND_FAILED_EVENT,
				     SCTP_REMOTE_ERROR };
	int one = 1, rc;

	rc = usr_global_attach(ep->loop);
	if (rc < 0)
		return rc;
	e = calloc(1, sizeof(*e));
	if (!e) {
		usr_global_detach();
		return -ENOMEM;
	}
	e->ep = ep;
	ep->be = e;
	ep->ops = &usr_ops;
	e->so = usrsctp_socket(AF_CONN, SOCK_SEQPACKET, IPPROTO_SCTP, NULL, NULL, 0, NULL);
	if (!e->so)
		return -errno ? -errno : -ENOMEM;
	usrsctp_set_non_blocking(e->so, 1);
	memset(&im, 0, sizeof(im));
	im.sinit_num_ostreams = ep->cfg.ostreams;
	im.sinit_max_instreams = ep->cfg.istreams;
	im.sinit_max_attempts = ep->cfg.max_init_retrans;
	im.sinit_max_init_timeo = (uint16_t)(ep->cfg.rto_max_ms > 65535 ? 65535 : ep->cfg.rto_max_ms);
	if (usrsctp_setsockopt(e->so, IPPROTO_SCTP, SCTP_INITMSG, &im, sizeof(im)) < 0 ||
	    usrsctp_setsockopt(e->so, IPPROTO_SCTP, SCTP_RECVRCVINFO, &one, sizeof(one)) < 0 ||
	    usrsctp_setsockopt(e->so, IPPROTO_SCTP, SCTP_NODELAY, &one, sizeof(one)) < 0)
		return -errno;
	for (size_t i = 0; i < sizeof(evtypes) / sizeof(evtypes[0]); i++) {
		struct sctp_event ev = { .se_assoc_id = SCTP_FUTURE_ASSOC, .se_type = evtypes[i], .se_on = 1 };
		if (usrsctp_setsockopt(e->so, IPPROTO_SCTP, SCTP_EVENT, &ev, sizeof(ev)) < 0)
			return -errno;
	}
	int sndbuf = N2SCTP_SNDBUF;
	usrsctp_setsockopt(e->so, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	rc = usr_timers(e->so, &ep->cfg);
	if (rc < 0) {
		log_error(MOD, "usrsctp: RTO/heartbeat settings refused: %s", strerror(-rc));
		return rc;
	}
	uint16_t want = 0;
	if (local)
		want = ntohs(local->sa_family == AF_INET6 ? ((const struct sockaddr_in6 *)local)->sin6_port
							  : ((const struct sockaddr_in *)local)->sin_port);
	rc = usr_bind_port(e, want);
	if (rc < 0) {
		log_error(MOD, "usrsctp: bind SCTP port %u: %s", want, strerror(-rc));
		return rc;
	}
	rc = wire_get(family, ep->cfg.encap, local, ep->cfg.udp_port, &e->w);
	if (rc < 0)
		return rc;
	e->wnext = e->w->eps;
	e->w->eps = e;
	ep->udp_port = e->w->udp_port;
	usrsctp_set_upcall(e->so, usr_upcall, e);
	return 0;
}

int n2sctp_usr_listen(struct n2sctp *ep, const struct sockaddr *local, socklen_t locallen)
{
	int rc;
	(void)locallen;

	rc = usr_open(ep, local->sa_family, local);
	if (rc == 0 && usrsctp_listen(((struct usr_ep *)ep->be)->so, 128) < 0)
		rc = -errno;
	if (rc < 0) {
		usr_close(ep);
		return rc;
	}
	snprintf(ep->name, sizeof(ep->name), "usr-%s lis :%u", ep->cfg.encap == N2SCTP_ENCAP_UDP ? "udp" : "raw",
		 ep->port);
	log_info(MOD, "%s: listening (udp port %u, streams %u/%u)", ep->name, ep->udp_port, ep->cfg.ostreams,
		 ep->cfg.istreams);
	return 0;
}

int n2sctp_usr_connect(struct n2sctp *ep, const struct sockaddr *local, socklen_t locallen,
		       const struct sockaddr *peer, socklen_t peerlen)
{
	struct sockaddr_storage real;
	struct sockaddr_conn sc;
	struct usr_ep *e;
	char ps[64];
	int rc;
	(void)locallen;

	if (peerlen < (socklen_t)sa_len(peer))
		return -EINVAL;
	rc = usr_open(ep, peer->sa_family, local);
	if (rc < 0) {
		usr_close(ep);
		return rc;
	}
	e = ep->be;
	/* The wire-level peer: the peer's IP, and for UDP its encapsulation port. */
	memcpy(&real, peer, (size_t)sa_len(peer));
	if (real.ss_family == AF_INET6)
		((struct sockaddr_in6 *)&real)->sin6_port = htons(ep->cfg.udp_peer_port);
	else
		((struct sockaddr_in *)&real)->sin_port = htons(ep->cfg.udp_peer_port);
	e->cpeer = peer_get(e->w, (struct sockaddr *)&real);
	if (!e->cpeer) {
		usr_close(ep);
		return -ENOMEM;
	}
	e->cpeer->refs++;
	memset(&sc, 0, sizeof(sc));
	sc.sconn_family = AF_CONN;
	sc.sconn_port = peer->sa_family == AF_INET6 ? ((const struct sockaddr_in6 *)peer)->sin6_port
						    : ((const struct sockaddr_in *)peer)->sin_port;
	sc.sconn_addr = e->cpeer;
	G.in_engine = true; /* the INIT goes out from inside connect */
	rc = usrsctp_connect(e->so, (struct sockaddr *)&sc, sizeof(sc));
	G.in_engine = false;
	if (rc < 0 && errno != EINPROGRESS) {
		rc = -errno;
		log_error(MOD, "usrsctp: connect %s: %s", n2sctp_addr_str(peer, ps, sizeof(ps)), strerror(-rc));
		usr_close(ep);
		return rc;
	}
	snprintf(ep->name, sizeof(ep->name), "usr-%s cli ->%s", ep->cfg.encap == N2SCTP_ENCAP_UDP ? "udp" : "raw",
		 n2sctp_addr_str(peer, ps, sizeof(ps)));
	return 0;
}

void n2sctp_usr_wire_stats(const struct n2sctp *ep, struct n2sctp_stats *st)
{
	const struct usr_ep *e = ep->be;

	if (!e || !e->w)
		return;
	st->wire_rx_pkts = e->w->rx_pkts;
	st->wire_tx_pkts = e->w->tx_pkts;
	st->wire_rx_foreign = e->w->rx_foreign;
	st->wire_rx_bad = e->w->rx_bad;
	st->wire_tx_errors = e->w->tx_errors;
}
