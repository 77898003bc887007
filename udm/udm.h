/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * udm - Unified Data Management with its ARPF and SIDF (TS 33.501 6.1.3.2, 6.12.5).
 *
 * Subscribers live in memory (hash by SUPI, sized at creation), loaded from db/
 * at start-up. The ARPF generates 5G HE authentication vectors with Milenage and
 * manages SQN (TS 33.102 C.3.2: SQN = SEQ || IND, IND 5 bits); every SQN change is
 * handed to the SQN sink (the db write-behind writer) and never waits for it.
 * K, OPc and the home-network private keys never leave this module.
 *
 * Called by ausf/ (vectors, resync), amf/ (SUCI, subscription data) and smf/.
 * Single thread: the control thread.
 */
#ifndef SOLOCORE_UDM_UDM_H
#define SOLOCORE_UDM_UDM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct udm;
struct db;
struct crypto_keyring;

#define UDM_SUPI_MAX 24     /* "imsi-" + 15 digits + NUL */
#define UDM_MAX_SLICES 4      /* per subscriber (kept small: the store holds 10^6 of them) */
#define UDM_MAX_DNNS 4
#define UDM_DNN_MAX 63        /* TS 23.003 9.1: APN/DNN up to 100 octets; ours are short names */
#define UDM_MAX_DISTINCT_DNNS 64 /* DNN strings are interned once per store */
#define UDM_SD_NONE 0xffffffu
/* Network defaults when neither the subscription nor the configuration says (udm_start(),
 * udm_set_defaults_from_conf(); smf/ without a UDM): TS 23.501 5.7.4 / 5.7.2.7 5QI 9 and
 * ARP priority 8 for the default non-GBR flow, 1 Gbit/s session-AMBR both ways. */
#define UDM_DEFAULT_5QI 9
#define UDM_DEFAULT_ARP 8
#define UDM_DEFAULT_AMBR_BPS 1000000000ull
#define UDM_DEFAULT_UE_AMBR_BPS 1000000000ull   /* conf amf.ue_ambr_ul / _dl */

struct udm_snssai {
	uint8_t sst;
	uint32_t sd;        /* UDM_SD_NONE when absent */
};

/* Subscription data the AMF and SMF read (no keys). */
struct udm_sub_data {
	char supi[UDM_SUPI_MAX];
	struct udm_snssai slices[UDM_MAX_SLICES];
	const char *dnns[UDM_MAX_DNNS]; /* interned by the store (udm_add copies the caller's) */
	uint64_t ambr_ul_bps, ambr_dl_bps;  /* session-AMBR */
	/* The counts and bytes together: 10^6 of these are in the store (no padding holes). */
	uint8_t n_slices;
	uint8_t n_dnns;
	uint8_t qi5;                        /* default 5QI */
	uint8_t arp;                        /* default ARP priority level */
};

/* One subscriber as provisioned. */
struct udm_sub_in {
	struct udm_sub_data data;
	uint8_t k[16];
	uint8_t opc[16];    /* or OP when op_is_opc is false: OPc is derived at add time */
	bool op_is_opc;
	uint8_t amf[2];     /* AMF field of AUTN (TS 33.102 6.3.2); the ARPF sets the separation bit (TS 33.501 6.1.3.2) */
	uint64_t sqn;       /* 48 bits: the last SQN issued */
};

/* 5G HE AV (TS 33.501 6.1.3.2 step 3/4). */
struct udm_av {
	uint8_t rand[16];
	uint8_t autn[16];
	uint8_t xres_star[16];
	uint8_t kausf[32];
};

/* SUCI as carried in the 5GS mobile identity (TS 24.501 9.11.3.4, TS 23.003 2.2B). */
struct udm_suci {
	char mcc[4];
	char mnc[4];
	uint8_t scheme;     /* 0 null, 1 profile A, 2 profile B */
	uint8_t hnpki;      /* home network public key id */
	const uint8_t *out; /* scheme output */
	size_t out_len;
};

/* SQN sink: called for every SQN change (issue or resync). Must not block. */
typedef void (*udm_sqn_sink)(void *arg, const char *supi, uint64_t sqn);

/* Production start-up: a store sized from db's subscriber count (+25 % + 1024 for runtime
 * provisioning), network defaults from conf (slices, DNNs; 5QI 9, ARP 8, 1 Gbit/s AMBR), the
 * SIDF keyring from conf->suci.keys (owned by the udm), every subscriber of db loaded, and SQN
 * changes sent to w (may be NULL). db may be NULL (empty store). NULL + *err on failure. */
struct conf;
struct db_writer;
struct udm *udm_start(const struct conf *conf, struct db *db, struct db_writer *w, int *err);
/* With a cluster: section the store has room for this many more than the +25 %: subscribers
 * provisioned through the other nodes arrive through the change feed (db/feed.h). */
#define UDM_CLUSTER_ROOM (1u << 18)   /* hash buckets: 1 MiB resident */
/* The network defaults udm_start() applies (udm_set_defaults): conf's slices and DNNs (the
 * first UDM_MAX_SLICES / UDM_MAX_DNNS), 5QI 9, ARP 8, 1 Gbit/s session-AMBR both ways. For
 * callers that size or fill the store themselves (tests, tools), and after a settings
 * change (applied at once, in memory). DNN names are interned: conf need not outlive the
 * udm. Returns udm_set_defaults()'s count. */
int udm_set_defaults_from_conf(struct udm *udm, const struct conf *conf);

/* NULL with *err. max_subs bounds the store (the table never grows at runtime). */
struct udm *udm_new(uint32_t max_subs, int *err);
void udm_free(struct udm *udm);   /* accepts NULL; wipes keys; udm_sqn_cluster_stop() first */

void udm_set_sqn_sink(struct udm *udm, udm_sqn_sink fn, void *arg);
/* Home-network keys used by the SIDF (owned by the caller, must outlive udm). */
void udm_set_keyring(struct udm *udm, const struct crypto_keyring *kr);

/* Add or replace one subscriber with its data as given: every field is its own (network
 * defaults and policies never change it). 0, -ENOSPC (store full), -EINVAL (bad SUPI). */
int udm_add(struct udm *udm, const struct udm_sub_in *in);
/* Remove. 0 or -ENOENT. */
int udm_remove(struct udm *udm, const char *supi);
/* Remove every subscriber whose SUPI is not in keep (n SUPIs sorted by strcmp): the end of
 * a full resynchronisation with the replicated database (db/feed.h). Returns how many were
 * removed, or -EINVAL. */
int udm_sweep(struct udm *udm, const char (*keep)[UDM_SUPI_MAX], size_t n);
uint32_t udm_count(const struct udm *udm);
/* Subscribers the store can hold (fixed at creation; udm_add beyond it is -ENOSPC). */
uint32_t udm_capacity(const struct udm *udm);
/* Network defaults for subscribers provisioned without slices, DNNs, AMBR, 5QI or ARP
 * (db/ stores 0 / empty for "default"). Copied; DNN strings are interned (a name the pool
 * cannot take is dropped from the list, logged). Applied at once, in memory, to every
 * subscriber in the store that takes a changed field from them (not to those that set it
 * themselves or through their policy, nor to those added with udm_add). Returns the number
 * of subscribers whose data changed. */
int udm_set_defaults(struct udm *udm, const struct udm_sub_data *d);
/* Send every SQN change to db's write-behind writer (NULL: stop). */
void udm_use_db_writer(struct udm *udm, struct db_writer *w);
/* Load every policy (udm_policy_update) and every subscriber of db into the store.
 * Returns the number of subscribers loaded or -errno. */
int udm_load_db(struct udm *udm, struct db *db);
/*
 * Policy profiles (db/db.h struct db_policy). The subscription data of a subscriber is
 * resolved field by field: its own non-zero / non-empty value > its policy's > the network
 * default (udm_set_defaults). Slices and DNNs are taken as whole lists from the first
 * level that has any. The store keeps a table of policies (at most UDM_MAX_POLICIES, by
 * name, DNNs interned) and, per subscriber, its policy and which fields it set itself,
 * so a change of a policy or of the network defaults is applied in memory to exactly the
 * subscribers it concerns (one chain per policy), with no database read. udm_load_db
 * fills the table from db_policy_walk; udm_add_db_policy adds a policy it does not know
 * yet (and updates one whose values differ from the row given).
 */
#define UDM_MAX_POLICIES 1022        /* in the store at once (10 bits per subscriber) */
#define UDM_POLICY_NAME_MAX 32       /* db/db.h DB_POLICY_NAME_MAX */
struct db_subscriber;
struct db_policy;
/* Add or replace one subscriber as db/ stores it (web API provisioning), with exactly the
 * rules of udm_load_db: fields left at 0 / empty take the udm_set_defaults values, slices
 * and DNNs beyond UDM_MAX_SLICES / UDM_MAX_DNNS are dropped, OP becomes OPc. Key copies are
 * wiped. 0, -ENOSPC (store full), -EINVAL (bad SUPI, NULL, more distinct DNNs than the
 * store interns, or s->policy set: a subscriber with a policy goes through
 * udm_add_db_policy). */
int udm_add_db(struct udm *udm, const struct db_subscriber *s);
/* The same for a subscriber with a policy: p is the policy named by s->policy (NULL or
 * ignored when s->policy is ""). -EINVAL when s->policy is set and p is NULL or another
 * policy; -ENOSPC also when the policy table is full (UDM_MAX_POLICIES in use). A
 * subscriber moved to another policy (or to none) leaves its old one. */
int udm_add_db_policy(struct udm *udm, const struct db_subscriber *s, const struct db_policy *p);
/* The resolution alone, stored nowhere (the web API's "effective" view): out's DNN
 * pointers point into s, p or the store's defaults and live as long as they do. p may be
 * NULL (no policy); udm may be NULL (no network defaults: zeros). */
void udm_resolve(const struct udm *udm, const struct db_subscriber *s, const struct db_policy *p,
		 struct udm_sub_data *out);
/* A policy was created or changed (PUT /api/v1/policies/{name}): its values replace the
 * store's copy and every subscriber of it in the store is re-resolved in memory at once
 * (fields it set itself stay), so new registrations and sessions see them. Keys and SQN
 * are not touched; a pointer from udm_get() stays valid and shows the new values. Cost:
 * the policy's chain of subscribers, or one pass over the store when they are more than
 * half of it; nothing when no resolved value changed (bench_udm_policy, 10^6 SIMs: 250,000
 * subscribers changed in ~6 ms CPU, all 10^6 by udm_set_defaults in ~17 ms). Returns the
 * number of subscribers whose data changed, or -EINVAL (NULL, bad name), -ENOSPC (table
 * full, or more distinct DNNs than the store interns: nothing changed). */
int udm_policy_update(struct udm *udm, const struct db_policy *p);
/* Forget a policy (after db_policy_delete). 0, -ENOENT, -EBUSY (subscribers in the store
 * still have it: nothing done). A full table also reuses the slot of a policy nobody uses,
 * so a delete that is never told to the store costs only the slot until then. */
int udm_policy_delete(struct udm *udm, const char *name);
/* Subscribers in the store with this policy, or -ENOENT when the store does not know it. */
int udm_policy_users(const struct udm *udm, const char *name);

/* Subscription data, or NULL. The pointer stays valid until the subscriber is removed. */
const struct udm_sub_data *udm_get(const struct udm *udm, const char *supi);
/* Subscribed UE-AMBR of d (a pointer from udm_get) in bit/s (TS 23.501 5.7.2.6): the
 * subscriber's own value > its policy's > the network default (udm_set_ue_ambr_default),
 * per direction, resolved now: a policy or default change shows at the next call. */
void udm_ue_ambr(const struct udm *udm, const struct udm_sub_data *d, uint64_t *ul, uint64_t *dl);
/* The same resolution for a db row and its policy (p may be NULL; udm may be NULL: the
 * built-in default), for the web API's "effective" view. */
void udm_resolve_ue_ambr(const struct udm *udm, const struct db_subscriber *s,
			 const struct db_policy *p, uint64_t *ul, uint64_t *dl);
/* Network default UE-AMBR (conf amf.ue_ambr_ul / _dl; udm_set_defaults_from_conf sets it).
 * 0 keeps UDM_DEFAULT_UE_AMBR_BPS. */
void udm_set_ue_ambr_default(struct udm *udm, uint64_t ul, uint64_t dl);

/* SIDF: de-conceal a SUCI into "imsi-..." (null scheme, profile A, profile B).
 * 0, -ENOENT (unknown key id), -EINVAL (malformed), -EBADMSG (MAC check failed). */
int udm_suci_to_supi(struct udm *udm, const struct udm_suci *suci, char supi[UDM_SUPI_MAX]);

/* ARPF: next SQN and a fresh 5G HE AV for supi and serving network name.
 * 0, -ENOENT (unknown subscriber). */
int udm_generate_av(struct udm *udm, const char *supi, const char *snname, struct udm_av *av);
/* ARPF resynchronisation (TS 33.102 6.3.5, TS 33.501 6.1.3.3.2): check MAC-S of AUTS for
 * the RAND we sent, adopt SQN_MS when valid. 0, -ENOENT, -EBADMSG (MAC-S wrong). */
int udm_resync(struct udm *udm, const char *supi, const uint8_t rand[16], const uint8_t auts[14]);
/* One-time crypto set-up (OpenSSL provider fetches, cipher contexts, DRBG; X25519 / P-256
 * when the SIDF keyring has profile A / B keys) done now with throwaway keys instead of on
 * the first UE's SUCI and vector. udm_start() calls it (after the keyring). 0 or -errno. */
int udm_warm_up(struct udm *udm);
/* Current SQN of a subscriber (tests, web). 0 or -ENOENT. */
int udm_get_sqn(const struct udm *udm, const char *supi, uint64_t *sqn);

/* ---------------------------------------------------------------------------------------------
 * Cluster SQN (issue 20 item 3): unique SQNs per subscriber across the nodes of a cluster, node
 * crashes and leader changes, without a consensus round trip per vector (udm/sqn.c).
 *
 * Off by default: a udm without udm_sqn_cluster() keeps the single-node scheme of udm_generate_av
 * (crypto_sqn_next: SEQ + 1, next IND; written behind, a lost SQN repaired by AUTS).
 *
 * In cluster mode, SQN = SEQ || IND (TS 33.102 C.1.2, C.3) with:
 *  - IND = this node's slot (0..31): nodes never issue the same SQN, and the USIM keeps one
 *    SEQ_MS per IND (C.2.2), so vectors of different nodes used in any interleaving are fresh;
 *  - SEQ time-based (C.1.1.3, C.3.3 profile 3): SEQ = max(SEQ(last SQN) + 1, now, floor), one
 *    tick every UDM_SQN_TICK_S seconds counted from UDM_SQN_EPOCH_S. Active subscribers then
 *    carry about the same SEQ on every node, so the USIM's optional age limit L (C.2.2) is not
 *    hit by interleaving. The tick is set by the USIM's Delta (C.2.1, 2^28 suggested): a SIM
 *    whose SEQ_MS is more than Delta ticks behind the clock can never be served again without
 *    re-using SQNs, and a new SIM starts at SEQ_MS 0, so Delta ticks must outlast the cluster:
 *    4 s gives 34 years from the epoch (1 s would stop new SIMs in 2034). Faster ticks buy
 *    nothing: SEQ + 1 per vector already orders vectors within a tick. The 43-bit SEQ space
 *    lasts 1.1 million years;
 *  - crash safety by a lease in the replicated store: "slot IND issues no SEQ >= lease". At
 *    udm_sqn_cluster() the node takes floor = max(now, stored lease) and commits floor + L
 *    before issuing anything; no vector ever carries SEQ >= the last committed lease. When a
 *    SEQ (or the clock, checked every second) comes within L/2 of it, a background thread
 *    commits max(SEQ, now) + L (the control thread never waits for it); a vector that would
 *    reach the lease first is refused with -EAGAIN (counted). So after a SIGKILL nothing
 *    issued before is issued again, and a crash moves the node's SEQs at most ~L ahead.
 *  - a subscriber whose SEQ would run more than UDM_SQN_AHEAD_MAX ticks ahead of the clock
 *    (a USIM resynchronised far into the future, a UE authenticating many times a second for
 *    months) is refused with -ERANGE rather than dragging the lease with it: after a crash
 *    every subscriber of the node jumps to the old lease, and that jump must stay well inside
 *    every USIM's Delta.
 * Resynchronisation (TS 33.102 6.3.5): SQN_MS is adopted when ahead of the HE; the next SEQ is
 * > SEQ(SQN_MS), >= floor, with this node's IND. The SQN of a subscriber never moves back (a
 * lower SQN_MS would mean re-issuing SQNs); when the next SQN would still be refused by the USIM
 * (more than Delta ahead of SQN_MS: a USIM left unused for years) udm_resync() says -ERANGE.
 * Errors in cluster mode, besides those of single-node mode: udm_generate_av -EAGAIN (lease not
 * extended in time: try again shortly), -ERANGE (too far ahead, above), -EOVERFLOW (SEQ space
 * exhausted), -ESHUTDOWN (after udm_sqn_cluster_stop); udm_resync -ERANGE, -ESHUTDOWN.
 * Uniqueness needs each IND slot used by one live node at a time, and a subscriber's SQN in
 * the store never set below what this process issued (udm_add with an older db row would).
 */
#define UDM_SQN_TICK_S 4                  /* seconds per SEQ tick (Delta = 34 years) */
#define UDM_SQN_EPOCH_S 1767225600LL      /* 2026-01-01T00:00:00Z: tick 0 */
#define UDM_SQN_LEASE_DEFAULT 4096u       /* L, ticks (4.5 h): a crash moves SEQ <= L ahead */
#define UDM_SQN_LEASE_MAX (1u << 24)
#define UDM_SQN_AHEAD_MAX (1ull << 26)    /* ticks (8.5 years) a subscriber may run ahead */

/* The replicated store of leases (udm_sqn_dqlite_ops): per IND slot a lease and its owner, a
 * random token of the generator that took the slot. Called from the thread of
 * udm_sqn_cluster() and from the generator's extension thread, never at once. Writes return 0
 * only once committed (a majority has them), else -errno.
 * Why an owner: two live generators on one slot (a node restarted elsewhere while the old
 * process still runs, a slot configured twice) would both extend the lease and issue the same
 * SEQs. The take-over is a compare-and-set on the lease read, and every extension is
 * conditional on the owner, so the old generator can never extend again: it stops at the
 * lease it had, which is below the new one's floor. */
struct udm_sqn_store_ops {
	/* Lease of slot ind into *lease (0 when never written). 0 or -errno. */
	int (*read)(void *arg, unsigned ind, uint64_t *lease);
	/* Take slot ind: lease and owner set, only if the lease is still `expect` (0: no row).
	 * 0, -EAGAIN (the lease changed since it was read: read again), -errno. */
	int (*take)(void *arg, unsigned ind, uint64_t expect, uint64_t lease, uint64_t owner);
	/* Raise the lease of slot ind to at least lease (never lowers it) if owner still holds
	 * it. 0, -ESTALE (another generator took the slot), -errno. */
	int (*extend)(void *arg, unsigned ind, uint64_t lease, uint64_t owner);
};

struct udm_sqn_cluster_conf {
	unsigned ind;            /* this node's slot, 0..31: unique among the live nodes */
	uint32_t lease_ticks;    /* L; 0: UDM_SQN_LEASE_DEFAULT; 2..UDM_SQN_LEASE_MAX */
	/* Clock, seconds since 1970 (tests); NULL: CLOCK_REALTIME. */
	int64_t (*now_s)(void *arg);
	void *now_arg;
};

/* Switch udm to cluster SQNs: reads and commits the lease (blocks on the store: call at
 * start-up, before the first vector) and starts the extension thread. 0, -EINVAL (bad conf,
 * NULL ops), -EALREADY (already on), -EOVERFLOW (SEQ space exhausted), -EBUSY (the slot's
 * lease kept changing under the take-over: another generator is extending it), or the store's
 * -errno (nothing changed: the udm stays single-node and the node must not serve). */
int udm_sqn_cluster(struct udm *udm, const struct udm_sqn_cluster_conf *conf,
		    const struct udm_sqn_store_ops *ops, void *arg);
/* Stop the extension thread and free the generator (before udm_free; NULL, or a udm never
 * switched, is fine). udm_generate_av is -ESHUTDOWN afterwards: never back to single-node SQNs. */
void udm_sqn_cluster_stop(struct udm *udm);

struct udm_sqn_stats {
	uint64_t issued;          /* vectors given an SQN */
	uint64_t refused_lease;   /* -EAGAIN: the next SEQ would have reached the lease */
	uint64_t refused_ahead;   /* -ERANGE: more than UDM_SQN_AHEAD_MAX ahead of the clock */
	uint64_t resync_adopted;  /* SQN_MS ahead of the HE, taken */
	uint64_t resync_unfixable;/* udm_resync -ERANGE */
	uint64_t ext_ok, ext_fail;/* lease extensions committed / failed (retried) */
	bool fenced;              /* another generator took the slot: no more extensions */
	uint64_t floor, lease;    /* SEQ floor of this run, lease committed (ticks) */
	unsigned ind;
};
/* 0, or -ENOENT when udm is not in cluster mode. */
int udm_sqn_stats(const struct udm *udm, struct udm_sqn_stats *st);

/* The lease store on a dqlite cluster through db/dqlite_client.h (udm/sqn_lease_dqlite.c, its
 * own library udm_sqn_dqlite_dep): table sqn_lease(ind INTEGER PRIMARY KEY, lease INTEGER,
 * owner INTEGER) in database dbname. addrs: the nodes ("host:port"), any of them; requests go
 * to the leader, found again after a leader change or a lost connection. Every call blocks up to timeout_ms
 * (<= 0: 5 s) per attempt. */
#define UDM_SQN_DQLITE_ADDRS_MAX 8
struct udm_sqn_dqlite;
extern const struct udm_sqn_store_ops udm_sqn_dqlite_ops;   /* arg: struct udm_sqn_dqlite * */
/* Nothing is connected yet (the first read does). 0, -EINVAL, -ENOMEM. */
int udm_sqn_dqlite_new(const char *const *addrs, unsigned n, const char *dbname, int timeout_ms,
		       struct udm_sqn_dqlite **out);
void udm_sqn_dqlite_free(struct udm_sqn_dqlite *d);   /* NULL is fine */

#endif
