/* SPDX-License-Identifier: AGPL-3.0-or-later */
/* udm/ with policy profiles: the start-up load from a real SQLite file resolves own value >
 * policy > network default per field; udm_add_db_policy the same for one row; a policy
 * change (udm_policy_update) or a network-defaults change (udm_set_defaults) is applied in
 * memory, with the database closed, to exactly the subscribers and fields it concerns,
 * through the pointers udm_get() gave before, keys and in-memory SQN untouched; policies
 * added, deleted, and a full table; subscribers moved between policies; own values win.
 * Stores of a few entries re-resolve by one pass over the store, the larger ones here
 * (test_move_between_policies) through the per-policy chains. */
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
	snprintf(s->supi, sizeof(s->supi), "imsi-00101%010d", i);
	memset(s->k, 0x46, 16);
	memset(s->opc, 0xe8, 16);
	s->op_is_opc = true;
	s->amf = DB_DEFAULT_AMF;
	snprintf(s->policy, sizeof(s->policy), "%s", policy ? policy : "");
}

/* The network defaults every test starts from (assert_defaults). */
static void net_defaults(struct udm_sub_data *defs)
{
	memset(defs, 0, sizeof(*defs));
	defs->n_slices = 1;
	defs->slices[0].sst = 1;
	defs->slices[0].sd = 0x010203;
	defs->n_dnns = 1;
	defs->dnns[0] = "internet";
	defs->qi5 = UDM_DEFAULT_5QI;
	defs->arp = UDM_DEFAULT_ARP;
	defs->ambr_ul_bps = UDM_DEFAULT_AMBR_BPS;
	defs->ambr_dl_bps = UDM_DEFAULT_AMBR_BPS;
}

static struct udm *udm_with_defaults(void)
{
	struct udm_sub_data defs;
	int err = 0;
	struct udm *udm = udm_new(64, &err);

	assert_non_null(udm);
	net_defaults(&defs);
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

static void assert_gold_dl(const struct udm_sub_data *d, uint64_t ambr_dl)
{
	assert_non_null(d);
	assert_int_equal(d->n_slices, 1);
	assert_int_equal(d->slices[0].sst, 2);
	assert_int_equal(d->slices[0].sd, 0xabcdef);
	assert_int_equal(d->n_dnns, 2);
	assert_string_equal(d->dnns[0], "corp");
	assert_string_equal(d->dnns[1], "ims");
	assert_int_equal(d->ambr_ul_bps, 200000000);
	assert_int_equal(d->ambr_dl_bps, ambr_dl);   /* policy leaves it unset: the network's */
	assert_int_equal(d->qi5, 6);
	assert_int_equal(d->arp, 2);
}

static void assert_gold(const struct udm_sub_data *d)
{
	assert_gold_dl(d, UDM_DEFAULT_AMBR_BPS);
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

/* A policy change reaches its subscribers in memory through the pointers udm_get() gave
 * before; own values win; SQN (in memory, ahead of the db) and keys stay. */
static void test_policy_change_in_memory(void **state)
{
	struct dbt t;
	struct db *db;
	struct udm *udm;
	struct db_policy p;
	struct udm_av av;
	uint64_t sqn_mem, sqn;
	const struct udm_sub_data *d2, *d3;

	(void)state;
	dbt_init(&t);
	assert_int_equal(db_open(t.db, &db), 0);
	provision(db);
	udm = udm_with_defaults();
	assert_int_equal(udm_load_db(udm, db), 3);
	assert_int_equal(udm_policy_users(udm, "gold"), 2);
	d2 = udm_get(udm, "imsi-001010000000002");
	d3 = udm_get(udm, "imsi-001010000000003");
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
	/* The db is not read: closed before the update. */
	db_close(db);
	assert_int_equal(d2->arp, 2);
	assert_int_equal(udm_policy_update(udm, &p), 2);
	assert_ptr_equal(udm_get(udm, "imsi-001010000000002"), d2);
	assert_int_equal(d2->arp, 14);
	assert_int_equal(d2->ambr_dl_bps, 10000000);
	assert_int_equal(d2->ambr_ul_bps, 200000000);
	assert_int_equal(d2->qi5, 6);
	assert_int_equal(d2->n_dnns, 1);
	assert_string_equal(d2->dnns[0], "iot");
	assert_int_equal(d2->n_slices, 1);
	assert_int_equal(d2->slices[0].sst, 1);
	assert_int_equal(d2->slices[0].sd, 0x010203);
	assert_string_equal(d2->supi, "imsi-001010000000002");
	assert_ptr_equal(udm_get(udm, "imsi-001010000000003"), d3);
	assert_int_equal(d3->arp, 11);              /* own value still wins */
	assert_int_equal(d3->n_dnns, 1);
	assert_string_equal(d3->dnns[0], "own");   /* own list too */
	assert_int_equal(d3->ambr_dl_bps, 10000000);
	assert_int_equal(d3->slices[0].sd, 0x010203);
	assert_defaults(udm_get(udm, "imsi-001010000000001"));
	/* SQN and keys untouched: the in-memory SQN, and vectors still work. */
	assert_int_equal(udm_get_sqn(udm, "imsi-001010000000002", &sqn), 0);
	assert_int_equal(sqn, sqn_mem);
	assert_int_equal(udm_generate_av(udm, "imsi-001010000000002", SNN, &av), 0);
	/* The same values again: nothing changes, nobody touched. */
	assert_int_equal(udm_policy_update(udm, &p), 0);
	/* Only the ARP: 3 keeps its own, so only 2 changes. */
	p.arp = 13;
	assert_int_equal(udm_policy_update(udm, &p), 1);
	assert_int_equal(d2->arp, 13);
	assert_int_equal(d3->arp, 11);
	/* Bad arguments. */
	strcpy(p.name, "a b");
	assert_int_equal(udm_policy_update(udm, &p), -EINVAL);
	assert_int_equal(udm_policy_update(udm, NULL), -EINVAL);
	assert_int_equal(udm_policy_update(NULL, &p), -EINVAL);
	udm_free(udm);
	dbt_cleanup(&t);
}

/* New network defaults: seen at once by subscribers that take the field from them (no
 * policy, or a policy that leaves it unset), not by those with their own value, nor by a
 * policy that sets it, nor by udm_add() entries (resolved by their caller). */
static void test_defaults_change(void **state)
{
	struct dbt t;
	struct db *db;
	struct udm *udm;
	struct udm_sub_data defs;
	struct udm_sub_in in;
	struct db_subscriber s;
	const struct udm_sub_data *d1, *d2, *d3, *d4, *d9;

	(void)state;
	dbt_init(&t);
	assert_int_equal(db_open(t.db, &db), 0);
	provision(db);
	sub_init(&s, 4, NULL);   /* 4: no policy, own slices and AMBR DL */
	s.n_slices = 1;
	s.slices[0].sst = 3;
	s.slices[0].sd = DB_SD_NONE;
	s.ambr_dl = 5000;
	assert_int_equal(db_subscriber_put(db, &s), 0);
	udm = udm_with_defaults();
	assert_int_equal(udm_load_db(udm, db), 4);
	db_close(db);
	memset(&in, 0, sizeof(in));
	strcpy(in.data.supi, "imsi-001010000000009");
	in.op_is_opc = true;
	assert_int_equal(udm_add(udm, &in), 0);   /* all zero, all its own */
	d1 = udm_get(udm, "imsi-001010000000001");
	d2 = udm_get(udm, "imsi-001010000000002");
	d3 = udm_get(udm, "imsi-001010000000003");
	d4 = udm_get(udm, "imsi-001010000000004");
	d9 = udm_get(udm, "imsi-001010000000009");
	assert_int_equal(d4->ambr_dl_bps, 5000);

	memset(&defs, 0, sizeof(defs));
	defs.n_slices = 2;
	defs.slices[0].sst = 1;
	defs.slices[0].sd = 0x111111;
	defs.slices[1].sst = 4;
	defs.slices[1].sd = UDM_SD_NONE;
	defs.n_dnns = 2;
	defs.dnns[0] = "internet2";
	defs.dnns[1] = "ims";
	defs.qi5 = 8;
	defs.arp = 9;
	defs.ambr_ul_bps = 3000;
	defs.ambr_dl_bps = 4000;
	/* 1 (all), 2 (AMBR DL only: gold sets the rest), 3 (AMBR DL only), 4 (all but its own
	 * slices and AMBR DL); not 9. */
	assert_int_equal(udm_set_defaults(udm, &defs), 4);
	assert_ptr_equal(udm_get(udm, "imsi-001010000000001"), d1);
	assert_int_equal(d1->n_slices, 2);
	assert_int_equal(d1->slices[0].sd, 0x111111);
	assert_int_equal(d1->slices[1].sst, 4);
	assert_int_equal(d1->n_dnns, 2);
	assert_string_equal(d1->dnns[0], "internet2");
	assert_string_equal(d1->dnns[1], "ims");
	assert_int_equal(d1->qi5, 8);
	assert_int_equal(d1->arp, 9);
	assert_int_equal(d1->ambr_ul_bps, 3000);
	assert_int_equal(d1->ambr_dl_bps, 4000);
	assert_gold_dl(d2, 4000);
	assert_int_equal(d3->arp, 11);
	assert_string_equal(d3->dnns[0], "own");
	assert_int_equal(d3->qi5, 6);
	assert_int_equal(d3->ambr_dl_bps, 4000);
	assert_int_equal(d4->n_slices, 1);           /* own */
	assert_int_equal(d4->slices[0].sst, 3);
	assert_int_equal(d4->ambr_dl_bps, 5000);     /* own */
	assert_int_equal(d4->n_dnns, 2);             /* defaults */
	assert_string_equal(d4->dnns[0], "internet2");
	assert_int_equal(d4->arp, 9);
	assert_int_equal(d9->n_slices, 0);           /* udm_add: untouched */
	assert_int_equal(d9->n_dnns, 0);
	assert_int_equal(d9->arp, 0);
	assert_int_equal(d9->ambr_dl_bps, 0);
	/* Only the slices change: 1 alone (2 and 3 take gold's, 4 has its own). */
	defs.slices[0].sd = 0x222222;
	assert_int_equal(udm_set_defaults(udm, &defs), 1);
	assert_int_equal(d1->slices[0].sd, 0x222222);
	assert_int_equal(d3->slices[0].sd, 0xabcdef);   /* gold's */
	assert_int_equal(d2->slices[0].sd, 0xabcdef);
	assert_int_equal(d4->slices[0].sst, 3);
	udm_free(udm);
	dbt_cleanup(&t);
}

/* Rows as db/ would hand them to the web API's provisioning (no file needed here). */
static void pol_named(struct db_policy *p, const char *name, uint8_t arp)
{
	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s", name);
	p->arp = arp;
}

static const struct udm_sub_data *add_sub(struct udm *udm, int i, const struct db_policy *p)
{
	struct db_subscriber s;

	sub_init(&s, i, p ? p->name : NULL);
	assert_int_equal(udm_add_db_policy(udm, &s, p), 0);
	return udm_get(udm, s.supi);
}

/* Policies come and go: known from udm_policy_update or from the first subscriber that
 * names one; a row with other values updates the store's copy (and its subscribers);
 * delete refused while used; a full table takes the slot of a policy nobody uses. */
static void test_policies_add_delete(void **state)
{
	struct udm *udm;
	struct udm_sub_data defs;
	struct db_policy p, q;
	const struct udm_sub_data *d1, *d2;
	char name[16];
	int err = 0, i;

	(void)state;
	udm = udm_new(2 * UDM_MAX_POLICIES, &err);
	assert_non_null(udm);
	memset(&defs, 0, sizeof(defs));
	defs.arp = UDM_DEFAULT_ARP;
	udm_set_defaults(udm, &defs);
	assert_int_equal(udm_policy_users(udm, "gold"), -ENOENT);
	gold(&p);
	assert_int_equal(udm_policy_update(udm, &p), 0);   /* new: nobody to re-resolve */
	assert_int_equal(udm_policy_users(udm, "gold"), 0);
	d1 = add_sub(udm, 1, &p);
	assert_gold_dl(d1, 0);
	assert_int_equal(udm_policy_users(udm, "gold"), 1);
	assert_int_equal(udm_policy_delete(udm, "gold"), -EBUSY);
	assert_int_equal(udm_policy_delete(udm, "nosuch"), -ENOENT);
	assert_int_equal(udm_policy_delete(udm, ""), -ENOENT);
	/* A fresher row of the policy comes with a new subscriber: both see it. */
	p.arp = 5;
	d2 = add_sub(udm, 2, &p);
	assert_int_equal(d2->arp, 5);
	assert_int_equal(d1->arp, 5);
	assert_int_equal(udm_policy_users(udm, "gold"), 2);
	/* Users gone (one to no policy, one removed): delete works, and a new gold with
	 * other values is a new policy. */
	assert_ptr_equal(add_sub(udm, 1, NULL), d1);
	assert_int_equal(d1->arp, UDM_DEFAULT_ARP);
	assert_int_equal(d1->n_dnns, 0);
	assert_int_equal(udm_remove(udm, "imsi-001010000000002"), 0);
	assert_int_equal(udm_policy_users(udm, "gold"), 0);
	assert_int_equal(udm_policy_delete(udm, "gold"), 0);
	assert_int_equal(udm_policy_users(udm, "gold"), -ENOENT);
	assert_int_equal(udm_policy_delete(udm, "gold"), -ENOENT);
	pol_named(&q, "gold", 3);
	d2 = add_sub(udm, 2, &q);
	assert_int_equal(d2->arp, 3);
	assert_int_equal(d2->n_dnns, 0);
	assert_int_equal(d2->qi5, 0);   /* these defaults have none */
	assert_int_equal(udm_remove(udm, "imsi-001010000000002"), 0);

	/* A full table: every slot (gold included) with one user. */
	for (i = 0; i < UDM_MAX_POLICIES - 1; i++) {
		snprintf(name, sizeof(name), "p%d", i);
		pol_named(&q, name, (uint8_t)(1 + i % 15));
		add_sub(udm, 100 + i, &q);
	}
	add_sub(udm, 99, &p);
	assert_int_equal(udm_policy_users(udm, "p7"), 1);
	pol_named(&q, "extra", 9);
	assert_int_equal(udm_policy_update(udm, &q), -ENOSPC);
	struct db_subscriber s;
	sub_init(&s, 98, "extra");
	assert_int_equal(udm_add_db_policy(udm, &s, &q), -ENOSPC);
	assert_null(udm_get(udm, s.supi));
	/* p7's subscriber leaves: its slot goes to extra. */
	assert_int_equal(udm_remove(udm, "imsi-001010000000107"), 0);
	assert_int_equal(udm_add_db_policy(udm, &s, &q), 0);
	assert_int_equal(udm_get(udm, s.supi)->arp, 9);
	assert_int_equal(udm_policy_users(udm, "p7"), -ENOENT);
	assert_int_equal(udm_policy_users(udm, "extra"), 1);
	/* The others still follow their own policy. */
	pol_named(&q, "p8", 15);
	d1 = udm_get(udm, "imsi-001010000000108");
	assert_int_equal(d1->arp, 9);
	assert_int_equal(udm_policy_update(udm, &q), 1);
	assert_int_equal(d1->arp, 15);
	assert_int_equal(udm_get(udm, "imsi-001010000000109")->arp, 10);
	udm_free(udm);
}

/* A subscriber moved between policies follows its new one only; the chains (store large
 * enough that a change walks them instead of a pass over the store) stay right through
 * moves and removals. */
static void test_move_between_policies(void **state)
{
	struct udm *udm = udm_with_defaults();
	struct udm_sub_data defs;
	struct db_policy g, sv, f;
	struct db_subscriber s;
	const struct udm_sub_data *a, *b, *c;
	int i;

	(void)state;
	/* 40 subscribers on a policy that sets everything: no change below reaches them. */
	memset(&f, 0, sizeof(f));
	strcpy(f.name, "filler");
	f.n_dnns = 1;
	strcpy(f.dnns[0], "fill");
	f.n_slices = 1;
	f.slices[0].sst = 9;
	f.slices[0].sd = DB_SD_NONE;
	f.ambr_ul = f.ambr_dl = 1;
	f.default_5qi = 1;
	f.arp = 1;
	for (i = 0; i < 40; i++)
		add_sub(udm, 10 + i, &f);
	gold(&g);
	pol_named(&sv, "silver", 7);
	sv.default_5qi = 7;
	a = add_sub(udm, 1, &g);
	b = add_sub(udm, 2, &sv);
	sub_init(&s, 3, "gold");
	s.arp = 12;
	assert_int_equal(udm_add_db_policy(udm, &s, &g), 0);
	c = udm_get(udm, s.supi);
	assert_gold(a);
	/* a: gold -> silver. */
	assert_ptr_equal(add_sub(udm, 1, &sv), a);
	assert_int_equal(a->arp, 7);
	assert_int_equal(a->qi5, 7);
	assert_int_equal(a->n_dnns, 1);
	assert_string_equal(a->dnns[0], "internet");   /* silver sets none: the network's */
	assert_int_equal(udm_policy_users(udm, "gold"), 1);
	assert_int_equal(udm_policy_users(udm, "silver"), 2);
	/* gold changes: c only (a left it). */
	g.default_5qi = 5;
	assert_int_equal(udm_policy_update(udm, &g), 1);
	assert_int_equal(c->qi5, 5);
	assert_int_equal(c->arp, 12);
	assert_int_equal(a->qi5, 7);
	/* silver changes: a and b. */
	sv.default_5qi = 8;
	assert_int_equal(udm_policy_update(udm, &sv), 2);
	assert_int_equal(a->qi5, 8);
	assert_int_equal(b->qi5, 8);
	/* a to no policy; b removed: silver has nobody left. */
	assert_ptr_equal(add_sub(udm, 1, NULL), a);
	assert_defaults(a);
	assert_int_equal(udm_remove(udm, "imsi-001010000000002"), 0);
	assert_int_equal(udm_policy_users(udm, "silver"), 0);
	sv.arp = 1;
	assert_int_equal(udm_policy_update(udm, &sv), 0);
	assert_int_equal(a->arp, UDM_DEFAULT_ARP);
	/* The network's AMBR DL: a (no policy) and c (gold leaves it unset), not the filler. */
	net_defaults(&defs);
	defs.ambr_dl_bps = 777;
	assert_int_equal(udm_set_defaults(udm, &defs), 2);
	assert_int_equal(a->ambr_dl_bps, 777);
	assert_int_equal(c->ambr_dl_bps, 777);
	assert_int_equal(udm_get(udm, "imsi-001010000000010")->ambr_dl_bps, 1);
	/* A removed entry reused by a new subscriber joins its policy's chain cleanly. */
	b = add_sub(udm, 4, &g);
	assert_int_equal(b->qi5, 5);
	g.default_5qi = 4;
	assert_int_equal(udm_policy_update(udm, &g), 2);
	assert_int_equal(b->qi5, 4);
	assert_int_equal(c->qi5, 4);
	assert_int_equal(udm_policy_users(udm, "gold"), 2);
	assert_int_equal(udm_policy_users(udm, "filler"), 40);
	udm_free(udm);
}

/* A subscriber that sets every field itself: neither its policy nor the network
 * defaults change it; once it drops one of its own values, the policy's shows. */
static void test_own_values_win(void **state)
{
	struct udm *udm = udm_with_defaults();
	struct udm_sub_data defs;
	struct db_subscriber s;
	struct db_policy g;
	const struct udm_sub_data *d;

	(void)state;
	gold(&g);
	sub_init(&s, 5, "gold");
	s.n_slices = 1;
	s.slices[0].sst = 5;
	s.slices[0].sd = 0x050505;
	s.n_dnns = 1;
	strcpy(s.dnns[0], "mine");
	s.ambr_ul = 11;
	s.ambr_dl = 22;
	s.default_5qi = 3;
	s.arp = 13;
	assert_int_equal(udm_add_db_policy(udm, &s, &g), 0);
	d = udm_get(udm, s.supi);
	g.n_slices = 0;
	g.n_dnns = 1;
	strcpy(g.dnns[0], "iot");
	g.ambr_ul = 1;
	g.ambr_dl = 2;
	g.default_5qi = 4;
	g.arp = 5;
	assert_int_equal(udm_policy_update(udm, &g), 0);
	memset(&defs, 0, sizeof(defs));
	defs.n_slices = 1;
	defs.slices[0].sst = 7;
	defs.n_dnns = 1;
	defs.dnns[0] = "other";
	defs.qi5 = 2;
	defs.arp = 3;
	defs.ambr_ul_bps = 4;
	defs.ambr_dl_bps = 5;
	assert_int_equal(udm_set_defaults(udm, &defs), 0);
	assert_int_equal(d->n_slices, 1);
	assert_int_equal(d->slices[0].sst, 5);
	assert_int_equal(d->slices[0].sd, 0x050505);
	assert_int_equal(d->n_dnns, 1);
	assert_string_equal(d->dnns[0], "mine");
	assert_int_equal(d->ambr_ul_bps, 11);
	assert_int_equal(d->ambr_dl_bps, 22);
	assert_int_equal(d->qi5, 3);
	assert_int_equal(d->arp, 13);
	/* Its own ARP and DNNs dropped: gold's now, and gold's next change too. */
	s.arp = 0;
	s.n_dnns = 0;
	assert_int_equal(udm_add_db_policy(udm, &s, &g), 0);
	assert_ptr_equal(udm_get(udm, s.supi), d);
	assert_int_equal(d->arp, 5);
	assert_string_equal(d->dnns[0], "iot");
	assert_int_equal(d->qi5, 3);
	g.arp = 6;
	g.default_5qi = 9;
	assert_int_equal(udm_policy_update(udm, &g), 1);
	assert_int_equal(d->arp, 6);
	assert_int_equal(d->qi5, 3);
	udm_free(udm);
}

/* The subscribed UE-AMBR (TS 23.501 5.7.2.6), per direction: own value > policy's > the
 * network default, resolved when read, so a policy or default change shows at once through
 * the udm_get() pointer without re-resolving anyone; the session-AMBR is not it. */
static void test_ue_ambr(void **state)
{
	struct udm *udm = udm_with_defaults();
	struct db_subscriber s, t, u;
	struct db_policy g;
	const struct udm_sub_data *ds, *dt, *du;
	uint64_t ul, dl;

	(void)state;
	gold(&g);
	g.ue_ambr_ul = 300;
	g.ue_ambr_dl = 0;   /* the network default downlink */
	sub_init(&s, 1, "gold");
	s.ue_ambr_dl = 77;  /* its own downlink, gold's uplink */
	sub_init(&t, 2, "gold");
	sub_init(&u, 3, NULL);
	u.ambr_ul = 5;      /* a session-AMBR is not a UE-AMBR */
	assert_int_equal(udm_add_db_policy(udm, &s, &g), 0);
	assert_int_equal(udm_add_db_policy(udm, &t, &g), 0);
	assert_int_equal(udm_add_db(udm, &u), 0);
	ds = udm_get(udm, s.supi);
	dt = udm_get(udm, t.supi);
	du = udm_get(udm, u.supi);
	udm_ue_ambr(udm, ds, &ul, &dl);
	assert_int_equal(ul, 300);
	assert_int_equal(dl, 77);
	udm_ue_ambr(udm, dt, &ul, &dl);
	assert_int_equal(ul, 300);
	assert_int_equal(dl, UDM_DEFAULT_UE_AMBR_BPS);
	udm_ue_ambr(udm, du, &ul, &dl);
	assert_int_equal(ul, UDM_DEFAULT_UE_AMBR_BPS);
	assert_int_equal(dl, UDM_DEFAULT_UE_AMBR_BPS);
	/* A UE-AMBR-only policy change is taken (udm_add_db_policy of a row with the changed
	 * policy too), and shows for its subscribers only. */
	g.ue_ambr_ul = 400;
	g.ue_ambr_dl = 500;
	assert_int_equal(udm_add_db_policy(udm, &t, &g), 0);
	udm_ue_ambr(udm, ds, &ul, &dl);
	assert_int_equal(ul, 400);
	assert_int_equal(dl, 77);
	udm_ue_ambr(udm, dt, &ul, &dl);
	assert_int_equal(ul, 400);
	assert_int_equal(dl, 500);
	/* The network default (conf amf.ue_ambr_*) reaches those who take it. */
	udm_set_ue_ambr_default(udm, 600, 700);
	udm_ue_ambr(udm, du, &ul, &dl);
	assert_int_equal(ul, 600);
	assert_int_equal(dl, 700);
	udm_ue_ambr(udm, dt, &ul, &dl);
	assert_int_equal(ul, 400);
	/* The web API's effective view of the same rows agrees. */
	udm_resolve_ue_ambr(udm, &s, &g, &ul, &dl);
	assert_int_equal(ul, 400);
	assert_int_equal(dl, 77);
	udm_resolve_ue_ambr(udm, &u, NULL, &ul, &dl);
	assert_int_equal(ul, 600);
	udm_resolve_ue_ambr(NULL, &u, NULL, &ul, &dl);
	assert_int_equal(ul, UDM_DEFAULT_UE_AMBR_BPS);
	/* A re-provisioned row replaces its own value (a reused slot keeps nothing). */
	s.ue_ambr_dl = 0;
	assert_int_equal(udm_add_db_policy(udm, &s, &g), 0);
	udm_ue_ambr(udm, ds, &ul, &dl);
	assert_int_equal(dl, 500);
	assert_int_equal(udm_remove(udm, u.supi), 0);
	sub_init(&u, 4, NULL);
	assert_int_equal(udm_add_db(udm, &u), 0);
	udm_ue_ambr(udm, udm_get(udm, u.supi), &ul, &dl);
	assert_int_equal(ul, 600);
	udm_free(udm);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_load_resolves),
		cmocka_unit_test(test_policy_change_in_memory),
		cmocka_unit_test(test_defaults_change),
		cmocka_unit_test(test_policies_add_delete),
		cmocka_unit_test(test_move_between_policies),
		cmocka_unit_test(test_own_values_win),
		cmocka_unit_test(test_ue_ambr),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
