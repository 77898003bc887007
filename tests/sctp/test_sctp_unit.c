/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * n2sctp in-process tests: a listener and clients on one ev loop over usrsctp
 * with UDP encapsulation (RFC 6951) on 127.0.0.1. The listener echoes every
 * message back on the same stream with the same PPID.
 */
#include "common/ev.h"
#include "common/log.h"
#include "common/sctp/sctp.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#define NCLI 10
#define MAXMSG 64

struct rx {
	uint16_t stream;
	uint32_t ppid;
	size_t len;
	uint8_t buf[16384];
};

struct cli {
	struct n2sctp *ep;
	struct n2sctp_assoc *a;
	int ups, downs;
	enum n2sctp_down_reason reason;
	int nrx;
	struct rx *rx; /* MAXMSG entries */
	bool free_on_data; /* frees its own endpoint from inside data() */
};

static struct {
	struct ev_loop *loop;
	struct n2sctp *srv;
	struct n2sctp_assoc *sa[NCLI + 1];
	int srv_ups, srv_downs;
	enum n2sctp_down_reason srv_reason;
	bool srv_echo;
	bool srv_abort_on_data;
	size_t srv_last_len;
	uint32_t srv_last_sum;
	struct cli c[NCLI];
} W;

/* ---- callbacks ---- */

static void srv_up(struct n2sctp_assoc *a, const struct sockaddr *peer, socklen_t len, void *arg)
{
	(void)arg;
	assert_int_equal(peer->sa_family, AF_INET);
	assert_int_equal(len, sizeof(struct sockaddr_in));
	assert_int_equal(((const struct sockaddr_in *)peer)->sin_addr.s_addr, htonl(INADDR_LOOPBACK));
	if (W.srv_ups < NCLI + 1)
		W.sa[W.srv_ups] = a;
	W.srv_ups++;
}

static void srv_data(struct n2sctp_assoc *a, uint16_t stream, uint32_t ppid, const uint8_t *buf, size_t len,
		     void *arg)
{
	(void)arg;
	W.srv_last_len = len;
	W.srv_last_sum = 0;
	for (size_t i = 0; i < len; i++)
		W.srv_last_sum = W.srv_last_sum * 31u + buf[i];
	if (W.srv_echo)
		assert_int_equal(n2sctp_send(a, stream, ppid, buf, len), 0);
	if (W.srv_abort_on_data) {
		n2sctp_abort(a);
		/* Still inside the callback: the handle is not freed under us. */
		assert_int_equal(n2sctp_send(a, stream, ppid, buf, len), -ENOTCONN);
	}
}

static void srv_down(struct n2sctp_assoc *a, enum n2sctp_down_reason r, void *arg)
{
	(void)arg;
	(void)a;
	W.srv_downs++;
	W.srv_reason = r;
}

static void cli_up(struct n2sctp_assoc *a, const struct sockaddr *peer, socklen_t len, void *arg)
{
	struct cli *c = arg;
	(void)len;
	c->a = a;
	c->ups++;
	assert_int_equal(((const struct sockaddr_in *)peer)->sin_port, htons(n2sctp_local_port(W.srv)));
}

static void cli_data(struct n2sctp_assoc *a, uint16_t stream, uint32_t ppid, const uint8_t *buf, size_t len,
		     void *arg)
{
	struct cli *c = arg;
	assert_ptr_equal(a, c->a);
	assert_true(c->nrx < MAXMSG);
	assert_true(len <= sizeof(c->rx[0].buf));
	struct rx *r = &c->rx[c->nrx++];
	r->stream = stream;
	r->ppid = ppid;
	r->len = len;
	memcpy(r->buf, buf, len);
	if (c->free_on_data) {
		n2sctp_free(c->ep); /* from inside its own callback: deferred, must not crash */
		c->ep = NULL;
		c->a = NULL;
	}
}

static void cli_down(struct n2sctp_assoc *a, enum n2sctp_down_reason r, void *arg)
{
	struct cli *c = arg;
	(void)a;
	c->downs++;
	c->reason = r;
	c->a = NULL;
}

/* ---- helpers ---- */

typedef bool (*cond_fn)(void);

/* Hang protection only: conditions are met in milliseconds; 2000 turns of at
 * most 10 ms each bound a broken test to about 20 s. */
static bool run_until(cond_fn cond)
{
	for (int i = 0; i < 2000 && !cond(); i++)
		ev_run_once(W.loop, 10);
	return cond();
}

static void run_for(int turns)
{
	for (int i = 0; i < turns; i++)
		ev_run_once(W.loop, 10);
}

static int setup(void **state)
{
	struct n2sctp_cfg cfg;
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct n2sctp_cbs cbs = { .up = srv_up, .data = srv_data, .down = srv_down };
	int err = 0;
	(void)state;

	memset(&W, 0, sizeof(W));
	W.loop = ev_loop_new(&err);
	assert_non_null(W.loop);
	n2sctp_cfg_init(&cfg);
	cfg.backend = N2SCTP_BACKEND_USRSCTP;
	cfg.encap = N2SCTP_ENCAP_UDP;
	cfg.udp_port = 0; /* ephemeral: tests may run in parallel */
	assert_int_equal(n2sctp_listen(W.loop, &cfg, (struct sockaddr *)&sin, sizeof(sin), &cbs, &W.srv), 0);
	assert_int_equal(n2sctp_backend_of(W.srv), N2SCTP_BACKEND_USRSCTP);
	assert_true(n2sctp_local_port(W.srv) != 0);
	assert_true(n2sctp_local_udp_port(W.srv) != 0);
	W.srv_echo = true;
	for (int i = 0; i < NCLI; i++) {
		W.c[i].rx = calloc(MAXMSG, sizeof(struct rx));
		assert_non_null(W.c[i].rx);
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	for (int i = 0; i < NCLI; i++) {
		n2sctp_free(W.c[i].ep);
		free(W.c[i].rx);
	}
	n2sctp_free(W.srv);
	ev_loop_free(W.loop);
	return 0;
}

static void connect_cli(int i)
{
	struct n2sctp_cfg cfg;
	struct sockaddr_in peer = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK),
				    .sin_port = htons(n2sctp_local_port(W.srv)) };
	struct n2sctp_cbs cbs = { .up = cli_up, .data = cli_data, .down = cli_down, .arg = &W.c[i] };

	n2sctp_cfg_init(&cfg);
	cfg.backend = N2SCTP_BACKEND_USRSCTP;
	cfg.encap = N2SCTP_ENCAP_UDP;
	cfg.udp_peer_port = n2sctp_local_udp_port(W.srv);
	assert_int_equal(n2sctp_connect(W.loop, &cfg, NULL, 0, (struct sockaddr *)&peer, sizeof(peer), &cbs,
					&W.c[i].ep), 0);
}

static bool c0_up(void) { return W.c[0].ups == 1 && W.srv_ups == 1; }
static bool c0_got4(void) { return W.c[0].nrx == 4; }
static bool c0_got1(void) { return W.c[0].nrx == 1; }
static bool c0_up6(void) { return W.c[0].ups == 1; }

static void cli_up6(struct n2sctp_assoc *a, const struct sockaddr *peer, socklen_t len, void *arg)
{
	struct cli *c = arg;
	c->a = a;
	c->ups++;
	assert_int_equal(peer->sa_family, AF_INET6);
	assert_int_equal(len, sizeof(struct sockaddr_in6));
	assert_true(IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)peer)->sin6_addr));
}
static bool c0_down1(void) { return W.c[0].downs == 1; }
static bool srv_down1(void) { return W.srv_downs == 1; }
static bool both_down1(void) { return W.c[0].downs == 1 && W.srv_downs == 1; }

static bool all_up(void)
{
	for (int i = 0; i < NCLI; i++)
		if (W.c[i].ups != 1)
			return false;
	return W.srv_ups == NCLI;
}

static bool all_echoed(void)
{
	for (int i = 0; i < NCLI; i++)
		if (W.c[i].nrx != 20)
			return false;
	return true;
}

static void fill(uint8_t *b, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)(seed * 31u + i * 7u);
}

/* ---- tests ---- */

static void test_names_and_parse(void **state)
{
	enum n2sctp_backend b;
	enum n2sctp_encap e;
	(void)state;

	assert_int_equal(n2sctp_backend_parse("auto", &b), 0);
	assert_int_equal(b, N2SCTP_BACKEND_AUTO);
	assert_int_equal(n2sctp_backend_parse("kernel", &b), 0);
	assert_int_equal(b, N2SCTP_BACKEND_KERNEL);
	assert_int_equal(n2sctp_backend_parse("usrsctp", &b), 0);
	assert_int_equal(b, N2SCTP_BACKEND_USRSCTP);
	assert_int_equal(n2sctp_backend_parse("lksctp", &b), -EINVAL);
	assert_int_equal(n2sctp_encap_parse("udp", &e), 0);
	assert_int_equal(e, N2SCTP_ENCAP_UDP);
	assert_int_equal(n2sctp_encap_parse("raw", &e), 0);
	assert_int_equal(e, N2SCTP_ENCAP_RAW);
	assert_int_equal(n2sctp_encap_parse("tcp", &e), -EINVAL);
	assert_string_equal(n2sctp_down_reason_name(N2SCTP_DOWN_ABORT), "abort");
	assert_string_equal(n2sctp_backend_name(N2SCTP_BACKEND_USRSCTP), "usrsctp");
}

/* auto picks kernel exactly when the kernel has SCTP, and always says why. */
static void test_backend_resolve(void **state)
{
	enum n2sctp_backend got = N2SCTP_BACKEND_AUTO;
	char why[256] = "";
	(void)state;

	int fd = socket(AF_INET, SOCK_SEQPACKET, IPPROTO_SCTP);
	bool kernel = fd >= 0;
	if (fd >= 0)
		close(fd);
	assert_int_equal(n2sctp_backend_resolve(N2SCTP_BACKEND_AUTO, &got, why, sizeof(why)), 0);
	assert_int_equal(got, kernel ? N2SCTP_BACKEND_KERNEL : N2SCTP_BACKEND_USRSCTP);
	assert_true(strlen(why) > 0);
	if (!kernel) {
		assert_non_null(strstr(why, "socket(AF_INET, SOCK_SEQPACKET, IPPROTO_SCTP)"));
		assert_non_null(strstr(why, "using usrsctp"));
		assert_int_equal(n2sctp_backend_resolve(N2SCTP_BACKEND_KERNEL, &got, why, sizeof(why)),
				 -EPROTONOSUPPORT);
	}
	assert_int_equal(n2sctp_backend_resolve(N2SCTP_BACKEND_USRSCTP, &got, NULL, 0), 0);
	assert_int_equal(got, N2SCTP_BACKEND_USRSCTP);
}

/* Connect, negotiated streams, PPID 60 on stream 0, other streams, a message
 * larger than the path MTU (several DATA chunks, delivered whole). */
static void test_connect_and_exchange(void **state)
{
	static uint8_t big[12000];
	const uint8_t hello[] = "NGSetupRequest-ish";
	struct cli *c = &W.c[0];
	(void)state;

	connect_cli(0);
	assert_true(run_until(c0_up));
	assert_int_equal(n2sctp_assoc_ostreams(c->a), 16);
	assert_int_equal(n2sctp_assoc_istreams(c->a), 16);
	assert_int_equal(n2sctp_assoc_ostreams(W.sa[0]), 16);
	assert_int_equal(n2sctp_assoc_count(W.srv), 1);
	socklen_t pl;
	const struct sockaddr_in *pa = (const struct sockaddr_in *)n2sctp_assoc_peer(W.sa[0], &pl);
	assert_int_equal(pa->sin_port, htons(n2sctp_local_port(c->ep)));

	/* TS 38.412 7: UE-associated streams avoid stream 0 and are stable per UE. */
	for (uint64_t ue = 0; ue < 1000; ue++) {
		uint16_t st = n2sctp_ue_stream(c->a, ue);
		assert_true(st >= 1 && st < 16);
		assert_int_equal(st, n2sctp_ue_stream(c->a, ue));
	}
	assert_int_not_equal(n2sctp_ue_stream(c->a, 1), n2sctp_ue_stream(c->a, 2));

	assert_int_equal(n2sctp_send(c->a, 0, N2SCTP_PPID_NGAP, hello, sizeof(hello)), 0);
	assert_int_equal(n2sctp_send(c->a, 7, N2SCTP_PPID_NGAP, "ue", 2), 0);
	assert_int_equal(n2sctp_send(c->a, 15, 0x01020304, "x", 1), 0);
	fill(big, sizeof(big), 3);
	assert_int_equal(n2sctp_send(c->a, 3, N2SCTP_PPID_NGAP, big, sizeof(big)), 0);
	/* Refused without touching the wire. */
	assert_int_equal(n2sctp_send(c->a, 16, N2SCTP_PPID_NGAP, "x", 1), -EINVAL);
	assert_int_equal(n2sctp_send(c->a, 0, N2SCTP_PPID_NGAP, "x", 0), -EINVAL);

	assert_true(run_until(c0_got4));
	assert_int_equal(c->rx[0].stream, 0);
	assert_int_equal(c->rx[0].ppid, 60);
	assert_int_equal(c->rx[0].len, sizeof(hello));
	assert_memory_equal(c->rx[0].buf, hello, sizeof(hello));
	assert_int_equal(c->rx[1].stream, 7);
	assert_int_equal(c->rx[1].len, 2);
	assert_memory_equal(c->rx[1].buf, "ue", 2);
	assert_int_equal(c->rx[2].stream, 15);
	assert_int_equal(c->rx[2].ppid, 0x01020304);
	assert_int_equal(c->rx[3].stream, 3);
	assert_int_equal(c->rx[3].len, sizeof(big));
	assert_memory_equal(c->rx[3].buf, big, sizeof(big));

	struct n2sctp_stats st;
	n2sctp_get_stats(W.srv, &st);
	assert_int_equal(st.rx_msgs, 4);
	assert_int_equal(st.tx_msgs, 4);
	assert_int_equal(st.assoc_up, 1);
	assert_true(st.wire_rx_pkts > 0);
	n2sctp_get_stats(c->ep, &st);
	assert_int_equal(st.tx_msgs, 4);
	assert_int_equal(st.rx_msgs, 4);
}

/* Ten clients at once, each on its own UDP port; every echo goes back to its sender. */
static void test_ten_clients(void **state)
{
	(void)state;
	for (int i = 0; i < NCLI; i++)
		connect_cli(i);
	assert_true(run_until(all_up));
	assert_int_equal(n2sctp_assoc_count(W.srv), NCLI);
	for (int i = 0; i < NCLI; i++)
		for (int j = i + 1; j < NCLI; j++)
			assert_ptr_not_equal(W.sa[i], W.sa[j]);
	for (int k = 0; k < 20; k++)
		for (int i = 0; i < NCLI; i++) {
			uint8_t m[100];
			fill(m, sizeof(m), (unsigned)(i * 100 + k));
			assert_int_equal(n2sctp_send(W.c[i].a, (uint16_t)(k % 16), N2SCTP_PPID_NGAP, m, sizeof(m)), 0);
		}
	assert_true(run_until(all_echoed));
	for (int i = 0; i < NCLI; i++)
		for (int k = 0; k < 20; k++) {
			uint8_t m[100];
			fill(m, sizeof(m), (unsigned)(i * 100 + k));
			/* Per stream SCTP keeps order; streams differ per k, so match by content. */
			bool found = false;
			for (int r = 0; r < 20 && !found; r++)
				found = W.c[i].rx[r].len == 100 && W.c[i].rx[r].stream == k % 16 &&
					!memcmp(W.c[i].rx[r].buf, m, 100);
			assert_true(found);
		}
}

/* The client aborts: the server sees down(ABORT); the client gets no callback. */
static void test_peer_abort(void **state)
{
	struct cli *c = &W.c[0];
	(void)state;

	connect_cli(0);
	assert_true(run_until(c0_up));
	n2sctp_abort(c->a);
	assert_true(run_until(srv_down1));
	assert_int_equal(W.srv_reason, N2SCTP_DOWN_ABORT);
	assert_int_equal(n2sctp_assoc_count(W.srv), 0);
	assert_int_equal(n2sctp_assoc_count(c->ep), 0);
	run_for(5);
	assert_int_equal(c->downs, 0);
}

/* The server aborts a gNB: the client sees down(ABORT). */
static void test_server_abort(void **state)
{
	struct cli *c = &W.c[0];
	(void)state;

	connect_cli(0);
	assert_true(run_until(c0_up));
	n2sctp_abort(W.sa[0]);
	assert_int_equal(n2sctp_assoc_count(W.srv), 0);
	assert_true(run_until(c0_down1));
	assert_int_equal(c->reason, N2SCTP_DOWN_ABORT);
	assert_null(c->a);
	assert_int_equal(W.srv_downs, 0);
}

/* Graceful close from the client: both sides see down(SHUTDOWN). */
static void test_shutdown(void **state)
{
	struct cli *c = &W.c[0];
	(void)state;

	W.srv_echo = false; /* an echo would race with the SHUTDOWN */
	connect_cli(0);
	assert_true(run_until(c0_up));
	assert_int_equal(n2sctp_send(c->a, 0, N2SCTP_PPID_NGAP, "bye", 3), 0);
	assert_int_equal(n2sctp_shutdown(c->a), 0);
	assert_int_equal(n2sctp_send(c->a, 0, N2SCTP_PPID_NGAP, "late", 4), -ENOTCONN);
	assert_true(run_until(both_down1));
	assert_int_equal(c->reason, N2SCTP_DOWN_SHUTDOWN);
	assert_int_equal(W.srv_reason, N2SCTP_DOWN_SHUTDOWN);
	/* Data queued before the SHUTDOWN is delivered first (RFC 9260 9.2). */
	struct n2sctp_stats st;
	n2sctp_get_stats(W.srv, &st);
	assert_int_equal(st.rx_msgs, 1);
}

/* A client frees its endpoint from inside its data callback; the server sees the ABORT. */
static void test_free_inside_callback(void **state)
{
	struct cli *c = &W.c[0];
	(void)state;

	connect_cli(0);
	assert_true(run_until(c0_up));
	c->free_on_data = true;
	assert_int_equal(n2sctp_send(c->a, 1, N2SCTP_PPID_NGAP, "ping", 4), 0);
	assert_true(run_until(srv_down1));
	assert_int_equal(c->nrx, 1);
	assert_null(c->ep);
	assert_int_equal(W.srv_reason, N2SCTP_DOWN_ABORT);
}

/* The server aborts an association from inside that association's data
 * callback: no down() for it, the client sees down(ABORT). */
static void test_abort_inside_callback(void **state)
{
	struct cli *c = &W.c[0];
	(void)state;

	connect_cli(0);
	assert_true(run_until(c0_up));
	W.srv_echo = false;
	W.srv_abort_on_data = true;
	assert_int_equal(n2sctp_send(c->a, 0, N2SCTP_PPID_NGAP, "x", 1), 0);
	assert_true(run_until(c0_down1));
	assert_int_equal(c->reason, N2SCTP_DOWN_ABORT);
	assert_int_equal(n2sctp_assoc_count(W.srv), 0);
	assert_int_equal(W.srv_downs, 0);
	n2sctp_abort(NULL); /* accepted */
}

/* Nobody answers the INIT (a silent UDP socket): with short timers and two
 * INIT retransmissions the connect ends in down(CANT_START), driven purely by
 * usrsctp_handle_timers from the ev timer. */
static void test_cant_start(void **state)
{
	struct cli *c = &W.c[0];
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t sl = sizeof(sin);
	struct n2sctp_cfg cfg;
	struct n2sctp_cbs cbs = { .up = cli_up, .data = cli_data, .down = cli_down, .arg = c };
	(void)state;

	int silent = socket(AF_INET, SOCK_DGRAM, 0);
	assert_true(silent >= 0);
	assert_int_equal(bind(silent, (struct sockaddr *)&sin, sizeof(sin)), 0);
	assert_int_equal(getsockname(silent, (struct sockaddr *)&sin, &sl), 0);
	n2sctp_cfg_init(&cfg);
	cfg.backend = N2SCTP_BACKEND_USRSCTP;
	cfg.encap = N2SCTP_ENCAP_UDP;
	cfg.udp_peer_port = ntohs(sin.sin_port);
	cfg.rto_initial_ms = 100;
	cfg.rto_min_ms = 50;
	cfg.rto_max_ms = 200;
	cfg.max_init_retrans = 2;
	sin.sin_port = htons(N2SCTP_PORT_NGAP);
	assert_int_equal(n2sctp_connect(W.loop, &cfg, NULL, 0, (struct sockaddr *)&sin, sizeof(sin), &cbs, &c->ep), 0);
	assert_true(run_until(c0_down1));
	assert_int_equal(c->reason, N2SCTP_DOWN_CANT_START);
	assert_int_equal(c->ups, 0);
	close(silent);
}

/* IPv6 end to end: listener on [::1], UDP encapsulation over IPv6. */
static void test_ipv6(void **state)
{
	struct sockaddr_in6 l6 = { .sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT };
	struct n2sctp_cfg cfg;
	struct n2sctp *srv6 = NULL;
	struct cli *c = &W.c[0];
	struct n2sctp_cbs scbs = { .data = srv_data };
	struct n2sctp_cbs ccbs = { .up = NULL, .data = cli_data, .down = cli_down, .arg = c };
	(void)state;

	int probe = socket(AF_INET6, SOCK_DGRAM, 0);
	if (probe < 0 || bind(probe, (struct sockaddr *)&l6, sizeof(l6)) < 0) {
		if (probe >= 0)
			close(probe);
		skip(); /* no IPv6 loopback in this environment */
	}
	close(probe);
	n2sctp_cfg_init(&cfg);
	cfg.backend = N2SCTP_BACKEND_USRSCTP;
	cfg.encap = N2SCTP_ENCAP_UDP;
	assert_int_equal(n2sctp_listen(W.loop, &cfg, (struct sockaddr *)&l6, sizeof(l6), &scbs, &srv6), 0);
	l6.sin6_port = htons(n2sctp_local_port(srv6));
	cfg.udp_peer_port = n2sctp_local_udp_port(srv6);
	ccbs.up = cli_up6;
	assert_int_equal(n2sctp_connect(W.loop, &cfg, NULL, 0, (struct sockaddr *)&l6, sizeof(l6), &ccbs, &c->ep), 0);
	assert_true(run_until(c0_up6));
	assert_int_equal(n2sctp_send(c->a, 2, N2SCTP_PPID_NGAP, "v6", 2), 0);
	assert_true(run_until(c0_got1));
	assert_int_equal(c->rx[0].stream, 2);
	assert_memory_equal(c->rx[0].buf, "v6", 2);
	n2sctp_free(c->ep);
	c->ep = NULL;
	n2sctp_free(srv6);
}

static uint64_t srv_rx_msgs(void)
{
	struct n2sctp_stats st;
	n2sctp_get_stats(W.srv, &st);
	return st.rx_msgs;
}

static uint64_t g_sent;

static bool srv_got_big(void) { return W.srv_last_len == N2SCTP_MAX_MSG; }

/* The largest message (N2SCTP_MAX_MSG) crosses in one piece, however the
 * stack splits it into chunks and hands it to the reader. */
static void test_max_message(void **state)
{
	static uint8_t big[N2SCTP_MAX_MSG];
	struct cli *c = &W.c[0];
	uint32_t sum = 0;
	(void)state;

	W.srv_echo = false;
	connect_cli(0);
	assert_true(run_until(c0_up));
	fill(big, sizeof(big), 9);
	for (size_t i = 0; i < sizeof(big); i++)
		sum = sum * 31u + big[i];
	assert_int_equal(n2sctp_send(c->a, 4, N2SCTP_PPID_NGAP, big, sizeof(big) + 1), -EINVAL);
	assert_int_equal(n2sctp_send(c->a, 4, N2SCTP_PPID_NGAP, big, sizeof(big)), 0);
	assert_true(run_until(srv_got_big));
	assert_int_equal(W.srv_last_sum, sum);
	struct n2sctp_stats st;
	n2sctp_get_stats(W.srv, &st);
	assert_int_equal(st.rx_oversize, 0);
}
static bool srv_got_all(void) { return srv_rx_msgs() == g_sent; }

/* Back-pressure: without turning the loop nothing is acknowledged, so the
 * client's send buffer fills; n2sctp_send then refuses with -EAGAIN (counted)
 * instead of blocking or queueing without bound, and everything accepted
 * before arrives once the loop runs. */
static void test_backpressure(void **state)
{
	static uint8_t m[1000];
	struct cli *c = &W.c[0];
	struct n2sctp_stats st;
	int rc = 0;
	(void)state;

	W.srv_echo = false;
	connect_cli(0);
	assert_true(run_until(c0_up));
	g_sent = 0;
	for (int i = 0; i < 100000; i++) {
		rc = n2sctp_send(c->a, (uint16_t)(i % 16), N2SCTP_PPID_NGAP, m, sizeof(m));
		if (rc < 0)
			break;
		g_sent++;
	}
	assert_int_equal(rc, -EAGAIN);
	assert_true(g_sent > 100);
	n2sctp_get_stats(c->ep, &st);
	assert_int_equal(st.tx_eagain, 1);
	assert_int_equal(st.tx_msgs, g_sent);
	assert_true(run_until(srv_got_all));
	assert_int_equal(n2sctp_send(c->a, 0, N2SCTP_PPID_NGAP, m, sizeof(m)), 0);
}

/* Many gNBs: 200 client endpoints (each its own UDP socket and SCTP port)
 * against one listener; every association up, one message each way. */
#define MANY 200
static struct n2sctp *many_ep[MANY];
static int many_up, many_rx;

static void many_up_cb(struct n2sctp_assoc *a, const struct sockaddr *peer, socklen_t len, void *arg)
{
	(void)peer;
	(void)len;
	(void)arg;
	many_up++;
	assert_int_equal(n2sctp_send(a, 1, N2SCTP_PPID_NGAP, "hi", 2), 0);
}

static void many_data_cb(struct n2sctp_assoc *a, uint16_t stream, uint32_t ppid, const uint8_t *buf, size_t len,
			 void *arg)
{
	(void)a;
	(void)arg;
	assert_int_equal(stream, 1);
	assert_int_equal(ppid, N2SCTP_PPID_NGAP);
	assert_int_equal(len, 2);
	assert_memory_equal(buf, "hi", 2);
	many_rx++;
}

static bool many_done(void) { return many_up == MANY && many_rx == MANY && W.srv_ups == MANY; }
static bool srv_all_down(void) { return W.srv_downs == MANY; }

static void test_many_gnbs(void **state)
{
	struct n2sctp_cfg cfg;
	struct sockaddr_in peer = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK),
				    .sin_port = htons(n2sctp_local_port(W.srv)) };
	struct n2sctp_cbs cbs = { .up = many_up_cb, .data = many_data_cb };
	(void)state;

	n2sctp_cfg_init(&cfg);
	cfg.backend = N2SCTP_BACKEND_USRSCTP;
	cfg.encap = N2SCTP_ENCAP_UDP;
	cfg.udp_peer_port = n2sctp_local_udp_port(W.srv);
	many_up = many_rx = 0;
	for (int i = 0; i < MANY; i++)
		assert_int_equal(n2sctp_connect(W.loop, &cfg, NULL, 0, (struct sockaddr *)&peer, sizeof(peer), &cbs,
						&many_ep[i]), 0);
	assert_true(run_until(many_done));
	assert_int_equal(n2sctp_assoc_count(W.srv), MANY);
	for (int i = 0; i < MANY; i++) {
		n2sctp_free(many_ep[i]);
		many_ep[i] = NULL;
	}
	/* The listener sees every ABORT. */
	assert_true(run_until(srv_all_down));
	assert_int_equal(n2sctp_assoc_count(W.srv), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names_and_parse),
		cmocka_unit_test(test_backend_resolve),
		cmocka_unit_test_setup_teardown(test_connect_and_exchange, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ten_clients, setup, teardown),
		cmocka_unit_test_setup_teardown(test_peer_abort, setup, teardown),
		cmocka_unit_test_setup_teardown(test_server_abort, setup, teardown),
		cmocka_unit_test_setup_teardown(test_shutdown, setup, teardown),
		cmocka_unit_test_setup_teardown(test_free_inside_callback, setup, teardown),
		cmocka_unit_test_setup_teardown(test_abort_inside_callback, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cant_start, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ipv6, setup, teardown),
		cmocka_unit_test_setup_teardown(test_backpressure, setup, teardown),
		cmocka_unit_test_setup_teardown(test_max_message, setup, teardown),
		cmocka_unit_test_setup_teardown(test_many_gnbs, setup, teardown),
	};
	log_set_level(LOGL_WARN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
