/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * amf life cycle, configuration, observation API and the N2 entry points.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "amf/amf_int.h"
#include "common/conf.h"
#include "common/log.h"

/* TS 24.008 10.5.1.13 / TS 38.413 9.3.3.5: MCC digit 2|1, MNC digit 3|MCC digit 3, MNC 2|1. */
int amf_plmn_encode(const char *mcc, const char *mnc, uint8_t out[3])
{
	size_t lm = strlen(mnc);
	int i;

	if (strlen(mcc) != 3 || (lm != 2 && lm != 3))
		return -EINVAL;
	for (i = 0; i < 3; i++)
		if (mcc[i] < '0' || mcc[i] > '9' || (i < (int)lm && (mnc[i] < '0' || mnc[i] > '9')))
			return -EINVAL;
	out[0] = (uint8_t)((mcc[1] - '0') << 4 | (mcc[0] - '0'));
	out[1] = (uint8_t)((lm == 3 ? mnc[2] - '0' : 0xf) << 4 | (mcc[2] - '0'));
	out[2] = (uint8_t)((mnc[1] - '0') << 4 | (mnc[0] - '0'));
	return 0;
}

void amf_plmn_decode(const uint8_t p[3], char mcc[4], char mnc[4])
{
	mcc[0] = (char)('0' + (p[0] & 0xf));
	mcc[1] = (char)('0' + (p[0] >> 4));
	mcc[2] = (char)('0' + (p[1] & 0xf));
	mcc[3] = '\0';
	mnc[0] = (char)('0' + (p[2] & 0xf));
	mnc[1] = (char)('0' + (p[2] >> 4));
	if ((p[1] >> 4) == 0xf) {
		mnc[2] = '\0';
	} else {
		mnc[2] = (char)('0' + (p[1] >> 4));
		mnc[3] = '\0';
	}
}

void amf_cfg_default(struct amf_cfg *c)
{
	memset(c, 0, sizeof(*c));
	amf_plmn_encode("001", "01", c->plmn);
	c->amf_region_id = 1;
	c->amf_set_id = 1;
	c->amf_pointer = 0;
	snprintf(c->amf_name, sizeof(c->amf_name), "solocore");
	c->relative_capacity = 255;
	c->tacs[0] = 1;
	c->n_tacs = 1;
	c->slices[0] = (struct amf_snssai){ .sst = 1, .sd = 0x010203 };
	c->n_slices = 1;
	/* Default NIA2,NIA1,NIA3,NIA0 / NEA2,NEA1,NEA3,NEA0: ciphering on unless the UE has
	 * none (issue 14 item 9, as conf's defaults). */
	memcpy(c->integ_prio, (uint8_t[]){ 2, 1, 3, 0 }, 4);
	c->n_integ = 4;
	memcpy(c->ciph_prio, (uint8_t[]){ 2, 1, 3, 0 }, 4);
	c->n_ciph = 4;
	c->request_imeisv = true;
	c->cuc_after_reg = true;
	c->t3512_s = 54 * 60;
	c->t3513_ms = 6000;
	c->t3522_ms = 6000;
	c->t3550_ms = 6000;
	c->t3555_ms = 6000;
	/* TS 38.413 8.3.3 has no timer of its own: as long as the NAS guard timers. */
	c->release_guard_ms = 6000;
	c->ho_prep_ms = 5000;      /* the target answers within a radio resource setup */
	c->ho_overall_ms = 10000;  /* the UE reaches the target, the source releases */
	c->t3560_ms = 6000;
	c->t3570_ms = 6000;
	c->mobile_reachable_s = c->t3512_s + 240;
	c->implicit_dereg_s = 240;
	c->ng_setup_time_to_wait = 2; /* v5s */
	/* Longer than two SCTP retransmissions at RTO.Initial 3 s (RFC 9260 16): a live gNB
	 * on a lossy path still answers; shorter than two NG Setup retries after v5s. */
	c->gnb_probe_ms = 8000;
	c->max_ues = 65536;
	c->max_gnbs = 256;
	snprintf(c->n2_addr, sizeof(c->n2_addr), "0.0.0.0");
	c->n2_port = 38412;
	snprintf(c->n2_backend, sizeof(c->n2_backend), "auto");
}

static int tz_parse(const char *s, int8_t *q)
{
	int hh, mm, sign;

	if (strlen(s) != 6 || (s[0] != '+' && s[0] != '-') || s[3] != ':' ||
	    sscanf(s + 1, "%2d:%2d", &hh, &mm) != 2 || hh > 14 || mm % 15)
		return -EINVAL;
	sign = s[0] == '-' ? -1 : 1;
	*q = (int8_t)(sign * (hh * 4 + mm / 15));
	return 0;
}

/* Truncating copy (config strings are validated by conf; ours are shorter buffers). */
static void copy_str(char *dst, size_t dstsz, const char *src)
{
	size_t n = strnlen(src, dstsz - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

int amf_cfg_from_conf(struct amf_cfg *c, const struct conf *conf)
{
	unsigned i;

	amf_cfg_default(c);
	if (amf_plmn_encode(conf->plmn.mcc, conf->plmn.mnc, c->plmn) < 0)
		return -EINVAL;
	c->amf_region_id = conf->amf.region_id;
	c->amf_set_id = conf->amf.set_id & 0x3ff;
	c->amf_pointer = conf->amf.pointer & 0x3f;
	copy_str(c->amf_name, sizeof(c->amf_name), conf->amf.name);
	c->relative_capacity = conf->amf.relative_capacity;
	c->n_tacs = conf->n_tac < AMF_MAX_TACS ? conf->n_tac : AMF_MAX_TACS;
	for (i = 0; i < c->n_tacs; i++)
		c->tacs[i] = conf->tac[i] & 0xffffff;
	amf_ra_from_conf(c, conf);
	c->n_slices = conf->n_slices < AMF_MAX_SLICES ? conf->n_slices : AMF_MAX_SLICES;
	for (i = 0; i < c->n_slices; i++) {
		c->slices[i].sst = conf->slices[i].sst;
		c->slices[i].sd = conf->slices[i].has_sd ? conf->slices[i].sd & 0xffffff : AMF_SD_NONE;
	}
	if (conf->amf.security.n_integrity) {
		c->n_integ = conf->amf.security.n_integrity > 4 ? 4 : conf->amf.security.n_integrity;
		memcpy(c->integ_prio, conf->amf.security.integrity, c->n_integ);
	}
	if (conf->amf.security.n_ciphering) {
		c->n_ciph = conf->amf.security.n_ciphering > 4 ? 4 : conf->amf.security.n_ciphering;
		memcpy(c->ciph_prio, conf->amf.security.ciphering, c->n_ciph);
	}
	c->t3512_s = conf->timers.t3512;
	c->t3513_ms = conf->timers.t3513 * 1000;
	c->t3522_ms = conf->timers.t3522 * 1000;
	c->t3550_ms = conf->timers.t3550 * 1000;
	c->t3555_ms = conf->timers.t3555 * 1000;
	c->t3560_ms = conf->timers.t3560 * 1000;
	c->t3570_ms = conf->timers.t3570 * 1000;
	c->mobile_reachable_s = conf->timers.mobile_reachable;
	c->implicit_dereg_s = conf->timers.implicit_dereg;
	if (conf->limits.max_ues)
		c->max_ues = conf->limits.max_ues;
	if (conf->limits.max_gnbs)
		c->max_gnbs = conf->limits.max_gnbs;
	copy_str(c->network_full_name, sizeof(c->network_full_name), conf->amf.network_name.full);
	copy_str(c->network_short_name, sizeof(c->network_short_name), conf->amf.network_name.short_name);
	if (conf->amf.timezone[0]) {
		if (tz_parse(conf->amf.timezone, &c->tz_quarters) < 0)
			return -EINVAL;
		c->send_tz = true;
	}
	copy_str(c->n2_addr, sizeof(c->n2_addr), conf->n2.address);
	c->n2_port = conf->n2.port;
	snprintf(c->n2_backend, sizeof(c->n2_backend), "%s",
		 conf->n2.sctp == CONF_SCTP_KERNEL ? "kernel" :
		 conf->n2.sctp == CONF_SCTP_USRSCTP ? "usrsctp" : "auto");
	c->n2_udp_encap = conf->n2.usrsctp_encaps == CONF_ENCAPS_UDP;
	c->n2_udp_port = conf->n2.udp_port;
	c->n_allowed_gnbs = 0;
	for (unsigned i = 0; i < conf->n2.n_allowed_gnbs && i < CONF_MAX_ALLOWED_GNBS; i++)
		if (conf_gnb_rule_parse(conf->n2.allowed_gnbs[i], &c->allowed_gnbs[c->n_allowed_gnbs++], NULL, 0) < 0)
			return -EINVAL;   /* conf_load checked it already */
	return 0;
}

struct amf *amf_new(struct ev_loop *loop, const struct amf_cfg *cfg, struct ausf *ausf,
		    struct udm *udm, const struct amf_n2_ops *ops, int *err)
{
	struct amf *amf;
	int rc;

	if (!cfg->max_gnbs || !cfg->n_integ || !cfg->n_ciph || !ops || !ops->send) {
		*err = -EINVAL;
		return NULL;
	}
	amf = calloc(1, sizeof(*amf));
	if (!amf) {
		*err = -ENOMEM;
		return NULL;
	}
	amf->loop = loop;
	amf->cfg = *cfg;
	amf->ausf = ausf;
	amf->udm = udm;
	amf->ops = *ops;
	amf_plmn_decode(cfg->plmn, amf->mcc, amf->mnc);
	ausf_snname(amf->snname, sizeof(amf->snname), amf->mcc, amf->mnc);
	rc = amf_store_init(amf);
	if (rc < 0) {
		amf_store_fini(amf);
		free(amf);
		*err = rc;
		return NULL;
	}
	amf_tmsi_init(amf);
	amf_nssai_walk_init(amf);
	if (!memchr(cfg->integ_prio, 1, cfg->n_integ) && !memchr(cfg->integ_prio, 2, cfg->n_integ) &&
	    !memchr(cfg->integ_prio, 3, cfg->n_integ))
		/* TS 33.501 5.5.2: NIA0 is never selected for a registration (nas_auth.c). */
		log_warn("amf", "amf.security.integrity has no algorithm but NIA0: every registration "
			 "will be rejected with #23 (NIA0 is for unauthenticated emergency sessions only)");
	log_info("amf", "up plmn=%s-%s guami=%u/%u/%u max_ues=%u snn=%s", amf->mcc, amf->mnc,
		 cfg->amf_region_id, cfg->amf_set_id, cfg->amf_pointer, cfg->max_ues, amf->snname);
	return amf;
}

void amf_free(struct amf *amf)
{
	uint32_t i;

	if (!amf)
		return;
	/* The SMF cleans up its own sessions in smf_free (amf.h: shutdown order). */
	amf->smf = NULL;
	amf_nssai_walk_stop(amf);
	/* Stop: per live context only its timers (the loop may run on) and its keys; indexes
	 * and the pool go as a whole (freed contexts were wiped by amf_ue_free). */
	for (i = 0; i < amf->ues_hw; i++) {
		struct amf_ue *ue = &amf->ues[i];

		if (!ue->in_use)
			continue;
		amf_tmr_stop_all(ue);
		explicit_bzero(ue->kamf, sizeof(ue->kamf));
		explicit_bzero(ue->knas_int, sizeof(ue->knas_int));
		explicit_bzero(ue->knas_enc, sizeof(ue->knas_enc));
		explicit_bzero(&ue->auth, sizeof(ue->auth));
	}
	amf_store_fini(amf);
	free(amf);
}

void amf_get_stats(const struct amf *amf, struct amf_stats *out)
{
	*out = amf->st;
}

unsigned amf_gnb_ue_count(const struct amf *amf, uint32_t assoc)
{
	const struct amf_gnb *gnb = amf_gnb_by_assoc(amf, assoc);

	return gnb ? gnb->n_ues : 0;
}

/* ---- live network settings (web API: PATCH /api/v1/settings) ---- */

void amf_get_cfg(const struct amf *amf, struct amf_cfg *out)
{
	*out = amf->cfg;
}

int amf_set_tacs(struct amf *amf, const uint32_t *tacs, unsigned n)
{
	uint8_t area[AMF_MAX_TACS];
	unsigned i;

	if (!n || n > AMF_MAX_TACS)
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (tacs[i] > 0xffffff)
			return -EINVAL;
	/* Read by the next procedure, no state keeps a copy: NG Setup and RAN Configuration
	 * Update check a gNB's supported TAs against it (TS 38.413 8.7.1.2, 8.7.2.2), the
	 * Registration Accept carries it as the TAI list (TS 24.501 5.5.1.2.4, 9.11.3.9) and
	 * paging goes to the gNBs serving one of these TAs. A gNB keeps the TAs accepted at
	 * its NG Setup until it sends new ones; a UE learns the list at its next registration. */
	/* TS 23.501 5.3.2.3: the registration areas stay as configured for the TACs that
	 * remain; a UE registered in one learns its new list at its next registration. */
	amf_ra_retag(&amf->cfg, tacs, n, area);
	memcpy(amf->cfg.tacs, tacs, n * sizeof(*tacs));
	memcpy(amf->cfg.tac_area, area, n);
	amf->cfg.n_tacs = n;
	log_info("amf", "served TACs changed: %u TAC(s), first %06x", n, tacs[0]);
	return 0;
}

/* TS 38.413 8.7.3.1: AMF CONFIGURATION UPDATE to one gNB with our PLMN Support List. */
int amf_ngap_cfg_update(struct amf *amf, const struct amf_gnb *gnb)
{
	struct ngap_msg *tx = &amf->tx;
	struct ngap_plmn_support *ps;
	unsigned i;

	memset(tx, 0, sizeof(*tx));
	tx->type = NGAP_INITIATING;
	tx->proc = NGAP_PROC_AMF_CONFIGURATION_UPDATE;
	tx->u.amf_configuration_update.n_plmns = 1;
	ps = &tx->u.amf_configuration_update.plmns[0];
	memcpy(ps->plmn.v, amf->cfg.plmn, 3);
	ps->n_slices = (uint8_t)amf->cfg.n_slices;
	for (i = 0; i < amf->cfg.n_slices; i++) {
		uint32_t sd = amf->cfg.slices[i].sd;

		ps->slices[i].sst = amf->cfg.slices[i].sst;
		ps->slices[i].has_sd = sd != AMF_SD_NONE;
		ps->slices[i].sd[0] = (uint8_t)(sd >> 16);
		ps->slices[i].sd[1] = (uint8_t)(sd >> 8);
		ps->slices[i].sd[2] = (uint8_t)sd;
	}
	/* Non-UE-associated signalling: stream 0 (TS 38.412 7). */
	return amf_ngap_send(amf, gnb->assoc, 0, tx);
}

int amf_set_slices(struct amf *amf, const struct amf_snssai *s, unsigned n)
{
	struct amf_snssai old[AMF_MAX_SLICES];
	unsigned i, sent = 0, ues, n_old = amf->cfg.n_slices;

	if (!n || n > AMF_MAX_SLICES || n > NGAP_MAX_SLICES)
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (s[i].sd > 0xffffff)
			return -EINVAL;
	memcpy(old, amf->cfg.slices, n_old * sizeof(*s));
	memcpy(amf->cfg.slices, s, n * sizeof(*s));
	amf->cfg.n_slices = n;
	/* New registrations get their allowed NSSAI from the new list at once (TS 24.501
	 * 5.5.1.2.4); gNBs set up from now on get it in the NG Setup Response. gNBs already
	 * set up hold the PLMN Support List of their NG Setup Response: TS 38.413 8.7.3.2, the
	 * list in an AMF CONFIGURATION UPDATE replaces it whole. The acknowledge needs no
	 * action from us (a failure only means the gNB keeps its old list). */
	for (i = 0; i < amf->cfg.max_gnbs; i++) {
		const struct amf_gnb *gnb = &amf->gnbs[i];

		if (!gnb->in_use || !gnb->setup_done)
			continue;
		if (amf_ngap_cfg_update(amf, gnb) == 0)
			sent++;
		else
			log_warn("amf", "assoc=%u AMF Configuration Update not sent", gnb->assoc);
	}
	/* TS 23.501 5.15.5.2.2: registered UEs get the new allowed NSSAI (nas_reg.c). */
	ues = amf_nssai_refresh(amf, old, n_old);
	log_info("amf", "served slices changed: %u S-NSSAI(s), AMF Configuration Update sent to %u gNB(s), "
		 "allowed NSSAI changed for %u UE(s)", n, sent, ues);
	return (int)sent;
}

int amf_nssai_resync(struct amf *amf)
{
	unsigned n = amf_nssai_refresh(amf, NULL, 0);

	log_info("amf", "allowed NSSAI re-evaluated: changed for %u UE(s)", n);
	return (int)n;
}
