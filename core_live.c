/* SPDX-License-Identifier: AGPL-3.0-or-later */
#include "core_live.h"

#include <string.h>
#include <time.h>

#include "amf/amf.h"
#include "common/conf.h"
#include "common/log.h"
#include "smf/smf.h"
#include "udm/udm.h"
#include "web/web.h"

static uint64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static bool apply_dnns(struct core_live *l, const struct conf *c)
{
	char why[256];

	if (l->smf && smf_dnns_replace(l->smf, c->dnns, c->n_dnns, why, sizeof(why)) < 0) {
		log_error("core", "settings: dnns saved but not applied (%s): they apply at the next start", why);
		return false;
	}
	memcpy(l->conf->dnns, c->dnns, sizeof(l->conf->dnns));
	l->conf->n_dnns = c->n_dnns;
	return true;
}

static bool apply_tacs(struct core_live *l, const struct conf *c)
{
	uint32_t t[AMF_MAX_TACS];

	for (unsigned i = 0; i < c->n_tac && i < AMF_MAX_TACS; i++)
		t[i] = c->tac[i];
	if (l->amf && amf_set_tacs(l->amf, t, c->n_tac) < 0)
		return false;
	memcpy(l->conf->tac, c->tac, sizeof(l->conf->tac));
	l->conf->n_tac = c->n_tac;
	return true;
}

static bool apply_slices(struct core_live *l, const struct conf *c)
{
	struct amf_snssai s[AMF_MAX_SLICES];

	for (unsigned i = 0; i < c->n_slices && i < AMF_MAX_SLICES; i++)
		s[i] = (struct amf_snssai){ c->slices[i].sst, c->slices[i].has_sd ? c->slices[i].sd : AMF_SD_NONE };
	if (l->amf && amf_set_slices(l->amf, s, c->n_slices) < 0)
		return false;
	/* The SMF checks a new session's S-NSSAI against the slices served. */
	if (l->smf && smf_set_slices(l->smf, c->slices, c->n_slices) < 0)
		log_error("core", "settings: the SMF refused the slice list: new sessions are checked "
			  "against the old one until the next start");
	memcpy(l->conf->slices, c->slices, sizeof(l->conf->slices));
	l->conf->n_slices = c->n_slices;
	return true;
}

/* Subscribers without their own slices / DNNs (nor a policy's) take the network's, as they
 * would after a restart: the UDM applies the new defaults in memory to those that take them
 * (bench_udm_policy: milliseconds at 10^6 SIMs), logged with its cost. */
static void refresh_defaults(struct core_live *l, bool slices)
{
	uint64_t t0 = mono_ms();
	int n = udm_set_defaults_from_conf(l->udm, l->conf);

	if (n < 0) {
		log_error("core", "settings: subscribers not refreshed (%s): they see the new network "
			  "slices / DNNs after the next start", strerror(-n));
		return;
	}
	log_info("core", "settings: %d subscriber(s) refreshed with the network's slices / DNNs in %llu ms",
		 n, (unsigned long long)(mono_ms() - t0));
	/* amf_set_slices() judged registered UEs by their subscription as it was; those on the
	 * network's slices have just gained (or lost) some: recompute their allowed NSSAI so
	 * they get the CONFIGURATION UPDATE COMMAND too (TS 24.501 5.4.4). */
	if (n > 0 && l->amf && slices)
		amf_nssai_resync(l->amf);
}

unsigned core_live_apply(void *arg, const struct conf *c, unsigned want)
{
	struct core_live *l = arg;
	unsigned done = 0;

	if ((want & WEB_LIVE_DNNS) && apply_dnns(l, c))
		done |= WEB_LIVE_DNNS;
	if ((want & WEB_LIVE_TACS) && apply_tacs(l, c))
		done |= WEB_LIVE_TACS;
	if ((want & WEB_LIVE_SLICES) && apply_slices(l, c))
		done |= WEB_LIVE_SLICES;
	if ((done & (WEB_LIVE_DNNS | WEB_LIVE_SLICES)) && l->udm)
		refresh_defaults(l, (done & WEB_LIVE_SLICES) != 0);
	return done;
}
