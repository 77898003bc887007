/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * The usrsctp backend's wire side. CRC32c (common/sctp/sctp_crc.c; usrsctp runs with checksum
 * offload): the RFC 3720 B.4 vector, the SSE4.2 path against usrsctp's own table-driven routine
 * over many packet lengths, and on the wire: an INIT with a wrong checksum is dropped and
 * counted, the same INIT with the right one is answered. Transmit batching: what usrsctp emits
 * during one engine pass leaves in one sendmmsg.
 */
#include "common/ev.h"
#include "common/sctp/sctp.h"
#include "common/sctp/sctp_usr_int.h"
#include "tests/lib/testlib.h"

#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

/* RFC 3720 B.4: 32 octets of zero have the CRC32c aa 36 91 8a (as sent). As an SCTP packet its
 * checksum field (octets 8..11) is zero already, so the packet checksum is the same. */
static void test_rfc3720_vector(void **state)
{
	static const uint8_t want[4] = { 0xaa, 0x36, 0x91, 0x8a };
	uint8_t pkt[32];

	(void)state;
	for (int sw = 0; sw < 2; sw++) {
		n2sctp_usr_crc_force_sw(sw);
		memset(pkt, 0, sizeof(pkt));
		n2sctp_usr_crc_set(pkt, sizeof(pkt));
		assert_memory_equal(pkt + 8, want, 4);
		assert_true(n2sctp_usr_crc_ok(pkt, sizeof(pkt)));
	}
	n2sctp_usr_crc_force_sw(false);
}

/* Both paths give what usrsctp itself computes (usrsctp_crc32c over the packet with the field
 * zeroed), for every length 12..300 and a few large ones; a flipped bit anywhere is caught. */
static void test_hw_equals_usrsctp(void **state)
{
	static uint8_t pkt[9000];
	static const size_t big[] = { 1024, 1452, 4095, 8999 };
	uint32_t seed = 12345;

	(void)state;
	for (size_t i = 0; i < sizeof(pkt); i++) {
		seed = seed * 1103515245u + 12345u;
		pkt[i] = (uint8_t)(seed >> 16);
	}
	for (size_t k = 0; k < 289 + 4; k++) {
		size_t len = k < 289 ? 12 + k : big[k - 289];
		uint8_t ref[4], got[4];
		uint32_t v;

		memset(pkt + 8, 0, 4);
		v = usrsctp_crc32c(pkt, len);
		memcpy(ref, &v, 4);
		for (int sw = 0; sw < 2; sw++) {
			n2sctp_usr_crc_force_sw(sw);
			memset(pkt + 8, 0x5a, 4); /* whatever was there is ignored */
			n2sctp_usr_crc_set(pkt, len);
			memcpy(got, pkt + 8, 4);
			assert_memory_equal(got, ref, 4);
			assert_true(n2sctp_usr_crc_ok(pkt, len));
			pkt[len / 2] ^= 0x10;
			assert_false(n2sctp_usr_crc_ok(pkt, len));
			pkt[len / 2] ^= 0x10;
		}
	}
	n2sctp_usr_crc_force_sw(false);
	assert_false(n2sctp_usr_crc_ok(pkt, 11));
}

static void up(struct n2sctp_assoc *a, const struct sockaddr *peer, socklen_t len, void *arg)
{
	(void)a, (void)peer, (void)len, (void)arg;
}
static void data(struct n2sctp_assoc *a, uint16_t s, uint32_t p, const uint8_t *b, size_t l, void *arg)
{
	(void)a, (void)s, (void)p, (void)b, (void)l, (void)arg;
}
static void down(struct n2sctp_assoc *a, enum n2sctp_down_reason r, void *arg)
{
	(void)a, (void)r, (void)arg;
}

/* An INIT (RFC 9260 3.3.2) from SCTP port 5000 to the listener, over UDP (RFC 6951). */
static size_t make_init(uint8_t *p, uint16_t dport)
{
	memset(p, 0, 32);
	p[0] = 5000 >> 8, p[1] = 5000 & 0xff;
	p[2] = (uint8_t)(dport >> 8), p[3] = (uint8_t)dport;
	/* verification tag 0, checksum set by the caller */
	p[12] = 1;                          /* INIT */
	p[15] = 20;                         /* chunk length */
	p[16] = 0x12, p[17] = 0x34, p[18] = 0x56, p[19] = 0x78; /* initiate tag */
	p[21] = 0x01;                       /* a_rwnd 65536 */
	p[25] = 4, p[27] = 4;               /* 4 outbound / 4 inbound streams */
	p[31] = 1;                          /* initial TSN 1 */
	return 32;
}

static void test_wire_checks_crc(void **state)
{
	struct n2sctp_cfg cfg;
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct n2sctp_cbs cbs = { .up = up, .data = data, .down = down };
	struct n2sctp *srv = NULL;
	struct n2sctp_stats st;
	struct ev_loop *loop;
	uint8_t pkt[64], ans[2048];
	size_t len;
	int err = 0, fd;
	ssize_t n = -1;

	(void)state;
	loop = ev_loop_new(&err);
	assert_non_null(loop);
	n2sctp_cfg_init(&cfg);
	cfg.backend = N2SCTP_BACKEND_USRSCTP;
	cfg.encap = N2SCTP_ENCAP_UDP;
	cfg.udp_port = 0;
	assert_int_equal(n2sctp_listen(loop, &cfg, (struct sockaddr *)&sin, sizeof(sin), &cbs, &srv), 0);
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
	assert_true(fd >= 0);
	struct sockaddr_in to = sin;
	to.sin_port = htons(n2sctp_local_udp_port(srv));

	/* wrong checksum: dropped, counted, no answer */
	len = make_init(pkt, n2sctp_local_port(srv));
	n2sctp_usr_crc_set(pkt, len);
	pkt[8] ^= 1;
	assert_int_equal(sendto(fd, pkt, len, 0, (struct sockaddr *)&to, sizeof(to)), (ssize_t)len);
	for (int i = 0; i < 20; i++)
		ev_run_once(loop, 5);
	n2sctp_get_stats(srv, &st);
	assert_int_equal(st.wire_rx_bad, 1);
	assert_int_equal(recv(fd, ans, sizeof(ans), 0), -1);
	assert_int_equal(errno, EAGAIN);

	/* right checksum: an INIT ACK comes back, with a valid checksum of its own */
	pkt[8] ^= 1;
	assert_int_equal(sendto(fd, pkt, len, 0, (struct sockaddr *)&to, sizeof(to)), (ssize_t)len);
	for (int i = 0; i < 200 && n < 0; i++) {
		ev_run_once(loop, 5);
		n = recv(fd, ans, sizeof(ans), 0);
	}
	assert_true(n >= 16);
	assert_int_equal(ans[12], 2); /* INIT ACK */
	assert_true(n2sctp_usr_crc_ok(ans, (size_t)n));
	n2sctp_get_stats(srv, &st);
	assert_int_equal(st.wire_rx_bad, 1);
	close(fd);
	n2sctp_free(srv);
	ev_loop_free(loop);
}

/* ---- transmit batching ---- */

static struct {
	struct n2sctp_assoc *srv_a, *cli_a;
	int echoed;
} B;

static void b_srv_up(struct n2sctp_assoc *a, const struct sockaddr *peer, socklen_t len, void *arg)
{
	(void)peer, (void)len, (void)arg;
	B.srv_a = a;
}
static void b_cli_up(struct n2sctp_assoc *a, const struct sockaddr *peer, socklen_t len, void *arg)
{
	(void)peer, (void)len, (void)arg;
	B.cli_a = a;
}
static void b_srv_data(struct n2sctp_assoc *a, uint16_t s, uint32_t p, const uint8_t *b, size_t l, void *arg)
{
	(void)arg;
	if (p == 62)
		return; /* "no answer" messages (test_sack_merged) */
	assert_int_equal(n2sctp_send(a, s, p, b, l), 0); /* echo, from inside the engine pass */
}
static void b_cli_data(struct n2sctp_assoc *a, uint16_t s, uint32_t p, const uint8_t *b, size_t l, void *arg)
{
	(void)a, (void)s, (void)p, (void)b, (void)l, (void)arg;
	B.echoed++;
}

/* A server that echoes (but not PPID 62) and a client, both up, over UDP on loopback. */
static void pair_up(struct ev_loop **loopp, struct n2sctp **srvp, struct n2sctp **clip)
{
	struct n2sctp_cfg cfg;
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct n2sctp_cbs scb = { .up = b_srv_up, .data = b_srv_data, .down = down };
	struct n2sctp_cbs ccb = { .up = b_cli_up, .data = b_cli_data, .down = down };
	struct n2sctp *srv = NULL, *cli = NULL;
	struct ev_loop *loop;
	int err = 0;

	memset(&B, 0, sizeof(B));
	loop = ev_loop_new(&err);
	assert_non_null(loop);
	n2sctp_cfg_init(&cfg);
	cfg.backend = N2SCTP_BACKEND_USRSCTP;
	cfg.encap = N2SCTP_ENCAP_UDP;
	cfg.udp_port = 0;
	assert_int_equal(n2sctp_listen(loop, &cfg, (struct sockaddr *)&sin, sizeof(sin), &scb, &srv), 0);
	struct sockaddr_in peer = sin;
	peer.sin_port = htons(n2sctp_local_port(srv));
	cfg.udp_peer_port = n2sctp_local_udp_port(srv);
	assert_int_equal(n2sctp_connect(loop, &cfg, NULL, 0, (struct sockaddr *)&peer, sizeof(peer), &ccb, &cli), 0);
	for (int i = 0; i < 400 && !(B.srv_a && B.cli_a); i++)
		ev_run_once(loop, 5);
	assert_non_null(B.cli_a);
	assert_non_null(B.srv_a);
	for (int i = 0; i < 20; i++) /* let the handshake's last SACKs settle */
		ev_run_once(loop, 1);
	*loopp = loop;
	*srvp = srv;
	*clip = cli;
}

/* The client sends 16 messages at once (outside any engine pass: each leaves at once); the
 * server reads them in one input batch and echoes each from its data callback: those echoes
 * (and SACKs) are held and leave together, so sendmmsg calls carry more than one packet each.
 * Our side of that path (send, output callback, CRC, hold and flush, wire read, peer look-up,
 * drain and delivery) allocates nothing (nomalloc guard; usrsctp's own allocations are inside
 * the shared library and not counted). */
static void test_tx_batched(void **state)
{
	struct n2sctp *srv = NULL, *cli = NULL;
	struct ev_loop *loop;
	uint8_t msg[100];

	(void)state;
	pair_up(&loop, &srv, &cli);

	uint64_t f0 = n2sctp_usr_g.tx_flushes, p0 = n2sctp_usr_g.tx_batched;
	memset(msg, 0x42, sizeof(msg));
	nomalloc_begin();
	for (int i = 0; i < 16; i++)
		assert_int_equal(n2sctp_send(B.cli_a, 1, 60, msg, sizeof(msg)), 0);
	for (int i = 0; i < 400 && B.echoed < 16; i++)
		ev_run_once(loop, 5);
	assert_int_equal(nomalloc_end(), 0);
	assert_int_equal(B.echoed, 16);
	uint64_t flushes = n2sctp_usr_g.tx_flushes - f0, pkts = n2sctp_usr_g.tx_batched - p0;
	assert_true(flushes >= 1);
	assert_true(pkts > flushes);
	assert_int_equal(n2sctp_usr_g.ntx, 0); /* nothing left held after the loop turns */
	n2sctp_free(cli);
	n2sctp_free(srv);
	ev_loop_free(loop);
}

/* The gNB pattern of the load cycle: a message that gets no answer, then one that does, in two
 * packets. usrsctp SACKs the second packet at once (RFC 9260 6.2); that lone SACK is held and
 * goes out in front of the answer's DATA in one packet. The client takes both: the echo
 * arrives, and the next exchanges still work (its data was acknowledged). */
static void test_sack_merged(void **state)
{
	struct n2sctp *srv = NULL, *cli = NULL;
	struct ev_loop *loop;
	uint8_t msg[60];

	(void)state;
	pair_up(&loop, &srv, &cli);

	uint64_t m0 = n2sctp_usr_g.tx_merged;
	memset(msg, 0x17, sizeof(msg));
	for (int round = 1; round <= 5; round++) {
		assert_int_equal(n2sctp_send(B.cli_a, 1, 62, msg, sizeof(msg)), 0); /* no answer */
		assert_int_equal(n2sctp_send(B.cli_a, 1, 60, msg, sizeof(msg)), 0); /* answered */
		for (int i = 0; i < 400 && B.echoed < round; i++)
			ev_run_once(loop, 5);
		assert_int_equal(B.echoed, round);
	}
	assert_true(n2sctp_usr_g.tx_merged - m0 >= 1);
	n2sctp_free(cli);
	n2sctp_free(srv);
	ev_loop_free(loop);
}

/* ---- ev busy-poll (common/ev.c, off by default; the option the transport benches use) ---- */

static int bp_pipe[2];
static bool bp_read, bp_timer;

static void *bp_writer(void *arg)
{
	struct timespec ts = { 0, 2000000 }; /* 2 ms: the loop is spinning by then */
	(void)arg;
	nanosleep(&ts, NULL);
	assert_int_equal(write(bp_pipe[1], "x", 1), 1);
	return NULL;
}
static void bp_cb(struct ev_loop *loop, int fd, uint32_t events, void *arg)
{
	char c;
	(void)loop, (void)events, (void)arg;
	assert_int_equal(read(fd, &c, 1), 1);
	bp_read = true;
}
static void bp_tmr(struct ev_loop *loop, struct ev_timer *t)
{
	(void)loop, (void)t;
	bp_timer = true;
}

static void test_busy_poll(void **state)
{
	struct ev_loop *loop;
	struct ev_timer t;
	pthread_t th;
	uint64_t polls, hits;
	int err = 0;

	(void)state;
	loop = ev_loop_new(&err);
	assert_non_null(loop);
	ev_busy_poll_stats(loop, &polls, &hits);
	assert_int_equal(polls, 0); /* off by default */
	assert_int_equal(pipe(bp_pipe), 0);
	assert_int_equal(ev_fd_add(loop, bp_pipe[0], EV_READ, bp_cb, NULL), 0);
	ev_run_once(loop, 0);
	ev_busy_poll_stats(loop, &polls, &hits);
	assert_int_equal(polls, 0);
	/* A spin budget far longer than the writer's delay: the event is found while spinning. */
	ev_set_busy_poll(loop, 5000000);
	assert_int_equal(pthread_create(&th, NULL, bp_writer, NULL), 0);
	for (int i = 0; i < 100 && !bp_read; i++)
		ev_run_once(loop, 1000);
	pthread_join(th, NULL);
	assert_true(bp_read);
	ev_busy_poll_stats(loop, &polls, &hits);
	assert_true(polls >= 1);
	assert_true(hits >= 1);
	/* The spin never runs past the first timer: a 3 ms timer with a 5 s budget still fires
	 * in the first iterations (bounded loop, no wall-clock threshold). */
	ev_timer_init(&t, bp_tmr, NULL);
	assert_int_equal(ev_timer_start(loop, &t, 3), 0);
	for (int i = 0; i < 10 && !bp_timer; i++)
		ev_run_once(loop, -1);
	assert_true(bp_timer);
	ev_fd_del(loop, bp_pipe[0]);
	close(bp_pipe[0]);
	close(bp_pipe[1]);
	ev_loop_free(loop);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rfc3720_vector),
		cmocka_unit_test(test_hw_equals_usrsctp),
		cmocka_unit_test(test_wire_checks_crc),
		cmocka_unit_test(test_tx_batched),
		cmocka_unit_test(test_sack_merged),
		cmocka_unit_test(test_busy_poll),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
