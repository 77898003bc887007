/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * ev - the control thread's event loop: epoll fd watchers, timers on the
 * monotonic clock (a binary min-heap of intrusive timers, so add/cancel are
 * O(log n) and allocation-free for the caller), deferred calls run after the
 * current batch of events, and a before-sleep hook.
 *
 * Ownership: the loop never owns the fds or the timers registered with it.
 * A struct ev_timer is embedded in its owner (UE context, association...),
 * which must stop it before freeing itself. Never free an object inside its
 * own callback: ev_defer() its destruction instead (reaped before sleeping).
 *
 * Thread model: one loop per thread, no locking. ev_wake() is the only
 * function other threads may call.
 *
 * One iteration: deferred calls queued since the last one, the before-sleep
 * hook, epoll_wait (timeout 0 if deferred calls are pending), the fd events
 * of the batch, the expired timers (by deadline, equal deadlines in start
 * order; a timer (re)started inside this pass fires in a later one), then
 * the deferred calls queued by those callbacks. Timer delays count from
 * ev_now_ns(), the time cached after the last wait: call ev_update_now()
 * first after a long computation.
 */
#ifndef SOLOCORE_COMMON_EV_H
#define SOLOCORE_COMMON_EV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ev_loop;

/* Event bits, identical to EPOLLIN / EPOLLOUT / EPOLLERR / EPOLLHUP. */
#define EV_READ  0x001u
#define EV_WRITE 0x004u
#define EV_ERROR 0x008u
#define EV_HUP   0x010u

typedef void (*ev_fd_cb)(struct ev_loop *loop, int fd, uint32_t events, void *arg);

struct ev_timer;
typedef void (*ev_timer_cb)(struct ev_loop *loop, struct ev_timer *t);

/* Intrusive timer. Fields are private to ev.c; use ev_timer_init(). */
struct ev_timer {
	uint64_t when_ns;   /* absolute CLOCK_MONOTONIC deadline */
	uint64_t seq;       /* insertion order: equal deadlines fire FIFO */
	uint32_t heap_idx;  /* position in the heap, UINT32_MAX when idle */
	ev_timer_cb cb;
	void *arg;          /* free for the owner */
};

/* Returns NULL with *err = -errno on failure. */
struct ev_loop *ev_loop_new(int *err);
/* Accepts NULL. Pending timers are forgotten, not fired; deferred calls are dropped. */
void ev_loop_free(struct ev_loop *loop);

/* Watch fd for events (EV_READ | EV_WRITE). -EEXIST if already watched. */
int ev_fd_add(struct ev_loop *loop, int fd, uint32_t events, ev_fd_cb cb, void *arg);
/* Change the event mask of a watched fd. -ENOENT if not watched. */
int ev_fd_mod(struct ev_loop *loop, int fd, uint32_t events);
/* Stop watching fd (does not close it). Safe from inside that fd's callback. */
int ev_fd_del(struct ev_loop *loop, int fd);

void ev_timer_init(struct ev_timer *t, ev_timer_cb cb, void *arg);
/* Arm (or re-arm, replacing the previous deadline) to fire once after ms. 0 or -ENOMEM. */
int ev_timer_start(struct ev_loop *loop, struct ev_timer *t, uint64_t after_ms);
/* Same with a nanosecond delay. */
int ev_timer_start_ns(struct ev_loop *loop, struct ev_timer *t, uint64_t after_ns);
/* Cancel; no-op if not pending. */
void ev_timer_stop(struct ev_loop *loop, struct ev_timer *t);
bool ev_timer_pending(const struct ev_timer *t);
/* Number of pending timers. */
size_t ev_timer_count(const struct ev_loop *loop);

/* Monotonic time in ns, cached at the top of each loop iteration. */
uint64_t ev_now_ns(const struct ev_loop *loop);
/* Refresh the cache and return it. */
uint64_t ev_update_now(struct ev_loop *loop);

/* Call fn(arg) once, after the current batch of events, before sleeping. */
int ev_defer(struct ev_loop *loop, void (*fn)(void *arg), void *arg);
/* Called each time the loop is about to block in epoll_wait. */
void ev_set_before_sleep(struct ev_loop *loop, void (*fn)(struct ev_loop *loop, void *arg), void *arg);

/* Optional bounded busy-poll, OFF by default (0): before blocking, spin with non-blocking
 * epoll_wait for up to usec microseconds (never past the first timer). It trades CPU for
 * latency: a peer's answer that comes back within the spin is handled without a sleep, a
 * context switch and (across CPUs) an inter-processor wake-up, at the price of a CPU kept busy
 * for up to usec after every batch. Only for a benchmark or a dedicated core, set explicitly
 * from configuration, and reported with any figure measured with it. */
void ev_set_busy_poll(struct ev_loop *loop, uint32_t usec);
/* Spins started, and spins that found an event before the budget ran out. */
void ev_busy_poll_stats(const struct ev_loop *loop, uint64_t *polls, uint64_t *hits);

/* Run until ev_stop(). Returns 0, or -errno if epoll fails. */
int ev_run(struct ev_loop *loop);
/* Run one iteration, blocking at most timeout_ms (-1: until an event). Returns events handled or -errno. */
int ev_run_once(struct ev_loop *loop, int timeout_ms);
/* Ask ev_run() to return after the current iteration. */
void ev_stop(struct ev_loop *loop);
/* Thread-safe: wake the loop from another thread (eventfd). */
void ev_wake(struct ev_loop *loop);

#endif
