/* SPDX-License-Identifier: AGPL-3.0-or-later */
/* The running core: each module's object, owned by its start/stop pair. */
#include "core.h"
#include "core_live.h"
#include "core_feed.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "amf/amf.h"
#include "ausf/ausf.h"
#include "common/conf.h"
#include "common/ev.h"
#include "common/log.h"
#include "db/cluster.h"
#include "db/db.h"
#include "smf/smf.h"
#include "udm/udm.h"
#include "upf/upf.h"
#include "web/web.h"

/* The replicated database's name on the dqlite nodes (subscribers, SQN leases) */
#define CORE_CLUSTER_DB DB_CLUSTER_NAME

static struct {
	struct cluster *cluster;        /* cluster: section: this node's dqlite node */
	struct db *db;
	struct db_writer *writer;
	struct udm *udm;
	struct udm_sqn_dqlite *sqn_store;  /* cluster: the SQN leases (udm.h) */
	struct ausf *ausf;
	struct upf *upf;
	struct upf_n4c *n4c;            /* upf.mode pfcp: the SMF's PFCP client */
	struct smf *smf;
	struct amf *amf;
	struct web *web;
	/* The configuration every module runs with: the file's, the settings saved from the
	 * web API on top (db_start). Live settings changes are written into it. */
	struct conf conf;
	bool have_conf;
	const struct conf *file_conf;
	uint32_t ue_net;                /* the UPF's UE prefix, network order; plen 0: no UPF */
	uint8_t ue_plen;
	struct web_settings_env settings;
	struct core_live live;          /* what settings changes reach (core_live.c) */
	/* A policy changed: every attached UE is looked at again, a bounded step per tick
	 * (policy_walk), so a policy of 10^6 subscribers never stalls signalling. */
	struct ev_loop *loop;
	struct ev_timer walk_tmr;
	uint32_t amf_cur, smf_cur;
} core;

/* The effective configuration once db_start has made it. */
static const struct conf *eff(const struct conf *c)
{
	return core.have_conf ? &core.conf : c;
}

/* cluster: the in-process dqlite node, bootstrapped or joined before db/ opens anything
 * (db/cluster.h). Without a cluster: section nothing runs. */
static int cluster_mod_start(struct ev_loop *loop, const struct conf *c)
{
	(void)loop;
	int rc = cluster_start_conf(c, &core.cluster);
	if (rc < 0)
		log_error("core", "cluster: node %llu at %s: %s", (unsigned long long)c->cluster.node_id,
			  c->cluster.address, strerror(-rc));
	return rc;
}

static void cluster_mod_stop(void)
{
	cluster_stop(core.cluster);
	core.cluster = NULL;
}

/* A member restarted from its data dir starts without waiting for a leader (db/cluster.h),
 * so its first open may find none yet: an election takes 5-9 s, and none comes until a
 * majority of the voters runs. Wait for it within the join bound, saying why. */
static int cluster_db_open(void)
{
	const char *addr = cluster_address(core.cluster);
	int waited = 0, rc;

	while ((rc = db_open_dqlite(addr, CORE_CLUSTER_DB, &core.db)) == -EHOSTUNREACH &&
	       waited < CLUSTER_JOIN_TIMEOUT_MS) {
		if (waited % 5000 == 0)
			log_warn("core", "cluster: no leader yet (an election needs a majority of the "
				 "voters running): waiting up to %d s", (CLUSTER_JOIN_TIMEOUT_MS - waited) / 1000);
		nanosleep(&(struct timespec){ 0, 200 * 1000 * 1000 }, NULL);
		waited += 200;
	}
	if (rc == 0 && waited)
		log_info("core", "cluster: a leader after %d ms", waited);
	return rc;
}

static int db_start(struct ev_loop *loop, const struct conf *c)
{
	(void)loop;
	/* In a cluster the database is the replicated one, reached through our own node (its
	 * requests go to the leader); db.path is then unused. */
	int rc = core.cluster ? cluster_db_open() : db_open(c->db.path, &core.db);
	if (rc < 0) {
		log_error("core", "db: cannot open %s=%s: %s", core.cluster ? "dqlite node" : "path",
			  core.cluster ? cluster_address(core.cluster) : c->db.path, strerror(-rc));
		return rc;
	}
	/* A cluster: the change feed's position now, before the UDM loads the rows, so every
	 * write another node commits from here on reaches this node (db/feed.h). */
	if (core.cluster && (rc = core_feed_open(core.db, c)) < 0) {
		log_error("core", "cluster: change feed: %s", strerror(-rc));
		db_close(core.db);
		core.db = NULL;
		return rc;
	}
	/* SQN changes are written behind on the writer thread: the control
	 * thread never waits on fsync (DESIGN.md). */
	/* Queue sized like the UDM store (+25 % + 1024, at most the default
	 * 65536): its index is hit at random, so a queue far larger than the
	 * SIMs provisioned would make pages resident for nothing. */
	int64_t n = db_subscriber_count(core.db);
	struct db_writer_opts wo = { 0 };
	wo.queue_cap = n < 0 || n + n / 4 + 1024 > 65536 ? 65536 : (uint32_t)(n + n / 4 + 1024);
	rc = db_writer_start(core.db, &wo, &core.writer);
	if (rc < 0) {
		log_error("core", "db: writer thread: %s", strerror(-rc));
		core_feed_close();
		db_close(core.db);
		core.db = NULL;
		return rc;
	}
	log_info("core", "db: open %s=%s subscribers=%lld", core.cluster ? "dqlite database" : "path",
		 core.cluster ? CORE_CLUSTER_DB : c->db.path, (long long)db_subscriber_count(core.db));
	/* Network settings saved through the web API override the file's, before any
	 * other module reads the configuration. */
	char names[96];
	core.conf = *c;
	core.file_conf = c;
	core.have_conf = true;
	rc = web_settings_overlay(core.db, &core.conf, names, sizeof(names));
	if (rc > 0)
		log_info("core", "settings from the database (override the configuration file): %s "
			 "(DELETE /api/v1/settings goes back to the file at the next start)", names);
	else if (rc < 0)
		log_error("core", "settings: cannot read the saved settings: %s (the configuration file's values apply)", strerror(-rc));
	return 0;
}

static void db_stop(void)
{
	db_writer_stop(core.writer); /* flushes queued SQNs */
	core.writer = NULL;
	core_feed_close();
	db_close(core.db);
	core.db = NULL;
	conf_free(&core.conf);   /* wipes the SUCI keys of the copy */
	core.have_conf = false;
}

/* Cluster SQNs (udm.h udm_sqn_cluster): IND slot node_id - 1, leases in the replicated
 * database, committed before any vector is issued. */
static int cluster_sqn_start(const struct conf *c)
{
	const char *addrs[UDM_SQN_DQLITE_ADDRS_MAX];
	struct udm_sqn_cluster_conf sc = { .ind = (unsigned)(c->cluster.node_id - 1) };
	unsigned n = cluster_conf_addrs(c, addrs, UDM_SQN_DQLITE_ADDRS_MAX);
	int rc = udm_sqn_dqlite_new(addrs, n, CORE_CLUSTER_DB, 0, &core.sqn_store);

	if (rc == 0)
		rc = udm_sqn_cluster(core.udm, &sc, &udm_sqn_dqlite_ops, core.sqn_store);
	if (rc < 0) {
		log_error("core", "udm: cluster SQN leases (IND slot %u): %s", sc.ind, strerror(-rc));
		udm_sqn_dqlite_free(core.sqn_store);
		core.sqn_store = NULL;
	}
	return rc;
}

static int udm_ausf_start(struct ev_loop *loop, const struct conf *c)
{
	int err = 0;
	(void)loop;
	c = eff(c);
	core.udm = udm_start(c, core.db, core.writer, &err);
	if (!core.udm) {
		log_error("core", "udm: start failed: %s", strerror(-err));
		return err ? err : -EINVAL;
	}
	if (core.cluster && (err = cluster_sqn_start(c)) < 0) {
		udm_free(core.udm);
		core.udm = NULL;
		return err;
	}
	core.ausf = ausf_new(core.udm, &err);
	if (!core.ausf) {
		log_error("core", "ausf: start failed: %s", strerror(-err));
		udm_free(core.udm);
		core.udm = NULL;
		return err ? err : -ENOMEM;
	}
	return 0;
}

static void udm_ausf_stop(void)
{
	ausf_free(core.ausf);
	core.ausf = NULL;
	udm_sqn_cluster_stop(core.udm);   /* its thread uses the store */
	udm_sqn_dqlite_free(core.sqn_store);
	core.sqn_store = NULL;
	udm_free(core.udm);
	core.udm = NULL;
}

uint32_t core_if_ipv4(const char *ifname)
{
	struct ifaddrs *ifa, *i;
	uint32_t a = 0;

	if (getifaddrs(&ifa) < 0)
		return 0;
	for (i = ifa; i && !a; i = i->ifa_next)
		if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET && !strcmp(i->ifa_name, ifname))
			a = ((struct sockaddr_in *)(void *)i->ifa_addr)->sin_addr.s_addr;
	freeifaddrs(ifa);
	return a;
}

/* The N3 address given to gNBs in the UL NG-U UP TNL information. */
uint32_t core_n3_address(const struct conf *c)
{
	struct in_addr in;

	if (c->upf.n3_address[0] && inet_pton(AF_INET, c->upf.n3_address, &in) == 1)
		return in.s_addr;
	if (c->upf.n3_interface[0])
		return core_if_ipv4(c->upf.n3_interface);
	/* No user plane configured: the N2 address when it is a real one. */
	if (inet_pton(AF_INET, c->n2.address, &in) == 1 && in.s_addr != htonl(INADDR_ANY))
		return in.s_addr;
	return htonl(INADDR_LOOPBACK);
}

/* The N3 IPv6 (upf.n3_address6; validated by the config), all zero without one. */
static void core_n3_address6(const struct conf *c, uint8_t out[16])
{
	memset(out, 0, 16);
	if (c->upf.n3_address6[0] && inet_pton(AF_INET6, c->upf.n3_address6, out) != 1)
		memset(out, 0, 16);
}

static void on_upf_lost(void *smf, uint32_t session_id, enum upf_lost_reason why)
{
	smf_upf_session_lost(smf, session_id, (int)why);
}

/* upf.mode pfcp: no UPF here; the SMF drives upf.peers over N4 (TS 29.244) from
 * upf.n4_address (or the N2 address). */
static int upf_pfcp_start(struct ev_loop *loop, const struct conf *c)
{
	struct upf_n4c_params p = { 0 };
	struct in_addr in;
	int rc;

	if (c->upf.n4_address[0] && inet_pton(AF_INET, c->upf.n4_address, &in) == 1)
		p.addr = in.s_addr;
	else if (inet_pton(AF_INET, c->n2.address, &in) == 1 && in.s_addr != htonl(INADDR_ANY))
		p.addr = in.s_addr;
	if (!p.addr) {
		log_error("core", "upf: mode pfcp needs upf.n4_address (our PFCP address and Node ID)");
		return -EINVAL;
	}
	p.loop = loop;
	p.max_sessions = c->upf.max_sessions;
	p.heartbeat_ms = c->upf.heartbeat_interval;
	p.t1_ms = c->upf.pfcp_t1;
	p.n1 = (uint8_t)c->upf.pfcp_n1;
	p.node_id = c->cluster.node_id;   /* CP-allocated TEIDs unique per cluster node (issue 32) */
	p.path_release_ms = c->upf.n4_path_release_timer;
	rc = upf_n4c_open(&p, &core.n4c);
	if (rc < 0) {
		log_error("core", "upf: PFCP on %s:8805: %s", inet_ntoa(in), strerror(-rc));
		return rc;
	}
	for (unsigned i = 0; i < c->upf.n_peers; i++) {
		const struct conf_upf_peer *pe = &c->upf.peers[i];
		struct upf_n4c_peer pp = { .name = pe->name, .on_dl_data = smf_upf_dl_data,
					   .on_session_lost = on_upf_lost, .on_err_ind = smf_upf_err_ind,
					   .cb_arg = core.smf };
		struct upf *u;

		inet_pton(AF_INET, pe->address, &pp.addr);
		inet_pton(AF_INET, pe->n3_address, &pp.n3_addr);
		pp.on_est_done = smf_upf_est_done;   /* the UE's accept after the N4 answer (issue 32) */
		rc = upf_n4c_peer_add(core.n4c, &pp, &u);
		if (rc == 0) {
			rc = smf_add_upf(core.smf, u, pe);
			if (rc < 0)
				upf_close(u);
		}
		if (rc < 0) {
			log_error("core", "upf: peer %s (%s): %s", pe->name, pe->address, strerror(-rc));
			smf_set_upf(core.smf, NULL);
			upf_n4c_close(core.n4c);
			core.n4c = NULL;
			return rc;
		}
		log_info("core", "upf: PFCP peer %s at %s, N3 %s", pe->name, pe->address, pe->n3_address);
	}
	return 0;
}

static int upf_mod_start(struct ev_loop *loop, const struct conf *c)
{
	struct upf_params p = { 0 };
	int rc;

	c = eff(c);
	if (c->upf.mode == CONF_UPF_PFCP)
		return upf_pfcp_start(loop, c);
	if (!c->upf.n3_interface[0]) {
		log_warn("core", "upf: upf.n3_interface not set: no user plane (sessions get addresses, no packets flow)");
		return 0;
	}
	p.n3_ifname = c->upf.n3_interface;
	p.n6_ifname = c->upf.n6_interface[0] ? c->upf.n6_interface : NULL;
	p.xdp_mode = c->upf.xdp_mode == CONF_XDP_NATIVE ? UPF_XDP_NATIVE :
		     c->upf.xdp_mode == CONF_XDP_GENERIC ? UPF_XDP_GENERIC : UPF_XDP_AUTO;
	p.n3_addr = core_n3_address(c);
	core_n3_address6(c, p.n3_addr6);
	/* The UPF has one UE prefix: the smallest covering every DNN pool. */
	rc = conf_ue_supernet(c, &p.ue_pool_addr, &p.ue_pool_plen);
	if (rc < 0 || p.ue_pool_plen < 10) {
		log_error("core", "upf: the DNN pools must lie within one /10 or smaller prefix");
		return -EINVAL;
	}
	/* IPv6 (TS 23.501 5.8.2.2): one prefix covering every pool6, the /64s indexed in it */
	rc = conf_ue_supernet6(c, p.ue_pool6, &p.ue_pool6_plen);
	if (rc == -ENOENT) {
		p.ue_pool6_plen = 0;
	} else if (rc < 0 || p.ue_pool6_plen < 44) {
		log_error("core", "upf: the DNN pool6s must lie within one /44 (or longer) prefix");
		return -EINVAL;
	}
	/* NAT on N6 for the DNNs that ask for it: the N6 address (or upf.nat_address) */
	for (unsigned i = 0; i < c->n_dnns; i++) {
		struct in_addr na;

		if (!c->dnns[i].nat)
			continue;
		if (c->upf.nat_address[0] && inet_pton(AF_INET, c->upf.nat_address, &na) == 1)
			p.nat_addr = na.s_addr;
		else
			p.nat_addr = core_if_ipv4(p.n6_ifname ? p.n6_ifname : p.n3_ifname);
		if (!p.nat_addr) {
			log_error("core", "upf: dnns[%u].nat: no IPv4 on %s for the NAT (set upf.nat_address)", i,
				  p.n6_ifname ? p.n6_ifname : p.n3_ifname);
			return -EINVAL;
		}
		p.nat_port_lo = (uint16_t)c->upf.nat_port_lo;
		p.nat_port_hi = (uint16_t)c->upf.nat_port_hi;
		p.nat_max_conns = c->upf.nat_table_size;
		/* 0 in the configuration is "no limit"; 0 in upf_params the default. */
		p.nat_conns_per_session = c->upf.nat_conns_per_session ? c->upf.nat_conns_per_session : UPF_NAT_UNLIMITED;
		p.nat_conns_per_remote = c->upf.nat_conns_per_remote ? c->upf.nat_conns_per_remote : UPF_NAT_UNLIMITED;
		break;
	}
	p.max_sessions = c->upf.max_sessions;
	p.loop = loop;
	p.on_dl_data = smf_upf_dl_data; /* downlink for an idle UE: the SMF asks the AMF to page */
	p.on_err_ind = smf_upf_err_ind; /* the gNB lost a session's tunnel: its user plane deactivated */
	p.cb_arg = core.smf;
	rc = upf_open(&p, &core.upf);
	if (rc < 0) {
		log_error("core", "upf: cannot attach to %s: %s", c->upf.n3_interface, strerror(-rc));
		return rc;
	}
	smf_set_upf(core.smf, core.upf);
	core.ue_net = p.ue_pool_addr;
	core.ue_plen = p.ue_pool_plen;
	log_info("core", "upf: attached n3=%s n6=%s", c->upf.n3_interface,
		 c->upf.n6_interface[0] ? c->upf.n6_interface : c->upf.n3_interface);
	return 0;
}

static void upf_mod_stop(void)
{
	/* Sessions stay in the SMF until smf_free; it must not touch a closed UPF. */
	smf_set_upf(core.smf, NULL);
	upf_close(core.upf); /* detaches XDP */
	core.upf = NULL;
	upf_n4c_close(core.n4c); /* Association Release Requests, best effort */
	core.n4c = NULL;
	core.ue_plen = 0;
}

static int smf_mod_start(struct ev_loop *loop, const struct conf *c)
{
	struct smf_params p = { 0 };
	int err = 0;

	c = eff(c);
	p.conf = c;
	p.loop = loop;
	p.udm = core.udm;
	p.upf = NULL; /* attached by upf_mod_start, which needs the smf for its callback */
	p.n3_addr = core_n3_address(c);
	/* Only with a UPF here: the PFCP peers' N3 is IPv4 (conf refuses n3_address6 with pfcp). */
	if (c->upf.mode != CONF_UPF_PFCP && c->upf.n3_interface[0])
		core_n3_address6(c, p.n3_addr6);
	p.max_sessions = c->upf.max_sessions;
	core.smf = smf_new(&p, &err);
	if (!core.smf) {
		log_error("core", "smf: start failed: %s", strerror(-err));
		return err ? err : -EINVAL;
	}
	return 0;
}

static void smf_mod_stop(void)
{
	smf_free(core.smf); /* local release: every UPF rule removed */
	core.smf = NULL;
}

static int amf_mod_start(struct ev_loop *loop, const struct conf *c)
{
	int err = 0;
	c = eff(c);
	core.amf = amf_start(loop, c, core.ausf, core.udm, &err);
	if (!core.amf) {
		log_error("core", "amf: start failed: %s", strerror(-err));
		return err ? err : -EINVAL;
	}
	/* N1/N2 for sessions: the AMF forwards 5GSM to the SMF, the SMF sends
	 * (retransmissions, network-requested release, paging) through the AMF. */
	struct smf_amf_ops ops;
	amf_smf_ops(core.amf, &ops);
	smf_set_amf_ops(core.smf, &ops);
	amf_set_smf(core.amf, core.smf);
	return 0;
}

static void amf_mod_stop(void)
{
	/* The SMF outlives the AMF by a few calls (smf_free releases sessions
	 * locally): it must not call back into a freed AMF. */
	static const struct smf_amf_ops none;
	smf_set_amf_ops(core.smf, &none);
	amf_stop(core.amf);
	core.amf = NULL;
}

/* ---- what API writes change for attached UEs (web_set_change_ops) ---- */

#define WALK_STEP 4096     /* UE slots per tick of each walk: well under a millisecond */

/* One subscriber's row changed: its UE-AMBR to the gNB (TS 38.413 8.3.4) and its active
 * sessions' session-AMBR (network-requested modification, TS 23.502 4.3.3.2). */
static void on_subscriber(void *arg, const char *supi)
{
	struct amf_ue_info info;
	unsigned skipped = 0;

	(void)arg;
	/* Sessions exist only for a UE the AMF knows: its handle is found by the SUPI index,
	 * not by a walk of the SMF's UEs. */
	if (!core.amf || amf_ue_info_by_supi(core.amf, supi, &info) < 0)
		return;
	amf_ue_ambr_update(core.amf, supi);
	if (core.smf && info.sm && smf_ue_policy_update(core.smf, info.sm, &skipped) >= 0 && skipped)
		log_info("core", "%s: %u session(s) busy or unreachable: their session-AMBR changes "
			 "once they are active again", supi, skipped);
}

static void policy_walk(struct ev_loop *loop, struct ev_timer *t)
{
	unsigned skipped = 0;

	(void)t;
	if (core.amf && core.amf_cur != AMF_WALK_END)
		amf_ue_ambr_walk(core.amf, &core.amf_cur, WALK_STEP);
	else
		core.amf_cur = AMF_WALK_END;
	if (core.smf && core.smf_cur != SMF_WALK_END)
		smf_policy_update_walk(core.smf, &core.smf_cur, WALK_STEP, &skipped);
	else
		core.smf_cur = SMF_WALK_END;
	if (skipped)
		log_info("core", "policy change: %u session(s) busy or unreachable: their "
			 "session-AMBR changes once they are active again", skipped);
	if (core.amf_cur != AMF_WALK_END || core.smf_cur != SMF_WALK_END)
		ev_timer_start(loop, &core.walk_tmr, 1);
}

/* A policy changed: walk every attached UE (a walk already running starts over, so it sees
 * this change too). */
static void on_policy(void *arg, const char *name)
{
	(void)arg;
	(void)name;
	core.amf_cur = 0;
	core.smf_cur = 0;
	if (!ev_timer_pending(&core.walk_tmr))
		ev_timer_start(core.loop, &core.walk_tmr, 0);
}

/* Cluster: another node changed the saved network settings: those that apply live here too
 * (web_settings_reload, as a PATCH here would), the others at the next start. */
static void on_settings(void *arg)
{
	unsigned applied = 0, restart = 0;

	(void)arg;
	if (!core.web)
		return;
	int rc = web_settings_reload(core.web, &core.settings, &applied, &restart);
	if (rc < 0)
		log_error("core", "cluster: settings changed on another node, cannot read them: %s",
			  strerror(-rc));
	else if (applied || restart)
		log_info("core", "cluster: settings changed on another node: %u key(s) applied here, "
			 "%u at the next start", (unsigned)__builtin_popcount(applied),
			 (unsigned)__builtin_popcount(restart));
}

/* Cluster: what other nodes write reaches this node's UDM and UEs (core_feed.h), once the
 * AMF and SMF it changes are up; without a cluster nothing is open and this does nothing. */
static int feed_mod_start(struct ev_loop *loop, const struct conf *c)
{
	struct core_feed_env env = { .udm = core.udm, .amf = core.amf, .smf = core.smf,
		.subscriber = on_subscriber, .policy = on_policy, .settings = on_settings };

	(void)c;
	core.loop = loop;
	ev_timer_init(&core.walk_tmr, policy_walk, NULL);
	int rc = core_feed_attach(loop, &env);
	if (rc < 0)
		log_error("core", "cluster: change feed: %s", strerror(-rc));
	return rc;
}

static void feed_mod_stop(void)
{
	core_feed_detach();
	if (core.loop)
		ev_timer_stop(core.loop, &core.walk_tmr);
}

static int web_mod_start(struct ev_loop *loop, const struct conf *c)
{
	int rc;

	c = eff(c);
	rc = web_start(loop, c, core.db, core.udm, NULL, &core.web);
	if (rc == 0 && core.amf)
		rc = web_attach_amf(core.web, core.amf); /* /api/v1/stats, UE views, AMF metrics */
	if (rc == 0 && core.smf)
		rc = web_attach_smf(core.web, core.smf); /* sessions, latency histograms; after the AMF's views */
	if (rc == 0 && core.smf && core.upf)
		rc = web_attach_upf(core.web, core.upf); /* UPF packets, bytes, drops */
	if (rc == 0 && core.n4c)
		rc = web_attach_n4c(core.web, core.n4c); /* upf.mode pfcp: PFCP client counters */
	if (rc == 0) {
		/* GET/PATCH/DELETE /api/v1/settings: web/ checks and saves; live changes go to the
		 * running modules through core_live (each by its setter) and into core.conf. */
		core.live = (struct core_live){ .conf = &core.conf, .amf = core.amf, .smf = core.smf,
			.udm = core.udm };
		core.settings = (struct web_settings_env){ .conf = &core.conf, .base = core.file_conf,
			.smf = core.smf, .ue_net = core.ue_net, .ue_plen = core.ue_plen,
			.apply = core_live_apply, .apply_arg = &core.live };
		rc = web_attach_settings(core.web, &core.settings);
	}
	if (rc == 0) {
		static const struct web_change_ops chg = { on_subscriber, on_policy, NULL };

		web_set_change_ops(core.web, &chg);
	}
	if (rc < 0)
		log_error("core", "web: start failed on %s:%u: %s", c->web.listen, c->web.port, strerror(-rc));
	return rc;
}

static void web_mod_stop(void)
{
	if (core.loop)
		ev_timer_stop(core.loop, &core.walk_tmr);
	web_stop(core.web);
	core.web = NULL;
}

const struct core_module core_modules[] = {
	{ "cluster", cluster_mod_start, cluster_mod_stop },
	{ "db", db_start, db_stop },
	{ "udm+ausf", udm_ausf_start, udm_ausf_stop },
	{ "smf", smf_mod_start, smf_mod_stop },
	{ "upf", upf_mod_start, upf_mod_stop },
	{ "amf", amf_mod_start, amf_mod_stop },
	{ "feed", feed_mod_start, feed_mod_stop },
	/* Last up, first down: the API never sees a half-stopped core. */
	{ "web", web_mod_start, web_mod_stop },
	{ NULL, NULL, NULL },
};
