/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * Internals of the usrsctp backend, shared by sctp_usr.c (usrsctp glue,
 * endpoints) and sctp_usrwire.c (the real sockets underneath and the peer
 * objects that stand for remote addresses). See sctp_usr.c for the design.
 */
#ifndef SOLOCORE_COMMON_SCTP_SCTP_USR_INT_H
#define SOLOCORE_COMMON_SCTP_SCTP_USR_INT_H

#include "common/sctp/sctp_int.h"

#include "common/ev.h"

#include <usrsctp.h>

#define USR_RX_BATCH      64   /* packets per wake-up */
#define USR_MMSG          16   /* packets per recvmmsg */
#define USR_PEER_BUCKETS  1024u
#define USR_PEER_IDLE_NS  (30ull * 1000000000ull) /* forget an unused peer after this */
#define USR_WIRE_RCVBUF   (4 * 1024 * 1024)
#define USR_TX_BATCH      64   /* packets held for one sendmmsg */
#define USR_TX_ARENA      (64 * 1024)  /* their octets: RSS touched at most this much */

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
	uint64_t rx_bad_crc;     /* also counted in rx_bad */
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

/* usrsctp is a process-wide singleton: so is its state. */
struct n2sctp_usr_state {
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
	struct usr_ep *q, *qtail;      /* readable endpoints, FIFO */
	uint8_t ports[65536 / 8];      /* SCTP ports bound by our endpoints */
	uint8_t pkt[USR_MMSG][65536]; /* recvmmsg batch; 64 KB: SCTP over loopback (MTU 64 KB) */
	/* Packets usrsctp emits while we are inside the engine (input batch, timer tick, deferred
	 * drain, connect) wait here and leave with one sendmmsg per wire when the pass ends
	 * (n2sctp_usr_tx_flush): a SACK and the answer the application gives in the same pass
	 * cost one system call and wake the peer once. */
	struct usr_txq {
		struct usr_wire *w;
		struct sockaddr_storage to;
		socklen_t tolen;
		uint32_t off, len;
	} txq[USR_TX_BATCH];
	unsigned ntx;
	size_t tx_used;
	uint64_t tx_flushes;           /* sendmmsg calls (statistics for tests and benches) */
	uint64_t tx_batched;           /* packets those calls sent */
	uint64_t tx_merged;            /* lone SACKs put in front of the next DATA packet */
	uint8_t txbuf[USR_TX_ARENA];
};
/* Defined in sctp_usr.c; the two backend files (and tests/sctp, for the tx counters) read
 * it by this name. */
extern struct n2sctp_usr_state n2sctp_usr_g;

/* sctp_usrwire.c */
struct usr_peer *n2sctp_usr_peer_get(struct usr_wire *w, const struct sockaddr *sa);
/* The peer behind a usrsctp address handle, or NULL if it no longer exists. */
struct usr_peer *n2sctp_usr_peer_valid(void *handle);
/* Free unused peers: all of one wire (w != NULL), or idle ones everywhere. */
void n2sctp_usr_peers_sweep(struct usr_wire *w, uint64_t now);
/* usrsctp's output callback. */
int n2sctp_usr_output(void *addr, void *buf, size_t len, uint8_t tos, uint8_t set_df);
int n2sctp_usr_wire_get(int family, enum n2sctp_encap encap, const struct sockaddr *local, uint16_t udp_port,
			struct usr_wire **out);
void n2sctp_usr_wire_put(struct usr_wire *w);
/* sctp_crc.c: the CRC32c of SCTP packets (usrsctp runs with checksum offload, the wire side
 * does it). Set the checksum field of an outgoing packet; check an incoming one (false also
 * for len < 12). force_sw: the portable path even where SSE4.2 exists (tests). */
void n2sctp_usr_crc_set(uint8_t *pkt, size_t len);
bool n2sctp_usr_crc_ok(uint8_t *pkt, size_t len);
void n2sctp_usr_crc_force_sw(bool sw);
/* Send the packets held during an engine pass now (sctp_usrwire.c). */
void n2sctp_usr_tx_flush(void);
/* End of an engine pass: in_engine = false, then flush. */
void n2sctp_usr_engine_leave(void);
/* sctp_usr.c: read every endpoint whose socket became readable. */
void n2sctp_usr_drain(void);

#endif
