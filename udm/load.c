/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * Start-up load of the subscriber store from db/ and the SQN sink that hands
 * SQN changes to db's write-behind writer.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "db/db.h"
#include "udm/udm_int.h"

/* The policies of db in name order (db_policy_walk), for a whole-store pass: one query
 * for all of them instead of one per subscriber. Operator-made, so few. */
struct pol_table {
	struct db_policy *v;
	size_t n, cap;
	size_t last;   /* rows come in SUPI order and neighbours often share a policy */
};

static int pol_add(const struct db_policy *p, void *arg)
{
	struct pol_table *t = arg;

	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 16;
		struct db_policy *v = realloc(t->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		t->v = v;
		t->cap = cap;
	}
	t->v[t->n++] = *p;
	return 0;
}

static int pol_load(struct pol_table *t, struct db *db)
{
	int rc;

	memset(t, 0, sizeof(*t));
	rc = db_policy_walk(db, pol_add, t);
	return rc < 0 ? rc : 0;
}

static const struct db_policy *pol_find(struct pol_table *t, const char *name)
{
	size_t lo = 0, hi = t->n;

	if (!name[0] || !t->n)
		return NULL;
	if (t->last < t->n && strcmp(t->v[t->last].name, name) == 0)
		return &t->v[t->last];
	while (lo < hi) {   /* walk order is name order (BINARY collation = strcmp) */
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(t->v[mid].name, name);

		if (c == 0) {
			t->last = mid;
			return &t->v[mid];
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static void pol_free(struct pol_table *t)
{
	free(t->v);
	memset(t, 0, sizeof(*t));
}

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

/* One db row into the store, resolved against p (NULL: no policy). */
static int add_db(struct udm *udm, const struct db_subscriber *s, const struct db_policy *p,
		  bool *clipped)
{
	struct udm_sub_in in;
	int rc;

	memset(&in, 0, sizeof(in));
	*clipped = resolve(udm, s, p, &in.data);
	memcpy(in.k, s->k, 16);
	memcpy(in.opc, s->opc, 16);
	in.op_is_opc = s->op_is_opc;
	in.amf[0] = (uint8_t)(s->amf >> 8);
	in.amf[1] = (uint8_t)s->amf;
	in.sqn = s->sqn;
	rc = udm_add(udm, &in);
	explicit_bzero(&in, sizeof(in));
	return rc;
}

int udm_add_db(struct udm *udm, const struct db_subscriber *s)
{
	bool clipped;

	if (!udm || !s || s->policy[0])
		return -EINVAL;   /* a policy needs its values: udm_add_db_policy() */
	return add_db(udm, s, NULL, &clipped);
}

int udm_add_db_policy(struct udm *udm, const struct db_subscriber *s, const struct db_policy *p)
{
	bool clipped;

	if (!udm || !s || (s->policy[0] && (!p || strcmp(p->name, s->policy))))
		return -EINVAL;
	return add_db(udm, s, s->policy[0] ? p : NULL, &clipped);
}

struct load_ctx {
	struct udm *udm;
	struct pol_table pols;
	uint32_t loaded, clipped, failed, unknown_policy;
};

static const struct db_policy *row_policy(struct load_ctx *lc, const struct db_subscriber *s)
{
	const struct db_policy *p = pol_find(&lc->pols, s->policy);

	/* The foreign key makes this impossible; if a file was edited by hand without it,
	 * the subscriber still loads with network defaults, and the count is logged. */
	if (s->policy[0] && !p)
		lc->unknown_policy++;
	return p;
}

static int load_one(const struct db_subscriber *s, void *arg)
{
	struct load_ctx *lc = arg;
	bool clipped = false;
	int rc = add_db(lc->udm, s, row_policy(lc, s), &clipped);

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

	rc = pol_load(&lc.pols, db);
	if (rc == 0)
		rc = db_load_subscribers(db, load_one, &lc);
	pol_free(&lc.pols);
	if (rc < 0) {
		log_error("udm", "loading subscribers failed rc=%d (store capacity %u)", rc, udm->cap);
		return rc;
	}
	if (lc.clipped)
		log_warn("udm", "%u subscribers have more than %u slices / %u DNNs: extra ones ignored",
			 lc.clipped, UDM_MAX_SLICES, UDM_MAX_DNNS);
	if (lc.unknown_policy)
		log_warn("udm", "%u subscribers name a policy that does not exist: network defaults "
			 "used", lc.unknown_policy);
	if (lc.failed)
		log_warn("udm", "%u subscribers could not be loaded", lc.failed);
	log_info("udm", "loaded %u subscribers", lc.loaded);
	return (int)lc.loaded;
}

/* Re-resolution: the subscription data of subscribers already in the store, from their
 * db rows. Keys and SQN stay as they are in memory (the db copy of SQN may lag behind the
 * write-behind writer). */
static int refresh_one(const struct db_subscriber *s, void *arg)
{
	struct load_ctx *lc = arg;
	struct udm_subscriber *m = udm_find(lc->udm, s->supi);
	struct udm_sub_data d;
	unsigned i;

	if (!m)
		return 0;   /* not in the store (it was full at load): nothing to update */
	if (resolve(lc->udm, s, row_policy(lc, s), &d))
		lc->clipped++;
	for (i = 0; i < d.n_dnns; i++) {
		d.dnns[i] = udm_dnn_intern(lc->udm, d.dnns[i]);
		if (!d.dnns[i]) {
			lc->failed++;   /* DNN pool full: keep the previous data */
			return 0;
		}
	}
	m->data = d;
	lc->loaded++;
	return 0;
}

int udm_refresh_db(struct udm *udm, struct db *db, const char *policy)
{
	struct load_ctx lc = { .udm = udm };
	struct db_policy *p;
	int rc;

	if (!udm || !db)
		return -EINVAL;
	if (!policy) {
		rc = pol_load(&lc.pols, db);
		if (rc == 0)
			rc = db_load_subscribers(db, refresh_one, &lc);
		pol_free(&lc.pols);
	} else {
		/* Only this policy's row: a one-entry table (none when it was deleted). */
		p = malloc(sizeof(*p));
		if (!p)
			return -ENOMEM;
		rc = db_policy_get(db, policy, p);
		if (rc == 0) {
			lc.pols.v = p;
			lc.pols.n = lc.pols.cap = 1;
		} else {
			free(p);
		}
		if (rc == 0 || rc == -ENOENT)
			rc = db_subscriber_walk_policy(db, policy, refresh_one, &lc);
		pol_free(&lc.pols);
	}
	if (rc < 0) {
		log_error("udm", "re-resolving subscribers%s%s failed rc=%d", policy ? " of policy " : "",
			  policy ? policy : "", rc);
		return rc;
	}
	if (lc.failed)
		log_warn("udm", "%u subscribers kept their previous data (more than %u distinct DNNs)",
			 lc.failed, UDM_MAX_DISTINCT_DNNS);
	log_info("udm", "re-resolved %u subscribers%s%s", lc.loaded, policy ? " of policy " : "",
		 policy ? policy : "");
	return (int)lc.loaded;
}

void udm_set_defaults(struct udm *udm, const struct udm_sub_data *d)
{
	unsigned i;

	udm->defaults = *d;
	for (i = 0; i < d->n_dnns && i < UDM_MAX_DNNS; i++)
		udm->defaults.dnns[i] = d->dnns[i] ? udm_dnn_intern(udm, d->dnns[i]) : NULL;
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
