/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * ev - epoll event loop, binary min-heap timers, deferred calls.
 *
 * One iteration (ev_run_once):
 *   1. run deferred calls queued since the last iteration (outside callers,
 *      the before-sleep hook),
 *   2. call the before-sleep hook,
 *   3. epoll_wait, with a timeout of 0 if deferred calls are pending or the
 *      loop was asked to stop, else until the earliest timer,
 *   4. refresh the cached monotonic time,
 *   5. dispatch the fd events of this batch,
 *   6. fire the timers whose deadline has passed (earliest first, equal
 *      deadlines in start order),
 *   7. run the deferred calls queued during 5 and 6.
 *
 * fd watchers live in an array indexed by fd. Each registration gets a
 * generation number that travels in the epoll data next to the fd, so an
 * event of a watcher deleted (and maybe re-added for a new fd with the same
 * number) earlier in the same batch is recognised as stale and skipped.
 *
 * Timers: an array-backed binary heap of pointers to intrusive struct
 * ev_timer, ordered by (deadline, start sequence); each timer knows its own
 * index so cancel is O(log n) without search. The array doubles when full.
 */
#include "common/ev.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#define EV_IDLE UINT32_MAX
#define EV_BATCH 256
#define EV_FD_MIN 64
#define EV_HEAP_MIN 64
#define EV_DEFER_MIN 64

struct ev_watch {
	ev_fd_cb cb;
	void *arg;
	uint32_t events;
	uint32_t gen;     /* bumped on every add and del */
	bool active;
};

struct ev_deferred {
	void (*fn)(void *arg);
	void *arg;
};

struct ev_loop {
	int epfd;
	int wakefd;
	bool stop;
	uint64_t now_ns;

	struct ev_watch *fds;
	size_t nfds;          /* allocated entries of fds[] */

	struct ev_timer **heap;
	size_t heap_len, heap_cap;
	uint64_t seq;

	/* Ring buffer of deferred calls; cap is a power of two. */
	struct ev_deferred *dq;
	size_t dq_head, dq_len, dq_cap;

	void (*before_sleep)(struct ev_loop *loop, void *arg);
	void *before_sleep_arg;

	uint64_t busy_poll_ns; /* 0: off (the default), see ev_set_busy_poll() */
	uint64_t busy_polls, busy_hits;
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void wake_cb(struct ev_loop *loop, int fd, uint32_t events, void *arg)
{
	uint64_t v;

	(void)loop;
	(void)events;
	(void)arg;
	/* Non-blocking: EAGAIN just means another wake got here first. */
	if (read(fd, &v, sizeof(v)) < 0)
		return;
}

struct ev_loop *ev_loop_new(int *err)
{
	struct ev_loop *loop = calloc(1, sizeof(*loop));
	int rc;

	if (!loop) {
		*err = -ENOMEM;
		return NULL;
	}
	loop->epfd = -1;
	loop->wakefd = -1;
	loop->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (loop->epfd < 0) {
		rc = -errno;
		goto fail;
	}
	loop->wakefd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (loop->wakefd < 0) {
		rc = -errno;
		goto fail;
	}
	loop->dq = calloc(EV_DEFER_MIN, sizeof(*loop->dq));
	loop->heap = calloc(EV_HEAP_MIN, sizeof(*loop->heap));
	if (!loop->dq || !loop->heap) {
		rc = -ENOMEM;
		goto fail;
	}
	loop->dq_cap = EV_DEFER_MIN;
	loop->heap_cap = EV_HEAP_MIN;
	rc = ev_fd_add(loop, loop->wakefd, EV_READ, wake_cb, NULL);
	if (rc < 0)
		goto fail;
	loop->now_ns = mono_ns();
	return loop;
fail:
	ev_loop_free(loop);
	*err = rc;
	return NULL;
}

void ev_loop_free(struct ev_loop *loop)
{
	if (!loop)
		return;
	/* Mark still-pending timers idle so a later ev_timer_stop() or
	 * ev_timer_pending() by their owner does not touch the freed loop. */
	for (size_t i = 0; i < loop->heap_len; i++)
		loop->heap[i]->heap_idx = EV_IDLE;
	if (loop->wakefd >= 0)
		close(loop->wakefd);
	if (loop->epfd >= 0)
		close(loop->epfd);
	free(loop->fds);
	free(loop->heap);
	free(loop->dq);
	free(loop);
}

/* ---- fd watchers ---- */

static int fds_reserve(struct ev_loop *loop, int fd)
{
	size_t n = loop->nfds ? loop->nfds : EV_FD_MIN;
	struct ev_watch *p;

	if ((size_t)fd < loop->nfds)
		return 0;
	while (n <= (size_t)fd)
		n *= 2;
	p = realloc(loop->fds, n * sizeof(*p));
	if (!p)
		return -ENOMEM;
	memset(p + loop->nfds, 0, (n - loop->nfds) * sizeof(*p));
	loop->fds = p;
	loop->nfds = n;
	return 0;
}

static uint64_t ev_data(int fd, uint32_t gen)
{
	return ((uint64_t)gen << 32) | (uint32_t)fd;
}

int ev_fd_add(struct ev_loop *loop, int fd, uint32_t events, ev_fd_cb cb, void *arg)
{
	struct epoll_event ee = { 0 };
	struct ev_watch *w;
	int rc;

	if (fd < 0 || !cb)
		return -EINVAL;
	rc = fds_reserve(loop, fd);
	if (rc < 0)
		return rc;
	w = &loop->fds[fd];
	if (w->active)
		return -EEXIST;
	w->gen++;
	ee.events = events & (EV_READ | EV_WRITE);
	ee.data.u64 = ev_data(fd, w->gen);
	if (epoll_ctl(loop->epfd, EPOLL_CTL_ADD, fd, &ee) < 0)
		return -errno;
	w->cb = cb;
	w->arg = arg;
	w->events = ee.events;
	w->active = true;
	return 0;
}

int ev_fd_mod(struct ev_loop *loop, int fd, uint32_t events)
{
	struct epoll_event ee = { 0 };
	struct ev_watch *w;

	if (fd < 0 || (size_t)fd >= loop->nfds || !loop->fds[fd].active)
		return -ENOENT;
	w = &loop->fds[fd];
	ee.events = events & (EV_READ | EV_WRITE);
	ee.data.u64 = ev_data(fd, w->gen);
	if (epoll_ctl(loop->epfd, EPOLL_CTL_MOD, fd, &ee) < 0)
		return -errno;
	w->events = ee.events;
	return 0;
}

int ev_fd_del(struct ev_loop *loop, int fd)
{
	struct ev_watch *w;

	if (fd < 0 || (size_t)fd >= loop->nfds || !loop->fds[fd].active)
		return -ENOENT;
	w = &loop->fds[fd];
	w->active = false;
	w->gen++;         /* stale events of this batch no longer match */
	w->cb = NULL;
	w->arg = NULL;
	/* The fd may already be closed by the owner (epoll dropped it then):
	 * EBADF/ENOENT are not errors for the caller. */
	if (epoll_ctl(loop->epfd, EPOLL_CTL_DEL, fd, NULL) < 0 && errno != EBADF && errno != ENOENT)
		return -errno;
	return 0;
}

/* ---- timers: binary min-heap ---- */

static bool t_less(const struct ev_timer *a, const struct ev_timer *b)
{
	if (a->when_ns != b->when_ns)
		return a->when_ns < b->when_ns;
	return a->seq < b->seq;
}

static void heap_set(struct ev_loop *loop, size_t i, struct ev_timer *t)
{
	loop->heap[i] = t;
	t->heap_idx = (uint32_t)i;
}

static void sift_up(struct ev_loop *loop, size_t i)
{
	struct ev_timer *t = loop->heap[i];

	while (i > 0) {
		size_t p = (i - 1) / 2;

		if (!t_less(t, loop->heap[p]))
			break;
		heap_set(loop, i, loop->heap[p]);
		i = p;
	}
	heap_set(loop, i, t);
}

static void sift_down(struct ev_loop *loop, size_t i)
{
	struct ev_timer *t = loop->heap[i];
	size_t n = loop->heap_len;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && t_less(loop->heap[c + 1], loop->heap[c]))
			c++;
		if (!t_less(loop->heap[c], t))
			break;
		heap_set(loop, i, loop->heap[c]);
		i = c;
	}
	heap_set(loop, i, t);
}

static void heap_remove(struct ev_loop *loop, struct ev_timer *t)
{
	size_t i = t->heap_idx;
	struct ev_timer *last;

	t->heap_idx = EV_IDLE;
	last = loop->heap[--loop->heap_len];
	if (last == t)
		return;
	heap_set(loop, i, last);
	if (i > 0 && t_less(last, loop->heap[(i - 1) / 2]))
		sift_up(loop, i);
	else
		sift_down(loop, i);
}

void ev_timer_init(struct ev_timer *t, ev_timer_cb cb, void *arg)
{
	t->when_ns = 0;
	t->seq = 0;
	t->heap_idx = EV_IDLE;
	t->cb = cb;
	t->arg = arg;
}

int ev_timer_start_ns(struct ev_loop *loop, struct ev_timer *t, uint64_t after_ns)
{
	uint64_t when = loop->now_ns + after_ns;

	if (when < loop->now_ns)
		when = UINT64_MAX;     /* saturate instead of wrapping into the past */
	if (t->heap_idx != EV_IDLE) {
		/* Re-arm: takes a new sequence number, i.e. ties order by the
		 * latest start, as if stopped and started again. */
		heap_remove(loop, t);
	} else if (loop->heap_len == loop->heap_cap) {
		size_t ncap = loop->heap_cap * 2;
		struct ev_timer **p;

		if (ncap >= EV_IDLE)
			return -ENOMEM;
		p = realloc(loop->heap, ncap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		loop->heap = p;
		loop->heap_cap = ncap;
	}
	t->when_ns = when;
	t->seq = loop->seq++;
	loop->heap[loop->heap_len] = t;
	sift_up(loop, loop->heap_len++);
	return 0;
}

int ev_timer_start(struct ev_loop *loop, struct ev_timer *t, uint64_t after_ms)
{
	uint64_t ns = after_ms > UINT64_MAX / 1000000u ? UINT64_MAX : after_ms * 1000000u;

	return ev_timer_start_ns(loop, t, ns);
}

void ev_timer_stop(struct ev_loop *loop, struct ev_timer *t)
{
	if (t->heap_idx == EV_IDLE)
		return;
	heap_remove(loop, t);
}

bool ev_timer_pending(const struct ev_timer *t)
{
	return t->heap_idx != EV_IDLE;
}

size_t ev_timer_count(const struct ev_loop *loop)
{
	return loop->heap_len;
}

/* Fire the expired timers. Only timers started before this pass fire in it:
 * a callback re-arming itself with a 0 delay fires in the next iteration
 * instead of spinning here. Because the heap orders by (deadline, seq), the
 * first timer started during this pass at the top means no older expired
 * timer is left. */
static int run_timers(struct ev_loop *loop)
{
	uint64_t seq_limit = loop->seq;
	int n = 0;

	while (loop->heap_len) {
		struct ev_timer *t = loop->heap[0];

		if (t->when_ns > loop->now_ns || t->seq >= seq_limit)
			break;
		heap_remove(loop, t);
		n++;
		t->cb(loop, t);
	}
	return n;
}

/* ---- time ---- */

uint64_t ev_now_ns(const struct ev_loop *loop)
{
	return loop->now_ns;
}

uint64_t ev_update_now(struct ev_loop *loop)
{
	loop->now_ns = mono_ns();
	return loop->now_ns;
}

/* ---- deferred calls ---- */

int ev_defer(struct ev_loop *loop, void (*fn)(void *arg), void *arg)
{
	if (!fn)
		return -EINVAL;
	if (loop->dq_len == loop->dq_cap) {
		size_t ncap = loop->dq_cap * 2;
		struct ev_deferred *p = malloc(ncap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		/* Unroll the ring into the new array, oldest first. */
		for (size_t i = 0; i < loop->dq_len; i++)
			p[i] = loop->dq[(loop->dq_head + i) & (loop->dq_cap - 1)];
		free(loop->dq);
		loop->dq = p;
		loop->dq_head = 0;
		loop->dq_cap = ncap;
	}
	loop->dq[(loop->dq_head + loop->dq_len) & (loop->dq_cap - 1)] =
		(struct ev_deferred){ .fn = fn, .arg = arg };
	loop->dq_len++;
	return 0;
}

/* Run the calls queued so far; calls they queue run in the next round. */
static void run_deferred(struct ev_loop *loop)
{
	size_t n = loop->dq_len;

	while (n--) {
		struct ev_deferred d = loop->dq[loop->dq_head];

		loop->dq_head = (loop->dq_head + 1) & (loop->dq_cap - 1);
		loop->dq_len--;
		d.fn(d.arg);
	}
}

void ev_set_before_sleep(struct ev_loop *loop, void (*fn)(struct ev_loop *loop, void *arg), void *arg)
{
	loop->before_sleep = fn;
	loop->before_sleep_arg = arg;
}

/* ---- running ---- */

static int wait_timeout(struct ev_loop *loop, int timeout_ms)
{
	uint64_t delta_ns, ms;

	if (loop->dq_len || loop->stop)
		return 0;
	if (!loop->heap_len)
		return timeout_ms;
	if (loop->heap[0]->when_ns <= loop->now_ns)
		return 0;
	delta_ns = loop->heap[0]->when_ns - loop->now_ns;
	/* Round up: waking before the deadline would just spin once more. */
	ms = (delta_ns + 999999u) / 1000000u;
	if (ms > INT32_MAX)
		ms = INT32_MAX;
	if (timeout_ms >= 0 && (uint64_t)timeout_ms < ms)
		return timeout_ms;
	return (int)ms;
}

void ev_set_busy_poll(struct ev_loop *loop, uint32_t usec)
{
	loop->busy_poll_ns = (uint64_t)usec * 1000u;
}

void ev_busy_poll_stats(const struct ev_loop *loop, uint64_t *polls, uint64_t *hits)
{
	*polls = loop->busy_polls;
	*hits = loop->busy_hits;
}

/* The optional bounded spin before sleeping: non-blocking epoll_wait until something is ready,
 * the spin budget is spent or the first timer is due. Returns what epoll_wait returned last. */
static int busy_poll(struct ev_loop *loop, struct epoll_event *evs, int timeout)
{
	uint64_t end = loop->now_ns + loop->busy_poll_ns;
	int n;

	if (timeout >= 0 && (uint64_t)timeout * 1000000u < loop->busy_poll_ns)
		end = loop->now_ns + (uint64_t)timeout * 1000000u;
	loop->busy_polls++;
	do {
		n = epoll_wait(loop->epfd, evs, EV_BATCH, 0);
		if (n != 0) {
			if (n > 0)
				loop->busy_hits++;
			return n;
		}
	} while (mono_ns() < end);
	return 0;
}

int ev_run_once(struct ev_loop *loop, int timeout_ms)
{
	struct epoll_event evs[EV_BATCH];
	int n = 0, handled = 0, timeout;

	run_deferred(loop);
	if (loop->before_sleep)
		loop->before_sleep(loop, loop->before_sleep_arg);
	ev_update_now(loop);
	timeout = wait_timeout(loop, timeout_ms);
	if (loop->busy_poll_ns && timeout != 0)
		n = busy_poll(loop, evs, timeout);
	if (n == 0) {
		if (loop->busy_poll_ns && timeout != 0) {
			ev_update_now(loop); /* the spin took time: recompute the timer wait */
			timeout = wait_timeout(loop, timeout_ms);
		}
		n = epoll_wait(loop->epfd, evs, EV_BATCH, timeout);
	}
	if (n < 0) {
		if (errno != EINTR)
			return -errno;
		n = 0;
	}
	ev_update_now(loop);
	for (int i = 0; i < n; i++) {
		int fd = (int)(uint32_t)evs[i].data.u64;
		uint32_t gen = (uint32_t)(evs[i].data.u64 >> 32);
		struct ev_watch *w;

		if ((size_t)fd >= loop->nfds)
			continue;
		w = &loop->fds[fd];
		if (!w->active || w->gen != gen)
			continue;     /* deleted (or replaced) earlier in this batch */
		handled++;
		w->cb(loop, fd, evs[i].events & (EV_READ | EV_WRITE | EV_ERROR | EV_HUP), w->arg);
	}
	handled += run_timers(loop);
	run_deferred(loop);
	return handled;
}

int ev_run(struct ev_loop *loop)
{
	int rc = 0;

	while (!loop->stop) {
		rc = ev_run_once(loop, -1);
		if (rc < 0)
			break;
		rc = 0;
	}
	loop->stop = false;
	return rc;
}

void ev_stop(struct ev_loop *loop)
{
	loop->stop = true;
}

void ev_wake(struct ev_loop *loop)
{
	uint64_t one = 1;

	/* EAGAIN (counter saturated) still leaves the loop woken. */
	if (write(loop->wakefd, &one, sizeof(one)) < 0)
		return;
}
