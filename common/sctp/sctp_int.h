/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * n2sctp internals shared by the core (sctp.c) and the two backends
 * (sctp_kern.c, sctp_usr.c). The backends translate their own socket API and
 * notification structs (lksctp's and usrsctp's differ in constants, so they
 * live in separate files) into the neutral n2sctp_core_* calls below.
 */
#ifndef SOLOCORE_COMMON_SCTP_SCTP_INT_H
#define SOLOCORE_COMMON_SCTP_SCTP_INT_H

#include "common/sctp/sctp.h"

#include <netinet/in.h>

/* Send buffer of each socket. One-to-many sockets share it between all their
 * associations, so a stalled gNB must not be able to fill it for the others
 * quickly; n2sctp_send refuses (-EAGAIN, counted) rather than queue more. */
#define N2SCTP_SNDBUF (4 * 1024 * 1024)

#define N2SCTP_SEND_EOF   1u /* graceful shutdown, no data */
#define N2SCTP_SEND_ABORT 2u /* ABORT, no data */

struct n2sctp_ops {
	/* One message, or a control flag with no data. 0 or -errno (-EAGAIN when full). */
	int (*send)(struct n2sctp *ep, uint32_t assoc_id, uint16_t stream, uint32_t ppid,
		    const void *buf, size_t len, unsigned flags);
	/* Real peer address of an association (for up()). 0 or -errno. */
	int (*peer_addr)(struct n2sctp *ep, struct n2sctp_assoc *a, struct sockaddr_storage *ss, socklen_t *len);
	/* The association left the table (usrsctp drops its peer reference). May be NULL. */
	void (*assoc_gone)(struct n2sctp *ep, struct n2sctp_assoc *a);
	/* Close the socket(s), abortively; free backend state. */
	void (*close)(struct n2sctp *ep);
};

enum n2sctp_astate { N2SCTP_A_CONNECTING = 0, N2SCTP_A_UP, N2SCTP_A_CLOSING };

struct n2sctp_assoc {
	struct n2sctp *ep;
	struct n2sctp_assoc *hnext;   /* id hash chain */
	uint32_t id;                  /* backend SCTP assoc id */
	uint32_t num;                 /* process-unique, for logs */
	enum n2sctp_astate state;
	bool hashed;
	bool doomed;                  /* free once the running callback returns */
	unsigned in_cb;
	uint16_t ostreams, istreams;
	struct sockaddr_storage peer;
	socklen_t peerlen;
	void *user;
	void *be_peer;                /* usrsctp: the wire peer this association runs over */
};

struct n2sctp {
	const struct n2sctp_ops *ops;
	struct ev_loop *loop;
	struct n2sctp_cbs cbs;
	struct n2sctp_cfg cfg;
	enum n2sctp_backend backend;
	bool listener;
	bool doomed;                  /* n2sctp_free called inside a callback */
	unsigned in_cb;
	uint16_t port;                /* local SCTP port, host order */
	uint16_t udp_port;            /* usrsctp UDP: local UDP port */
	char name[48];                /* log prefix: "lis :38412" / "cli ->10.0.0.1:38412" */

	struct n2sctp_assoc **buckets;
	uint32_t nbuckets;            /* power of two */
	uint32_t count;               /* associations in the table */
	struct n2sctp_assoc *pending; /* client: the association being set up (id unknown) */

	uint8_t *rdbuf;               /* receive buffer, N2SCTP_MAX_MSG */
	uint8_t *asmbuf;              /* reassembly of a partially delivered message */
	size_t asmlen;
	uint32_t asm_id;              /* association of the partial message */
	bool asm_drop;                /* current partial message overflowed: drop until EOR */

	struct n2sctp_stats st;
	void *be;                     /* backend state */
};

/* ---- core, for the backends ---- */
int n2sctp_core_init(struct n2sctp *ep, struct ev_loop *loop, const struct n2sctp_cfg *cfg,
		     const struct n2sctp_cbs *cbs, enum n2sctp_backend be, bool listener);
/* Free the core's memory (after ops->close). */
void n2sctp_core_release(struct n2sctp *ep);
/* A client endpoint's association before its id is known. */
struct n2sctp_assoc *n2sctp_core_pending(struct n2sctp *ep);
/* Association events from notifications. */
void n2sctp_core_up(struct n2sctp *ep, uint32_t id, uint16_t os, uint16_t is);
void n2sctp_core_restart(struct n2sctp *ep, uint32_t id, uint16_t os, uint16_t is);
void n2sctp_core_down(struct n2sctp *ep, uint32_t id, enum n2sctp_down_reason reason);
/* One (part of a) message: eor = last part. */
void n2sctp_core_data(struct n2sctp *ep, uint32_t id, uint16_t stream, uint32_t ppid,
		      const uint8_t *buf, size_t len, bool eor);
/* Enter / leave backend dispatch; leave returns true when the endpoint was freed. */
void n2sctp_core_enter(struct n2sctp *ep);
bool n2sctp_core_leave(struct n2sctp *ep);

/* Length of an AF_INET / AF_INET6 address. */
static inline int n2sctp_sa_len(const struct sockaddr *sa)
{
	return sa->sa_family == AF_INET6 ? (int)sizeof(struct sockaddr_in6) : (int)sizeof(struct sockaddr_in);
}

/* "1.2.3.4:38412" / "[::1]:38412" */
const char *n2sctp_addr_str(const struct sockaddr *sa, char *out, size_t outsz);

/* ---- backends ---- */
int n2sctp_kern_probe(char *why, size_t whylen);
int n2sctp_kern_listen(struct n2sctp *ep, const struct sockaddr *local, socklen_t locallen);
int n2sctp_kern_connect(struct n2sctp *ep, const struct sockaddr *local, socklen_t locallen,
			const struct sockaddr *peer, socklen_t peerlen);
int n2sctp_usr_listen(struct n2sctp *ep, const struct sockaddr *local, socklen_t locallen);
int n2sctp_usr_connect(struct n2sctp *ep, const struct sockaddr *local, socklen_t locallen,
		       const struct sockaddr *peer, socklen_t peerlen);
void n2sctp_usr_wire_stats(const struct n2sctp *ep, struct n2sctp_stats *st);

#endif
