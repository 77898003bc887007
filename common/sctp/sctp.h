/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * n2sctp - the N2 transport: SCTP associations driven by the ev loop, with
 * one interface over two backends:
 *
 *  - kernel:  Linux SCTP through lksctp (<netinet/sctp.h>), what real gNBs use;
 *  - usrsctp: user-space SCTP without usrsctp threads (usrsctp_init_nothreads,
 *             AF_CONN sockets). Our loop owns the real socket underneath: raw IP
 *             protocol 132 (wire compatible with real gNBs, needs CAP_NET_RAW)
 *             or UDP encapsulation (RFC 6951, for same-host use).
 *
 * Both backends use one-to-many (SOCK_SEQPACKET) sockets: a listener carries
 * every gNB's association on one socket; a client endpoint carries the one
 * association it opened. Messages are delivered whole (up to N2SCTP_MAX_MSG).
 *
 * Callbacks (from the loop, never from inside an n2sctp_* call):
 *   up(a, peer)      association established (or re-established after a peer
 *                    restart, see below); `a` is valid until down() returns.
 *   data(a, ...)     one message; buf is valid only during the call.
 *   down(a, reason)  association gone; `a` is freed when down() returns.
 *                    Exactly once per up (and once for a connect that never
 *                    came up: N2SCTP_DOWN_CANT_START), except after the
 *                    application's own n2sctp_abort / n2sctp_free.
 *   A peer restart (RFC 9260 5.2.4) is reported as down(a, N2SCTP_DOWN_RESTART)
 *   followed at once by up(a, ...) on the SAME handle: the upper layer drops
 *   all state bound to the association (NGAP: every UE of that gNB) and keeps
 *   the handle.
 *
 * Ownership: n2sctp_send copies the message (into the kernel socket or the
 * usrsctp send buffer) and never blocks. A listener's associations share its
 * socket's send buffer (4 MB requested; kernel: per association with
 * net.sctp.sndbuf_policy=1), so a stalled gNB shows as -EAGAIN, counted. n2sctp_abort frees the association
 * without a down() callback. n2sctp_free aborts every association of the
 * endpoint without callbacks. Both are safe from inside any callback.
 * Endpoints must be freed before their ev loop.
 *
 * usrsctp is a process-wide singleton: it is initialised once, and every
 * usrsctp endpoint of the process must use the same ev loop (-EXDEV otherwise).
 */
#ifndef SOLOCORE_COMMON_SCTP_SCTP_H
#define SOLOCORE_COMMON_SCTP_SCTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

struct ev_loop;

#define N2SCTP_PPID_NGAP      60u    /* TS 38.412 7: NGAP payload protocol identifier */
#define N2SCTP_PORT_NGAP      38412u /* TS 38.412 7: SCTP destination port of the AMF */
#define N2SCTP_PORT_UDP_ENCAP 9899u  /* RFC 6951 5: IANA "sctp-tunneling" UDP port */
#define N2SCTP_STREAMS_DEFAULT 16u   /* requested inbound and outbound streams */
#define N2SCTP_MAX_MSG        65536u /* largest message delivered; longer ones are dropped and counted */

enum n2sctp_backend {
	N2SCTP_BACKEND_AUTO = 0, /* kernel if socket(AF_INET, SOCK_SEQPACKET, IPPROTO_SCTP) works, else usrsctp */
	N2SCTP_BACKEND_KERNEL,
	N2SCTP_BACKEND_USRSCTP,
};

/* What usrsctp runs on (ignored by the kernel backend). */
enum n2sctp_encap {
	N2SCTP_ENCAP_RAW = 0, /* IP protocol 132, as kernel SCTP and real gNBs */
	N2SCTP_ENCAP_UDP,     /* RFC 6951 UDP encapsulation */
};

enum n2sctp_down_reason {
	N2SCTP_DOWN_SHUTDOWN = 0, /* graceful SHUTDOWN completed (either side started it) */
	N2SCTP_DOWN_ABORT,        /* the peer sent ABORT */
	N2SCTP_DOWN_COMM_LOST,    /* retransmissions or heartbeats exhausted */
	N2SCTP_DOWN_RESTART,      /* peer restarted; up() follows on the same handle */
	N2SCTP_DOWN_CANT_START,   /* our connect failed (INIT/COOKIE timeouts or ABORT) */
};

struct n2sctp;        /* an endpoint: a listener or a client */
struct n2sctp_assoc;  /* one association of an endpoint */

struct n2sctp_cbs {
	void (*up)(struct n2sctp_assoc *a, const struct sockaddr *peer, socklen_t peerlen, void *arg);
	void (*data)(struct n2sctp_assoc *a, uint16_t stream, uint32_t ppid,
		     const uint8_t *buf, size_t len, void *arg);
	void (*down)(struct n2sctp_assoc *a, enum n2sctp_down_reason reason, void *arg);
	void *arg;
};

struct n2sctp_cfg {
	enum n2sctp_backend backend;
	enum n2sctp_encap encap;   /* usrsctp only */
	uint16_t udp_port;         /* usrsctp UDP: local UDP port, 0 = ephemeral (a listener
				    * that gNBs must find sets it, e.g. N2SCTP_PORT_UDP_ENCAP) */
	uint16_t udp_peer_port;    /* usrsctp UDP client: the peer's UDP port (default 9899) */
	uint16_t ostreams;         /* requested outbound streams (default 16) */
	uint16_t istreams;         /* maximum inbound streams (default 16) */
	/* Failure detection, RFC 9260 15 protocol parameters; 0 keeps the stack's
	 * default (RTO 1 s..60 s, initial 3 s, 10/5 retransmissions, heartbeat
	 * 30 s). A lost gNB is declared after about max_retrans RTOs. */
	uint32_t rto_initial_ms, rto_min_ms, rto_max_ms;
	uint32_t hb_interval_ms;   /* HEARTBEAT interval on idle paths */
	uint16_t max_retrans;      /* Association.Max.Retrans and Path.Max.Retrans */
	uint16_t max_init_retrans; /* Max.Init.Retransmits (connect attempts) */
};

/* Defaults: AUTO, RAW, udp_port 0, udp_peer_port 9899, 16/16 streams. */
void n2sctp_cfg_init(struct n2sctp_cfg *cfg);

/* "auto" | "kernel" | "usrsctp" -> 0, else -EINVAL. */
int n2sctp_backend_parse(const char *s, enum n2sctp_backend *out);
/* "raw" | "udp" -> 0, else -EINVAL. */
int n2sctp_encap_parse(const char *s, enum n2sctp_encap *out);
const char *n2sctp_backend_name(enum n2sctp_backend b);
const char *n2sctp_down_reason_name(enum n2sctp_down_reason r);

/*
 * Decide the backend. AUTO probes kernel SCTP and picks usrsctp when it is
 * missing; KERNEL fails with -EPROTONOSUPPORT when it is missing. `why`
 * (may be NULL) receives a one-line human explanation in every case.
 */
int n2sctp_backend_resolve(enum n2sctp_backend want, enum n2sctp_backend *got, char *why, size_t whylen);

/*
 * Listen on `local` (IPv4 or IPv6; port 0 picks a free port, see
 * n2sctp_local_port). Kernel listen() failing with ENOSYS means the kernel
 * cannot load the cookie HMAC (net.sctp.cookie_hmac_alg): this is logged with
 * what to do and returned as -ENOSYS.
 */
int n2sctp_listen(struct ev_loop *loop, const struct n2sctp_cfg *cfg,
		  const struct sockaddr *local, socklen_t locallen,
		  const struct n2sctp_cbs *cbs, struct n2sctp **out);

/*
 * Start one association to `peer` (local may be NULL: any address, free
 * port). Returns 0 once the INIT is on its way; up() or
 * down(N2SCTP_DOWN_CANT_START) reports the outcome.
 */
int n2sctp_connect(struct ev_loop *loop, const struct n2sctp_cfg *cfg,
		   const struct sockaddr *local, socklen_t locallen,
		   const struct sockaddr *peer, socklen_t peerlen,
		   const struct n2sctp_cbs *cbs, struct n2sctp **out);

/* Accepts NULL. Aborts every association without callbacks. */
void n2sctp_free(struct n2sctp *ep);

/*
 * Queue one message. 0 on success; -EAGAIN when the socket send buffer is
 * full (peer stalled; counted in tx_eagain), -EINVAL for a stream >= the
 * negotiated outbound count or len 0 / > N2SCTP_MAX_MSG, -ENOTCONN when the
 * association is not up.
 */
int n2sctp_send(struct n2sctp_assoc *a, uint16_t stream, uint32_t ppid, const void *buf, size_t len);
/* Graceful SHUTDOWN; down(N2SCTP_DOWN_SHUTDOWN) reports completion. */
int n2sctp_shutdown(struct n2sctp_assoc *a);
/* Send ABORT and free the association now, without a down() callback. */
void n2sctp_abort(struct n2sctp_assoc *a);

/*
 * Stream for UE-associated signalling of one UE (TS 38.412 7: stream 0 is
 * kept for non-UE-associated signalling; a UE's messages stay on one stream
 * so they keep their order). Maps ue_key (e.g. the AMF or RAN UE NGAP ID)
 * onto 1..ostreams-1; 0 when the association has a single stream.
 */
uint16_t n2sctp_ue_stream(const struct n2sctp_assoc *a, uint64_t ue_key);

struct n2sctp *n2sctp_assoc_endpoint(const struct n2sctp_assoc *a);
/* Process-unique number for logs (not the SCTP assoc id, which backends reuse). */
uint32_t n2sctp_assoc_num(const struct n2sctp_assoc *a);
uint16_t n2sctp_assoc_ostreams(const struct n2sctp_assoc *a);
uint16_t n2sctp_assoc_istreams(const struct n2sctp_assoc *a);
const struct sockaddr *n2sctp_assoc_peer(const struct n2sctp_assoc *a, socklen_t *len);
void n2sctp_assoc_set_user(struct n2sctp_assoc *a, void *user);
void *n2sctp_assoc_user(const struct n2sctp_assoc *a);

enum n2sctp_backend n2sctp_backend_of(const struct n2sctp *ep);
/* Local SCTP port of the endpoint (host order). */
uint16_t n2sctp_local_port(const struct n2sctp *ep);
/* usrsctp UDP: the local UDP port (host order); 0 otherwise. */
uint16_t n2sctp_local_udp_port(const struct n2sctp *ep);
/* Number of associations currently up on the endpoint. */
size_t n2sctp_assoc_count(const struct n2sctp *ep);

struct n2sctp_stats {
	uint64_t tx_msgs, tx_bytes, tx_eagain, tx_errors;
	uint64_t rx_msgs, rx_bytes, rx_oversize, rx_unknown_assoc;
	uint64_t assoc_up, assoc_down, notifications;
	/* usrsctp wire (shared by endpoints on one socket, so process-level figures): */
	uint64_t wire_rx_pkts, wire_tx_pkts, wire_rx_foreign, wire_rx_bad, wire_tx_errors;
};
void n2sctp_get_stats(const struct n2sctp *ep, struct n2sctp_stats *out);

#endif
