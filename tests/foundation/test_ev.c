/* SPDX-License-Identifier: AGPL-3.0-or-later */
/* Event loop: iteration order, fd watchers, deferred calls, timers. */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/ev.h"

static struct ev_loop *new_loop(void)
{
	int err = 0;
	struct ev_loop *loop = ev_loop_new(&err);

	assert_non_null(loop);
	assert_int_equal(err, 0);
	return loop;
}

/* ---- a trace of callback names, to assert ordering ---- */
static char trace[256];
static void tr(const char *s)
{
	strcat(trace, s);
}

static struct ev_loop *g_loop;
static void d_cb(void *arg)
{
	tr(arg);
}

static void fd_cb_trace(struct ev_loop *loop, int fd, uint32_t events, void *arg)
{
	char b[16];

	assert_true(events & EV_READ);
	assert_true(read(fd, b, sizeof(b)) > 0);
	tr(arg);
	assert_int_equal(ev_defer(loop, d_cb, "D"), 0);
}

static void t_cb_trace(struct ev_loop *loop, struct ev_timer *t)
{
	(void)loop;
	tr(t->arg);
}

static void bs_cb(struct ev_loop *loop, void *arg)
{
	(void)loop;
	tr(arg);
}

/* before-sleep, then fd events, then expired timers, then deferred calls. */
static void test_iteration_order(void **state)
{
	struct ev_loop *loop = new_loop();
	struct ev_timer t;
	int p[2];

	(void)state;
	trace[0] = 0;
	assert_int_equal(pipe(p), 0);
	assert_int_equal(ev_fd_add(loop, p[0], EV_READ, fd_cb_trace, "F"), 0);
	ev_timer_init(&t, t_cb_trace, "T");
	assert_int_equal(ev_timer_start(loop, &t, 0), 0);
	ev_set_before_sleep(loop, bs_cb, "B");
	assert_int_equal(write(p[1], "x", 1), 1);
	assert_int_equal(ev_run_once(loop, -1), 2);
	assert_string_equal(trace, "BFTD");
	/* Nothing pending now: a 0 timeout returns with nothing handled. */
	assert_int_equal(ev_run_once(loop, 0), 0);
	assert_string_equal(trace, "BFTDB");
	ev_loop_free(loop);
	close(p[0]);
	close(p[1]);
}

/* ---- fd watchers ---- */
static int calls[4];
static int pipes[2][2];

static void fd_cb_count(struct ev_loop *loop, int fd, uint32_t events, void *arg)
{
	char b[16];

	(void)loop;
	(void)events;
	(void)!read(fd, b, sizeof(b));
	calls[(intptr_t)arg]++;
}

/* The first callback deletes both its own fd and the other ready fd of the batch. */
static void fd_cb_del(struct ev_loop *loop, int fd, uint32_t events, void *arg)
{
	(void)events;
	(void)arg;
	calls[0]++;
	assert_int_equal(ev_fd_del(loop, fd), 0);
	assert_int_equal(ev_fd_del(loop, fd == pipes[0][0] ? pipes[1][0] : pipes[0][0]), 0);
}

static void test_fd_watch(void **state)
{
	struct ev_loop *loop = new_loop();
	int p[2];

	(void)state;
	memset(calls, 0, sizeof(calls));
	assert_int_equal(pipe(p), 0);
	assert_int_equal(ev_fd_add(loop, p[0], EV_READ, fd_cb_count, (void *)1), 0);
	assert_int_equal(ev_fd_add(loop, p[0], EV_READ, fd_cb_count, (void *)1), -EEXIST);
	assert_int_equal(ev_fd_add(loop, -1, EV_READ, fd_cb_count, NULL), -EINVAL);
	assert_int_equal(ev_run_once(loop, 0), 0);
	assert_int_equal(calls[1], 0);
	assert_int_equal(write(p[1], "x", 1), 1);
	assert_int_equal(ev_run_once(loop, -1), 1);
	assert_int_equal(calls[1], 1);
	/* Write end: always writable once watched for EV_WRITE. */
	assert_int_equal(ev_fd_add(loop, p[1], 0, fd_cb_count, (void *)2), 0);
	assert_int_equal(ev_run_once(loop, 0), 0);
	assert_int_equal(ev_fd_mod(loop, p[1], EV_WRITE), 0);
	assert_int_equal(ev_run_once(loop, 0), 1);
	assert_int_equal(calls[2], 1);
	assert_int_equal(ev_fd_del(loop, p[1]), 0);
	assert_int_equal(ev_fd_del(loop, p[1]), -ENOENT);
	assert_int_equal(ev_fd_mod(loop, p[1], EV_READ), -ENOENT);
	assert_int_equal(ev_fd_del(loop, 100000), -ENOENT);
	/* A high fd number grows the table. */
	int hi = dup2(p[0], 900);
	assert_int_equal(hi, 900);
	assert_int_equal(ev_fd_del(loop, p[0]), 0);
	assert_int_equal(ev_fd_add(loop, hi, EV_READ, fd_cb_count, (void *)3), 0);
	assert_int_equal(write(p[1], "y", 1), 1);
	assert_int_equal(ev_run_once(loop, -1), 1);
	assert_int_equal(calls[3], 1);
	ev_loop_free(loop);
	close(hi);
	close(p[0]);
	close(p[1]);
}

/* Deleting a watcher whose event is already in the current batch skips it. */
static void test_fd_del_in_callback(void **state)
{
	struct ev_loop *loop = new_loop();

	(void)state;
	memset(calls, 0, sizeof(calls));
	assert_int_equal(pipe(pipes[0]), 0);
	assert_int_equal(pipe(pipes[1]), 0);
	assert_int_equal(ev_fd_add(loop, pipes[0][0], EV_READ, fd_cb_del, NULL), 0);
	assert_int_equal(ev_fd_add(loop, pipes[1][0], EV_READ, fd_cb_del, NULL), 0);
	assert_int_equal(write(pipes[0][1], "x", 1), 1);
	assert_int_equal(write(pipes[1][1], "x", 1), 1);
	assert_int_equal(ev_run_once(loop, -1), 1);
	assert_int_equal(calls[0], 1);
	assert_int_equal(ev_run_once(loop, 0), 0);
	assert_int_equal(calls[0], 1);
	ev_loop_free(loop);
	for (int i = 0; i < 2; i++) {
		close(pipes[i][0]);
		close(pipes[i][1]);
	}
}

/* ---- deferred calls and before-sleep ---- */
static void d_chain(void *arg)
{
	tr(arg);
	assert_int_equal(ev_defer(g_loop, d_cb, "2"), 0);
}

static int seen[1000];
static int nseen;
static void d_count(void *arg)
{
	seen[nseen++] = (int)(intptr_t)arg;
}

static void test_defer(void **state)
{
	struct ev_loop *loop = new_loop();

	(void)state;
	g_loop = loop;
	trace[0] = 0;
	ev_set_before_sleep(loop, bs_cb, "B");
	/* Queued from outside: runs first, and the wait does not block (-1). */
	assert_int_equal(ev_defer(loop, d_chain, "1"), 0);
	assert_int_equal(ev_run_once(loop, -1), 0);
	/* "2" was queued by a deferred call: not in the same round but in the
	 * one after the (non-blocking) wait. */
	assert_string_equal(trace, "1B2");
	assert_int_equal(ev_run_once(loop, 0), 0);
	assert_string_equal(trace, "1B2B");
	assert_int_equal(ev_defer(loop, NULL, NULL), -EINVAL);
	/* Growth past the initial ring, FIFO order kept across the wrap. */
	ev_set_before_sleep(loop, NULL, NULL);
	nseen = 0;
	for (int i = 0; i < 10; i++)
		assert_int_equal(ev_defer(loop, d_count, (void *)(intptr_t)i), 0);
	assert_int_equal(ev_run_once(loop, 0), 0);
	for (int i = 10; i < 1000; i++)
		assert_int_equal(ev_defer(loop, d_count, (void *)(intptr_t)i), 0);
	assert_int_equal(ev_run_once(loop, 0), 0);
	assert_int_equal(nseen, 1000);
	for (int i = 0; i < 1000; i++)
		assert_int_equal(seen[i], i);
	ev_loop_free(loop);
}

/* ---- timers ---- */
#define NT 8
static struct ev_timer tm[NT];
static int order[64];
static int norder;

static void t_rec(struct ev_loop *loop, struct ev_timer *t)
{
	(void)loop;
	order[norder++] = (int)(t - tm);
}

static void t_stop_loop(struct ev_loop *loop, struct ev_timer *t)
{
	t_rec(loop, t);
	ev_stop(loop);
}

static void test_timer_order(void **state)
{
	struct ev_loop *loop = new_loop();
	static const int delay_ms[NT] = { 3, 1, 2, 0, 1, 0, 2, 3 };

	(void)state;
	norder = 0;
	for (int i = 0; i < NT; i++) {
		ev_timer_init(&tm[i], i == NT - 1 ? t_stop_loop : t_rec, NULL);
		assert_false(ev_timer_pending(&tm[i]));
		assert_int_equal(ev_timer_start(loop, &tm[i], (uint64_t)delay_ms[i]), 0);
		assert_true(ev_timer_pending(&tm[i]));
	}
	assert_int_equal(ev_timer_count(loop), NT);
	assert_int_equal(ev_run(loop), 0);
	/* By deadline; equal deadlines in start order. */
	static const int want[NT] = { 3, 5, 1, 4, 2, 6, 0, 7 };
	assert_int_equal(norder, NT);
	for (int i = 0; i < NT; i++)
		assert_int_equal(order[i], want[i]);
	assert_int_equal(ev_timer_count(loop), 0);
	for (int i = 0; i < NT; i++)
		assert_false(ev_timer_pending(&tm[i]));
	ev_loop_free(loop);
}

static void test_timer_cancel_rearm(void **state)
{
	struct ev_loop *loop = new_loop();

	(void)state;
	norder = 0;
	for (int i = 0; i < 4; i++) {
		ev_timer_init(&tm[i], t_rec, NULL);
		assert_int_equal(ev_timer_start(loop, &tm[i], 0), 0);
	}
	ev_timer_stop(loop, &tm[1]);
	ev_timer_stop(loop, &tm[1]);     /* no-op when idle */
	assert_false(ev_timer_pending(&tm[1]));
	/* Re-arm with the same delay: it now ties after the others. */
	assert_int_equal(ev_timer_start(loop, &tm[0], 0), 0);
	assert_int_equal(ev_timer_count(loop), 3);
	/* Re-arm far away: it does not fire now. */
	assert_int_equal(ev_timer_start(loop, &tm[3], 3600 * 1000), 0);
	assert_int_equal(ev_run_once(loop, 0), 2);
	assert_int_equal(norder, 2);
	assert_int_equal(order[0], 2);
	assert_int_equal(order[1], 0);
	assert_true(ev_timer_pending(&tm[3]));
	/* Overflowing delays saturate and stay pending. */
	assert_int_equal(ev_timer_start(loop, &tm[1], UINT64_MAX), 0);
	assert_int_equal(ev_run_once(loop, 0), 0);
	assert_int_equal(ev_timer_count(loop), 2);
	/* Freeing the loop leaves its timers idle. */
	ev_loop_free(loop);
	assert_false(ev_timer_pending(&tm[3]));
	assert_false(ev_timer_pending(&tm[1]));
}

/* tm[0] cancels tm[1] (same deadline, later) and re-arms itself with 0. */
static int self_rearms;
static void t_cancel_other(struct ev_loop *loop, struct ev_timer *t)
{
	t_rec(loop, t);
	ev_timer_stop(loop, &tm[1]);
	ev_timer_stop(loop, t);  /* already idle inside its callback: no-op */
	if (self_rearms++ == 0)
		assert_int_equal(ev_timer_start(loop, t, 0), 0);
}

static void test_timer_cancel_inside_callback(void **state)
{
	struct ev_loop *loop = new_loop();

	(void)state;
	norder = 0;
	self_rearms = 0;
	ev_timer_init(&tm[0], t_cancel_other, NULL);
	ev_timer_init(&tm[1], t_rec, NULL);
	ev_timer_init(&tm[2], t_rec, NULL);
	for (int i = 0; i < 3; i++)
		assert_int_equal(ev_timer_start(loop, &tm[i], 0), 0);
	/* tm[0] fires, tm[1] is cancelled, tm[2] fires; the 0-delay re-arm
	 * waits for the next iteration instead of spinning in this one. */
	assert_int_equal(ev_run_once(loop, 0), 2);
	assert_int_equal(norder, 2);
	assert_int_equal(order[0], 0);
	assert_int_equal(order[1], 2);
	assert_true(ev_timer_pending(&tm[0]));
	assert_int_equal(ev_run_once(loop, 0), 1);
	assert_int_equal(order[2], 0);
	assert_int_equal(ev_timer_count(loop), 0);
	ev_loop_free(loop);
}

/* 1,000,000 timers: add all, cancel half at random, the rest fire in
 * (deadline, start order). Delays are a few hundred microseconds so many tie. */
#define NBIG 1000000
struct big_timer {
	struct ev_timer t;
	uint32_t id;
	bool cancelled;
	bool fired;
};
static struct big_timer *big;
static uint32_t nfired;
static uint64_t last_when, last_seq;
static bool order_ok = true;

static void big_cb(struct ev_loop *loop, struct ev_timer *t)
{
	struct big_timer *b = (struct big_timer *)t;

	(void)loop;
	if (b->cancelled || b->fired)
		order_ok = false;
	if (nfired && (t->when_ns < last_when || (t->when_ns == last_when && t->seq <= last_seq)))
		order_ok = false;
	last_when = t->when_ns;
	last_seq = t->seq;
	b->fired = true;
	nfired++;
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t xrand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void test_timer_million(void **state)
{
	struct ev_loop *loop = new_loop();
	uint32_t *perm;
	uint32_t ncancel = NBIG / 2;

	(void)state;
	big = calloc(NBIG, sizeof(*big));
	perm = malloc(NBIG * sizeof(*perm));
	assert_non_null(big);
	assert_non_null(perm);
	for (uint32_t i = 0; i < NBIG; i++) {
		big[i].id = i;
		ev_timer_init(&big[i].t, big_cb, NULL);
		/* 0..499 us in 1 us steps: about 2,000 timers per deadline. */
		assert_int_equal(ev_timer_start_ns(loop, &big[i].t, (xrand() % 500) * 1000), 0);
		perm[i] = i;
	}
	assert_int_equal(ev_timer_count(loop), NBIG);
	/* Fisher-Yates: the first half of perm is a random half of the timers. */
	for (uint32_t i = NBIG - 1; i > 0; i--) {
		uint32_t j = (uint32_t)(xrand() % (i + 1));
		uint32_t x = perm[i];

		perm[i] = perm[j];
		perm[j] = x;
	}
	for (uint32_t i = 0; i < ncancel; i++) {
		big[perm[i]].cancelled = true;
		ev_timer_stop(loop, &big[perm[i]].t);
		assert_false(ev_timer_pending(&big[perm[i]].t));
	}
	assert_int_equal(ev_timer_count(loop), NBIG - ncancel);
	while (ev_timer_count(loop))
		assert_true(ev_run_once(loop, -1) >= 0);
	assert_true(order_ok);
	assert_int_equal(nfired, NBIG - ncancel);
	for (uint32_t i = 0; i < NBIG; i++)
		assert_true(big[i].fired != big[i].cancelled);
	ev_loop_free(loop);
	free(perm);
	free(big);
}

/* ---- ev_wake from another thread, ev_stop ---- */
static void *waker(void *arg)
{
	ev_wake(arg);
	return NULL;
}

static void test_wake(void **state)
{
	struct ev_loop *loop = new_loop();
	pthread_t th;

	(void)state;
	assert_int_equal(pthread_create(&th, NULL, waker, loop), 0);
	/* Blocks until the other thread wakes it: the eventfd counts as one event. */
	assert_int_equal(ev_run_once(loop, -1), 1);
	pthread_join(th, NULL);
	/* ev_stop before ev_run: returns at once. */
	ev_stop(loop);
	assert_int_equal(ev_run(loop), 0);
	ev_loop_free(loop);
	ev_loop_free(NULL);
}

static void test_now(void **state)
{
	struct ev_loop *loop = new_loop();
	uint64_t a = ev_now_ns(loop);
	uint64_t b = ev_update_now(loop);

	(void)state;
	assert_true(a > 0);
	assert_true(b >= a);
	assert_int_equal(ev_now_ns(loop), b);
	ev_loop_free(loop);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_iteration_order),
		cmocka_unit_test(test_fd_watch),
		cmocka_unit_test(test_fd_del_in_callback),
		cmocka_unit_test(test_defer),
		cmocka_unit_test(test_timer_order),
		cmocka_unit_test(test_timer_cancel_rearm),
		cmocka_unit_test(test_timer_cancel_inside_callback),
		cmocka_unit_test(test_timer_million),
		cmocka_unit_test(test_wake),
		cmocka_unit_test(test_now),
	};
	return cmocka_run_group_tests_name("ev", tests, NULL, NULL);
}
