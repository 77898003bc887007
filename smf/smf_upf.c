/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * The UPFs a session can be placed on (upf.mode pfcp): selection by DNN and S-NSSAI among
 * the ready ones, round robin (TS 23.501 6.3.3), and what the SMF does when a UPF loses or
 * refuses a session (TS 23.527 4.4, TS 24.501 6.3.3). The SMF drives each one through the
 * same upf.h calls as the in-process UPF; only this file knows there can be several.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "smf/smf_int.h"
#include "upf/upf.h"

int smf_add_upf(struct smf *smf, struct upf *u, const struct conf_upf_peer *peer)
{
	struct smf_upf_ent *e;

	if (!u || !peer)
		return -EINVAL;
	if (smf->n_upfs >= SMF_UPF_MAX)
		return -ENOSPC;
	e = &smf->upfs[smf->n_upfs];
	memset(e, 0, sizeof(*e));
	for (unsigned i = 0; i < peer->n_dnns; i++) {
		unsigned d = 0;

		while (d < smf->n_dnns && strcasecmp(smf->dnns[d].name, peer->dnns[i]))
			d++;
		if (d == smf->n_dnns)
			return -EINVAL;
		e->dnn_mask |= 1u << d;
	}
	for (unsigned i = 0; i < peer->n_slices && i < CONF_MAX_SLICES; i++) {
		e->slices[i].sst = peer->slices[i].sst;
		e->slices[i].has_sd = peer->slices[i].has_sd;
		e->slices[i].sd[0] = (uint8_t)(peer->slices[i].sd >> 16);
		e->slices[i].sd[1] = (uint8_t)(peer->slices[i].sd >> 8);
		e->slices[i].sd[2] = (uint8_t)peer->slices[i].sd;
	}
	e->n_slices = (uint8_t)peer->n_slices;
	e->u = u;
	snprintf(e->name, sizeof(e->name), "%s", peer->name);
	smf->n_upfs++;
	return 0;
}

struct upf *smf_sess_upf(const struct smf *smf, const struct smf_sess *s)
{
	return smf->n_upfs ? smf->upfs[s->upf].u : smf->upf;
}

uint32_t smf_sess_n3(const struct smf *smf, const struct smf_sess *s)
{
	if (s->n3_addr)   /* the F-TEID's address of the N4 answer (a CHOOSE: the UPF's pick) */
		return s->n3_addr;
	return smf->n_upfs ? upf_n3_addr(smf->upfs[s->upf].u) : smf->p.n3_addr;
}

const uint8_t *smf_sess_n3_6(const struct smf *smf, const struct smf_sess *s)
{
	static const uint8_t zero[16];

	(void)s;
	return !smf->n_upfs && memcmp(smf->p.n3_addr6, zero, 16) ? smf->p.n3_addr6 : NULL;
}

int smf_tunnel_gnb(const struct smf *smf, const struct smf_sess *s, const struct ngap_gtp_tunnel *t,
		   uint32_t *v4, uint8_t v6[16])
{
	static const uint8_t zero[16];
	const uint8_t *a6 = NULL;

	*v4 = 0;
	memset(v6, 0, 16);
	if (t->addr_bits == 32 || t->addr_bits == 160)
		memcpy(v4, t->addr, 4);
	if (*v4)
		return 0;
	if (t->addr_bits == 128)
		a6 = t->addr;
	else if (t->addr_bits == 160)
		a6 = t->addr + 4;
	if (!a6 || !memcmp(a6, zero, 16) || !smf_sess_n3_6(smf, s))
		return -EAFNOSUPPORT;
	memcpy(v6, a6, 16);
	return 0;
}

static bool serves(const struct smf_upf_ent *e, unsigned dnn, const struct ngap_snssai *sn)
{
	if (e->dnn_mask && !(e->dnn_mask & (1u << dnn)))
		return false;
	if (!e->n_slices)
		return true;
	for (unsigned i = 0; i < e->n_slices; i++)
		if (e->slices[i].sst == sn->sst && e->slices[i].has_sd == sn->has_sd &&
		    (!sn->has_sd || !memcmp(e->slices[i].sd, sn->sd, 3)))
			return true;
	return false;
}

int smf_upf_pick(struct smf *smf, unsigned dnn, const struct ngap_snssai *snssai)
{
	for (unsigned k = 0; k < smf->n_upfs; k++) {
		unsigned i = (smf->upf_rr + k) % smf->n_upfs;
		const struct smf_upf_ent *e = &smf->upfs[i];

		if (upf_ready(e->u) && serves(e, dnn, snssai)) {
			smf->upf_rr = (uint8_t)((i + 1) % smf->n_upfs);
			return (int)i;
		}
	}
	return -ENODEV;
}

void smf_upf_session_lost(void *arg, uint32_t session_id, int why)
{
	struct smf *smf = arg;
	struct smf_sess *s;
	uint8_t cause;
	int rc;

	if (!smf || session_id >= smf->sess_hwm)
		return;
	s = &smf->sess[session_id];
	if (!s->in_use)
		return;
	smf->st.upf_lost++;
	/* TS 24.501 6.3.3.2 / 6.4.1: #39 asks the UE to establish the session again; a rule set
	 * the UPF refuses would be refused again, so that one is #26 */
	cause = why == UPF_LOST_REFUSED ? NAS_5GSM_INSUFFICIENT_RESOURCES : NAS_5GSM_REACTIVATION_REQUESTED;
	/* one line per session only at debug: a lost UPF of 10^5 sessions is logged once, by the
	 * N4 client, and counted here (upf_lost) */
	smf_slog(LOGL_DEBUG, smf, s, "UPF %s %s the session: released with #%u",
		 smf->n_upfs ? smf->upfs[s->upf].name : "", why == UPF_LOST_REFUSED ? "refused" : "lost", cause);
	rc = smf_release(smf, smf_sess_ue(smf, s), s->psi, cause);
	if (rc < 0 && rc != -EBUSY)   /* -EBUSY: a release is running already, it removes the rules */
		smf_slog(LOGL_ERROR, smf, s, "release after the UPF loss failed: %d", rc);
}
