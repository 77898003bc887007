/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * core_feed - the composition root's half of the cluster's change feed (db/feed.h): what
 * another node wrote to subscribers and policies is applied to this node's UDM (and from
 * there to its attached UEs, like an API write here), and this node's row (gNBs, UEs,
 * sessions) is published for every node's web API. Cluster mode only.
 */
#ifndef SOLOCORE_CORE_FEED_H
#define SOLOCORE_CORE_FEED_H

#include <stdint.h>

struct amf;
struct conf;
struct db;
struct ev_loop;
struct smf;
struct udm;

struct core_feed_env {
	struct udm *udm;
	struct amf *amf;     /* may be NULL */
	struct smf *smf;     /* may be NULL */
	/* After a subscriber's row / a policy was applied to the UDM (core.c's change ops). */
	void (*subscriber)(void *arg, const char *supi);
	void (*policy)(void *arg, const char *name);
	/* The saved network settings changed (once per batch of setting changes). */
	void (*settings)(void *arg);
	void *arg;
};

/* Open the feed at its current position (before the UDM loads the subscribers). */
int core_feed_open(struct db *db, const struct conf *c);
/* Apply what is queued from now on, on loop; publish this node's row every 2 s. 0 or -errno. */
int core_feed_attach(struct ev_loop *loop, const struct core_feed_env *env);
/* Stop applying (before the UDM and the AMF go). Safe when never attached. */
void core_feed_detach(void);
/* Detach, then close the feed (its thread and connection). Safe when never opened. */
void core_feed_close(void);

#endif
