/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * What the SMF takes from the AMF and the subscription after establishment: the UE's Allowed NSSAI
 * (default S-NSSAI, TS 23.502 4.3.2.2.1) and subscription / policy changes that reach running
 * sessions as network-requested modifications (TS 23.502 4.3.3.2, TS 24.501 6.3.2).
 */
#include <errno.h>
#include <string.h>

#include "common/ev.h"

#include "smf/smf_int.h"
#include "udm/udm.h"

int smf_ue_set_allowed_nssai(struct smf *smf, struct smf_ue *ue, const struct ngap_snssai *nssai, unsigned n)
{
	(void)smf;
	if (!ue || !ue->in_use || n > SMF_MAX_ALLOWED_NSSAI || (n && !nssai))
		return -EINVAL;
	for (unsigned i = 0; i < n; i++)
		ue->allowed[i] = nssai[i];
	ue->n_allowed = (uint8_t)n;
	return 0;
}

/* The session-AMBR the subscription grants now (the same fall-backs as at establishment). */
static void sub_ambr(const struct smf *smf, const struct smf_ue *ue, uint64_t *ul, uint64_t *dl)
{
	const struct udm_sub_data *d = smf->p.udm ? udm_get(smf->p.udm, ue->supi) : NULL;

	*ul = d && d->ambr_ul_bps ? d->ambr_ul_bps : UDM_DEFAULT_AMBR_BPS;
	*dl = d && d->ambr_dl_bps ? d->ambr_dl_bps : UDM_DEFAULT_AMBR_BPS;
}

/* One session against the subscription's session-AMBR: 1 (modification started), 0 (nothing
 * to do), or -errno (busy with another procedure, or its UE unreachable). A session skipped is
 * marked ambr_stale and retried when it is next ACTIVE (setup or modification done, user plane
 * back after a service request): TS 23.502 4.3.3.2 leaves no session on the old value. */
static int sess_update(struct smf *smf, struct smf_ue *ue, struct smf_sess *s, uint64_t ul, uint64_t dl)
{
	int rc;

	s->ambr_stale = 0;
	if (s->ambr_ul == ul && s->ambr_dl == dl)
		return 0;
	if (s->state == SMF_ST_MODIFICATION_PENDING && s->new_ambr_ul == ul && s->new_ambr_dl == dl)
		return 0; /* already on its way */
	rc = s->state == SMF_ST_ACTIVE ? smf_modify_ambr(smf, ue, s->psi, ul, dl) : -EBUSY;
	if (rc < 0) {
		s->ambr_stale = 1;   /* after the attempt: its own abort to ACTIVE must not re-arm */
		return rc;
	}
	smf_slog(LOGL_INFO, smf, s, "session-AMBR changed by the subscription: ul=%llu dl=%llu",
		 (unsigned long long)ul, (unsigned long long)dl);
	return 1;
}

int smf_ue_policy_update(struct smf *smf, struct smf_ue *ue, unsigned *skipped)
{
	uint64_t ul, dl;
	int started = 0;

	if (!ue || !ue->in_use)
		return -ENOENT;
	sub_ambr(smf, ue, &ul, &dl);
	for (uint8_t psi = SMF_PSI_MIN; psi <= SMF_PSI_MAX; psi++) {
		struct smf_sess *s = smf_sess_get(smf, ue, psi);
		int rc = s ? sess_update(smf, ue, s, ul, dl) : 0;

		if (rc > 0)
			started++;
		else if (rc < 0 && skipped)
			(*skipped)++;
	}
	return started;
}

void smf_policy_retry_arm(struct smf *smf, struct smf_sess *s)
{
	/* The session's timer is idle in ACTIVE (T3591 / T3592 run only in the pending states). */
	if (smf->p.loop)
		ev_timer_start(smf->p.loop, &s->timer, 0);
}

void smf_policy_retry(struct smf *smf, struct smf_sess *s)
{
	struct smf_ue *ue = &smf->ues[s->ue];
	uint64_t ul, dl;

	sub_ambr(smf, ue, &ul, &dl);
	if (sess_update(smf, ue, s, ul, dl) < 0)
		smf_slog(LOGL_INFO, smf, s, "session-AMBR change still waiting (UE unreachable or session busy)");
}

int smf_supi_policy_update(struct smf *smf, const char *supi, unsigned *skipped)
{
	for (uint32_t i = 0; i < smf->ue_hwm; i++)
		if (smf->ues[i].in_use && !strcmp(smf->ues[i].supi, supi))
			return smf_ue_policy_update(smf, &smf->ues[i], skipped);
	return -ENOENT;
}

int smf_policy_update_walk(struct smf *smf, uint32_t *cursor, uint32_t budget, unsigned *skipped)
{
	uint32_t i = *cursor, end;
	int started = 0;

	if (i == SMF_WALK_END)
		return 0;
	end = budget < smf->ue_hwm - (i < smf->ue_hwm ? i : smf->ue_hwm) ? i + budget : smf->ue_hwm;
	for (; i < end; i++)
		if (smf->ues[i].in_use && smf->ues[i].n_sess) {
			int rc = smf_ue_policy_update(smf, &smf->ues[i], skipped);

			started += rc > 0 ? rc : 0;
		}
	*cursor = i >= smf->ue_hwm ? SMF_WALK_END : i;
	return started;
}
