/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * Benchmark (prints figures, asserts nothing about speed): timer start, stop
 * and fire with 1,000,000 pending timers, deferred calls, fd dispatch over a
 * pipe, and log line formatting into a discarding sink.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "common/ev.h"
#include "common/log.h"

#define N 1000000

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t fired;
static void t_cb(struct ev_loop *loop, struct ev_timer *t)
{
	(void)loop;
	(void)t;
	fired++;
}

static void d_cb(void *arg)
{
	(void)arg;
	fired++;
}

static void sink(enum log_level level, const char *line, size_t len, void *arg)
{
	(void)level;
	(void)line;
	*(size_t *)arg += len;
}

static void fd_cb(struct ev_loop *loop, int fd, uint32_t events, void *arg)
{
	char b[64];

	(void)loop;
	(void)events;
	(void)arg;
	if (read(fd, b, sizeof(b)) > 0)
		fired++;
}

int main(void)
{
	int err;
	struct ev_loop *loop = ev_loop_new(&err);
	struct ev_timer *t = calloc(N, sizeof(*t));
	uint64_t rng = 88172645463325252ull, a, b;
	size_t bytes = 0;
	int p[2];

	if (!loop || !t || pipe(p))
		return 1;
	for (int i = 0; i < N; i++)
		ev_timer_init(&t[i], t_cb, NULL);
	a = now_ns();
	for (int i = 0; i < N; i++) {
		rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
		ev_timer_start_ns(loop, &t[i], 1000000000ull + rng % 60000000000ull);
	}
	b = now_ns();
	printf("timer start, growing to %d pending: %.1f ns/op\n", N, (double)(b - a) / N);
	a = now_ns();
	for (int i = 0; i < N; i++) {
		rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
		ev_timer_start_ns(loop, &t[i], 1000000000ull + rng % 60000000000ull);
	}
	b = now_ns();
	printf("timer re-arm with %d pending: %.1f ns/op\n", N, (double)(b - a) / N);
	a = now_ns();
	for (int i = 0; i < N; i += 2)
		ev_timer_stop(loop, &t[i]);
	b = now_ns();
	printf("timer stop with %d..%d pending: %.1f ns/op\n", N, N / 2, (double)(b - a) / (N / 2));
	/* Fire the rest: re-arm them all at 0 so one iteration fires them. */
	for (int i = 1; i < N; i += 2)
		ev_timer_start_ns(loop, &t[i], 0);
	ev_update_now(loop);
	a = now_ns();
	ev_run_once(loop, 0);
	b = now_ns();
	printf("timer fire (%llu expired in one pass): %.1f ns/timer\n", (unsigned long long)fired,
	       (double)(b - a) / (double)(fired ? fired : 1));

	fired = 0;
	a = now_ns();
	for (int i = 0; i < N; i++)
		ev_defer(loop, d_cb, NULL);
	ev_run_once(loop, 0);
	b = now_ns();
	printf("ev_defer + run: %.1f ns/call\n", (double)(b - a) / N);

	ev_fd_add(loop, p[0], EV_READ, fd_cb, NULL);
	fired = 0;
	a = now_ns();
	for (int i = 0; i < 100000; i++) {
		if (write(p[1], "x", 1) != 1)
			return 1;
		ev_run_once(loop, -1);
	}
	b = now_ns();
	printf("pipe write + ev_run_once + read: %.1f ns/round\n", (double)(b - a) / 100000);

	log_set_sink(sink, &bytes);
	a = now_ns();
	for (int i = 0; i < N; i++)
		log_msg(LOGL_INFO, "amf", "ue=42 gmm{REGISTERED}", "registered supi=imsi-%015d", i);
	b = now_ns();
	printf("log line format (%zu bytes/line): %.1f ns/line\n", bytes / N, (double)(b - a) / N);
	a = now_ns();
	for (int i = 0; i < N; i++)
		log_debug("amf", "hidden %d", i);
	b = now_ns();
	printf("log_debug when disabled: %.1f ns/call\n", (double)(b - a) / N);

	ev_loop_free(loop);
	free(t);
	return 0;
}
