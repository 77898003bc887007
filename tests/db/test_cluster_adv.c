/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * Attacks on the cluster link (issue 31 point 1; suite 'adversary'), against a REAL dqlite
 * node run as solocore runs it (db/cluster_tls.h in front of a private abstract socket,
 * tests/db/dbtest.h dbt_node_up), holding a database with one known row:
 *
 *  (a) rogue clients get no answer and cannot read: plain TCP speaking the dqlite wire
 *      protocol (handshake + LEADER, then OPEN + QUERY and ADD, i.e. a read and a join as a
 *      voter), TLS without a client certificate, TLS with a certificate of another CA. Each
 *      connection ends (EOF / reset / TLS alert) with not one byte of a dqlite answer; the
 *      terminator relayed nothing to dqlite (cluster_tls_stats.relayed unchanged); the row
 *      and the membership are as before; the refusals were logged with the peer address and
 *      no key material.
 *  (c) 2000 TCP connections that never handshake (from a child process) while this process
 *      runs with the usual 1024 descriptors: a member still connects and queries within its
 *      normal timeout, and the strangers' connections are closed by the server (at most
 *      CLUSTER_TLS_PENDING_MAX held).
 *  A handshake stalled (nothing sent, or one byte) is closed after CLUSTER_TLS_HANDSHAKE_MS.
 *  The enrollment hook: with cluster_tls_set_anon_handler, a certificate-less handshake is
 *      handed to the handler (which answers and closes); a bad certificate still is not.
 *
 * (b), K/OPc not in clear on a capture of `sims import --cluster`, is tests/db/cluster_capture.sh.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <openssl/err.h>
#include <openssl/ssl.h>

#include "common/log.h"
#include "db/dqlite_client_int.h"
#include "dbtest.h"
#include "testlib.h"

#define IDLE_CONNS 2000

static struct {
	struct dbt tmp;
	struct dbt_node node;
	char addr[64];
	int port;
	char other_ca[160];          /* a CA of another cluster, with its node certificate */
	char logbuf[65536];
	size_t loglen;
} g;

static void sink(enum log_level level, const char *line, size_t len, void *arg)
{
	(void)level;
	(void)arg;
	fprintf(stderr, "%.*s\n", (int)len, line);
	if (g.loglen + len + 1 < sizeof(g.logbuf)) {
		memcpy(g.logbuf + g.loglen, line, len);
		g.loglen += len;
		g.logbuf[g.loglen++] = '\n';
		g.logbuf[g.loglen] = '\0';
	}
}

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int64_t rows(void)
{
	struct dqlc *c;
	struct dqlc_value v[1];
	uint32_t db;

	assert_int_equal(dqlc_connect(g.addr, 5000, &c), 0);
	assert_int_equal(dqlc_register(c, 9, NULL), 0);
	assert_int_equal(dqlc_open(c, "adv.db", &db), 0);
	assert_int_equal(dqlc_query_sql(c, db, "SELECT count(*) FROM secrets", NULL, 0), 1);
	assert_int_equal(dqlc_next(c, v, 1), 1);
	dqlc_close(c);
	return v[0].i;
}

static int setup(void **state)
{
	struct dqlc *c;
	struct dqlc_result r;
	uint32_t db;

	(void)state;
	log_set_sink(sink, NULL);
	dbt_init(&g.tmp);
	g.port = tl_free_port();
	snprintf(g.addr, sizeof(g.addr), "127.0.0.1:%d", g.port);
	snprintf(g.other_ca, sizeof(g.other_ca), "%s/other", g.tmp.dir);
	if (cluster_pki_init(g.other_ca, "rogue") < 0 || dbt_node_up(&g.node, 1, g.addr, g.tmp.dir, NULL) < 0 ||
	    dbt_wait_leader(g.addr) < 0)
		return -1;
	/* The secret a rogue wants: one row, written by a member. */
	if (dqlc_connect(g.addr, 5000, &c) < 0 || dqlc_register(c, 9, NULL) < 0 ||
	    dqlc_open(c, "adv.db", &db) < 0 ||
	    dqlc_exec_sql(c, db, "CREATE TABLE secrets (k BLOB); INSERT INTO secrets VALUES "
			  "(x'465B5CE8B199B49FAA5F0A2EE238A6BC')", NULL, 0, &r) < 0)
		return -1;
	dqlc_close(c);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	dbt_node_down(&g.node);
	dbt_cleanup(&g.tmp);
	log_set_sink(NULL, NULL);
	return 0;
}

static int tcp_to_node(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)g.port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	return fd;
}

/* WP "Setup" (protocol version 1), LEADER, then ADD node 2 at 127.0.0.1:1 as a joiner
 * would: what a rogue sends to find the leader and join as a voter. */
static size_t rogue_requests(uint8_t *b)
{
	static const uint8_t req[] = {
		1, 0, 0, 0, 0, 0, 0, 0,                               /* protocol version 1 */
		1, 0, 0, 0, DQLC_REQ_LEADER, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		3, 0, 0, 0, DQLC_REQ_ADD, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0,
		'1', '2', '7', '.', '0', '.', '0', '.', '1', ':', '1', 0, 0, 0, 0, 0,
	};
	memcpy(b, req, sizeof(req));
	return sizeof(req);
}

/* Bytes the server sends back on fd before it closes (plain socket), bounded by ms. */
static long plain_answer_within(int fd, int ms)
{
	uint8_t buf[4096];
	long total = 0;
	int64_t end = now_ms() + ms;

	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int left = (int)(end - now_ms());
		if (left <= 0 || poll(&p, 1, left) <= 0)
			return total ? total : -ETIMEDOUT;   /* still open: answered, or not closed */
		ssize_t n = recv(fd, buf, sizeof(buf), 0);
		if (n <= 0)
			return total;
		total += n;
	}
}

static long plain_answer(int fd)
{
	return plain_answer_within(fd, 3000);
}

/* A TLS client with certificates from dir (or only the CA file of dir: no certificate). */
static SSL_CTX *rogue_ctx(const char *dir, bool with_cert)
{
	SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
	char p[300];

	assert_non_null(ctx);
	SSL_CTX_set_min_proto_version(ctx, TLS1_3_VERSION);
	if (with_cert) {
		snprintf(p, sizeof(p), "%s/tls/node.crt", dir);
		assert_int_equal(SSL_CTX_use_certificate_file(ctx, p, SSL_FILETYPE_PEM), 1);
		snprintf(p, sizeof(p), "%s/tls/node.key", dir);
		assert_int_equal(SSL_CTX_use_PrivateKey_file(ctx, p, SSL_FILETYPE_PEM), 1);
	}
	/* The rogue does not even care who the server is. */
	SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, NULL);
	return ctx;
}

/* Over TLS: handshake, the rogue's requests, then every byte of plaintext the server sends
 * until the connection ends. Returns that count (0: nothing but the end). */
static long tls_answer(SSL_CTX *ctx)
{
	int fd = tcp_to_node();
	SSL *ssl = SSL_new(ctx);
	uint8_t req[256], buf[4096];
	long total = 0;
	struct timeval tv = { 3, 0 };
	int r;

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	SSL_set_fd(ssl, fd);
	r = SSL_connect(ssl);
	/* TLS 1.3: the client's side is done before the server has judged its certificate, so
	 * the refusal may come as the handshake's failure or as an alert on the first read. */
	if (r == 1) {
		size_t n = rogue_requests(req);
		(void)SSL_write(ssl, req, (int)n);
		while ((r = SSL_read(ssl, buf, sizeof(buf))) > 0)
			total += r;
		int e = SSL_get_error(ssl, r);
		if (e == SSL_ERROR_SYSCALL && (errno == EAGAIN || errno == EWOULDBLOCK))
			total = -ETIMEDOUT;   /* neither answered nor closed within 3 s */
	}
	ERR_clear_error();
	SSL_free(ssl);
	close(fd);
	return total;
}

static void t_rogue_clients(void **state)
{
	struct cluster_tls_stats before, after;
	struct dqlc_node nodes[4];
	struct dqlc *c;
	uint8_t req[256];
	size_t n;
	int fd;

	(void)state;
	cluster_tls_stats(g.node.tls, &before);
	g.loglen = 0;

	/* Plain TCP speaking dqlite: the bytes are not TLS, the connection is closed, no answer. */
	fd = tcp_to_node();
	n = rogue_requests(req);
	assert_int_equal(send(fd, req, n, MSG_NOSIGNAL), (ssize_t)n);
	assert_int_equal(plain_answer(fd), 0);
	close(fd);
	printf("plain TCP dqlite client: closed, 0 bytes answered\n");

	/* TLS without a certificate (RFC 8446 4.4.2.4: certificate_required), and TLS with a
	 * certificate signed by another cluster's CA (unknown_ca): no plaintext back. */
	SSL_CTX *anon = rogue_ctx(NULL, false), *other = rogue_ctx(g.other_ca, true);
	assert_int_equal(tls_answer(anon), 0);
	printf("TLS without a client certificate: closed, 0 bytes answered\n");
	assert_int_equal(tls_answer(other), 0);
	printf("TLS with another CA's certificate: closed, 0 bytes answered\n");
	SSL_CTX_free(anon);
	SSL_CTX_free(other);

	/* Nothing reached dqlite; the data and the membership are as they were. */
	tl_sleep_ms(100);
	cluster_tls_stats(g.node.tls, &after);
	assert_int_equal(after.relayed, before.relayed);
	assert_true(after.refused >= before.refused + 3);
	assert_int_equal(rows(), 1);
	assert_int_equal(dqlc_connect(g.addr, 5000, &c), 0);
	assert_int_equal(dqlc_cluster(c, nodes, 4), 1);
	dqlc_close(c);
	/* Logged: who was refused and why; never key material. */
	assert_non_null(strstr(g.logbuf, "tls: refused 127.0.0.1:"));
	assert_null(strstr(g.logbuf, "PRIVATE KEY"));
	assert_null(strstr(g.logbuf, "465B5CE8"));
}

/* The child: IDLE_CONNS connections that never send a byte; reports how many the server had
 * closed (EOF or reset) 10 s after the parent says go, or sooner once all but the pending
 * bound are. */
static void idle_child(int ready_fd, int go_fd)
{
	static int fds[IDLE_CONNS];
	static struct pollfd p[IDLE_CONNS];
	struct rlimit rl = { IDLE_CONNS + 100, IDLE_CONNS + 100 };
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)g.port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int opened = 0, closed = 0;
	char go;

	if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
		_exit(2);
	for (int i = 0; i < IDLE_CONNS; i++) {
		fds[i] = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
		if (fds[i] < 0)
			break;
		if (connect(fds[i], (struct sockaddr *)&sa, sizeof(sa)) < 0 && errno != EINPROGRESS)
			break;
		opened++;
	}
	if (write(ready_fd, &opened, sizeof(opened)) != sizeof(opened) || read(go_fd, &go, 1) != 1)
		_exit(3);
	int64_t end = now_ms() + 10000;
	do {
		closed = 0;
		for (int i = 0; i < opened; i++) {
			p[i] = (struct pollfd){ .fd = fds[i], .events = POLLIN | POLLRDHUP };
		}
		poll(p, (nfds_t)opened, 0);
		for (int i = 0; i < opened; i++)
			closed += (p[i].revents & (POLLIN | POLLRDHUP | POLLHUP | POLLERR)) != 0;
		if (closed >= opened - CLUSTER_TLS_PENDING_MAX)
			break;
		usleep(100000);
	} while (now_ms() < end);
	if (write(ready_fd, &closed, sizeof(closed)) != sizeof(closed))
		_exit(3);
	_exit(0);
}

static void t_idle_flood(void **state)
{
	struct rlimit rl, usual = { 1024, 1024 };
	int ready[2], go[2], opened = 0, closed = 0, st;
	struct cluster_tls_stats s;
	struct dqlc_value v[1];
	struct dqlc *c;
	uint32_t db;
	pid_t pid;

	(void)state;
	/* The node's process has the usual 1024 descriptors (systemd's and most shells' soft
	 * limit); the stranger has more connections than that. */
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &rl), 0);
	usual.rlim_max = rl.rlim_max;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &usual), 0);
	assert_int_equal(pipe(ready), 0);
	assert_int_equal(pipe(go), 0);
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(ready[0]);
		close(go[1]);
		idle_child(ready[1], go[0]);
	}
	close(ready[1]);
	close(go[0]);
	assert_int_equal(read(ready[0], &opened, sizeof(opened)), sizeof(opened));
	printf("stranger: %d idle TCP connections open\n", opened);
	assert_int_equal(opened, IDLE_CONNS);
	tl_sleep_ms(300);   /* let the server accept what it will */

	/* A member, with its normal timeout. */
	int64_t t0 = now_ms();
	assert_int_equal(dqlc_connect(g.addr, DQLC_TIMEOUT_MS_DEFAULT, &c), 0);
	assert_int_equal(dqlc_register(c, 9, NULL), 0);
	assert_int_equal(dqlc_open(c, "adv.db", &db), 0);
	assert_int_equal(dqlc_query_sql(c, db, "SELECT count(*) FROM secrets", NULL, 0), 1);
	assert_int_equal(dqlc_next(c, v, 1), 1);
	assert_int_equal(v[0].i, 1);
	dqlc_close(c);
	printf("member: connected and queried in %lld ms beside %d idle connections\n",
	       (long long)(now_ms() - t0), opened);
	/* And the node's process has descriptors left for everything else it does. */
	int spare[16], k;
	for (k = 0; k < 16 && (spare[k] = open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0; k++)
		;
	for (int i = 0; i < k; i++)
		close(spare[i]);
	printf("node process: %d of 16 more descriptors available\n", k);
	assert_int_equal(k, 16);

	assert_int_equal(write(go[1], "g", 1), 1);
	assert_int_equal(read(ready[0], &closed, sizeof(closed)), sizeof(closed));
	waitpid(pid, &st, 0);
	cluster_tls_stats(g.node.tls, &s);
	printf("server: accepted %llu, evicted %llu (pending bound %d); the stranger saw %d of %d closed\n",
	       (unsigned long long)s.accepted, (unsigned long long)s.evicted, CLUSTER_TLS_PENDING_MAX,
	       closed, opened);
	assert_true(closed >= opened - CLUSTER_TLS_PENDING_MAX);
	assert_true(s.evicted >= (uint64_t)(opened - CLUSTER_TLS_PENDING_MAX));
	close(ready[0]);
	close(go[1]);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &rl), 0);
}

/* A stranger who starts a handshake and stalls (nothing, or one byte of a record header, the
 * slow-loris way) is closed once CLUSTER_TLS_HANDSHAKE_MS have passed since accept. */
static void t_handshake_deadline(void **state)
{
	struct cluster_tls_stats before, after;
	int fd[2];
	int64_t t0 = now_ms();

	(void)state;
	cluster_tls_stats(g.node.tls, &before);
	fd[0] = tcp_to_node();
	fd[1] = tcp_to_node();
	assert_int_equal(send(fd[1], "\x16", 1, MSG_NOSIGNAL), 1);   /* TLS handshake record type */
	for (int i = 0; i < 2; i++) {
		long n = plain_answer_within(fd[i], CLUSTER_TLS_HANDSHAKE_MS + 5000);
		assert_int_equal(n, 0);   /* closed, nothing sent */
		close(fd[i]);
	}
	int64_t took = now_ms() - t0;
	cluster_tls_stats(g.node.tls, &after);
	printf("2 stalled handshakes closed after %lld ms (bound %d ms)\n", (long long)took,
	       CLUSTER_TLS_HANDSHAKE_MS);
	assert_true(after.timed_out >= before.timed_out + 2);   /* by the deadline, not by us */
	assert_int_equal(after.relayed, before.relayed);
}

/* ---- the enrollment hook ---- */

static void anon_handler(void *arg, SSL *ssl, int fd)
{
	int *calls = arg;
	char buf[8];

	__atomic_add_fetch(calls, 1, __ATOMIC_SEQ_CST);
	if (SSL_read(ssl, buf, sizeof(buf)) > 0)
		(void)SSL_write(ssl, "enroll?", 7);
	SSL_shutdown(ssl);
	SSL_free(ssl);
	close(fd);
}

static void t_anon_handler(void **state)
{
	static int calls;
	struct cluster_tls_stats before, after;
	SSL_CTX *anon = rogue_ctx(NULL, false), *other = rogue_ctx(g.other_ca, true);
	char buf[16] = "";
	int fd, r;

	(void)state;
	cluster_tls_stats(g.node.tls, &before);
	cluster_tls_set_anon_handler(g.node.tls, anon_handler, &calls);

	/* No certificate: the handler gets the connection, not dqlite. */
	fd = tcp_to_node();
	SSL *ssl = SSL_new(anon);
	SSL_set_fd(ssl, fd);
	assert_int_equal(SSL_connect(ssl), 1);
	assert_int_equal(SSL_write(ssl, "hello", 5), 5);
	r = SSL_read(ssl, buf, sizeof(buf) - 1);
	assert_int_equal(r, 7);
	assert_string_equal(buf, "enroll?");
	SSL_free(ssl);
	close(fd);
	assert_int_equal(__atomic_load_n(&calls, __ATOMIC_SEQ_CST), 1);

	/* Another CA's certificate: still refused, the handler never sees it. */
	assert_int_equal(tls_answer(other), 0);
	assert_int_equal(__atomic_load_n(&calls, __ATOMIC_SEQ_CST), 1);
	/* Members are relayed to dqlite as before. */
	assert_int_equal(rows(), 1);
	cluster_tls_stats(g.node.tls, &after);
	assert_int_equal(after.anon, before.anon + 1);
	assert_int_equal(after.relayed, before.relayed + 1);

	/* Unset: certificate-less connections are closed again. */
	cluster_tls_set_anon_handler(g.node.tls, NULL, NULL);
	assert_int_equal(tls_answer(anon), 0);
	assert_int_equal(__atomic_load_n(&calls, __ATOMIC_SEQ_CST), 1);
	SSL_CTX_free(anon);
	SSL_CTX_free(other);
}

/* The error paths of the terminator and of the client's TLS set-up. */
static void t_errors(void **state)
{
	struct cluster_tls *t = (struct cluster_tls *)&t;
	char empty[200], mixed[200], src[300], dst[300];
	struct dqlc *c;

	(void)state;
	snprintf(empty, sizeof(empty), "%s/empty", g.tmp.dir);
	snprintf(mixed, sizeof(mixed), "%s/mixed", g.tmp.dir);
	assert_int_equal(cluster_tls_start("127.0.0.1:1", "not-abstract", g.tmp.dir, &t), -EINVAL);
	assert_null(t);
	assert_int_equal(cluster_tls_start("127.0.0.1:1", "@x", empty, &t), -ENOENT);
	assert_int_equal(dqlc_tls_init(empty), -ENOENT);
	/* A key that is not the certificate's: refused, not half-loaded. */
	assert_int_equal(cluster_pki_add_node(g.tmp.dir, mixed, "m"), 0);
	snprintf(src, sizeof(src), "%s/tls/node.key", g.other_ca);
	snprintf(dst, sizeof(dst), "%s/tls/node.key", mixed);
	assert_int_equal(unlink(dst), 0);
	assert_int_equal(link(src, dst), 0);
	assert_int_equal(cluster_tls_start("127.0.0.1:1", "@x", mixed, &t), -EBADMSG);
	assert_int_equal(dqlc_tls_init(mixed), -EBADMSG);
	assert_int_equal(cluster_tls_start("127.0.0.1", "@x", g.tmp.dir, &t), -EINVAL);
	assert_int_equal(cluster_tls_start(g.addr, "@x", g.tmp.dir, &t), -EADDRINUSE);
	cluster_tls_stop(NULL);

	/* No certificate set up: no connection at all (nothing in the tree talks in clear). */
	dqlc_tls_reset();
	assert_int_equal(dqlc_connect(g.addr, 2000, &c), -ENOKEY);
	/* A node whose certificate another CA signed is not ours: -EKEYREJECTED. */
	snprintf(src, sizeof(src), "%s/other2", g.tmp.dir);
	assert_int_equal(cluster_pki_init(src, "other"), 0);
	assert_int_equal(dqlc_tls_init(src), 0);
	assert_int_equal(dqlc_connect(g.addr, 2000, &c), DQLC_EBADCERT == EKEYREJECTED ? -EKEYREJECTED : 0);
	assert_int_equal(dqlc_tls_init(g.tmp.dir), 0);
	assert_int_equal(rows(), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_errors),
		cmocka_unit_test(t_rogue_clients),
		cmocka_unit_test(t_idle_flood),
		cmocka_unit_test(t_handshake_deadline),
		cmocka_unit_test(t_anon_handler),
	};
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests_name("cluster-adv", tests, setup, teardown) ? 1 : 0;
}
