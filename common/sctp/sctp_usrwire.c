/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * usrsctp backend, the wire side: real sockets (raw IP protocol 132 or UDP,
 * RFC 6951) owned by the ev loop, and peer objects - one per remote address
 * on a wire - whose addresses are usrsctp's AF_CONN "addresses".
 */
#include "common/sctp/sctp_usr_int.h"

#include "common/log.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MOD "sctp"

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
	struct usr_peer *p = n2sctp_usr_g.by_addr[addr_hash(w, key)];

	while (p && !(p->w == w && addr_eq(&p->addr, key)))
		p = p->anext;
	return p;
}

struct usr_peer *n2sctp_usr_peer_valid(void *handle)
{
	struct usr_peer *p = n2sctp_usr_g.by_ptr[ptr_hash(handle)];

	while (p && p != handle)
		p = p->pnext;
	return p;
}

struct usr_peer *n2sctp_usr_peer_get(struct usr_wire *w, const struct sockaddr *sa)
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
	p->last_rx_ns = n2sctp_usr_g.loop ? ev_now_ns(n2sctp_usr_g.loop) : 0;
	uint32_t h = addr_hash(w, &key);
	p->anext = n2sctp_usr_g.by_addr[h];
	n2sctp_usr_g.by_addr[h] = p;
	h = ptr_hash(p);
	p->pnext = n2sctp_usr_g.by_ptr[h];
	n2sctp_usr_g.by_ptr[h] = p;
	usrsctp_register_address(p);
	return p;
}

static void peer_free(struct usr_peer *p)
{
	struct usr_peer **pp = &n2sctp_usr_g.by_addr[addr_hash(p->w, &p->addr)];

	while (*pp && *pp != p)
		pp = &(*pp)->anext;
	if (*pp)
		*pp = p->anext;
	pp = &n2sctp_usr_g.by_ptr[ptr_hash(p)];
	while (*pp && *pp != p)
		pp = &(*pp)->pnext;
	if (*pp)
		*pp = p->pnext;
	usrsctp_deregister_address(p);
	free(p);
}

void n2sctp_usr_peers_sweep(struct usr_wire *w, uint64_t now)
{
	for (uint32_t i = 0; i < USR_PEER_BUCKETS; i++) {
		struct usr_peer *p = n2sctp_usr_g.by_addr[i], *next;
		for (; p; p = next) {
			next = p->anext;
			if (w ? p->w == w : (p->refs == 0 && now - p->last_rx_ns > USR_PEER_IDLE_NS))
				peer_free(p);
		}
	}
}

/* Send runs of held packets that share a wire with one sendmmsg each. A packet the kernel
 * refuses is a loss for SCTP to recover from (as with sendto), counted in tx_errors. */
void n2sctp_usr_tx_flush(void)
{
	struct mmsghdr mm[USR_TX_BATCH];
	struct iovec iov[USR_TX_BATCH];
	unsigned i = 0;

	while (i < n2sctp_usr_g.ntx) {
		struct usr_wire *w = n2sctp_usr_g.txq[i].w;
		unsigned n = 0;

		while (i + n < n2sctp_usr_g.ntx && n2sctp_usr_g.txq[i + n].w == w) {
			struct usr_txq *q = &n2sctp_usr_g.txq[i + n];
			iov[n].iov_base = n2sctp_usr_g.txbuf + q->off;
			iov[n].iov_len = q->len;
			memset(&mm[n], 0, sizeof(mm[n]));
			mm[n].msg_hdr.msg_name = &q->to;
			mm[n].msg_hdr.msg_namelen = q->tolen;
			mm[n].msg_hdr.msg_iov = &iov[n];
			mm[n].msg_hdr.msg_iovlen = 1;
			n++;
		}
		for (unsigned k = 0; k < n;) {
			int r = sendmmsg(w->fd, mm + k, n - k, MSG_DONTWAIT | MSG_NOSIGNAL);
			n2sctp_usr_g.tx_flushes++;
			if (r > 0) {
				w->tx_pkts += (unsigned)r;
				n2sctp_usr_g.tx_batched += (unsigned)r;
				k += (unsigned)r;
			} else {
				w->tx_errors++; /* this one is lost; the rest still go */
				k++;
			}
		}
		i += n;
	}
	n2sctp_usr_g.ntx = 0;
	n2sctp_usr_g.tx_used = 0;
}

void n2sctp_usr_engine_leave(void)
{
	n2sctp_usr_g.in_engine = false;
	if (n2sctp_usr_g.ntx)
		n2sctp_usr_tx_flush();
}

/* The last held packet is a lone SACK of the same association to the same address, and this
 * one starts with DATA: put the SACK in front of this packet's chunks instead of sending two
 * packets (RFC 9260 6.10: control chunks before DATA chunks; 6.2: a SACK may ride with DATA).
 * usrsctp bundles a SACK itself when it is still pending at send time; this covers the SACK it
 * sent on the second DATA packet of an input batch (6.2, "every second packet") just before
 * the application's answer in the same pass. Both are on their way in the same sendmmsg anyway:
 * the timing of the SACK does not change, the peer gets one packet instead of two. Small
 * packets only, far below any path MTU. */
#define USR_MERGE_MAX 1200

static bool tx_merge(const struct usr_peer *p, const uint8_t *pkt, size_t len)
{
	struct usr_txq *q;
	uint8_t *prev;

	if (!n2sctp_usr_g.ntx || len < 16)
		return false;
	q = &n2sctp_usr_g.txq[n2sctp_usr_g.ntx - 1];
	prev = n2sctp_usr_g.txbuf + q->off;
	if (q->w != p->w || q->tolen != p->len || memcmp(&q->to, &p->addr, p->len))
		return false;
	/* previous: common header + exactly one SACK chunk (type 3) */
	if (q->len < 16 || prev[12] != 3 || (size_t)(prev[14] << 8 | prev[15]) != q->len - 12)
		return false;
	/* this one: same ports and verification tag, first chunk DATA (0) or I-DATA (64) */
	if (memcmp(prev, pkt, 8) || (pkt[12] != 0 && pkt[12] != 64))
		return false;
	if (q->len + len - 12 > USR_MERGE_MAX || q->off + q->len + len - 12 > USR_TX_ARENA)
		return false;
	memcpy(prev + q->len, pkt + 12, len - 12); /* SACK chunk length is a multiple of 4 */
	q->len += (uint32_t)(len - 12);
	n2sctp_usr_crc_set(prev, q->len);
	n2sctp_usr_g.tx_used = q->off + (((size_t)q->len + 15) & ~(size_t)15);
	n2sctp_usr_g.tx_merged++;
	return true;
}

int n2sctp_usr_output(void *addr, void *buf, size_t len, uint8_t tos, uint8_t set_df)
{
	struct usr_peer *p = n2sctp_usr_peer_valid(addr);
	(void)tos;
	(void)set_df;

	if (!p)
		return 0; /* a dying association of a closed endpoint: nowhere to send */
	/* RFC 9260 6.8: usrsctp runs with checksum offload and leaves the field to us. The buffer
	 * is usrsctp's copy of the packet, handed over for this call only. */
	n2sctp_usr_crc_set(buf, len);
	if (n2sctp_usr_g.in_engine && len <= USR_TX_ARENA) {
		if (tx_merge(p, buf, len))
			return 0;
		if (n2sctp_usr_g.ntx == USR_TX_BATCH || n2sctp_usr_g.tx_used + len > USR_TX_ARENA)
			n2sctp_usr_tx_flush();
		struct usr_txq *q = &n2sctp_usr_g.txq[n2sctp_usr_g.ntx++];
		q->w = p->w;
		memcpy(&q->to, &p->addr, p->len);
		q->tolen = p->len;
		q->off = (uint32_t)n2sctp_usr_g.tx_used;
		q->len = (uint32_t)len;
		memcpy(n2sctp_usr_g.txbuf + n2sctp_usr_g.tx_used, buf, len);
		n2sctp_usr_g.tx_used += (len + 15) & ~(size_t)15;
		return 0;
	}
	if (sendto(p->w->fd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL, (struct sockaddr *)&p->addr, p->len) < 0) {
		p->w->tx_errors++;
		return -1; /* usrsctp treats it as a loss and retransmits */
	}
	p->w->tx_pkts++;
	return 0;
}

/* ---- wires ---- */

/* O(1) even with thousands of client endpoints on one shared raw wire. SCTP
 * ports are unique per process (usrsctp is one stack), so one bitmap serves
 * every wire. */
static bool wire_port_ours(uint16_t port)
{
	return n2sctp_usr_g.ports[port >> 3] & (1u << (port & 7));
}

/* One received datagram: strip what the socket adds, check the common header,
 * hand it to usrsctp through the peer of its source address. */
static void wire_input(struct usr_wire *w, uint8_t *p, size_t len, const struct sockaddr_storage *from,
		       uint64_t now)
{
	uint8_t ecn = 0;

	if (w->encap == N2SCTP_ENCAP_RAW && w->family == AF_INET) {
		/* IPv4 raw sockets deliver the IP header (raw(7)); IPv6 ones do not. */
		size_t ihl = len ? (size_t)(p[0] & 0x0f) * 4 : 0;
		if (len < 20 || ihl < 20 || ihl > len || p[9] != IPPROTO_SCTP) {
			w->rx_bad++;
			return;
		}
		ecn = p[1] & 3;
		p += ihl;
		len -= ihl;
	}
	if (len < 12) { /* RFC 9260 3.1: common header */
		w->rx_bad++;
		return;
	}
	if (!wire_port_ours((uint16_t)(p[2] << 8 | p[3]))) {
		w->rx_foreign++;
		return;
	}
	/* RFC 9260 6.8: a packet with a wrong CRC32c is discarded silently (usrsctp does not check
	 * it with offload on). */
	if (!n2sctp_usr_crc_ok(p, len)) {
		w->rx_bad++;
		w->rx_bad_crc++;
		return;
	}
	struct usr_peer *peer = n2sctp_usr_peer_get(w, (const struct sockaddr *)from);
	if (!peer) {
		w->rx_bad++;
		return;
	}
	peer->last_rx_ns = now;
	w->rx_pkts++;
	usrsctp_conninput(peer, p, len, ecn);
}

static void wire_read(struct ev_loop *loop, int fd, uint32_t events, void *arg)
{
	struct usr_wire *w = arg;
	uint64_t now = ev_now_ns(loop);
	struct mmsghdr mm[USR_MMSG];
	struct iovec iov[USR_MMSG];
	struct sockaddr_storage from[USR_MMSG];
	(void)events;

	n2sctp_usr_g.in_engine = true;
	for (int got = 0; got < USR_RX_BATCH;) {
		for (int i = 0; i < USR_MMSG; i++) {
			iov[i].iov_base = n2sctp_usr_g.pkt[i];
			iov[i].iov_len = sizeof(n2sctp_usr_g.pkt[i]);
			memset(&mm[i].msg_hdr, 0, sizeof(mm[i].msg_hdr));
			mm[i].msg_hdr.msg_name = &from[i];
			mm[i].msg_hdr.msg_namelen = sizeof(from[i]);
			mm[i].msg_hdr.msg_iov = &iov[i];
			mm[i].msg_hdr.msg_iovlen = 1;
		}
		int n = recvmmsg(fd, mm, USR_MMSG, MSG_DONTWAIT, NULL);
		if (n <= 0)
			break;
		for (int i = 0; i < n; i++) {
			if (mm[i].msg_hdr.msg_flags & MSG_TRUNC)
				w->rx_bad++;
			else
				wire_input(w, n2sctp_usr_g.pkt[i], mm[i].msg_len, &from[i], now);
		}
		got += n;
		/* A short batch emptied the socket: skip the syscall that would
		 * only say EAGAIN (the fd is level-triggered, nothing is lost). */
		if (n < USR_MMSG)
			break;
	}
	n2sctp_usr_drain();
	n2sctp_usr_engine_leave();
}

int n2sctp_usr_wire_get(int family, enum n2sctp_encap encap, const struct sockaddr *local, uint16_t udp_port,
		    struct usr_wire **out)
{
	struct sockaddr_storage bind_addr;
	struct usr_wire *w;
	int fd, rc, rcvbuf = USR_WIRE_RCVBUF;

	memset(&bind_addr, 0, sizeof(bind_addr));
	if (local && local->sa_family == family)
		memcpy(&bind_addr, local, (size_t)n2sctp_sa_len(local));
	bind_addr.ss_family = (sa_family_t)family;
	/* The wire's port: UDP port for encapsulation, none for raw IP. */
	if (family == AF_INET6)
		((struct sockaddr_in6 *)&bind_addr)->sin6_port = encap == N2SCTP_ENCAP_UDP ? htons(udp_port) : 0;
	else
		((struct sockaddr_in *)&bind_addr)->sin_port = encap == N2SCTP_ENCAP_UDP ? htons(udp_port) : 0;

	bool shareable = encap == N2SCTP_ENCAP_RAW || udp_port != 0;
	for (w = n2sctp_usr_g.wires; shareable && w; w = w->next) {
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
	if (bind(fd, (struct sockaddr *)&bind_addr, (socklen_t)n2sctp_sa_len((struct sockaddr *)&bind_addr)) < 0) {
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
	rc = ev_fd_add(n2sctp_usr_g.loop, fd, EV_READ, wire_read, w);
	if (rc < 0) {
		close(fd);
		free(w);
		return rc;
	}
	w->next = n2sctp_usr_g.wires;
	n2sctp_usr_g.wires = w;
	*out = w;
	return 0;
}

void n2sctp_usr_wire_put(struct usr_wire *w)
{
	if (--w->refs)
		return;
	if (n2sctp_usr_g.ntx)
		n2sctp_usr_tx_flush(); /* held packets name this wire */
	struct usr_wire **pp = &n2sctp_usr_g.wires;
	while (*pp && *pp != w)
		pp = &(*pp)->next;
	if (*pp)
		*pp = w->next;
	n2sctp_usr_peers_sweep(w, 0);
	ev_fd_del(n2sctp_usr_g.loop, w->fd);
	close(w->fd);
	free(w);
}
