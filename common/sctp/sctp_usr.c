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
#include "common/sctp/sctp_usr_int.h"

#include "common/log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#define MOD "sctp"
#define USR_TICK_MS       10u
#define USR_READ_BATCH    256
#define USR_GC_NS         1000000000ull

struct n2sctp_usr_state n2sctp_usr_g;

/* ---- usrsctp glue ---- */

static void usr_ep_read(struct usr_ep *e);

/* Mark an endpoint readable; n2sctp_usr_drain reads it (in arrival order). */
static void usr_queue(struct usr_ep *e)
{
	if (e->queued)
		return;
	e->queued = true;
	e->qnext = NULL;
	if (n2sctp_usr_g.qtail)
		n2sctp_usr_g.qtail->qnext = e;
	else
		n2sctp_usr_g.q = e;
	n2sctp_usr_g.qtail = e;
}

static void usr_unqueue(struct usr_ep *e)
{
	struct usr_ep *prev = NULL;

	if (!e->queued)
		return;
	for (struct usr_ep *x = n2sctp_usr_g.q; x; prev = x, x = x->qnext) {
		if (x != e)
			continue;
		if (prev)
			prev->qnext = e->qnext;
		else
			n2sctp_usr_g.q = e->qnext;
		if (n2sctp_usr_g.qtail == e)
			n2sctp_usr_g.qtail = prev;
		break;
	}
	e->queued = false;
}

void n2sctp_usr_drain(void)
{
	struct usr_ep *e;

	while ((e = n2sctp_usr_g.q)) {
		usr_unqueue(e);
		usr_ep_read(e);
	}
}

static void usr_deferred_drain(void *arg)
{
	(void)arg;
	n2sctp_usr_g.defer_pending = false;
	n2sctp_usr_g.in_engine = true;
	n2sctp_usr_drain();
	n2sctp_usr_engine_leave();
}

static void usr_upcall(struct socket *so, void *arg, int flags)
{
	struct usr_ep *e = arg;
	(void)so;
	(void)flags;

	usr_queue(e);
	/* An upcall outside our own input/timer path (after a user send, say):
	 * drain before the loop sleeps. */
	if (!n2sctp_usr_g.in_engine && !n2sctp_usr_g.defer_pending && n2sctp_usr_g.loop &&
	    ev_defer(n2sctp_usr_g.loop, usr_deferred_drain, NULL) == 0)
		n2sctp_usr_g.defer_pending = true;
}

static void usr_tick(struct ev_loop *loop, struct ev_timer *t)
{
	uint64_t now = ev_now_ns(loop);
	uint64_t ms = (now - n2sctp_usr_g.last_tick_ns) / 1000000u;
	(void)t;

	n2sctp_usr_g.in_engine = true;
	if (ms) {
		n2sctp_usr_g.last_tick_ns += ms * 1000000u;
		usrsctp_handle_timers((uint32_t)ms);
	}
	/* Notifications raised from usrsctp's timers (CANT_STR_ASSOC after the
	 * last INIT, COMM_LOST after the last HEARTBEAT) are queued on the socket
	 * without an upcall (measured with usrsctp 0.9.5), so every endpoint is
	 * checked here; usrsctp_get_events is a cheap readability test. */
	for (struct usr_wire *w = n2sctp_usr_g.wires; w; w = w->next)
		for (struct usr_ep *e = w->eps; e; e = e->wnext)
			if (!e->queued && (usrsctp_get_events(e->so) & SCTP_EVENT_READ))
				usr_queue(e);
	n2sctp_usr_drain();
	n2sctp_usr_engine_leave();
	if (now - n2sctp_usr_g.last_gc_ns > USR_GC_NS) {
		n2sctp_usr_g.last_gc_ns = now;
		n2sctp_usr_peers_sweep(NULL, now);
	}
	if (n2sctp_usr_g.neps)
		ev_timer_start(loop, &n2sctp_usr_g.timer, USR_TICK_MS);
}

static int usr_global_attach(struct ev_loop *loop)
{
	if (!n2sctp_usr_g.inited) {
		/* Hash tables sized for N2 (one association per gNB, a few endpoints):
		 * 64 gives 1024 association buckets; the default 1024 allocates and
		 * initialises 150 kB. A tunable: read by usrsctp_init only. */
		usrsctp_tunable_set_sctp_hashtblsize(64);
		/* Port 0: usrsctp opens no UDP socket of its own; no threads at all. */
		usrsctp_init_nothreads(0, n2sctp_usr_output, NULL);
		usrsctp_sysctl_set_sctp_blackhole(0);
		/* The CRC32c is done on the wire side (sctp_crc.c), in hardware where possible. */
		usrsctp_enable_crc32c_offload();
		n2sctp_usr_g.inited = true;
	}
	if (n2sctp_usr_g.loop && n2sctp_usr_g.loop != loop) {
		log_error(MOD, "usrsctp: all endpoints of a process must share one ev loop");
		return -EXDEV;
	}
	if (!n2sctp_usr_g.loop) {
		n2sctp_usr_g.loop = loop;
		ev_timer_init(&n2sctp_usr_g.timer, usr_tick, NULL);
		n2sctp_usr_g.last_tick_ns = n2sctp_usr_g.last_gc_ns = ev_update_now(loop);
		int rc = ev_timer_start(loop, &n2sctp_usr_g.timer, USR_TICK_MS);
		if (rc < 0) {
			n2sctp_usr_g.loop = NULL;
			return rc;
		}
	}
	n2sctp_usr_g.neps++;
	return 0;
}

static void usr_global_detach(void)
{
	if (--n2sctp_usr_g.neps == 0) {
		ev_timer_stop(n2sctp_usr_g.loop, &n2sctp_usr_g.timer);
		n2sctp_usr_g.loop = NULL;
	}
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
	struct usr_peer *p = sc->sconn_family == AF_CONN ? n2sctp_usr_peer_valid(sc->sconn_addr) : NULL;
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
		p->last_rx_ns = n2sctp_usr_g.loop ? ev_now_ns(n2sctp_usr_g.loop) : 0;
	}
}

static void usr_close(struct n2sctp *ep)
{
	struct usr_ep *e = ep->be;

	if (!e)
		return;
	usr_unqueue(e);
	if (e->so) {
		/* SO_LINGER 0: ABORT every association now (RFC 6458 8.1.4). */
		struct linger lg = { .l_onoff = 1, .l_linger = 0 };
		usrsctp_set_upcall(e->so, NULL, NULL);
		usrsctp_setsockopt(e->so, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
		usrsctp_close(e->so);
		if (ep->port) /* later packets to it are someone else's business */
			n2sctp_usr_g.ports[ep->port >> 3] &= (uint8_t)~(1u << (ep->port & 7));
	}
	if (e->cpeer)
		e->cpeer->refs--;
	if (e->w) {
		struct usr_ep **pp = &e->w->eps;
		while (*pp && *pp != e)
			pp = &(*pp)->wnext;
		if (*pp)
			*pp = e->wnext;
		n2sctp_usr_wire_put(e->w);
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
	if (i == USR_READ_BATCH && !ep->doomed)
		usr_queue(e); /* more to read: after the others had their turn */
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
			n2sctp_usr_g.ports[port >> 3] |= (uint8_t)(1u << (port & 7));
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
	/* RFC 6458 8.1.20 level 0: a message delivered in parts is never
	 * interleaved with another association's (usrsctp defaults to level 1),
	 * which the endpoint's single reassembly buffer relies on. */
	int zero = 0;
	if (usrsctp_setsockopt(e->so, IPPROTO_SCTP, SCTP_FRAGMENT_INTERLEAVE, &zero, sizeof(zero)) < 0 ||
	    usrsctp_setsockopt(e->so, IPPROTO_SCTP, SCTP_INITMSG, &im, sizeof(im)) < 0 ||
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
	rc = n2sctp_usr_wire_get(family, ep->cfg.encap, local, ep->cfg.udp_port, &e->w);
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

	if (peerlen < (socklen_t)n2sctp_sa_len(peer))
		return -EINVAL;
	rc = usr_open(ep, peer->sa_family, local);
	if (rc < 0) {
		usr_close(ep);
		return rc;
	}
	e = ep->be;
	/* The wire-level peer: the peer's IP, and for UDP its encapsulation port. */
	memcpy(&real, peer, (size_t)n2sctp_sa_len(peer));
	if (real.ss_family == AF_INET6)
		((struct sockaddr_in6 *)&real)->sin6_port = htons(ep->cfg.udp_peer_port);
	else
		((struct sockaddr_in *)&real)->sin_port = htons(ep->cfg.udp_peer_port);
	e->cpeer = n2sctp_usr_peer_get(e->w, (struct sockaddr *)&real);
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
	n2sctp_usr_g.in_engine = true; /* the INIT goes out from inside connect */
	rc = usrsctp_connect(e->so, (struct sockaddr *)&sc, sizeof(sc));
	n2sctp_usr_engine_leave();
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
