/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * upf_fwd.c - indirect data forwarding tunnels (TS 23.502 4.9.1.3.2 steps 9-11, 4.9.1.3.3):
 * during an N2 handover without a direct path between the gNBs, the source gNB sends the
 * downlink it still holds (and, last, its End Marker, TS 23.501 5.8.2.9) to a tunnel of ours,
 * TEID UPF_FWD_TEID(session id), and we send it on to the target gNB's DL forwarding tunnel.
 *
 * The table is fwd_rules, an mmapped array the XDP program reads (upf/upf_bpf.h); the relay
 * itself runs in the program (upf.bpf.c fwd_relay), with the UDP socket as its fallback
 * (upf_exc.c) for a packet the program hands to the kernel (no neighbour entry yet, a
 * fragment). Only the control thread writes the table.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "common/log.h"
#include "upf/upf_int.h"
#include "upf/upf_n4c_int.h"

#define MOD "upf"

/* One 64-bit store / load: see struct upf_fwd_rule. */
static void fwd_publish(struct upf_fwd_rule *e, const struct upf_fwd_rule *v)
{
	uint64_t w;

	memcpy(&w, v, sizeof(w));
	__atomic_store_n((uint64_t *)(void *)e, w, __ATOMIC_RELEASE);
}

static struct upf_fwd_rule fwd_read(const struct upf_fwd_rule *e)
{
	uint64_t w = __atomic_load_n((const uint64_t *)(const void *)e, __ATOMIC_ACQUIRE);
	struct upf_fwd_rule r;

	memcpy(&r, &w, sizeof(r));
	return r;
}

int upf_fwd_create(struct upf *u, uint32_t id, uint32_t peer_addr, uint32_t peer_teid)
{
	struct upf_fwd_rule r = { .peer_addr = peer_addr, .peer_teid = htonl(peer_teid) };

	if (u->remote)   /* over N4: a Create PDR / FAR pair (upf_n4c_sess.c) */
		return upf_n4c_fwd_create(u, id, peer_addr, peer_teid);
	if (id >= u->p.max_sessions)
		return -ERANGE;
	/* The target gNB's DL forwarding F-TEID (TS 38.413 9.3.4.2, DL Forwarding UP TNL
	 * Information): an address is needed; TEID 0 is allowed on the wire (TS 29.281 5.1). */
	if (!peer_addr)
		return -EINVAL;
	/* A target that names our own N3 address (a broken or hostile gNB's Handover Request
	 * Acknowledge) would have us relay to ourselves, and the socket path would loop on it. */
	if (peer_addr == u->p.n3_addr)
		return -EINVAL;
	if (fwd_read(&u->fwd[id]).peer_addr)
		return -EEXIST;
	fwd_publish(&u->fwd[id], &r);
	log_info(MOD, "session=%u: forwarding tunnel teid=0x%x -> peer teid=0x%x", id, UPF_FWD_TEID(id),
		 peer_teid);
	return 0;
}

int upf_fwd_remove(struct upf *u, uint32_t id)
{
	static const struct upf_fwd_rule none;

	if (u->remote)
		return upf_n4c_fwd_remove(u, id);
	if (id >= u->p.max_sessions)
		return -ERANGE;
	if (!fwd_read(&u->fwd[id]).peer_addr)
		return -ENOENT;
	fwd_publish(&u->fwd[id], &none);
	log_info(MOD, "session=%u: forwarding tunnel removed", id);
	return 0;
}

int upf_fwd_prepare(struct upf *u, uint32_t id)
{
	if (u->remote)
		return upf_n4c_fwd_prepare(u, id);
	return id < u->p.max_sessions ? 0 : -ERANGE;   /* the tunnel's TEID is fixed: nothing to ask */
}

int upf_fwd_tunnel(struct upf *u, uint32_t id, uint32_t *addr, uint32_t *teid)
{
	if (u->remote)
		return upf_n4c_fwd_tunnel(u, id, addr, teid);
	if (id >= u->p.max_sessions)
		return -ERANGE;
	*addr = u->p.n3_addr;
	*teid = UPF_FWD_TEID(id);
	return 0;
}

int upf_fwd_lookup(const struct upf *u, uint32_t teid, struct upf_fwd_rule *out)
{
	uint32_t id = teid & ~UPF_FWD_TEID_BIT;

	if (!(teid & UPF_FWD_TEID_BIT) || id >= u->p.max_sessions)
		return -ENOENT;
	*out = fwd_read(&u->fwd[id]);
	return out->peer_addr ? 0 : -ENOENT;
}
