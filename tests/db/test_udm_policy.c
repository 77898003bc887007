/* SPDX-License-Identifier: AGPL-3.0-or-later */
/* udm/ with policy profiles on a real SQLite file: the start-up load resolves own value >
 * policy > network default per field; udm_add_db_policy the same for one row; after a
 * policy change udm_refresh_db updates the data of exactly its subscribers and keeps their
 * keys and in-memory SQN. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "db/db.h"
#include "udm/udm.h"
#include "dbtest.h"

#define SNN "5G:mnc001.mcc001.3gppnetwork.org"

static void sub_init(struct db_subscriber *s, int i, const char *policy)
{
	memset(s, 0, sizeof(*s));
	snprintf(s->supi, sizeof(s->supi), "imsi-00101000000000%d", i);
	memset(s->k, 0x46, 16);
	memset(s->opc, 0xe8, 16);
	s->op_is_opc = true;
	s->amf = DB_DEFAULT_AMF;
	snprintf(s->policy, sizeof(s->policy), "%s", policy ? policy : "");
}

static struct udm *udm_with_defaults(void)
{
	struct udm_sub_data defs;
	int err = 0;
	struct udm *udm = udm_new(64, &err);

	assert_non_null(udm);
	memset(&defs, 0, sizeof(defs));
	defs.n_slices = 1;
	defs.slices[0].sst = 1;
	defs.slices[0].sd = 0x010203;
	defs.n_dnns = 1;
	defs.dnns[0] = "internet";
	defs.qi5 = UDM_DEFAULT_5QI;
	defs.arp = UDM_DEFAULT_ARP;
	defs.ambr_ul_bps = UDM_DEFAULT_AMBR_BPS;
	defs.ambr_dl_bps = UDM_DEFAULT_AMBR_BPS;
	udm_set_defaults(udm, &defs);
	return udm;
}

static void gold(struct db_policy *p)
{
	memset(p, 0, sizeof(*p));
	strcpy(p->name, "gold");
	p->n_dnns = 2;
	strcpy(p->dnns[0], "corp");
	strcpy(p->dnns[1], "ims");
	p->n_slices = 1;
	p->slices[0].sst = 2;
	p->slices[0].sd = 0xabcdef;
	p->ambr_ul = 200000000;
	p->ambr_dl = 0;            /* not set: network default */
	p->default_5qi = 6;
	p->arp = 2;
}

/* 1: no policy; 2: gold, nothing of its own; 3: gold with own arp and dnns. */
static void provision(struct db *db)
{
	struct db_policy p;
	struct db_subscriber s;

	gold(&p);
	assert_int_equal(db_policy_put(db, &p, DB_PUT_CREATE), 0);
	sub_init(&s, 1, NULL);
	assert_int_equal(db_subscriber_put(db, &s), 0);
	sub_init(&s, 2, "gold");
	s.sqn = 64;
	assert_int_equal(db_subscriber_put(db, &s), 0);
	sub_init(&s, 3, "gold");
	s.arp = 11;
	s.n_dnns = 1;
	strcpy(s.dnns[0], "own");
	assert_int_equal(db_subscriber_put(db, &s), 0);
}

static void assert_defaults(const struct udm_sub_data *d)
{
	assert_non_null(d);
	assert_int_equal(d->n_slices, 1);
	assert_int_equal(d->slices[0].sst, 1);
	assert_int_equal(d->slices[0].sd, 0x010203);
	assert_int_equal(d->n_dnns, 1);
	assert_string_equal(d->dnns[0], "internet");
	assert_int_equal(d->ambr_ul_bps, UDM_DEFAULT_AMBR_BPS);
	assert_int_equal(d->ambr_dl_bps, UDM_DEFAULT_AMBR_BPS);
	assert_int_equal(d->qi5, UDM_DEFAULT_5QI);
	assert_int_equal(d->arp, UDM_DEFAULT_ARP);
}

static void assert_gold(const struct udm_sub_data *d)
{
	assert_non_null(d);
	assert_int_equal(d->n_slices, 1);
	assert_int_equal(d->slices[0].sst, 2);
	assert_int_equal(d->slices[0].sd, 0xabcdef);
	assert_int_equal(d->n_dnns, 2);
	assert_string_equal(d->dnns[0], "corp");
	assert_string_equal(d->dnns[1], "ims");
	assert_int_equal(d->ambr_ul_bps, 200000000);
	assert_int_equal(d->ambr_dl_bps, UDM_DEFAULT_AMBR_BPS);   /* policy leaves it unset */
	assert_int_equal(d->qi5, 6);
	assert_int_equal(d->arp, 2);
}

static void test_load_resolves(void **state)
{
	struct dbt t;
	struct db *db;
	struct udm *udm;
	const struct udm_sub_data *d;

	(void)state;
	dbt_init(&t);
	assert_int_equal(db_open(t.db, &db), 0);
	provision(db);
	udm = udm_with_defaults();
	assert_int_equal(udm_load_db(udm, db), 3);
	assert_defaults(udm_get(udm, "imsi-001010000000001"));
	assert_gold(udm_get(udm, "imsi-001010000000002"));
	d = udm_get(udm, "imsi-001010000000003");
	assert_non_null(d);
	assert_int_equal(d->arp, 11);                 /* own */
	assert_int_equal(d->n_dnns, 1);
	assert_string_equal(d->dnns[0], "own");      /* own list, whole */
	assert_int_equal(d->qi5, 6);                  /* policy */
	assert_int_equal(d->slices[0].sd, 0xabcdef);  /* policy */
	assert_int_equal(d->ambr_dl_bps, UDM_DEFAULT_AMBR_BPS);  /* network */

	/* udm_add_db_policy / udm_add_db on one row give what the load gives. */
	struct udm *u2 = udm_with_defaults();
	struct db_subscriber s;
	struct db_policy p;
	assert_int_equal(db_subscriber_get(db, "imsi-001010000000002", &s), 0);
	assert_int_equal(udm_add_db(u2, &s), -EINVAL);   /* has a policy */
	assert_int_equal(udm_add_db_policy(u2, &s, NULL), -EINVAL);
	memset(&p, 0, sizeof(p));
	strcpy(p.name, "other");
	assert_int_equal(udm_add_db_policy(u2, &s, &p), -EINVAL);
	assert_int_equal(db_policy_get(db, "gold", &p), 0);
	assert_int_equal(udm_add_db_policy(u2, &s, &p), 0);
	assert_gold(udm_get(u2, "imsi-001010000000002"));
	assert_int_equal(db_subscriber_get(db, "imsi-001010000000001", &s), 0);
	assert_int_equal(udm_add_db_policy(u2, &s, &p), 0);   /* p ignored without a policy */
	assert_defaults(udm_get(u2, "imsi-001010000000001"));
	/* udm_resolve alone: same values, nothing stored. */
	struct udm_sub_data r;
	assert_int_equal(db_subscriber_get(db, "imsi-001010000000002", &s), 0);
	udm_resolve(udm, &s, &p, &r);
	assert_gold(&r);
	udm_resolve(NULL, &s, NULL, &r);
	assert_int_equal(r.arp, 0);
	assert_int_equal(r.n_dnns, 0);
	udm_free(u2);
	udm_free(udm);
	db_close(db);
	dbt_cleanup(&t);
}

static void test_refresh_after_change(void **state)
{
	struct dbt t;
	struct db *db;
	struct udm *udm;
	struct db_policy p;
	struct udm_av av;
	uint64_t sqn_mem, sqn;
	const struct udm_sub_data *d2;

	(void)state;
	dbt_init(&t);
	assert_int_equal(db_open(t.db, &db), 0);
	provision(db);
	udm = udm_with_defaults();
	assert_int_equal(udm_load_db(udm, db), 3);
	d2 = udm_get(udm, "imsi-001010000000002");
	/* An SQN issued in memory and not yet on disk (no writer here). */
	assert_int_equal(udm_generate_av(udm, "imsi-001010000000002", SNN, &av), 0);
	assert_int_equal(udm_get_sqn(udm, "imsi-001010000000002", &sqn_mem), 0);
	assert_true(sqn_mem > 64);

	gold(&p);
	p.ambr_dl = 10000000;
	p.arp = 14;
	p.n_dnns = 1;
	strcpy(p.dnns[0], "iot");
	p.n_slices = 0;            /* back to the network's slices */
	assert_int_equal(db_policy_put(db, &p, DB_PUT_REPLACE), 0);
	/* Not applied until refreshed (the store is memory, the change is in db). */
	assert_int_equal(d2->arp, 2);
	assert_int_equal(udm_refresh_db(udm, db, "gold"), 2);
	/* The pointer from udm_get() shows the new values. */
	assert_ptr_equal(udm_get(udm, "imsi-001010000000002"), d2);
	assert_int_equal(d2->arp, 14);
	assert_int_equal(d2->ambr_dl_bps, 10000000);
	assert_int_equal(d2->ambr_ul_bps, 200000000);
	assert_int_equal(d2->n_dnns, 1);
	assert_string_equal(d2->dnns[0], "iot");
	assert_int_equal(d2->n_slices, 1);
	assert_int_equal(d2->slices[0].sd, 0x010203);
	const struct udm_sub_data *d3 = udm_get(udm, "imsi-001010000000003");
	assert_int_equal(d3->arp, 11);   /* own value still wins */
	assert_string_equal(d3->dnns[0], "own");
	assert_int_equal(d3->ambr_dl_bps, 10000000);
	assert_defaults(udm_get(udm, "imsi-001010000000001"));
	/* SQN and keys untouched: the in-memory SQN, not the stale one on disk, and vectors
	 * still work. */
	assert_int_equal(udm_get_sqn(udm, "imsi-001010000000002", &sqn), 0);
	assert_int_equal(sqn, sqn_mem);
	assert_int_equal(udm_generate_av(udm, "imsi-001010000000002", SNN, &av), 0);

	/* Reassign 3 to no policy: refresh of all (NULL) picks it up. */
	struct db_subscriber s;
	assert_int_equal(db_subscriber_get(db, "imsi-001010000000003", &s), 0);
	s.policy[0] = 0;
	s.arp = 0;
	s.n_dnns = 0;
	assert_int_equal(db_subscriber_put(db, &s), 0);
	assert_int_equal(udm_refresh_db(udm, db, "gold"), 1);   /* only 2 uses it now */
	assert_int_equal(d3->arp, 11);                          /* not re-resolved yet */
	assert_int_equal(udm_refresh_db(udm, db, NULL), 3);
	assert_defaults(d3);
	/* A name nobody uses, and bad arguments. */
	assert_int_equal(udm_refresh_db(udm, db, "nosuch"), 0);
	assert_int_equal(udm_refresh_db(udm, db, "a b"), -EINVAL);
	assert_int_equal(udm_refresh_db(NULL, db, "gold"), -EINVAL);
	udm_free(udm);
	db_close(db);
	dbt_cleanup(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_load_resolves),
		cmocka_unit_test(test_refresh_after_change),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
