/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * `solocore upf -c FILE`: the UPF alone (issue 18 item 2) -- the XDP data
 * path (upf/upf.h) on upf.n3_interface / upf.n6_interface and the PFCP
 * server (upf/upf_n4.h) on upf.n4_address:8805 that programs it. No AMF, SMF,
 * AUSF, UDM, web server or database. The same configuration file as `run`:
 * the UE pool is the smallest prefix covering every dnns[].pool (as `run`
 * gives its UPF), upf.max_sessions bounds the PFCP sessions.
 *
 * What is this box's and not the SMF's is configured here: upf.n3_address6 (our F-TEIDs
 * carry it, TS 29.244 8.2.3), the sessions' IPv6 prefix (the smallest covering every
 * dnns[].pool6), and NAT on N6: the DNNs with nat: true (the PFCP server applies it to the
 * sessions whose PDR names such a DNN, upf_n4_rule.c) leave from upf.nat_address (default
 * the first IPv4 of the N6 interface).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/log.h"
#include "core.h"
#include "upf/upf.h"
#include "upf/upf_n4.h"

static struct {
	struct upf *upf;
	struct upf_n4 *n4;
	uint32_t n3_addr, ue_net, max_sessions;
	uint8_t ue_plen;
	uint8_t n3_addr6[16], ue_pool6[16], ue_pool6_plen;
	struct upf_n4_dnn dnns[CONF_MAX_DNNS];
	char dnn_names[CONF_MAX_DNNS][CONF_DNN_NAME];
	unsigned n_dnns;
} alone;

/* IPv6 and NAT (see the top): 0, or -EINVAL with the reason logged */
static int dp_v6_nat(const struct conf *c, struct upf_params *p)
{
	int rc;

	if (c->upf.n3_address6[0] && inet_pton(AF_INET6, c->upf.n3_address6, p->n3_addr6) != 1)
		memset(p->n3_addr6, 0, 16);   /* validated by the config */
	rc = conf_ue_supernet6(c, p->ue_pool6, &p->ue_pool6_plen);
	if (rc == -ENOENT) {
		p->ue_pool6_plen = 0;
	} else if (rc < 0 || p->ue_pool6_plen < 44) {
		log_error("upf", "the dnns pool6s must lie within one /44 (or longer) prefix");
		return -EINVAL;
	}
	for (unsigned i = 0; i < c->n_dnns; i++) {
		struct in_addr na;

		if (!c->dnns[i].nat)
			continue;
		if (c->upf.nat_address[0] && inet_pton(AF_INET, c->upf.nat_address, &na) == 1)
			p->nat_addr = na.s_addr;
		else
			p->nat_addr = core_if_ipv4(p->n6_ifname ? p->n6_ifname : p->n3_ifname);
		if (!p->nat_addr) {
			log_error("upf", "dnns[%u].nat: no IPv4 on %s for the NAT (set upf.nat_address)", i,
				  p->n6_ifname ? p->n6_ifname : p->n3_ifname);
			return -EINVAL;
		}
		p->nat_port_lo = (uint16_t)c->upf.nat_port_lo;
		p->nat_port_hi = (uint16_t)c->upf.nat_port_hi;
		p->nat_max_conns = c->upf.nat_table_size;
		/* 0 in the configuration is "no limit"; 0 in upf_params the default. */
		p->nat_conns_per_session = c->upf.nat_conns_per_session ? c->upf.nat_conns_per_session : UPF_NAT_UNLIMITED;
		p->nat_conns_per_remote = c->upf.nat_conns_per_remote ? c->upf.nat_conns_per_remote : UPF_NAT_UNLIMITED;
		break;
	}
	alone.n_dnns = 0;
	for (unsigned i = 0; i < c->n_dnns && i < CONF_MAX_DNNS; i++) {
		struct upf_n4_dnn *d = &alone.dnns[alone.n_dnns];

		memcpy(alone.dnn_names[i], c->dnns[i].name, CONF_DNN_NAME);
		d->name = alone.dnn_names[alone.n_dnns++];
		d->nat = c->dnns[i].nat;
		if (conf_pool_parse(c->dnns[i].pool, &d->pool, &d->plen) < 0)
			d->plen = 0;
	}
	return 0;
}

/* Downlink for a buffering session: the N4 server reports it (TS 29.244 7.5.8) */
static void on_dl_data(void *arg, uint32_t session_id)
{
	(void)arg;
	upf_n4_dl_data(alone.n4, session_id);
}

/* A gNB's Error Indication naming a session's downlink tunnel: the N4 server reports it (TS
 * 29.244 5.10, 7.5.8.4) */
static void on_err_ind(void *arg, const struct upf_err_ind *ei)
{
	(void)arg;
	upf_n4_err_ind(alone.n4, ei);
}

static int dp_start(struct ev_loop *loop, const struct conf *c)
{
	struct upf_params p = { 0 };
	int rc;

	if (!c->upf.n3_interface[0]) {
		log_error("upf", "solocore upf needs upf.n3_interface (and upf.n6_interface, or one for both)");
		return -EINVAL;
	}
	p.n3_ifname = c->upf.n3_interface;
	p.n6_ifname = c->upf.n6_interface[0] ? c->upf.n6_interface : NULL;
	p.xdp_mode = c->upf.xdp_mode == CONF_XDP_NATIVE ? UPF_XDP_NATIVE :
		     c->upf.xdp_mode == CONF_XDP_GENERIC ? UPF_XDP_GENERIC : UPF_XDP_AUTO;
	p.n3_addr = core_n3_address(c);
	if (conf_ue_supernet(c, &p.ue_pool_addr, &p.ue_pool_plen) < 0 || p.ue_pool_plen < 10) {
		log_error("upf", "the dnns pools must lie within one /10 or smaller prefix");
		return -EINVAL;
	}
	rc = dp_v6_nat(c, &p);
	if (rc < 0)
		return rc;
	p.max_sessions = c->upf.max_sessions;
	p.max_teid = c->upf.max_sessions;
	p.loop = loop;
	p.on_dl_data = on_dl_data;
	p.on_err_ind = on_err_ind;
	rc = upf_open(&p, &alone.upf);
	if (rc < 0) {
		log_error("upf", "cannot attach to %s: %s", c->upf.n3_interface, strerror(-rc));
		return rc;
	}
	alone.n3_addr = p.n3_addr;
	alone.ue_net = p.ue_pool_addr;
	alone.ue_plen = p.ue_pool_plen;
	alone.max_sessions = p.max_sessions;
	memcpy(alone.n3_addr6, p.n3_addr6, 16);
	memcpy(alone.ue_pool6, p.ue_pool6, 16);
	alone.ue_pool6_plen = p.ue_pool6_plen;
	log_info("upf", "attached n3=%s n6=%s", c->upf.n3_interface,
		 p.n6_ifname ? p.n6_ifname : c->upf.n3_interface);
	return 0;
}

static void dp_stop(void)
{
	uint64_t c[UPF_STAT__MAX];

	/* the data path's counters, once, at the end (solocore upf has no /metrics) */
	if (alone.upf && upf_counters(alone.upf, c, UPF_STAT__MAX) == 0)
		for (unsigned i = 0; i < UPF_STAT__MAX; i++)
			if (c[i] && upf_counter_name(i))
				log_info("upf", "counter %s %llu", upf_counter_name(i), (unsigned long long)c[i]);
	upf_close(alone.upf);   /* detaches XDP */
	alone.upf = NULL;
}

/* upf.n4_peers -> the server's allow-list (IPv4: N4 listens on upf.n4_address, an IPv4) */
static unsigned n4_allow(const struct conf *c, struct upf_n4_prefix *a)
{
	unsigned k = 0;

	for (unsigned i = 0; i < c->upf.n_n4_peers && k < UPF_N4_ALLOW_MAX; i++) {
		char txt[64];
		char *slash;
		struct in_addr in;

		snprintf(txt, sizeof(txt), "%s", c->upf.n4_peers[i]);
		slash = strchr(txt, '/');
		if (slash)
			*slash = 0;
		if (inet_pton(AF_INET, txt, &in) != 1) {
			log_warn("upf", "upf.n4_peers: %s is IPv6 and N4 listens on IPv4: it matches nothing",
				 c->upf.n4_peers[i]);
			continue;
		}
		a[k].plen = slash ? (uint8_t)atoi(slash + 1) : 32;
		a[k].addr = a[k].plen ? in.s_addr & htonl(~0u << (32 - a[k].plen)) : 0;
		k++;
	}
	if (c->upf.n_n4_peers && !k)
		log_warn("upf", "upf.n4_peers has no IPv4 entry: every PFCP datagram is dropped");
	return k;
}

static int n4_start(struct ev_loop *loop, const struct conf *c)
{
	static struct upf_n4_prefix allow[UPF_N4_ALLOW_MAX];
	struct upf_n4_params p = {
		.upf = alone.upf, .loop = loop, .n3_addr = alone.n3_addr, .ue_pool_addr = alone.ue_net,
		.ue_pool_plen = alone.ue_plen, .max_sessions = alone.max_sessions,
		.max_teid = alone.max_sessions, .ue_pool6_plen = alone.ue_pool6_plen, .dnns = alone.dnns,
		.n_dnns = alone.n_dnns,
		/* TS 29.244 6.2.2 / 6.4: the same keys as the SMF's client */
		.heartbeat_ms = c->upf.heartbeat_interval, .t1_ms = c->upf.pfcp_t1, .n1 = (uint8_t)c->upf.pfcp_n1,
		.release_ms = c->upf.n4_release_timer ? c->upf.n4_release_timer : 1,
		.sessions_per_peer = c->upf.n4_sessions_per_peer, .allow = allow,
	};
	struct in_addr in;

	memcpy(p.n3_addr6, alone.n3_addr6, 16);
	memcpy(p.ue_pool6, alone.ue_pool6, 16);
	p.n_allow = n4_allow(c, allow);
	/* an allow-list that lost every entry (all IPv6) must still refuse everyone */
	if (c->upf.n_n4_peers && !p.n_allow) {
		allow[0] = (struct upf_n4_prefix){ .addr = htonl(0xffffffffu), .plen = 32 };
		p.n_allow = 1;
	}
	if (!c->upf.n_n4_peers)
		log_warn("upf", "upf.n4_peers is empty: PFCP is accepted from any address (set it in a deployment)");
	p.addr = alone.n3_addr;
	if (c->upf.n4_address[0] && inet_pton(AF_INET, c->upf.n4_address, &in) == 1)
		p.addr = in.s_addr;
	return upf_n4_open(&p, &alone.n4);
}

static void n4_stop(void)
{
	uint64_t c[UPF_N4__MAX];

	/* what N4 saw, for the operator and for tests/upf/test_upf_n4_adv.c */
	if (alone.n4 && upf_n4_counters(alone.n4, c, UPF_N4__MAX) == 0) {
		log_info("upf-n4", "sessions %u associations %u", upf_n4_sessions(alone.n4),
			 upf_n4_associations(alone.n4));
		for (unsigned i = 0; i < UPF_N4__MAX; i++)
			if (c[i])
				log_info("upf-n4", "counter %s %llu", upf_n4_counter_name(i), (unsigned long long)c[i]);
	}
	upf_n4_close(alone.n4);
	alone.n4 = NULL;
}

const struct core_module upf_alone_modules[] = {
	{ "upf", dp_start, dp_stop },
	{ "n4", n4_start, n4_stop },
	{ NULL, NULL, NULL },
};
