/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * n2echo - a tiny N2 transport test program over common/sctp.
 *
 *   n2echo server [opts]            echo every message back (same stream, PPID)
 *   n2echo client [opts]            check: N messages over all streams, each echo
 *                                   verified, then graceful SHUTDOWN; exit 0 = pass
 *   n2echo client --pingpong SECS   100-byte ping-pong; prints round trips/s
 *
 * Options: --backend auto|kernel|usrsctp  --encap raw|udp  --addr IP  --port N
 *          --udp-port N (local UDP port, usrsctp UDP)  --udp-peer-port N
 *          --msgs N  --size N (ping-pong message size, default 100)
 *          --assocs N (server: exit 0 after N associations ended)
 *          --ready FILE (server: write "<sctp port> <udp port>\n" once listening)
 *          --timeout SECS (default 30)  -v (debug logs)
 *          --local-port N (client: its SCTP port; a restarted client reusing
 *          it makes the server see an association restart)
 *          --hb MS --rto-min MS --rto-max MS --rto-initial MS --max-retrans N
 * Exit: 0 pass, 1 failure, 77 backend not available here (skip).
 */
#include "common/ev.h"
#include "common/log.h"
#include "common/sctp/sctp.h"

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static struct {
	struct ev_loop *loop;
	bool server;
	const char *addr;
	uint16_t port;
	int msgs, size, assocs, timeout;
	double pingpong;
	const char *ready;
	struct n2sctp_cfg cfg;

	struct n2sctp *ep;
	struct n2sctp_assoc *a;
	int sent, echoed, ended;
	int rc;
	uint64_t pp_start_ns, pp_rounds;
	uint8_t *pp_buf;
	struct ev_timer deadline;
	int next_k[1024];
	uint16_t local_port;
} O = { .addr = "127.0.0.1", .port = N2SCTP_PORT_NGAP, .msgs = 200, .size = 100, .timeout = 30, .rc = 1 };

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Message k of the check: length and content derived from k, stream k mod ostreams. */
static size_t check_msg(int k, uint8_t *buf)
{
	/* Mostly NGAP-sized, every 97th the largest n2sctp delivers. */
	size_t len = k % 97 == 96 ? N2SCTP_MAX_MSG : 1 + (size_t)(k * 37) % 3000;
	for (size_t i = 0; i < len; i++)
		buf[i] = (uint8_t)(k + i * 13);
	return len;
}

static void finish(int rc)
{
	O.rc = rc;
	ev_stop(O.loop);
}

static void on_deadline(struct ev_loop *loop, struct ev_timer *t)
{
	(void)loop;
	(void)t;
	fprintf(stderr, "n2echo: timeout after %d s (sent=%d echoed=%d)\n", O.timeout, O.sent, O.echoed);
	finish(1);
}

/* ---- server ---- */

static void srv_up(struct n2sctp_assoc *a, const struct sockaddr *peer, socklen_t len, void *arg)
{
	char ps[64];
	(void)len;
	(void)arg;
	const struct sockaddr_in *s4 = (const struct sockaddr_in *)peer;
	inet_ntop(peer->sa_family, peer->sa_family == AF_INET6 ? (const void *)&((const struct sockaddr_in6 *)peer)->sin6_addr
							   : (const void *)&s4->sin_addr, ps, sizeof(ps));
	printf("server: assoc %u up from %s streams %u/%u\n", n2sctp_assoc_num(a), ps,
	       n2sctp_assoc_ostreams(a), n2sctp_assoc_istreams(a));
	fflush(stdout);
}

static void srv_data(struct n2sctp_assoc *a, uint16_t stream, uint32_t ppid, const uint8_t *buf, size_t len,
		     void *arg)
{
	(void)arg;
	int rc = n2sctp_send(a, stream, ppid, buf, len);
	if (rc < 0)
		fprintf(stderr, "server: echo failed: %s\n", strerror(-rc));
}

static void srv_down(struct n2sctp_assoc *a, enum n2sctp_down_reason r, void *arg)
{
	(void)arg;
	printf("server: assoc %u down (%s)\n", n2sctp_assoc_num(a), n2sctp_down_reason_name(r));
	fflush(stdout);
	if (O.assocs && ++O.ended >= O.assocs)
		finish(0);
}

/* ---- client ---- */

static void cli_send_next(void)
{
	static uint8_t buf[N2SCTP_MAX_MSG];

	while (O.sent < O.msgs && O.sent - O.echoed < 32) {
		size_t len = check_msg(O.sent, buf);
		uint16_t stream = (uint16_t)(O.sent % n2sctp_assoc_ostreams(O.a));
		int rc = n2sctp_send(O.a, stream, N2SCTP_PPID_NGAP, buf, len);
		if (rc < 0) {
			fprintf(stderr, "client: send %d failed: %s\n", O.sent, strerror(-rc));
			finish(1);
			return;
		}
		O.sent++;
	}
}

static void cli_up(struct n2sctp_assoc *a, const struct sockaddr *peer, socklen_t len, void *arg)
{
	(void)peer;
	(void)len;
	(void)arg;
	O.a = a;
	for (int s = 0; s < 1024; s++)
		O.next_k[s] = s;
	printf("client: up, streams %u/%u\n", n2sctp_assoc_ostreams(a), n2sctp_assoc_istreams(a));
	fflush(stdout);
	if (O.pingpong > 0) {
		O.pp_start_ns = mono_ns();
		memset(O.pp_buf, 0x5a, (size_t)O.size);
		n2sctp_send(a, 1, N2SCTP_PPID_NGAP, O.pp_buf, (size_t)O.size);
		return;
	}
	cli_send_next();
}

static void cli_data(struct n2sctp_assoc *a, uint16_t stream, uint32_t ppid, const uint8_t *buf, size_t len,
		     void *arg)
{
	static uint8_t want[N2SCTP_MAX_MSG];
	(void)arg;

	if (O.pingpong > 0) {
		O.pp_rounds++;
		if ((O.pp_rounds & 1023) == 0 && mono_ns() - O.pp_start_ns >= (uint64_t)(O.pingpong * 1e9)) {
			double s = (double)(mono_ns() - O.pp_start_ns) / 1e9;
			struct rusage ru;
			getrusage(RUSAGE_SELF, &ru);
			double cpu = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
				     (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
			/* CPU per round trip of this (client) process: one message sent and
			 * one received; less sensitive to a busy machine than the rate. */
			printf("pingpong backend=%s size=%d rounds=%llu seconds=%.2f round_trips_per_s=%.0f "
			       "messages_per_s=%.0f client_cpu_us_per_round_trip=%.2f\n",
			       n2sctp_backend_name(n2sctp_backend_of(O.ep)), O.size,
			       (unsigned long long)O.pp_rounds, s, (double)O.pp_rounds / s,
			       2.0 * (double)O.pp_rounds / s, cpu * 1e6 / (double)O.pp_rounds);
			fflush(stdout);
			n2sctp_shutdown(a);
			return;
		}
		n2sctp_send(a, stream, ppid, buf, len);
		return;
	}
	/* SCTP keeps order within a stream only (RFC 9260 6.5): message k went
	 * on stream k mod S, so each stream has its own next expected k. */
	if (stream >= 1024) {
		fprintf(stderr, "client: echo on unexpected stream %u\n", stream);
		finish(1);
		return;
	}
	int k = O.next_k[stream];
	O.next_k[stream] += n2sctp_assoc_ostreams(a);
	size_t wl = check_msg(k, want);
	if (k >= O.sent || ppid != N2SCTP_PPID_NGAP || len != wl || memcmp(buf, want, wl)) {
		fprintf(stderr, "client: echo mismatch on stream %u (len %zu ppid %u, expected msg %d len %zu)\n",
			stream, len, ppid, k, wl);
		finish(1);
		return;
	}
	O.echoed++;
	if (O.echoed == O.msgs) {
		printf("client: %d messages echoed intact over %u streams\n", O.msgs, n2sctp_assoc_ostreams(a));
		fflush(stdout);
		n2sctp_shutdown(a);
		return;
	}
	cli_send_next();
}

static void cli_down(struct n2sctp_assoc *a, enum n2sctp_down_reason r, void *arg)
{
	(void)a;
	(void)arg;
	printf("client: down (%s)\n", n2sctp_down_reason_name(r));
	fflush(stdout);
	bool done = O.pingpong > 0 ? O.pp_rounds > 0 : O.echoed == O.msgs;
	finish(done && r == N2SCTP_DOWN_SHUTDOWN ? 0 : 1);
}

/* ---- main ---- */

static int parse_addr(struct sockaddr_storage *ss, socklen_t *len)
{
	memset(ss, 0, sizeof(*ss));
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
	if (inet_pton(AF_INET, O.addr, &s4->sin_addr) == 1) {
		s4->sin_family = AF_INET;
		s4->sin_port = htons(O.port);
		*len = sizeof(*s4);
		return 0;
	}
	if (inet_pton(AF_INET6, O.addr, &s6->sin6_addr) == 1) {
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(O.port);
		*len = sizeof(*s6);
		return 0;
	}
	return -EINVAL;
}

static void usage(void)
{
	fprintf(stderr, "usage: n2echo server|client [--backend auto|kernel|usrsctp] [--encap raw|udp] "
			"[--addr IP] [--port N] [--udp-port N] [--udp-peer-port N] [--msgs N] [--size N] "
			"[--pingpong SECS] [--assocs N] [--ready FILE] [--timeout SECS] [-v]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "backend", 1, 0, 'b' }, { "encap", 1, 0, 'e' }, { "addr", 1, 0, 'a' }, { "port", 1, 0, 'p' },
		{ "udp-port", 1, 0, 'u' }, { "udp-peer-port", 1, 0, 'U' }, { "msgs", 1, 0, 'n' },
		{ "size", 1, 0, 's' }, { "pingpong", 1, 0, 'P' }, { "assocs", 1, 0, 'A' },
		{ "ready", 1, 0, 'r' }, { "timeout", 1, 0, 't' }, { "local-port", 1, 0, 'l' },
		{ "hb", 1, 0, 'H' }, { "rto-min", 1, 0, 'm' }, { "rto-max", 1, 0, 'M' },
		{ "rto-initial", 1, 0, 'I' }, { "max-retrans", 1, 0, 'R' }, { 0, 0, 0, 0 },
	};
	int c, err = 0;

	if (argc < 2)
		usage();
	if (!strcmp(argv[1], "server"))
		O.server = true;
	else if (strcmp(argv[1], "client"))
		usage();
	n2sctp_cfg_init(&O.cfg);
	optind = 2;
	while ((c = getopt_long(argc, argv, "v", lo, NULL)) != -1) {
		switch (c) {
		case 'b': if (n2sctp_backend_parse(optarg, &O.cfg.backend) < 0) usage(); break;
		case 'e': if (n2sctp_encap_parse(optarg, &O.cfg.encap) < 0) usage(); break;
		case 'a': O.addr = optarg; break;
		case 'p': O.port = (uint16_t)atoi(optarg); break;
		case 'u': O.cfg.udp_port = (uint16_t)atoi(optarg); break;
		case 'U': O.cfg.udp_peer_port = (uint16_t)atoi(optarg); break;
		case 'n': O.msgs = atoi(optarg); break;
		case 's': O.size = atoi(optarg); break;
		case 'P': O.pingpong = atof(optarg); break;
		case 'A': O.assocs = atoi(optarg); break;
		case 'r': O.ready = optarg; break;
		case 't': O.timeout = atoi(optarg); break;
		case 'v': log_set_level(LOGL_DEBUG); break;
		case 'l': O.local_port = (uint16_t)atoi(optarg); break;
		case 'H': O.cfg.hb_interval_ms = (uint32_t)atoi(optarg); break;
		case 'm': O.cfg.rto_min_ms = (uint32_t)atoi(optarg); break;
		case 'M': O.cfg.rto_max_ms = (uint32_t)atoi(optarg); break;
		case 'I': O.cfg.rto_initial_ms = (uint32_t)atoi(optarg); break;
		case 'R': O.cfg.max_retrans = (uint16_t)atoi(optarg); break;
		default: usage();
		}
	}
	if (O.size < 1 || O.size > 4096 || O.msgs < 1)
		usage();
	O.pp_buf = calloc(1, 4096);

	enum n2sctp_backend got;
	char why[256];
	if (n2sctp_backend_resolve(O.cfg.backend, &got, why, sizeof(why)) < 0) {
		printf("n2echo: SKIP: %s\n", why);
		return 77;
	}
	printf("n2echo: backend %s (%s)\n", n2sctp_backend_name(got), why);

	O.loop = ev_loop_new(&err);
	if (!O.loop) {
		fprintf(stderr, "ev_loop_new: %s\n", strerror(-err));
		return 1;
	}
	struct sockaddr_storage ss;
	socklen_t sl;
	if (parse_addr(&ss, &sl) < 0) {
		fprintf(stderr, "bad --addr %s\n", O.addr);
		return 2;
	}
	if (O.server) {
		struct n2sctp_cbs cbs = { .up = srv_up, .data = srv_data, .down = srv_down };
		err = n2sctp_listen(O.loop, &O.cfg, (struct sockaddr *)&ss, sl, &cbs, &O.ep);
		if (err < 0) {
			fprintf(stderr, "n2echo: listen: %s\n", strerror(-err));
			return 1;
		}
		printf("server: listening sctp port %u udp port %u\n", n2sctp_local_port(O.ep),
		       n2sctp_local_udp_port(O.ep));
		fflush(stdout);
		if (O.ready) {
			char tmp[512];
			snprintf(tmp, sizeof(tmp), "%s.tmp", O.ready);
			FILE *f = fopen(tmp, "w");
			if (!f || fprintf(f, "%u %u\n", n2sctp_local_port(O.ep), n2sctp_local_udp_port(O.ep)) < 0 ||
			    fclose(f) != 0 || rename(tmp, O.ready) < 0) {
				perror("n2echo: ready file");
				return 1;
			}
		}
		if (!O.assocs)
			O.timeout = 0; /* a plain server runs until killed */
	} else {
		struct n2sctp_cbs cbs = { .up = cli_up, .data = cli_data, .down = cli_down };
		struct sockaddr_storage ls;
		memset(&ls, 0, sizeof(ls));
		ls.ss_family = ss.ss_family; /* any address */
		if (ss.ss_family == AF_INET6)
			((struct sockaddr_in6 *)&ls)->sin6_port = htons(O.local_port);
		else
			((struct sockaddr_in *)&ls)->sin_port = htons(O.local_port);
		err = n2sctp_connect(O.loop, &O.cfg, O.local_port ? (struct sockaddr *)&ls : NULL, sl,
				     (struct sockaddr *)&ss, sl, &cbs, &O.ep);
		if (err < 0) {
			fprintf(stderr, "n2echo: connect: %s\n", strerror(-err));
			return 1;
		}
		if (O.pingpong > 0 && O.timeout < O.pingpong + 10)
			O.timeout = (int)O.pingpong + 10;
	}
	ev_timer_init(&O.deadline, on_deadline, NULL);
	if (O.timeout > 0)
		ev_timer_start(O.loop, &O.deadline, (uint64_t)O.timeout * 1000u);
	ev_run(O.loop);
	ev_timer_stop(O.loop, &O.deadline);
	if (O.ep) {
		struct n2sctp_stats st;
		n2sctp_get_stats(O.ep, &st);
		printf("%s: stats tx=%llu rx=%llu eagain=%llu up=%llu down=%llu wire_rx=%llu wire_tx=%llu "
		       "foreign=%llu\n", O.server ? "server" : "client", (unsigned long long)st.tx_msgs,
		       (unsigned long long)st.rx_msgs, (unsigned long long)st.tx_eagain,
		       (unsigned long long)st.assoc_up, (unsigned long long)st.assoc_down,
		       (unsigned long long)st.wire_rx_pkts, (unsigned long long)st.wire_tx_pkts,
		       (unsigned long long)st.wire_rx_foreign);
	}
	n2sctp_free(O.ep);
	ev_loop_free(O.loop);
	free(O.pp_buf);
	printf("n2echo %s: %s\n", O.server ? "server" : "client", O.rc == 0 ? "PASS" : "FAIL");
	return O.rc;
}
