/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * Start-up load of the subscriber store from db/ and the SQN sink that hands
 * SQN changes to db's write-behind writer.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "db/db.h"
#include "udm/udm_int.h"

/* Each field: the subscriber's own non-zero / non-empty value, else the policy's, else the
 * store's network default (udm_set_defaults). Slices and DNNs go as a whole list. */
static bool resolve(const struct udm *udm, const struct db_subscriber *s, const struct db_policy *p,
		    struct udm_sub_data *d)
{
	const struct db_snssai *sl = NULL;
	unsigned i, n_sl = 0, n_dn = 0;
	const char (*dn)[DB_DNN_MAX + 1] = NULL;
	bool clipped;

	memset(d, 0, sizeof(*d));
	memcpy(d->supi, s->supi, sizeof(d->supi));
	d->supi[sizeof(d->supi) - 1] = '\0';
	if (s->n_slices) {
		sl = s->slices;
		n_sl = s->n_slices;
	} else if (p && p->n_slices) {
		sl = p->slices;
		n_sl = p->n_slices;
	}
	if (s->n_dnns) {
		dn = (const char (*)[DB_DNN_MAX + 1])s->dnns;
		n_dn = s->n_dnns;
	} else if (p && p->n_dnns) {
		dn = (const char (*)[DB_DNN_MAX + 1])p->dnns;
		n_dn = p->n_dnns;
	}
	clipped = n_sl > UDM_MAX_SLICES || n_dn > UDM_MAX_DNNS;
	if (sl) {
		d->n_slices = n_sl > UDM_MAX_SLICES ? UDM_MAX_SLICES : (uint8_t)n_sl;
		for (i = 0; i < d->n_slices; i++) {
			d->slices[i].sst = sl[i].sst;
			d->slices[i].sd = sl[i].sd;
		}
	} else {
		d->n_slices = udm->defaults.n_slices;
		memcpy(d->slices, udm->defaults.slices, sizeof(d->slices));
	}
	if (dn) {
		d->n_dnns = n_dn > UDM_MAX_DNNS ? UDM_MAX_DNNS : (uint8_t)n_dn;
		for (i = 0; i < d->n_dnns; i++)
			d->dnns[i] = dn[i];
	} else {
		d->n_dnns = udm->defaults.n_dnns;
		memcpy(d->dnns, udm->defaults.dnns, sizeof(d->dnns));
	}
#define PICK(own, pol, def) ((own) ? (own) : p && (pol) ? (pol) : (def))
	d->ambr_ul_bps = PICK(s->ambr_ul, p->ambr_ul, udm->defaults.ambr_ul_bps);
	d->ambr_dl_bps = PICK(s->ambr_dl, p->ambr_dl, udm->defaults.ambr_dl_bps);
	d->qi5 = PICK(s->default_5qi, p->default_5qi, udm->defaults.qi5);
	d->arp = PICK(s->arp, p->arp, udm->defaults.arp);
#undef PICK
	return clipped;
}

void udm_resolve(const struct udm *udm, const struct db_subscriber *s, const struct db_policy *p,
		 struct udm_sub_data *out)
{
	static const struct udm none;

	resolve(udm ? udm : &none, s, p, out);
}

/* One db row into the store with the policy of slot pol: the fields it sets itself are
 * kept as its own (never re-resolved), the others come from the policy's effective values
 * (policy.c). Checks and OPc come first, so a failure leaves the store as it was. */
static int put_db(struct udm *udm, const struct db_subscriber *s, unsigned pol, bool *clipped)
{
	struct udm_subscriber *m;
	struct udm_sub_data d;
	uint8_t opc[16];
	unsigned i, own = 0;
	bool fresh;
	int rc = 0;

	if (!memchr(s->supi, 0, sizeof(s->supi)))
		return -EINVAL;
	memset(&d, 0, sizeof(d));
	*clipped = s->n_slices > UDM_MAX_SLICES || s->n_dnns > UDM_MAX_DNNS;
	if (s->n_slices) {
		own |= UDM_F_SLICES;
		d.n_slices = s->n_slices > UDM_MAX_SLICES ? UDM_MAX_SLICES : s->n_slices;
		for (i = 0; i < d.n_slices; i++) {
			d.slices[i].sst = s->slices[i].sst;
			d.slices[i].sd = s->slices[i].sd;
		}
	}
	if (s->n_dnns) {
		own |= UDM_F_DNNS;
		d.n_dnns = s->n_dnns > UDM_MAX_DNNS ? UDM_MAX_DNNS : s->n_dnns;
		for (i = 0; i < d.n_dnns; i++) {
			d.dnns[i] = udm_dnn_intern(udm, s->dnns[i]);
			if (!d.dnns[i])
				return -EINVAL;
		}
	}
	d.ambr_ul_bps = s->ambr_ul;
	d.ambr_dl_bps = s->ambr_dl;
	d.qi5 = s->default_5qi;
	d.arp = s->arp;
	own |= (s->ambr_ul ? UDM_F_AMBR_UL : 0) | (s->ambr_dl ? UDM_F_AMBR_DL : 0) |
	       (s->default_5qi ? UDM_F_5QI : 0) | (s->arp ? UDM_F_ARP : 0);
	if (s->op_is_opc)
		memcpy(opc, s->opc, 16);
	else
		rc = udm_opc_from_op(s->k, s->opc, opc);
	m = rc < 0 ? NULL : udm_slot(udm, s->supi, &fresh, &rc);
	if (m) {
		memcpy(d.supi, m->data.supi, sizeof(d.supi));
		m->data = d;
		m->ue_ambr_ul = s->ue_ambr_ul;
		m->ue_ambr_dl = s->ue_ambr_dl;
		m->own = own & UDM_F_ALL;
		udm_pol_link(udm, m, pol, fresh);   /* the rest from the policy / defaults */
		memcpy(m->k, s->k, 16);
		memcpy(m->opc, opc, 16);
		m->amf[0] = (uint8_t)(s->amf >> 8);
		m->amf[1] = (uint8_t)s->amf;
		m->sqn = s->sqn & 0xffffffffffffull;
	}
	explicit_bzero(opc, sizeof(opc));
	return m ? 0 : rc;
}

/* Own value > policy's > network default, per direction (TS 23.501 5.7.2.6). */
static uint64_t pick_rate(uint64_t own, uint64_t pol, uint64_t def)
{
	return own ? own : pol ? pol : def ? def : UDM_DEFAULT_UE_AMBR_BPS;
}

void udm_ue_ambr(const struct udm *udm, const struct udm_sub_data *d, uint64_t *ul, uint64_t *dl)
{
	const struct udm_subscriber *s = (const struct udm_subscriber *)(const void *)
		((const char *)d - offsetof(struct udm_subscriber, data));
	const struct udm_policy *p = &udm->pols[s->pol];

	*ul = pick_rate(s->ue_ambr_ul, p->ue_ambr_ul, udm->def_ue_ambr_ul);
	*dl = pick_rate(s->ue_ambr_dl, p->ue_ambr_dl, udm->def_ue_ambr_dl);
}

void udm_resolve_ue_ambr(const struct udm *udm, const struct db_subscriber *s,
			 const struct db_policy *p, uint64_t *ul, uint64_t *dl)
{
	*ul = pick_rate(s->ue_ambr_ul, p ? p->ue_ambr_ul : 0, udm ? udm->def_ue_ambr_ul : 0);
	*dl = pick_rate(s->ue_ambr_dl, p ? p->ue_ambr_dl : 0, udm ? udm->def_ue_ambr_dl : 0);
}

void udm_set_ue_ambr_default(struct udm *udm, uint64_t ul, uint64_t dl)
{
	udm->def_ue_ambr_ul = ul;
	udm->def_ue_ambr_dl = dl;
}

int udm_add_db(struct udm *udm, const struct db_subscriber *s)
{
	bool clipped;

	if (!udm || !s || s->policy[0])
		return -EINVAL;   /* a policy needs its values: udm_add_db_policy() */
	return put_db(udm, s, 0, &clipped);
}

int udm_add_db_policy(struct udm *udm, const struct db_subscriber *s, const struct db_policy *p)
{
	unsigned slot = 0;
	bool clipped;
	int rc;

	if (!udm || !s || (s->policy[0] && (!p || strcmp(p->name, s->policy))))
		return -EINVAL;
	if (s->policy[0]) {
		rc = udm_pol_get(udm, p, &slot);
		if (rc < 0)
			return rc;
	}
	return put_db(udm, s, slot, &clipped);
}

struct load_ctx {
	struct udm *udm;
	uint32_t loaded, clipped, failed, unknown_policy, pols, pols_failed;
};

static int load_pol(const struct db_policy *p, void *arg)
{
	struct load_ctx *lc = arg;

	/* A policy the table cannot take (DNN pool or table full, logged): its subscribers
	 * load with the network defaults, counted below. */
	if (udm_policy_update(lc->udm, p) < 0)
		lc->pols_failed++;
	else
		lc->pols++;
	return 0;
}

static int load_one(const struct db_subscriber *s, void *arg)
{
	struct load_ctx *lc = arg;
	unsigned pol = udm_pol_find(lc->udm, s->policy);
	bool clipped = false;
	int rc;

	/* The foreign key makes an unknown policy impossible; if a file was edited by hand
	 * without it, the subscriber still loads with network defaults, and the count is
	 * logged. */
	if (s->policy[0] && !pol)
		lc->unknown_policy++;
	rc = put_db(lc->udm, s, pol, &clipped);
	if (clipped)
		lc->clipped++;
	if (rc == -ENOSPC)
		return rc;   /* stop: the store is full */
	if (rc < 0)
		lc->failed++;
	else
		lc->loaded++;
	return 0;
}

int udm_load_db(struct udm *udm, struct db *db)
{
	struct load_ctx lc = { .udm = udm };
	int rc;

	rc = db_policy_walk(db, load_pol, &lc);
	if (rc >= 0)
		rc = db_load_subscribers(db, load_one, &lc);
	if (rc < 0) {
		log_error("udm", "loading subscribers failed rc=%d (store capacity %u)", rc, udm->cap);
		return rc;
	}
	if (lc.clipped)
		log_warn("udm", "%u subscribers have more than %u slices / %u DNNs: extra ones ignored",
			 lc.clipped, UDM_MAX_SLICES, UDM_MAX_DNNS);
	if (lc.unknown_policy)
		log_warn("udm", "%u subscribers name a policy that does not exist or could not be "
			 "held (%u): network defaults used", lc.unknown_policy, lc.pols_failed);
	if (lc.failed)
		log_warn("udm", "%u subscribers could not be loaded", lc.failed);
	log_info("udm", "loaded %u subscribers, %u policies", lc.loaded, lc.pols);
	return (int)lc.loaded;
}

static void sqn_to_writer(void *arg, const char *supi, uint64_t sqn)
{
	/* Never blocks; a full queue drops the update, which AKA resync repairs
	 * (DESIGN.md: crash safety of SQN). */
	db_writer_sqn(arg, supi, sqn);
}

void udm_use_db_writer(struct udm *udm, struct db_writer *w)
{
	udm_set_sqn_sink(udm, w ? sqn_to_writer : NULL, w);
}
