/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * Cluster SQN generator (issue 20 item 3; the scheme is described at udm_sqn_cluster() in
 * udm.h). SQN = SEQ || IND with IND = this node's slot (TS 33.102 C.1.2, C.2.2) and a
 * time-based SEQ (C.1.1.3, C.3.3) kept below a lease committed in the replicated store.
 *
 * Threads: udm_sqn_gen_next / _resync run on the control thread and never wait: they read
 * the committed lease (an atomic) and, near its end, kick the extension thread through a
 * semaphore. The extension thread is the only one that writes to the store after start-up.
 */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "common/crypto/crypto.h"
#include "common/log.h"
#include "udm/udm_int.h"

#define SEQ_OF(sqn) (((sqn) & CRYPTO_SQN_MASK) >> CRYPTO_SQN_IND_BITS)
#define SEQ_MAX ((1ull << (48 - CRYPTO_SQN_IND_BITS)) - 1)   /* 43 bits (C.1.2) */
#define RETRY_MS_MIN 50u
#define RETRY_MS_MAX 1000u
#define TAKE_TRIES 8
#define CLOCK_CHECK_MS 1000u   /* <= UDM_SQN_TICK_S: the clock moves a tick at most */

struct udm_sqn_gen {
	unsigned ind;
	uint64_t len;                 /* L, ticks */
	uint64_t floor;               /* no SEQ below it in this run (>= the old lease) */
	int64_t (*now_s)(void *arg);
	void *now_arg;
	const struct udm_sqn_store_ops *ops;
	void *ops_arg;
	uint64_t owner;               /* this generator's token in the store */
	bool refusing;                /* control thread: an -EAGAIN was logged, no success since */
	_Atomic uint64_t lease;       /* committed: no SEQ >= lease is ever issued */
	_Atomic uint64_t want;        /* highest SEQ the control thread wanted to issue */
	_Atomic bool kicked;          /* a sem_post is pending for the extension thread */
	_Atomic bool stop;
	_Atomic bool fenced;          /* the slot was taken by another generator */
	sem_t sem;
	pthread_t thread;
	/* Counters (udm_sqn_stats): the first three from the control thread, ext_* from the
	 * extension thread, read from anywhere. */
	_Atomic uint64_t issued, refused_lease, refused_ahead, resync_adopted, resync_unfixable;
	_Atomic uint64_t ext_ok, ext_fail;
};

static int64_t clock_s(void *arg)
{
	struct timespec ts;

	(void)arg;
	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec;
}

/* TS 33.102 C.1.1.3: SEQ from a clock; tick 0 at UDM_SQN_EPOCH_S so that SIMs coming from
 * the counter-based single-node scheme (SEQ = a few authentications) are within Delta. */
static uint64_t now_tick(const struct udm_sqn_gen *g)
{
	int64_t s = g->now_s(g->now_arg);

	return s <= UDM_SQN_EPOCH_S ? 0 : (uint64_t)(s - UDM_SQN_EPOCH_S) / UDM_SQN_TICK_S;
}

static uint64_t max3(uint64_t a, uint64_t b, uint64_t c)
{
	uint64_t m = a > b ? a : b;

	return m > c ? m : c;
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a + b > SEQ_MAX + 1 ? SEQ_MAX + 1 : a + b;
}

/* One extension attempt: lease = max(wanted SEQ, now) + L, committed or not. The clock is a
 * reason of its own: SEQ >= now, so an idle node whose lease the clock has passed would
 * refuse its next vector. */
static void extend(struct udm_sqn_gen *g, unsigned *retry_ms)
{
	uint64_t want = atomic_load(&g->want), lease = atomic_load(&g->lease), now = now_tick(g);
	uint64_t target;
	int rc;

	if (now > want)
		want = now;
	if (want + g->len / 2 < lease || atomic_load(&g->fenced)) {
		*retry_ms = 0;
		return;
	}
	target = add_sat(want, g->len);
	if (target <= lease) {   /* SEQ space exhausted: nothing to gain */
		*retry_ms = 0;
		return;
	}
	rc = g->ops->extend(g->ops_arg, g->ind, target, g->owner);
	if (rc == 0) {
		atomic_store(&g->lease, target);
		atomic_fetch_add_explicit(&g->ext_ok, 1, memory_order_relaxed);
		*retry_ms = 0;
		log_debug("udm", "sqn ind=%u: lease extended to %llu", g->ind,
			  (unsigned long long)target);
		return;
	}
	atomic_fetch_add_explicit(&g->ext_fail, 1, memory_order_relaxed);
	if (rc == -ESTALE) {
		/* Another generator took the slot (udm_sqn_store_ops): never extend again; vectors
		 * stop at the lease we hold, below its floor. */
		atomic_store(&g->fenced, true);
		*retry_ms = 0;
		log_error("udm", "sqn ind=%u: another node took this IND slot; vectors stop at SEQ "
			  "%llu (two nodes configured with one slot?)", g->ind,
			  (unsigned long long)lease);
		return;
	}
	*retry_ms = *retry_ms ? (*retry_ms * 2 > RETRY_MS_MAX ? RETRY_MS_MAX : *retry_ms * 2)
			      : RETRY_MS_MIN;
	log_rl(LOGL_ERROR, "udm", NULL, "sqn ind=%u: lease extension to %llu not committed "
	       "(rc=%d), retry in %u ms; vectors stop at SEQ %llu", g->ind,
	       (unsigned long long)target, rc, *retry_ms, (unsigned long long)lease);
}

/* Wait for a kick or CLOCK_CHECK_MS (the clock's own advance), or after a failure for the
 * retry delay (kicks during it do not hammer a failing store). */
static void wait_kick(struct udm_sqn_gen *g, unsigned retry_ms)
{
	bool kicks = retry_ms == 0;
	unsigned ms = kicks ? CLOCK_CHECK_MS : retry_ms;
	struct timespec dl;

	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_sec += ms / 1000;
	dl.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (dl.tv_nsec >= 1000000000L) {
		dl.tv_sec++;
		dl.tv_nsec -= 1000000000L;
	}
	while (!atomic_load(&g->stop)) {
		if (sem_timedwait(&g->sem, &dl) == 0) {
			if (kicks)
				return;
		} else if (errno == ETIMEDOUT) {
			return;
		}
	}
}

static void *extender(void *arg)
{
	struct udm_sqn_gen *g = arg;
	unsigned retry_ms = 0;

	for (;;) {
		wait_kick(g, retry_ms);
		if (atomic_load(&g->stop))
			break;
		atomic_store(&g->kicked, false);
		extend(g, &retry_ms);
	}
	return NULL;
}

static void kick(struct udm_sqn_gen *g, uint64_t seq)
{
	if (seq > atomic_load_explicit(&g->want, memory_order_relaxed))
		atomic_store(&g->want, seq);
	if (!atomic_exchange(&g->kicked, true))
		sem_post(&g->sem);
}

int udm_sqn_gen_next(struct udm_sqn_gen *g, uint64_t sqn_he, uint64_t *sqn)
{
	uint64_t now = now_tick(g), last1 = SEQ_OF(sqn_he) + 1, seq;
	uint64_t lease = atomic_load_explicit(&g->lease, memory_order_acquire);

	/* Only the subscriber's own run-ahead is bounded: the floor is bounded by the lease. */
	if (last1 > now + UDM_SQN_AHEAD_MAX) {
		atomic_fetch_add_explicit(&g->refused_ahead, 1, memory_order_relaxed);
		log_rl(LOGL_ERROR, "udm", NULL, "sqn ind=%u: SEQ %llu is more than %llu ticks ahead "
		       "of the clock (%llu): vector refused", g->ind, (unsigned long long)last1,
		       (unsigned long long)UDM_SQN_AHEAD_MAX, (unsigned long long)now);
		return -ERANGE;
	}
	/* TS 33.102 C.3.3: strictly increasing per subscriber, never behind the clock. */
	seq = max3(last1, now, g->floor);
	if (seq > SEQ_MAX)
		return -EOVERFLOW;
	if (seq + g->len / 2 >= lease)
		kick(g, seq);
	if (seq >= lease) {
		atomic_fetch_add_explicit(&g->refused_lease, 1, memory_order_relaxed);
		if (!g->refusing)
			log_error("udm", "sqn ind=%u: SEQ %llu would reach the committed lease %llu: "
				  "vectors refused until the store takes the extension", g->ind,
				  (unsigned long long)seq, (unsigned long long)lease);
		g->refusing = true;
		return -EAGAIN;
	}
	if (g->refusing)
		log_info("udm", "sqn ind=%u: lease %llu committed, vectors issued again", g->ind,
			 (unsigned long long)lease);
	g->refusing = false;
	atomic_fetch_add_explicit(&g->issued, 1, memory_order_relaxed);
	*sqn = seq << CRYPTO_SQN_IND_BITS | g->ind;
	return 0;
}

int udm_sqn_gen_resync(struct udm_sqn_gen *g, uint64_t sqn_he, uint64_t sqn_ms, uint64_t *keep)
{
	uint64_t he = SEQ_OF(sqn_he), ms = SEQ_OF(sqn_ms), next;

	/* TS 33.102 6.3.5: SQN_MS is taken when the HE is behind it. When the HE is ahead, going
	 * back would re-issue SEQs this node (or its previous run) may have used: keep it. */
	*keep = sqn_he;
	if (ms > he) {
		*keep = sqn_ms & CRYPTO_SQN_MASK;
		he = ms;
		atomic_fetch_add_explicit(&g->resync_adopted, 1, memory_order_relaxed);
	}
	/* The HE's check of 6.3.5 ("would the next SQN be accepted?") against C.2.1's Delta. */
	next = max3(he + 1, now_tick(g), g->floor);
	/* The next vector follows at once (TS 33.501 6.1.3.3.2): start the extension it needs
	 * now (within bounds: udm_sqn_gen_next refuses what runs too far ahead). */
	if (next + g->len / 2 >= atomic_load(&g->lease) && he + 1 <= now_tick(g) + UDM_SQN_AHEAD_MAX)
		kick(g, next);
	if (next - ms > CRYPTO_SQN_DELTA) {
		atomic_fetch_add_explicit(&g->resync_unfixable, 1, memory_order_relaxed);
		return -ERANGE;
	}
	return 0;
}

static void gen_free(struct udm_sqn_gen *g)
{
	sem_destroy(&g->sem);
	free(g);
}

int udm_sqn_cluster(struct udm *udm, const struct udm_sqn_cluster_conf *conf,
		    const struct udm_sqn_store_ops *ops, void *arg)
{
	struct udm_sqn_gen *g;
	uint64_t old = 0, lease;
	int rc;

	if (!udm || !conf || !ops || !ops->read || !ops->take || !ops->extend ||
	    conf->ind >= CRYPTO_SQN_IND_COUNT || conf->lease_ticks == 1 ||
	    conf->lease_ticks > UDM_SQN_LEASE_MAX)
		return -EINVAL;
	if (udm->sqn_gen || udm->sqn_stopped)
		return -EALREADY;
	g = calloc(1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	if (sem_init(&g->sem, 0, 0) < 0) {
		free(g);
		return -errno;
	}
	g->ind = conf->ind;
	g->len = conf->lease_ticks ? conf->lease_ticks : UDM_SQN_LEASE_DEFAULT;
	g->now_s = conf->now_s ? conf->now_s : clock_s;
	g->now_arg = conf->now_arg;
	g->ops = ops;
	g->ops_arg = arg;
	if (getrandom(&g->owner, sizeof(g->owner), 0) != sizeof(g->owner)) {
		rc = -EIO;
		goto fail;
	}
	for (int i = 0;; i++) {
		rc = ops->read(arg, g->ind, &old);
		if (rc < 0) {
			log_error("udm", "sqn ind=%u: cannot read the SQN lease from the store (rc=%d): "
				  "this node must not issue vectors", g->ind, rc);
			goto fail;
		}
		/* Everything a previous run of this slot issued is below its committed lease. */
		g->floor = old > now_tick(g) ? old : now_tick(g);
		if (g->floor + g->len > SEQ_MAX + 1) {
			log_error("udm", "sqn ind=%u: SEQ space exhausted (lease %llu)", g->ind,
				  (unsigned long long)old);
			rc = -EOVERFLOW;
			goto fail;
		}
		lease = g->floor + g->len;
		/* Compare-and-set: a lease extended since the read (by a generator still alive on
		 * this slot) would be above our floor. */
		rc = ops->take(arg, g->ind, old, lease, g->owner);
		if (rc != -EAGAIN)
			break;
		if (i + 1 == TAKE_TRIES) {
			rc = -EBUSY;
			break;
		}
	}
	if (rc < 0) {
		log_error("udm", "sqn ind=%u: cannot commit the SQN lease %llu to the store (rc=%d): "
			  "this node must not issue vectors", g->ind, (unsigned long long)lease, rc);
		goto fail;
	}
	atomic_store(&g->lease, lease);
	atomic_store(&g->want, g->floor);
	rc = -pthread_create(&g->thread, NULL, extender, g);
	if (rc < 0)
		goto fail;
	udm->sqn_gen = g;
	log_info("udm", "sqn: cluster mode ind=%u floor=%llu lease=%llu (old lease %llu, L=%llu)",
		 g->ind, (unsigned long long)g->floor, (unsigned long long)lease,
		 (unsigned long long)old, (unsigned long long)g->len);
	return 0;
fail:
	gen_free(g);
	return rc;
}

void udm_sqn_cluster_stop(struct udm *udm)
{
	struct udm_sqn_gen *g = udm ? udm->sqn_gen : NULL;

	if (!g)
		return;
	atomic_store(&g->stop, true);
	sem_post(&g->sem);
	pthread_join(g->thread, NULL);
	udm->sqn_gen = NULL;
	udm->sqn_stopped = true;
	gen_free(g);
}

int udm_sqn_stats(const struct udm *udm, struct udm_sqn_stats *st)
{
	struct udm_sqn_gen *g = udm ? udm->sqn_gen : NULL;

	if (!g || !st)
		return -ENOENT;
	memset(st, 0, sizeof(*st));
	st->issued = atomic_load_explicit(&g->issued, memory_order_relaxed);
	st->refused_lease = atomic_load_explicit(&g->refused_lease, memory_order_relaxed);
	st->refused_ahead = atomic_load_explicit(&g->refused_ahead, memory_order_relaxed);
	st->resync_adopted = atomic_load_explicit(&g->resync_adopted, memory_order_relaxed);
	st->resync_unfixable = atomic_load_explicit(&g->resync_unfixable, memory_order_relaxed);
	st->ext_ok = atomic_load_explicit(&g->ext_ok, memory_order_relaxed);
	st->ext_fail = atomic_load_explicit(&g->ext_fail, memory_order_relaxed);
	st->fenced = atomic_load(&g->fenced);
	st->floor = g->floor;
	st->lease = atomic_load(&g->lease);
	st->ind = g->ind;
	return 0;
}
