/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * core_feed - apply the cluster's changes to this node (core_feed.h).
 *
 * Security rule: a SIM deleted on any node must stop authenticating here. The feed thread
 * delivers the delete within DB_FEED_POLL_MS of its commit (plus the time the cluster
 * needs to answer), and udm_remove() makes the next authentication of that SUPI fail.
 *
 * SQN: a subscriber's SQN in this UDM never goes back (udm.h cluster SQN): a row from the
 * feed carries the SQN some node last wrote behind, which may be older than what this node
 * issued, so the higher of the two is kept.
 */
#include "core_feed.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "amf/amf.h"
#include "common/conf.h"
#include "common/ev.h"
#include "common/log.h"
#include "db/feed.h"
#include "smf/smf.h"
#include "udm/udm.h"

#define DRAIN_STEP 256   /* items per loop pass: NGAP and NAS go on between steps */

static struct {
	struct db_feed *feed;
	struct ev_loop *loop;
	struct core_feed_env env;
	bool watching;
	struct ev_timer drain_tmr, pub_tmr;
	struct db_node_row row;
	uint64_t n_sub, n_gone, n_pol, n_failed;
	bool settings_changed;
} cf;

int core_feed_open(struct db *db, const struct conf *c)
{
	int rc = db_feed_open(db, c->cluster.node_id, &cf.feed);

	if (rc < 0)
		return rc;
	/* The node's own row: where it is, where its API is. */
	snprintf(cf.row.addr, sizeof(cf.row.addr), "%s", c->cluster.address);
	char host[CONF_STR];
	snprintf(host, sizeof(host), "%s", c->web.listen);
	if (!host[0] || !strcmp(host, "0.0.0.0") || !strcmp(host, "::")) {
		snprintf(host, sizeof(host), "%s", c->cluster.address);
		char *colon = strrchr(host, ':');
		if (colon)
			*colon = 0;
	}
	if (c->web.port && strlen(host) < DB_NODE_API_MAX - 16)
		snprintf(cf.row.api, sizeof(cf.row.api), "%s://%.*s:%u", c->web.tls.cert[0] ? "https" : "http",
			 DB_NODE_API_MAX - 16, host, c->web.port);
	return 0;
}

static void apply_sub(struct db_feed_item *it)
{
	const char *supi = it->key;
	int rc;

	if (it->gone) {
		rc = udm_remove(cf.env.udm, supi);
		if (rc == 0) {
			cf.n_gone++;
			log_info("core", "cluster: subscriber %s was deleted on another node: removed here", supi);
		}
		return;
	}
	uint64_t cur;
	if (udm_get_sqn(cf.env.udm, supi, &cur) == 0 && cur > it->sub.sqn)
		it->sub.sqn = cur;
	rc = udm_add_db_policy(cf.env.udm, &it->sub, it->sub.policy[0] && it->has_pol ? &it->pol : NULL);
	if (rc < 0) {
		cf.n_failed++;
		if (rc == -ENOSPC)
			log_error("core", "cluster: subscriber %s added on another node does not fit here: "
				  "the UDM store is full (%u): restart this node to size it for the database",
				  supi, udm_capacity(cf.env.udm));
		else
			log_error("core", "cluster: subscriber %s changed on another node, cannot apply it "
				  "here: %s", supi, strerror(-rc));
		/* Never keep serving an old copy of a row we could not take (its K may be gone). */
		udm_remove(cf.env.udm, supi);
		return;
	}
	cf.n_sub++;
	if (cf.env.subscriber)
		cf.env.subscriber(cf.env.arg, supi);
}

static void apply_pol(struct db_feed_item *it)
{
	int rc;

	if (it->gone) {
		rc = udm_policy_delete(cf.env.udm, it->key);
		if (rc < 0 && rc != -ENOENT)
			log_warn("core", "cluster: policy %s was deleted on another node; here: %s", it->key,
				 strerror(-rc));
		return;
	}
	rc = udm_policy_update(cf.env.udm, &it->pol);
	if (rc < 0) {
		cf.n_failed++;
		log_error("core", "cluster: policy %s changed on another node, cannot apply it here: %s",
			  it->key, strerror(-rc));
		return;
	}
	cf.n_pol++;
	if (rc > 0 && cf.env.policy)
		cf.env.policy(cf.env.arg, it->key);
}

static void apply(struct db_feed_item *it)
{
	switch (it->kind) {
	case DB_FEED_SUBSCRIBER:
		apply_sub(it);
		break;
	case DB_FEED_POLICY:
		apply_pol(it);
		break;
	case DB_FEED_SETTING:
		cf.settings_changed = true;   /* read again once the batch is applied */
		break;
	case DB_FEED_RESYNC_BEGIN:
		log_warn("core", "cluster: reloading every subscriber and policy from the cluster");
		break;
	case DB_FEED_RESYNC_END: {
		int n = udm_sweep(cf.env.udm, (const char (*)[UDM_SUPI_MAX])it->supis, it->n_supis);
		log_info("core", "cluster: reload done: %zu subscribers, %d removed here", it->n_supis,
			 n < 0 ? 0 : n);
		break;
	}
	}
	free(it->value);
	free(it->supis);
	explicit_bzero(it, sizeof(*it));
}

static void drain(void)
{
	struct db_feed_item it;
	uint64_t before = cf.n_sub + cf.n_gone + cf.n_pol;
	int rc = 0;

	for (unsigned i = 0; i < DRAIN_STEP && (rc = db_feed_take(cf.feed, &it)) == 1; i++)
		apply(&it);
	explicit_bzero(&it, sizeof(it));
	if (cf.settings_changed && rc != 1) {
		cf.settings_changed = false;
		if (cf.env.settings)
			cf.env.settings(cf.env.arg);
	}
	if (rc == 1)   /* more queued: go on at the next pass */
		ev_timer_start(cf.loop, &cf.drain_tmr, 0);
	uint64_t done = cf.n_sub + cf.n_gone + cf.n_pol - before;
	if (done)
		log_debug("core", "cluster: %llu change(s) from the cluster applied",
			  (unsigned long long)done);
}

static void on_fd(struct ev_loop *loop, int fd, uint32_t events, void *arg)
{
	(void)loop;
	(void)fd;
	(void)events;
	(void)arg;
	drain();
}

static void on_drain(struct ev_loop *loop, struct ev_timer *t)
{
	(void)loop;
	(void)t;
	drain();
}

struct gnb_json {
	char *p;
	size_t left;
	bool first;
};

/* RAN node names are PrintableString (TS 38.413 9.3.1.5): nothing to escape in JSON; what
 * is not printable there becomes '?'. */
static void clean(char *dst, size_t n, const char *src)
{
	size_t i = 0;

	for (; src && src[i] && i + 1 < n; i++) {
		char ch = src[i];
		dst[i] = (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') ||
			 strchr(" '()+,-./:=?", ch) ? ch : '?';
	}
	dst[i] = 0;
}

static int gnb_one(const struct amf_gnb_info *g, void *arg)
{
	struct gnb_json *j = arg;
	char name[160], addr[INET6_ADDRSTRLEN + 8] = "", one[320];

	if (g->state != AMF_GNB_READY)
		return 0;
	clean(name, sizeof(name), g->name);
	if (g->peer && g->peer->sa_family == AF_INET) {
		const struct sockaddr_in *sin = (const void *)g->peer;
		char ip[INET_ADDRSTRLEN];
		inet_ntop(AF_INET, &sin->sin_addr, ip, sizeof(ip));
		snprintf(addr, sizeof(addr), "%s:%u", ip, ntohs(sin->sin_port));
	} else if (g->peer && g->peer->sa_family == AF_INET6) {
		const struct sockaddr_in6 *sin6 = (const void *)g->peer;
		char ip[INET6_ADDRSTRLEN];
		inet_ntop(AF_INET6, &sin6->sin6_addr, ip, sizeof(ip));
		snprintf(addr, sizeof(addr), "[%s]:%u", ip, ntohs(sin6->sin6_port));
	}
	int n = snprintf(one, sizeof(one), "%s{\"name\":\"%s\",\"global_id\":\"%02x%02x%02x-%x/%u\","
			 "\"addr\":\"%s\",\"ues\":%u}", j->first ? "" : ",", name, g->plmn[0], g->plmn[1],
			 g->plmn[2], g->gnb_id, g->gnb_id_bits, addr, g->n_ues);
	if (n < 0 || (size_t)n + 2 > j->left)
		return 1;   /* cut at a whole entry */
	memcpy(j->p, one, (size_t)n);
	j->p += n;
	j->left -= (size_t)n;
	j->first = false;
	return 0;
}

static void on_publish(struct ev_loop *loop, struct ev_timer *t)
{
	struct db_node_row *r = &cf.row;

	r->gnbs = r->ues = r->sessions = 0;
	snprintf(r->gnb_json, sizeof(r->gnb_json), "[]");
	if (cf.env.amf) {
		struct amf_stats as;
		struct gnb_json j = { r->gnb_json + 1, sizeof(r->gnb_json) - 1, true };

		amf_get_stats(cf.env.amf, &as);
		r->gnbs = (uint32_t)as.gnbs;
		r->ues = (uint32_t)as.ues;
		amf_gnb_walk(cf.env.amf, gnb_one, &j);
		memcpy(j.p, "]", 2);
	}
	if (cf.env.smf) {
		struct smf_stats ss;
		smf_get_stats(cf.env.smf, &ss);
		r->sessions = (uint32_t)ss.sessions;
	}
	db_feed_publish(cf.feed, r);
	ev_timer_start(loop, t, DB_FEED_PUBLISH_MS);
}

int core_feed_attach(struct ev_loop *loop, const struct core_feed_env *env)
{
	int rc;

	if (!cf.feed)
		return 0;
	cf.loop = loop;
	cf.env = *env;
	ev_timer_init(&cf.drain_tmr, on_drain, NULL);
	ev_timer_init(&cf.pub_tmr, on_publish, NULL);
	rc = ev_fd_add(loop, db_feed_fd(cf.feed), EV_READ, on_fd, NULL);
	if (rc < 0)
		return rc;
	cf.watching = true;
	ev_timer_start(loop, &cf.drain_tmr, 0);   /* what was queued while the core started */
	ev_timer_start(loop, &cf.pub_tmr, 0);
	return 0;
}

void core_feed_detach(void)
{
	if (cf.loop) {
		ev_timer_stop(cf.loop, &cf.drain_tmr);
		ev_timer_stop(cf.loop, &cf.pub_tmr);
		if (cf.watching)
			ev_fd_del(cf.loop, db_feed_fd(cf.feed));
	}
	cf.loop = NULL;
	cf.watching = false;
	memset(&cf.env, 0, sizeof(cf.env));
}

void core_feed_close(void)
{
	core_feed_detach();
	db_feed_close(cf.feed);
	memset(&cf, 0, sizeof(cf));
}
