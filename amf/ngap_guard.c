/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * Who may set up over N2 (issue 31 point 6), checked on NG SETUP REQUEST before anything of
 * the request is taken (TS 38.413 8.7.1):
 *
 *  - n2.allowed_gnbs: a gNB whose Global RAN Node ID and source address match no entry gets
 *    NG SETUP FAILURE and its association is closed after it. Nothing else changes.
 *  - A Global RAN Node ID that another set-up association holds: NG SETUP FAILURE with Time
 *    to Wait; the holder and its UEs are left as they are. TS 38.413 8.7.1 says nothing of a
 *    second association claiming a node's ID; the Global RAN Node ID is what handover
 *    targets (8.4.1.2), RAN configuration and paging are keyed by, so two of them would let
 *    a stranger receive another gNB's UEs. Open5GS declined to refuse (open5gs#3692)
 *    because a gNB that restarts on a new association before its old one is known dead
 *    would be locked out; so the holder is asked whether it is still there: an AMF
 *    CONFIGURATION UPDATE restating our PLMN Support List (8.7.3; a no-op for a live gNB,
 *    which answers with an ACKNOWLEDGE, a FAILURE or, without the procedure, an Error
 *    Indication). Any NGAP PDU from the holder within cfg.gnb_probe_ms keeps it. None: it
 *    is taken as lost (aborted; its UEs get the AN release of an association loss, TS
 *    23.502 4.2.6, sessions kept) and the restarted gNB's next NG Setup, after the Time to
 *    Wait, is accepted. A restart on the same SCTP ports is RFC 9260 5.2.4's restart
 *    (down + up on the handle) and one that ABORTs or SHUTs DOWN its old association
 *    first (ransim --restart-after, most stacks on a clean restart) never meets this.
 *    The source address decides nothing here: a stranger on the gNB's own host cannot take
 *    its ID over either.
 *
 * Cause of both failures: Misc "unspecified" (TS 38.413 9.3.1.2). The cause list has no
 * value for "not allowed" or "ID in use"; Misc "unknown-PLMN-or-SNPN" would send the gNB
 * checking its PLMN, Protocol causes are for syntax and state errors (10.x) and Radio
 * Network causes are per UE or per cell; free5GC answers an NG Setup it cannot take with
 * Misc "unspecified" too. The log line says which rule refused.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "amf/amf_int.h"
#include "common/log.h"

/* The gNB's source address as IPv4 (an IPv4-mapped IPv6 one too) or IPv6. */
static int peer_of(const struct amf_gnb *gnb, uint8_t addr[16])
{
	if (gnb->peer_len >= sizeof(struct sockaddr_in) && gnb->peer.ss_family == AF_INET) {
		memcpy(addr, &((const struct sockaddr_in *)&gnb->peer)->sin_addr, 4);
		return AF_INET;
	}
	if (gnb->peer_len >= sizeof(struct sockaddr_in6) && gnb->peer.ss_family == AF_INET6) {
		const struct in6_addr *a6 = &((const struct sockaddr_in6 *)&gnb->peer)->sin6_addr;

		if (IN6_IS_ADDR_V4MAPPED(a6)) {
			memcpy(addr, a6->s6_addr + 12, 4);
			return AF_INET;
		}
		memcpy(addr, a6->s6_addr, 16);
		return AF_INET6;
	}
	return AF_UNSPEC;   /* in-process transport: no address */
}

static bool prefix_has(const struct conf_gnb_rule *r, int fam, const uint8_t addr[16])
{
	unsigned full = r->plen / 8u, rest = r->plen % 8u;

	if (fam != r->family || memcmp(addr, r->addr, full))
		return false;
	return !rest || !((addr[full] ^ r->addr[full]) & (uint8_t)(0xff00u >> rest));
}

static bool rule_match(const struct conf_gnb_rule *r, const struct ngap_global_ran_node_id *id, int fam,
		       const uint8_t addr[16])
{
	if (r->has_id && (id->kind != NGAP_RAN_GNB || memcmp(r->plmn, id->plmn.v, 3) || r->gnb_id != id->id ||
			  r->gnb_id_bits != id->id_bits))
		return false;
	return !r->has_prefix || prefix_has(r, fam, addr);
}

bool amf_gnb_allowed(const struct amf *amf, const struct amf_gnb *gnb, const struct ngap_global_ran_node_id *id)
{
	uint8_t addr[16];
	int fam = peer_of(gnb, addr);

	if (!amf->cfg.n_allowed_gnbs)
		return true;
	for (unsigned i = 0; i < amf->cfg.n_allowed_gnbs; i++)
		if (rule_match(&amf->cfg.allowed_gnbs[i], id, fam, addr))
			return true;
	return false;
}

/* Another set-up association with this Global RAN Node ID (NG Setup is rare: a walk). */
static struct amf_gnb *id_holder(struct amf *amf, const struct amf_gnb *gnb, const struct ngap_global_ran_node_id *id)
{
	for (uint32_t i = 0; i < amf->cfg.max_gnbs; i++) {
		struct amf_gnb *g = &amf->gnbs[i];

		if (g != gnb && g->in_use && g->setup_done && g->gnb_id == id->id && g->gnb_id_bits == id->id_bits &&
		    !memcmp(g->plmn, id->plmn.v, 3))
			return g;
	}
	return NULL;
}

static void probe_expired(struct ev_loop *loop, struct ev_timer *t)
{
	struct amf_gnb *gnb = t->arg;
	struct amf *amf = gnb->amf;
	uint32_t assoc = gnb->assoc;

	(void)loop;
	gnb->probing = false;
	if (gnb->probe_heard) {
		log_info("amf", "assoc=%u gnb=%s answered: it keeps its Global RAN Node ID", assoc, gnb->name);
		return;
	}
	amf->st.gnb_probe_lost++;
	log_warn("amf", "assoc=%u gnb=%s silent for %u ms after another association claimed its Global RAN "
		 "Node ID: taken as lost", assoc, gnb->name, amf->cfg.gnb_probe_ms);
	/* the transport's handle first (n2.c looks it up by the gNB), then the AN release of
	 * its UEs as for any lost association; the timer is not touched after this */
	if (amf->ops.close)
		amf->ops.close(amf->ops.arg, assoc);
	amf_n2_assoc_down(amf, assoc);
}

static void probe_start(struct amf *amf, struct amf_gnb *holder)
{
	if (holder->probing)
		return;   /* one question at a time, whoever asks */
	holder->amf = amf;
	holder->probing = true;
	holder->probe_heard = false;
	ev_timer_init(&holder->probe, probe_expired, holder);
	ev_timer_start(amf->loop, &holder->probe, amf->cfg.gnb_probe_ms);
	if (amf_ngap_cfg_update(amf, holder) < 0)
		log_warn("amf", "assoc=%u: AMF CONFIGURATION UPDATE (liveness) not sent", holder->assoc);
}

void amf_gnb_guard_stop(struct amf *amf, struct amf_gnb *gnb)
{
	if (gnb->probing)
		ev_timer_stop(amf->loop, &gnb->probe);
	gnb->probing = false;
}

void amf_gnb_id_str(const struct ngap_global_ran_node_id *id, char *buf, size_t n)
{
	char mcc[4], mnc[4];

	amf_plmn_decode(id->plmn.v, mcc, mnc);
	snprintf(buf, n, "%s%s:0x%x/%u", mcc, mnc, id->id, id->id_bits);
}

int amf_ng_setup_guard(struct amf *amf, struct amf_gnb *gnb, const struct ngap_global_ran_node_id *id)
{
	struct amf_gnb *holder;
	char ids[32];

	amf_gnb_id_str(id, ids, sizeof(ids));
	if (!amf_gnb_allowed(amf, gnb, id)) {
		amf->st.ng_setup_not_allowed++;
		log_warn("amf", "assoc=%u NG Setup from gnb=%s refused: not in n2.allowed_gnbs (by ID or source "
			 "address): the association is closed", gnb->assoc, ids);
		return -EACCES;
	}
	holder = id_holder(amf, gnb, id);
	if (holder) {
		amf->st.ng_setup_id_in_use++;
		log_warn("amf", "assoc=%u NG Setup from gnb=%s refused: that Global RAN Node ID is held by "
			 "assoc=%u (%u UEs), which is asked whether it is still there", gnb->assoc, ids,
			 holder->assoc, holder->n_ues);
		probe_start(amf, holder);
		return -EBUSY;
	}
	return 0;
}
