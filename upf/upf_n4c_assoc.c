/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * The SMF's N4 client: the association of each peer UPF (TS 29.244 6.2.6) as one state table
 * (state x event -> action), its heartbeats (6.2.2) and what their loss or another Recovery
 * Time Stamp means for its sessions (TS 23.007 19A, TS 23.527 4.3.2). Transactions, the
 * socket and the requests of the UPF are upf_n4c.c; the sessions upf_n4c_sess.c.
 *
 * Unanswered heartbeats are a path failure, not a restart (TS 29.244 6.2.2; TS 23.007 19A):
 * only another Recovery Time Stamp (Heartbeat, Association Setup) proves the UPF lost its
 * sessions. So AE_PATH_FAIL makes the peer unreachable (AS_UNREACH): no new sessions, its
 * sessions kept, what the SMF changes meanwhile held; heartbeats go on. It comes back with
 * the same stamp (AE_RESUME): the held requests go and nothing else is re-sent (it kept what
 * it had, 6.2.6.2.2). With another stamp (AE_RESTART) or after path_release_ms
 * (AE_PATH_EXPIRED) the sessions are released (TS 23.527 4.3.2: the SMF releases the PDU
 * sessions of a restarted UPF).
 */

#include "common/log.h"
#include "upf/upf_n4c_int.h"

typedef enum n4c_as_state (*as_action)(struct upf_n4c *c, struct upf_n4c_p *p);

static enum n4c_as_state act_setup(struct upf_n4c *c, struct upf_n4c_p *p);
static enum n4c_as_state act_up(struct upf_n4c *c, struct upf_n4c_p *p);
static enum n4c_as_state act_retry(struct upf_n4c *c, struct upf_n4c_p *p);
static enum n4c_as_state act_lost(struct upf_n4c *c, struct upf_n4c_p *p);
static enum n4c_as_state act_released(struct upf_n4c *c, struct upf_n4c_p *p);
static enum n4c_as_state act_resetup(struct upf_n4c *c, struct upf_n4c_p *p);
static enum n4c_as_state act_unreach(struct upf_n4c *c, struct upf_n4c_p *p);
static enum n4c_as_state act_resume(struct upf_n4c *c, struct upf_n4c_p *p);
static enum n4c_as_state act_expire(struct upf_n4c *c, struct upf_n4c_p *p);

/* NULL: the event means nothing in that state (a late answer, a timer of the old state). */
static const as_action as_tab[AS__N][AE__N] = {
	[AS_IDLE] = { [AE_START] = act_setup, [AE_THEIR_SETUP] = act_up },
	[AS_SETUP] = { [AE_SETUP_OK] = act_up, [AE_SETUP_FAIL] = act_retry, [AE_RELEASED] = act_retry,
		       [AE_THEIR_SETUP] = act_up },
	[AS_UP] = { [AE_PATH_FAIL] = act_unreach, [AE_NO_ASSOC] = act_lost, [AE_RESTART] = act_lost,
		    [AE_RELEASED] = act_released, [AE_THEIR_SETUP] = act_resetup },
	[AS_UNREACH] = { [AE_RESUME] = act_resume, [AE_PATH_EXPIRED] = act_expire, [AE_NO_ASSOC] = act_lost,
			 [AE_RESTART] = act_lost, [AE_RELEASED] = act_released, [AE_THEIR_SETUP] = act_resetup },
};

void n4c_as_dispatch(struct upf_n4c *c, struct upf_n4c_p *p, enum n4c_as_event ev)
{
	as_action a = as_tab[p->st][ev];

	if (a)
		p->st = a(c, p);
}

static void peer_timer_start(struct upf_n4c *c, struct upf_n4c_p *p)
{
	ev_timer_start(c->p.loop, &p->timer, c->p.heartbeat_ms);
}

static enum n4c_as_state act_setup(struct upf_n4c *c, struct upf_n4c_p *p)
{
	if (p->setup_txn == N4C_NONE) {
		p->setup_txn = n4c_txn_new(c, TXN_SETUP, p->idx);
		if (p->setup_txn == N4C_NONE)
			return act_retry(c, p);
		n4c_txn_send(c, p->setup_txn);
	}
	return AS_SETUP;
}

/* Setup answered (c->in: our request's response or their request) */
static enum n4c_as_state act_up(struct upf_n4c *c, struct upf_n4c_p *p)
{
	char b[64];

	n4c_txn_free(c, p->setup_txn);   /* theirs came first: ours is not needed */
	p->setup_txn = N4C_NONE;
	p->recovery = c->in.node.recovery;
	n4c_sess_features(c, p);   /* FTUP: CHOOSE from now on (issue 32) */
	c->cnt[UPF_N4C_ASSOC_UP]++;
	log_info(N4C_MOD, "%s: PFCP association up, recovery time stamp %u", n4c_peer_str(p, b, sizeof(b)),
		 p->recovery);
	peer_timer_start(c, p);
	if (p->pp.on_state)
		p->pp.on_state(p->pp.cb_arg, true);
	if (p->resetup) {
		p->resetup = false;
		p->st = AS_UP;   /* what this action returns: the held requests go now */
		n4c_sess_peer_resume(c, p);
	}
	return AS_UP;
}

static enum n4c_as_state act_retry(struct upf_n4c *c, struct upf_n4c_p *p)
{
	if (p->resetup) {   /* the re-setup after Cause 72 failed: what was held is lost */
		p->resetup = false;
		p->st = AS_IDLE;
		n4c_sess_peer_lost(c, p, true);
	}
	peer_timer_start(c, p);
	return AS_IDLE;
}

static void lose(struct upf_n4c *c, struct upf_n4c_p *p, const char *why)
{
	char b[64];
	uint32_t n = p->nsess;
	bool unreach = p->st == AS_UNREACH;

	if (!unreach)   /* counted once an outage: at the path failure already */
		c->cnt[UPF_N4C_PEER_LOST]++;
	ev_timer_stop(c->p.loop, &p->path_timer);
	p->path_released = false;
	n4c_txn_free(c, p->hb_txn);
	p->hb_txn = N4C_NONE;
	log_warn(N4C_MOD, "%s: lost (%s), %u sessions released", n4c_peer_str(p, b, sizeof(b)), why, n);
	/* TS 23.007 19A / TS 29.244 6.2.2: its sessions are gone */
	n4c_sess_peer_lost(c, p, true);
	if (p->pp.on_state && !unreach)   /* told at the path failure already */
		p->pp.on_state(p->pp.cb_arg, false);
}

/* Another Recovery Time Stamp, or Cause 72: the UPF holds none of our sessions. They are
 * released (the SMF: #39, TS 23.527 4.3.2 / 4.4) and the association is set up again at
 * once; meanwhile the peer counts as ready (resetup): a re-establishment that comes now is
 * held and sent once the setup is answered, not refused just before it is (issue 32), and
 * lost if the setup fails (bounded by T1 x (N1 + 1)). */
static enum n4c_as_state act_lost(struct upf_n4c *c, struct upf_n4c_p *p)
{
	p->resetup = true;
	lose(c, p, p->why);
	return act_setup(c, p);
}

/* TS 29.244 6.2.2: heartbeats unanswered, a path failure: the peer may well be alive and
 * forwarding (TS 23.007 19A: only a new Recovery Time Stamp tells it lost its sessions). */
static enum n4c_as_state act_unreach(struct upf_n4c *c, struct upf_n4c_p *p)
{
	char b[64];

	c->cnt[UPF_N4C_PEER_LOST]++;
	log_warn(N4C_MOD, "%s: unreachable (%s): %u sessions kept for %u ms, no new ones placed on it",
		 n4c_peer_str(p, b, sizeof(b)), p->why, p->nsess, c->p.path_release_ms);
	p->path_released = false;
	ev_timer_start(c->p.loop, &p->path_timer, c->p.path_release_ms);
	peer_timer_start(c, p);   /* heartbeats go on: the answer ends the outage */
	if (p->pp.on_state)
		p->pp.on_state(p->pp.cb_arg, false);
	return AS_UNREACH;
}

/* It answers again with the Recovery Time Stamp of this association: it kept our sessions
 * (TS 29.244 6.2.2, 6.2.6.2.2), so nothing it has is sent again; only what was held while it
 * was unreachable goes now (and, after path_release_ms, the deletion of what the SMF
 * released meanwhile). */
static enum n4c_as_state act_resume(struct upf_n4c *c, struct upf_n4c_p *p)
{
	char b[64];

	ev_timer_stop(c->p.loop, &p->path_timer);
	c->cnt[UPF_N4C_PEER_RESUMED]++;
	log_info(N4C_MOD, "%s: reachable again, same recovery time stamp %u: %u sessions kept%s",
		 n4c_peer_str(p, b, sizeof(b)), p->recovery, p->nsess,
		 p->path_released ? " (those released after the path release timer deleted)" : "");
	p->path_released = false;
	p->st = AS_UP;   /* what this action returns: the held requests go now */
	if (p->pp.on_state)
		p->pp.on_state(p->pp.cb_arg, true);
	n4c_sess_peer_resume(c, p);
	return AS_UP;
}

/* Unreachable for path_release_ms (upf.n4_path_release_timer): the SMF releases its sessions
 * (TS 23.007 19A: after a configurable time); the peer stays unreachable, heartbeats go on. */
static enum n4c_as_state act_expire(struct upf_n4c *c, struct upf_n4c_p *p)
{
	char b[64];

	log_warn(N4C_MOD, "%s: unreachable for %u ms: its %u sessions released", n4c_peer_str(p, b, sizeof(b)),
		 c->p.path_release_ms, p->nsess);
	p->path_released = true;
	n4c_sess_peer_expire(c, p);
	return AS_UNREACH;
}

static enum n4c_as_state act_released(struct upf_n4c *c, struct upf_n4c_p *p)
{
	lose(c, p, "association released by the UPF");
	return act_retry(c, p);
}

/* The UPF sets the association up again while we hold one: the same Recovery Time Stamp
 * keeps the sessions, another means it restarted (TS 29.244 6.2.6.2.2). */
static enum n4c_as_state act_resetup(struct upf_n4c *c, struct upf_n4c_p *p)
{
	if (!(c->in.node.has & PFCP_N_RECOVERY) || c->in.node.recovery == p->recovery)
		return p->st == AS_UNREACH ? act_resume(c, p) : AS_UP;
	p->resetup = true;   /* sessions being established now go once it is up (act_up) */
	lose(c, p, "restarted: new recovery time stamp");
	return act_up(c, p);
}

static void on_path_timer(struct ev_loop *loop, struct ev_timer *tm)
{
	struct upf_n4c_p *p = tm->arg;

	(void)loop;
	n4c_as_dispatch(p->c, p, AE_PATH_EXPIRED);
}

static void on_peer_timer(struct ev_loop *loop, struct ev_timer *tm)
{
	struct upf_n4c_p *p = tm->arg;
	struct upf_n4c *c = p->c;

	(void)loop;
	if (p->st != AS_UP && p->st != AS_UNREACH) {
		n4c_as_dispatch(c, p, AE_START);
		return;
	}
	peer_timer_start(c, p);
	if (p->hb_txn != N4C_NONE)
		return;   /* the last one is still being retransmitted */
	p->hb_txn = n4c_txn_new(c, TXN_HB, p->idx);
	if (p->hb_txn != N4C_NONE)
		n4c_txn_send(c, p->hb_txn);
}

void n4c_as_init(struct upf_n4c_p *p)
{
	ev_timer_init(&p->timer, on_peer_timer, p);
	ev_timer_init(&p->path_timer, on_path_timer, p);
	n4c_as_dispatch(p->c, p, AE_START);
}
