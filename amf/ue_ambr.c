/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * The subscribed UE-AMBR of registered UEs (TS 23.501 5.7.2.6): taken from the UDM at the
 * registration accept, sent with every Initial Context Setup and PDU Session Resource
 * Setup, and, when the subscription or its policy changes, given at once to the gNB of a
 * connected UE by UE CONTEXT MODIFICATION (TS 38.413 8.3.4; TS 23.502 4.2.2.2.2 step 21
 * leaves the AMF to keep the RAN's copy up to date). An idle UE's gNB has no context: the
 * new value rides in the Initial Context Setup of its next service request.
 */
#include <errno.h>

#include "amf/amf_int.h"
#include "common/log.h"
#include "udm/udm.h"

bool amf_ue_ambr_load(struct amf_ue *ue, const struct udm_sub_data *sub)
{
	uint64_t ul, dl;

	udm_ue_ambr(ue->amf->udm, sub, &ul, &dl);
	if (ul == ue->ue_ambr_ul && dl == ue->ue_ambr_dl)
		return false;
	ue->ue_ambr_ul = ul;
	ue->ue_ambr_dl = dl;
	return true;
}

/* 1: the gNB was told, 0: nothing changed or the UE is idle (kept for its next ICS). */
static int refresh(struct amf_ue *ue)
{
	const struct udm_sub_data *sub;

	if (!ue->in_use || ue->reaping || !ue->supi_indexed || !amf_gmm_registered(ue))
		return 0;   /* registrations in progress take it at their accept */
	sub = udm_get(ue->amf->udm, ue->supi);
	if (!sub || !amf_ue_ambr_load(ue, sub))
		return 0;
	amf_ue_log(LOGL_INFO, ue, "UE-AMBR changed by the subscription: ul=%llu dl=%llu%s",
		   (unsigned long long)ue->ue_ambr_ul, (unsigned long long)ue->ue_ambr_dl,
		   ue->gnb && ue->ics_sent ? "" : " (sent at the next service request)");
	if (!ue->gnb || !ue->ics_sent || ue->release_pending)
		return 0;
	return amf_ngap_ue_ctx_mod(ue) == 0;
}

int amf_ue_ambr_update(struct amf *amf, const char *supi)
{
	struct amf_ue *ue = amf_ue_by_supi(amf, supi);

	return ue ? refresh(ue) : -ENOENT;
}

int amf_ue_ambr_walk(struct amf *amf, uint32_t *cursor, uint32_t budget)
{
	uint32_t i = *cursor, end;
	int sent = 0;

	if (i >= amf->ues_hw) {
		*cursor = AMF_WALK_END;
		return 0;
	}
	end = budget < amf->ues_hw - i ? i + budget : amf->ues_hw;
	for (; i < end; i++)
		sent += refresh(&amf->ues[i]);
	*cursor = i >= amf->ues_hw ? AMF_WALK_END : i;
	return sent;
}
