/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * Registration areas (TS 23.501 5.3.2.3, TS 24.501 5.3.4): the served TACs grouped into
 * the TAI lists UEs are given. amf_cfg.tac_area[i] names the area of amf_cfg.tacs[i];
 * a UE keeps the area of its last REGISTRATION ACCEPT (amf_ue.ra). Its TAI list is every
 * served TAC of that area (TS 24.501 9.11.3.9), and a UE paged is paged in that list
 * (TS 23.502 4.2.3.3 step 4b). A UE that moves out of it does a mobility registration
 * (TS 24.501 5.5.1.3.2 a), which gives it the area of its new TA.
 *
 * Without amf.registration_areas every TAC is in area 0: one list of all of them, as
 * before areas existed. At most AMF_MAX_TACS TACs: every look-up here is a scan of at
 * most 16 entries, done once per registration accept or paging.
 */
#include <string.h>

#include "amf/amf_int.h"
#include "common/conf.h"

void amf_ra_from_conf(struct amf_cfg *c, const struct conf *conf)
{
	unsigned n_ra = conf->amf.n_registration_areas < CONF_MAX_RAS ? conf->amf.n_registration_areas
								       : CONF_MAX_RAS;

	c->has_areas = n_ra > 0;
	for (unsigned i = 0; i < c->n_tacs; i++) {
		/* a served TAC in no area is an area of its own: ids n_ra + i are unique */
		c->tac_area[i] = c->has_areas ? (uint8_t)(n_ra + i) : 0;
		for (unsigned a = 0; a < n_ra; a++)
			for (unsigned t = 0; t < conf->amf.registration_areas[a].n_tac; t++)
				if ((conf->amf.registration_areas[a].tac[t] & 0xffffff) == c->tacs[i])
					c->tac_area[i] = (uint8_t)a;
	}
}

static bool area_used(const uint8_t *area, unsigned n, uint8_t id)
{
	for (unsigned i = 0; i < n; i++)
		if (area[i] == id)
			return true;
	return false;
}

void amf_ra_retag(const struct amf_cfg *c, const uint32_t *tacs, unsigned n, uint8_t *area)
{
	for (unsigned i = 0; i < n; i++) {
		unsigned k = 0;

		while (k < c->n_tacs && c->tacs[k] != tacs[i])
			k++;
		if (k < c->n_tacs) {
			area[i] = c->tac_area[k];   /* a TAC that stays keeps its area */
			continue;
		}
		area[i] = 0;   /* no areas configured: the one area of every TAC */
		if (!c->has_areas)
			continue;
		/* a new TAC with areas configured: an area of its own, an id nobody has */
		for (uint8_t id = 0; id < AMF_RA_NONE; id++) {
			bool taken = area_used(area, i, id);

			for (unsigned j = 0; j < c->n_tacs && !taken; j++)
				taken = c->tac_area[j] == id;
			if (!taken) {
				area[i] = id;
				break;
			}
		}
	}
}

uint8_t amf_ra_of(const struct amf *amf, uint32_t tac)
{
	for (unsigned i = 0; i < amf->cfg.n_tacs; i++)
		if (amf->cfg.tacs[i] == tac)
			return amf->cfg.tac_area[i];
	return AMF_RA_NONE;
}

unsigned amf_ra_tacs(const struct amf *amf, uint8_t ra, uint32_t *out, unsigned max)
{
	unsigned n = 0;

	for (unsigned i = 0; i < amf->cfg.n_tacs && n < max; i++)
		if (amf->cfg.tac_area[i] == ra)
			out[n++] = amf->cfg.tacs[i];
	/* The area is gone (its TACs were dropped live): every TAC served, as before areas. */
	for (unsigned i = 0; !n && i < amf->cfg.n_tacs && i < max; i++)
		out[i] = amf->cfg.tacs[i];
	return n ? n : (amf->cfg.n_tacs < max ? amf->cfg.n_tacs : max);
}

bool amf_ra_gnb_in(const struct amf_gnb *gnb, const uint32_t *tacs, unsigned n)
{
	for (unsigned i = 0; i < gnb->n_tacs; i++)
		for (unsigned j = 0; j < n; j++)
			if (gnb->tacs[i] == tacs[j])
				return true;
	return false;
}
