/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * `solocore upf -c FILE`: the UPF alone (issue 18 item 2) -- the XDP data
 * path (upf/upf.h) on upf.n3_interface / upf.n6_interface and the PFCP
 * server (upf/upf_n4.h) on upf.n4_address:8805 that programs it. No AMF, SMF,
 * AUSF, UDM, web server or database. The same configuration file as `run`:
 * the UE pool is the smallest prefix covering every dnns[].pool (as `run`
 * gives its UPF), upf.max_sessions bounds the PFCP sessions.
 */
#include <arpa/inet.h>
#include <errno.h>
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
} alone;

/* Downlink for a buffering session: the N4 server reports it (TS 29.244 7.5.8) */
static void on_dl_data(void *arg, uint32_t session_id)
{
	(void)arg;
	upf_n4_dl_data(alone.n4, session_id);
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
	p.max_sessions = c->upf.max_sessions;
	p.max_teid = c->upf.max_sessions;
	p.loop = loop;
	p.on_dl_data = on_dl_data;
	rc = upf_open(&p, &alone.upf);
	if (rc < 0) {
		log_error("upf", "cannot attach to %s: %s", c->upf.n3_interface, strerror(-rc));
		return rc;
	}
	alone.n3_addr = p.n3_addr;
	alone.ue_net = p.ue_pool_addr;
	alone.ue_plen = p.ue_pool_plen;
	alone.max_sessions = p.max_sessions;
	log_info("upf", "attached n3=%s n6=%s", c->upf.n3_interface,
		 p.n6_ifname ? p.n6_ifname : c->upf.n3_interface);
	return 0;
}

static void dp_stop(void)
{
	upf_close(alone.upf);   /* detaches XDP */
	alone.upf = NULL;
}

static int n4_start(struct ev_loop *loop, const struct conf *c)
{
	struct upf_n4_params p = {
		.upf = alone.upf, .loop = loop, .n3_addr = alone.n3_addr, .ue_pool_addr = alone.ue_net,
		.ue_pool_plen = alone.ue_plen, .max_sessions = alone.max_sessions,
		.max_teid = alone.max_sessions,
	};
	struct in_addr in;

	p.addr = alone.n3_addr;
	if (c->upf.n4_address[0] && inet_pton(AF_INET, c->upf.n4_address, &in) == 1)
		p.addr = in.s_addr;
	return upf_n4_open(&p, &alone.n4);
}

static void n4_stop(void)
{
	upf_n4_close(alone.n4);
	alone.n4 = NULL;
}

const struct core_module upf_alone_modules[] = {
	{ "upf", dp_start, dp_stop },
	{ "n4", n4_start, n4_stop },
	{ NULL, NULL, NULL },
};
