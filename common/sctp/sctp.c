/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * n2sctp core: backend selection, the association table (hash on the
 * backend's assoc id), message reassembly, callback dispatch with deferred
 * destruction, and the public API that forwards to the backend ops.
 */
#include "common/sctp/sctp_int.h"

#include "common/log.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MOD "sctp"
#define N2SCTP_BUCKETS_MIN 64u

static uint32_t g_assoc_num;

void n2sctp_cfg_init(struct n2sctp_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->backend = N2SCTP_BACKEND_AUTO;
	cfg->encap = N2SCTP_ENCAP_RAW;
	cfg->udp_peer_port = N2SCTP_PORT_UDP_ENCAP;
	cfg->ostreams = N2SCTP_STREAMS_DEFAULT;
	cfg->istreams = N2SCTP_STREAMS_DEFAULT;
}

int n2sctp_backend_parse(const char *s, enum n2sctp_backend *out)
{
	if (!strcmp(s, "auto"))
		*out = N2SCTP_BACKEND_AUTO;
	else if (!strcmp(s, "kernel"))
		*out = N2SCTP_BACKEND_KERNEL;
	else if (!strcmp(s, "usrsctp"))
		*out = N2SCTP_BACKEND_USRSCTP;
	else
		return -EINVAL;
	return 0;
}

int n2sctp_encap_parse(const char *s, enum n2sctp_encap *out)
{
	if (!strcmp(s, "raw"))
		*out = N2SCTP_ENCAP_RAW;
	else if (!strcmp(s, "udp"))
		*out = N2SCTP_ENCAP_UDP;
	else
		return -EINVAL;
	return 0;
}

const char *n2sctp_backend_name(enum n2sctp_backend b)
{
	switch (b) {
	case N2SCTP_BACKEND_AUTO: return "auto";
	case N2SCTP_BACKEND_KERNEL: return "kernel";
	case N2SCTP_BACKEND_USRSCTP: return "usrsctp";
	}
	return "?";
}

const char *n2sctp_down_reason_name(enum n2sctp_down_reason r)
{
	switch (r) {
	case N2SCTP_DOWN_SHUTDOWN: return "shutdown";
	case N2SCTP_DOWN_ABORT: return "abort";
	case N2SCTP_DOWN_COMM_LOST: return "comm-lost";
	case N2SCTP_DOWN_RESTART: return "restart";
	case N2SCTP_DOWN_CANT_START: return "cant-start";
	}
	return "?";
}

int n2sctp_backend_resolve(enum n2sctp_backend want, enum n2sctp_backend *got, char *why, size_t whylen)
{
	char tmp[256];
	int rc;

	if (!why || !whylen) {
		why = tmp;
		whylen = sizeof(tmp);
	}
	if (want == N2SCTP_BACKEND_USRSCTP) {
		snprintf(why, whylen, "usrsctp requested");
		*got = N2SCTP_BACKEND_USRSCTP;
		return 0;
	}
	rc = n2sctp_kern_probe(why, whylen);
	if (rc == 0) {
		*got = N2SCTP_BACKEND_KERNEL;
		return 0;
	}
	if (want == N2SCTP_BACKEND_KERNEL)
		return rc;
	/* AUTO: fall back, keeping the probe's reason in the message. */
	size_t n = strlen(why);
	if (n < whylen)
		snprintf(why + n, whylen - n, "; using usrsctp");
	*got = N2SCTP_BACKEND_USRSCTP;
	return 0;
}

const char *n2sctp_addr_str(const struct sockaddr *sa, char *out, size_t outsz)
{
	char ip[INET6_ADDRSTRLEN] = "?";

	if (!sa) {
		snprintf(out, outsz, "-");
	} else if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)sa;
		inet_ntop(AF_INET, &s4->sin_addr, ip, sizeof(ip));
		snprintf(out, outsz, "%s:%u", ip, ntohs(s4->sin_port));
	} else if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)sa;
		inet_ntop(AF_INET6, &s6->sin6_addr, ip, sizeof(ip));
		snprintf(out, outsz, "[%s]:%u", ip, ntohs(s6->sin6_port));
	} else {
		snprintf(out, outsz, "af%u", sa->sa_family);
	}
	return out;
}

/* ---- association table ---- */

static uint32_t id_hash(uint32_t id)
{
	return id * 2654435761u;
}

static struct n2sctp_assoc *assoc_find(const struct n2sctp *ep, uint32_t id)
{
	struct n2sctp_assoc *a = ep->buckets[id_hash(id) & (ep->nbuckets - 1)];

	while (a && a->id != id)
		a = a->hnext;
	return a;
}

static void table_grow(struct n2sctp *ep)
{
	uint32_t nb = ep->nbuckets * 2;
	struct n2sctp_assoc **b = calloc(nb, sizeof(*b));

	if (!b)
		return; /* keep the old table: longer chains, still correct */
	for (uint32_t i = 0; i < ep->nbuckets; i++) {
		struct n2sctp_assoc *a = ep->buckets[i], *next;
		for (; a; a = next) {
			next = a->hnext;
			uint32_t h = id_hash(a->id) & (nb - 1);
			a->hnext = b[h];
			b[h] = a;
		}
	}
	free(ep->buckets);
	ep->buckets = b;
	ep->nbuckets = nb;
}

static void assoc_hash(struct n2sctp *ep, struct n2sctp_assoc *a)
{
	if (ep->count >= ep->nbuckets)
		table_grow(ep);
	uint32_t h = id_hash(a->id) & (ep->nbuckets - 1);
	a->hnext = ep->buckets[h];
	ep->buckets[h] = a;
	a->hashed = true;
	ep->count++;
}

static void assoc_unhash(struct n2sctp *ep, struct n2sctp_assoc *a)
{
	if (!a->hashed)
		return;
	struct n2sctp_assoc **pp = &ep->buckets[id_hash(a->id) & (ep->nbuckets - 1)];
	while (*pp && *pp != a)
		pp = &(*pp)->hnext;
	if (*pp)
		*pp = a->hnext;
	a->hashed = false;
	ep->count--;
}

static struct n2sctp_assoc *assoc_new(struct n2sctp *ep)
{
	struct n2sctp_assoc *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	a->ep = ep;
	a->num = ++g_assoc_num;
	return a;
}

/* Take the association out of every index; memory goes when no callback runs on it. */
static void assoc_unlink(struct n2sctp *ep, struct n2sctp_assoc *a)
{
	assoc_unhash(ep, a);
	if (ep->pending == a)
		ep->pending = NULL;
	if (ep->ops && ep->ops->assoc_gone)
		ep->ops->assoc_gone(ep, a);
}

static void assoc_release(struct n2sctp_assoc *a)
{
	if (a->in_cb)
		a->doomed = true;
	else
		free(a);
}

/* ---- callbacks ---- */

static void cb_up(struct n2sctp *ep, struct n2sctp_assoc *a)
{
	if (!ep->cbs.up)
		return;
	a->in_cb++;
	ep->cbs.up(a, (const struct sockaddr *)&a->peer, a->peerlen, ep->cbs.arg);
	a->in_cb--;
}

static void cb_down(struct n2sctp *ep, struct n2sctp_assoc *a, enum n2sctp_down_reason r)
{
	if (!ep->cbs.down)
		return;
	a->in_cb++;
	ep->cbs.down(a, r, ep->cbs.arg);
	a->in_cb--;
}

void n2sctp_core_enter(struct n2sctp *ep)
{
	ep->in_cb++;
}

static void ep_teardown(struct n2sctp *ep);

bool n2sctp_core_leave(struct n2sctp *ep)
{
	if (--ep->in_cb == 0 && ep->doomed) {
		ep_teardown(ep);
		return true;
	}
	return false;
}

/* ---- events from the backends ---- */

struct n2sctp_assoc *n2sctp_core_pending(struct n2sctp *ep)
{
	return ep->pending;
}

static void fill_peer(struct n2sctp *ep, struct n2sctp_assoc *a)
{
	a->peerlen = sizeof(a->peer);
	if (ep->ops->peer_addr(ep, a, &a->peer, &a->peerlen) < 0) {
		memset(&a->peer, 0, sizeof(a->peer));
		a->peerlen = 0;
	}
}

void n2sctp_core_up(struct n2sctp *ep, uint32_t id, uint16_t os, uint16_t is)
{
	struct n2sctp_assoc *a = assoc_find(ep, id);
	char pa[64];

	if (a && a->state == N2SCTP_A_UP)
		return; /* duplicate COMM_UP: nothing new */
	if (!a && ep->pending) {
		a = ep->pending;
		ep->pending = NULL;
		a->id = id;
		assoc_hash(ep, a);
		if (a->doomed) {
			/* n2sctp_abort() came while connecting: finish the job now. */
			ep->ops->send(ep, id, 0, 0, NULL, 0, N2SCTP_SEND_ABORT);
			assoc_unlink(ep, a);
			free(a);
			return;
		}
	}
	if (!a) {
		if (!ep->listener) {
			/* A client endpoint never listens: an unexpected association. */
			log_warn(MOD, "%s: unexpected association id=%u, aborting it", ep->name, id);
			ep->ops->send(ep, id, 0, 0, NULL, 0, N2SCTP_SEND_ABORT);
			return;
		}
		a = assoc_new(ep);
		if (!a) {
			log_error(MOD, "%s: no memory for association id=%u, aborting it", ep->name, id);
			ep->ops->send(ep, id, 0, 0, NULL, 0, N2SCTP_SEND_ABORT);
			return;
		}
		a->id = id;
		assoc_hash(ep, a);
	}
	a->state = N2SCTP_A_UP;
	a->ostreams = os;
	a->istreams = is;
	fill_peer(ep, a);
	ep->st.assoc_up++;
	log_info(MOD, "%s: assoc=%u up peer=%s streams out=%u in=%u", ep->name, a->num,
		 n2sctp_addr_str(a->peerlen ? (struct sockaddr *)&a->peer : NULL, pa, sizeof(pa)), os, is);
	cb_up(ep, a);
	if (a->doomed && !a->in_cb)
		free(a);
}

void n2sctp_core_restart(struct n2sctp *ep, uint32_t id, uint16_t os, uint16_t is)
{
	struct n2sctp_assoc *a = assoc_find(ep, id);

	if (!a || a->state != N2SCTP_A_UP) {
		n2sctp_core_up(ep, id, os, is);
		return;
	}
	log_info(MOD, "%s: assoc=%u peer restarted (RFC 9260 5.2.4)", ep->name, a->num);
	a->in_cb++; /* keep it through both callbacks even if the user aborts it */
	cb_down(ep, a, N2SCTP_DOWN_RESTART);
	if (!a->doomed) {
		a->ostreams = os;
		a->istreams = is;
		fill_peer(ep, a);
		cb_up(ep, a);
	}
	a->in_cb--;
	if (a->doomed && !a->in_cb)
		free(a);
}

void n2sctp_core_down(struct n2sctp *ep, uint32_t id, enum n2sctp_down_reason reason)
{
	struct n2sctp_assoc *a = assoc_find(ep, id);

	if (!a && ep->pending && !ep->listener)
		a = ep->pending; /* a connect that never came up */
	if (!a)
		return; /* aborted by us already, or never reported up */
	if (a->doomed) {
		assoc_unlink(ep, a); /* aborted by us while connecting: no callback */
		free(a);
		return;
	}
	if (a->state == N2SCTP_A_CONNECTING && reason != N2SCTP_DOWN_CANT_START)
		reason = N2SCTP_DOWN_CANT_START;
	assoc_unlink(ep, a);
	ep->st.assoc_down++;
	log_info(MOD, "%s: assoc=%u down reason=%s", ep->name, a->num, n2sctp_down_reason_name(reason));
	cb_down(ep, a, reason);
	assoc_release(a);
}

static void deliver(struct n2sctp *ep, struct n2sctp_assoc *a, uint16_t stream, uint32_t ppid,
		    const uint8_t *buf, size_t len)
{
	ep->st.rx_msgs++;
	ep->st.rx_bytes += len;
	if (!ep->cbs.data)
		return;
	a->in_cb++;
	ep->cbs.data(a, stream, ppid, buf, len, ep->cbs.arg);
	a->in_cb--;
	if (a->doomed && !a->in_cb)
		free(a);
}

void n2sctp_core_data(struct n2sctp *ep, uint32_t id, uint16_t stream, uint32_t ppid,
		      const uint8_t *buf, size_t len, bool eor)
{
	struct n2sctp_assoc *a = assoc_find(ep, id);

	if (!a || a->state == N2SCTP_A_CONNECTING) {
		ep->st.rx_unknown_assoc++;
		ep->asmlen = 0;
		ep->asm_drop = false;
		return;
	}
	if (eor && ep->asmlen == 0 && !ep->asm_drop) {
		deliver(ep, a, stream, ppid, buf, len);
		return;
	}
	if ((ep->asmlen || ep->asm_drop) && ep->asm_id != id) {
		/* Another association's data in the middle of a partial message:
		 * cannot happen at interleave level 0; drop the orphan, counted. */
		ep->st.rx_oversize++;
		ep->asmlen = 0;
		ep->asm_drop = false;
	}
	ep->asm_id = id;
	/* Partial delivery (RFC 6458 3.1.4): the socket hands a long message in
	 * pieces, never interleaved with another (fragment interleave level 0). */
	if (!ep->asm_drop && ep->asmlen + len <= N2SCTP_MAX_MSG) {
		memcpy(ep->asmbuf + ep->asmlen, buf, len);
		ep->asmlen += len;
	} else {
		ep->asm_drop = true;
	}
	if (!eor)
		return;
	if (ep->asm_drop) {
		ep->st.rx_oversize++;
		log_rl(LOGL_WARN, MOD, ep->name, "assoc=%u message over %u bytes dropped", a->num,
		       N2SCTP_MAX_MSG);
	} else {
		deliver(ep, a, stream, ppid, ep->asmbuf, ep->asmlen);
	}
	ep->asmlen = 0;
	ep->asm_drop = false;
}

/* ---- endpoint life cycle ---- */

int n2sctp_core_init(struct n2sctp *ep, struct ev_loop *loop, const struct n2sctp_cfg *cfg,
		     const struct n2sctp_cbs *cbs, enum n2sctp_backend be, bool listener)
{
	ep->loop = loop;
	ep->cfg = *cfg;
	if (!ep->cfg.ostreams)
		ep->cfg.ostreams = N2SCTP_STREAMS_DEFAULT;
	if (!ep->cfg.istreams)
		ep->cfg.istreams = N2SCTP_STREAMS_DEFAULT;
	if (cbs)
		ep->cbs = *cbs;
	ep->backend = be;
	ep->listener = listener;
	ep->nbuckets = N2SCTP_BUCKETS_MIN;
	ep->buckets = calloc(ep->nbuckets, sizeof(*ep->buckets));
	ep->rdbuf = malloc(N2SCTP_MAX_MSG);
	ep->asmbuf = malloc(N2SCTP_MAX_MSG);
	if (!ep->buckets || !ep->rdbuf || !ep->asmbuf)
		return -ENOMEM;
	return 0;
}

void n2sctp_core_release(struct n2sctp *ep)
{
	if (!ep)
		return;
	for (uint32_t i = 0; ep->buckets && i < ep->nbuckets; i++) {
		struct n2sctp_assoc *a = ep->buckets[i], *next;
		for (; a; a = next) {
			next = a->hnext;
			free(a);
		}
	}
	free(ep->pending);
	free(ep->buckets);
	free(ep->rdbuf);
	free(ep->asmbuf);
	free(ep);
}

static void ep_teardown(struct n2sctp *ep)
{
	/* Let the backend drop its per-association references before the socket goes. */
	for (uint32_t i = 0; i < ep->nbuckets; i++)
		for (struct n2sctp_assoc *a = ep->buckets[i]; a; a = a->hnext)
			if (ep->ops->assoc_gone)
				ep->ops->assoc_gone(ep, a);
	if (ep->pending && ep->ops->assoc_gone)
		ep->ops->assoc_gone(ep, ep->pending);
	ep->ops->close(ep);
	log_info(MOD, "%s: closed (%u associations aborted)", ep->name, ep->count);
	n2sctp_core_release(ep);
}

static int ep_open(struct ev_loop *loop, const struct n2sctp_cfg *cfg, const struct n2sctp_cbs *cbs,
		   bool listener, struct n2sctp **epp)
{
	struct n2sctp_cfg def;
	enum n2sctp_backend be;
	char why[256];
	int rc;

	if (!cfg) {
		n2sctp_cfg_init(&def);
		cfg = &def;
	}
	rc = n2sctp_backend_resolve(cfg->backend, &be, why, sizeof(why));
	if (rc < 0) {
		log_error(MOD, "backend %s unavailable: %s", n2sctp_backend_name(cfg->backend), why);
		return rc;
	}
	if (cfg->backend == N2SCTP_BACKEND_AUTO)
		log_info(MOD, "backend auto -> %s: %s", n2sctp_backend_name(be), why);
	struct n2sctp *ep = calloc(1, sizeof(*ep));
	if (!ep)
		return -ENOMEM;
	rc = n2sctp_core_init(ep, loop, cfg, cbs, be, listener);
	if (rc < 0) {
		n2sctp_core_release(ep);
		return rc;
	}
	*epp = ep;
	return 0;
}

int n2sctp_listen(struct ev_loop *loop, const struct n2sctp_cfg *cfg,
		  const struct sockaddr *local, socklen_t locallen,
		  const struct n2sctp_cbs *cbs, struct n2sctp **out)
{
	struct n2sctp *ep;
	int rc;

	*out = NULL;
	if (!loop || !local)
		return -EINVAL;
	rc = ep_open(loop, cfg, cbs, true, &ep);
	if (rc < 0)
		return rc;
	rc = ep->backend == N2SCTP_BACKEND_KERNEL ? n2sctp_kern_listen(ep, local, locallen)
						  : n2sctp_usr_listen(ep, local, locallen);
	if (rc < 0) {
		n2sctp_core_release(ep);
		return rc;
	}
	*out = ep;
	return 0;
}

int n2sctp_connect(struct ev_loop *loop, const struct n2sctp_cfg *cfg,
		   const struct sockaddr *local, socklen_t locallen,
		   const struct sockaddr *peer, socklen_t peerlen,
		   const struct n2sctp_cbs *cbs, struct n2sctp **out)
{
	struct n2sctp *ep;
	int rc;

	*out = NULL;
	if (!loop || !peer)
		return -EINVAL;
	rc = ep_open(loop, cfg, cbs, false, &ep);
	if (rc < 0)
		return rc;
	ep->pending = assoc_new(ep);
	if (!ep->pending) {
		n2sctp_core_release(ep);
		return -ENOMEM;
	}
	ep->pending->state = N2SCTP_A_CONNECTING;
	rc = ep->backend == N2SCTP_BACKEND_KERNEL ? n2sctp_kern_connect(ep, local, locallen, peer, peerlen)
						  : n2sctp_usr_connect(ep, local, locallen, peer, peerlen);
	if (rc < 0) {
		n2sctp_core_release(ep);
		return rc;
	}
	*out = ep;
	return 0;
}

void n2sctp_free(struct n2sctp *ep)
{
	if (!ep || ep->doomed)
		return;
	if (ep->in_cb) {
		ep->doomed = true; /* torn down by n2sctp_core_leave */
		return;
	}
	ep_teardown(ep);
}

/* ---- per association ---- */

int n2sctp_send(struct n2sctp_assoc *a, uint16_t stream, uint32_t ppid, const void *buf, size_t len)
{
	struct n2sctp *ep = a->ep;
	int rc;

	if (a->doomed || ep->doomed || a->state != N2SCTP_A_UP)
		return -ENOTCONN;
	if (stream >= a->ostreams || len == 0 || len > N2SCTP_MAX_MSG)
		return -EINVAL;
	rc = ep->ops->send(ep, a->id, stream, ppid, buf, len, 0);
	if (rc == 0) {
		ep->st.tx_msgs++;
		ep->st.tx_bytes += len;
	} else if (rc == -EAGAIN) {
		ep->st.tx_eagain++;
		log_rl(LOGL_WARN, MOD, ep->name, "assoc=%u send buffer full (peer stalled), message refused",
		       a->num);
	} else {
		ep->st.tx_errors++;
		log_rl(LOGL_WARN, MOD, ep->name, "assoc=%u send failed: %s", a->num, strerror(-rc));
	}
	return rc;
}

int n2sctp_shutdown(struct n2sctp_assoc *a)
{
	struct n2sctp *ep = a->ep;

	if (a->doomed || ep->doomed || a->state != N2SCTP_A_UP)
		return -ENOTCONN;
	int rc = ep->ops->send(ep, a->id, 0, 0, NULL, 0, N2SCTP_SEND_EOF);
	if (rc == 0)
		a->state = N2SCTP_A_CLOSING;
	return rc;
}

void n2sctp_abort(struct n2sctp_assoc *a)
{
	struct n2sctp *ep;

	if (!a || a->doomed)
		return;
	ep = a->ep;
	if (a->state != N2SCTP_A_CONNECTING && !ep->doomed)
		ep->ops->send(ep, a->id, 0, 0, NULL, 0, N2SCTP_SEND_ABORT);
	log_info(MOD, "%s: assoc=%u aborted locally", ep->name, a->num);
	if (a->state == N2SCTP_A_CONNECTING) {
		/* The id is not known yet: the only way to stop the INITs is to
		 * close the client's socket, which the owner does with n2sctp_free. */
		a->doomed = true;
		return;
	}
	assoc_unlink(ep, a);
	assoc_release(a);
}

uint16_t n2sctp_ue_stream(const struct n2sctp_assoc *a, uint64_t ue_key)
{
	if (a->ostreams < 2)
		return 0;
	return (uint16_t)(1 + ue_key % (uint64_t)(a->ostreams - 1u));
}

struct n2sctp *n2sctp_assoc_endpoint(const struct n2sctp_assoc *a) { return a->ep; }
uint32_t n2sctp_assoc_num(const struct n2sctp_assoc *a) { return a->num; }
uint16_t n2sctp_assoc_ostreams(const struct n2sctp_assoc *a) { return a->ostreams; }
uint16_t n2sctp_assoc_istreams(const struct n2sctp_assoc *a) { return a->istreams; }
void n2sctp_assoc_set_user(struct n2sctp_assoc *a, void *user) { a->user = user; }
void *n2sctp_assoc_user(const struct n2sctp_assoc *a) { return a->user; }

const struct sockaddr *n2sctp_assoc_peer(const struct n2sctp_assoc *a, socklen_t *len)
{
	if (len)
		*len = a->peerlen;
	return (const struct sockaddr *)&a->peer;
}

enum n2sctp_backend n2sctp_backend_of(const struct n2sctp *ep) { return ep->backend; }
uint16_t n2sctp_local_port(const struct n2sctp *ep) { return ep->port; }
uint16_t n2sctp_local_udp_port(const struct n2sctp *ep) { return ep->udp_port; }
size_t n2sctp_assoc_count(const struct n2sctp *ep) { return ep->count; }

void n2sctp_get_stats(const struct n2sctp *ep, struct n2sctp_stats *out)
{
	*out = ep->st;
	if (ep->backend == N2SCTP_BACKEND_USRSCTP)
		n2sctp_usr_wire_stats(ep, out);
}
