/* SPDX-License-Identifier: AGPL-3.0-or-later */
/* udm internals: the subscriber store shared by store.c, arpf.c and sidf.c. */
#ifndef SOLOCORE_UDM_UDM_INT_H
#define SOLOCORE_UDM_UDM_INT_H

#include "udm/udm.h"

struct db_policy;
struct udm_sqn_gen;

#define UDM_NIL UINT32_MAX
#define UDM_POL_HASH 2048   /* > 2 x UDM_MAX_POLICIES, power of two */
#define UDM_POL_FREE 1023u  /* udm_subscriber.pol of an entry on the free list */

/* Subscription fields a subscriber, a policy or the network defaults can give
 * (udm_subscriber.own, udm_policy.set): each is taken from the first level that sets it. */
#define UDM_F_SLICES 0x01u
#define UDM_F_DNNS 0x02u
#define UDM_F_AMBR_UL 0x04u
#define UDM_F_AMBR_DL 0x08u
#define UDM_F_5QI 0x10u
#define UDM_F_ARP 0x20u
#define UDM_F_ALL 0x3fu

/* 184 bytes, as before policies were held here: the policy slot and the own-field mask
 * share two bytes, the chain links fill what was padding (store.c checks the size). */
struct udm_subscriber {
	struct udm_sub_data data;
	/* Its own UE-AMBR, 0 = from the policy / network default (udm_ue_ambr resolves at
	 * read time: no re-resolution when those change). */
	uint64_t ue_ambr_ul, ue_ambr_dl;
	uint8_t k[16];
	uint8_t opc[16];
	uint8_t amf[2];
	uint16_t pol : 10;     /* slot in udm.pols (0: no policy), UDM_POL_FREE when removed */
	uint16_t own : 6;      /* UDM_F_* this subscriber set itself: never re-resolved */
	uint32_t pol_prev;     /* chain of the subscribers of slot pol (UDM_NIL ends it) */
	uint64_t sqn;          /* last SQN issued (48 bits) */
	uint32_t next;         /* hash chain / free list */
	uint32_t pol_next;
};

/* One policy profile as the store applies it (db/db.h struct db_policy, DNNs interned,
 * lists clipped to what a subscriber holds). Slot 0 is "no policy": nothing set. */
struct udm_policy {
	char name[UDM_POLICY_NAME_MAX + 1];   /* "" in slot 0 and in free slots */
	uint8_t set;            /* UDM_F_* the policy sets */
	bool in_use;            /* slot taken (slot 0 always) */
	struct udm_sub_data val; /* the values it sets (supi unused) */
	struct udm_sub_data eff; /* val for the fields in set, the network default for the rest */
	uint64_t ue_ambr_ul, ue_ambr_dl; /* 0: the network default (resolved at read time) */
	uint32_t head, tail;    /* its chain in the order of linking, UDM_NIL when none */
	uint32_t users;
};

struct udm {
	struct udm_subscriber *subs;
	uint32_t cap;
	uint32_t count;
	uint32_t free_head;
	uint32_t hwm;          /* [hwm, cap) never used (store.c: untouched pages stay unmapped) */
	uint32_t *buckets;     /* index of the first subscriber in the chain, UDM_NIL when empty */
	uint32_t nbuckets;     /* power of two */
	char dnn_pool[UDM_MAX_DISTINCT_DNNS][UDM_DNN_MAX + 1];
	unsigned n_dnn_pool;
	udm_sqn_sink sqn_sink;
	void *sqn_arg;
	const struct crypto_keyring *keyring;
	struct udm_sub_data defaults;   /* applied to db rows that leave a field at 0 */
	uint64_t def_ue_ambr_ul, def_ue_ambr_dl;
	struct udm_policy *pols;        /* [0, n_pols): slot 0 = no policy (policy.c) */
	unsigned n_pols, cap_pols;
	uint16_t pol_hash[UDM_POL_HASH]; /* open addressing by name: slot, 0 = empty */
	unsigned pol_last;              /* last slot found by name (load: neighbours share) */
	struct crypto_keyring *owned_keyring; /* built by udm_start(), freed with the udm */
	struct udm_sqn_gen *sqn_gen;    /* cluster SQNs (sqn.c), NULL: single-node scheme */
	bool sqn_stopped;               /* udm_sqn_cluster_stop() ran: no more vectors */
};

const char *udm_dnn_intern(struct udm *udm, const char *dnn);
int udm_opc_from_op(const uint8_t k[16], const uint8_t op[16], uint8_t opc[16]);

/* sidf.c: one SUCI round trip per ECIES profile in the keyring (udm_warm_up). 0 or -errno. */
int udm_sidf_warm_up(const struct udm *udm);

struct udm_subscriber *udm_find(const struct udm *udm, const char *supi);
/* Take the entry of supi (found, or a new one linked into the hash with pol 0 and no
 * chain yet: *fresh). NULL with *err: -EINVAL (bad SUPI), -ENOSPC (store full). */
struct udm_subscriber *udm_slot(struct udm *udm, const char *supi, bool *fresh, int *err);
uint32_t udm_index(const struct udm *udm, const struct udm_subscriber *s);

/* policy.c: the policy table and the per-policy chains of subscribers. */
int udm_pols_init(struct udm *udm);
void udm_pols_free(struct udm *udm);
/* Move s (already in the hash) to the chain of slot pol; fresh: it is in no chain yet. */
void udm_pol_link(struct udm *udm, struct udm_subscriber *s, unsigned pol, bool fresh);
void udm_pol_unlink(struct udm *udm, struct udm_subscriber *s);
/* Slot of a policy by name, 0 when unknown (or name ""). */
unsigned udm_pol_find(struct udm *udm, const char *name);
/* Slot of p in the table, p added or its values updated there when they differ (a row
 * just read from db is the truth). 0 or udm_policy_update's -errno. */
int udm_pol_get(struct udm *udm, const struct db_policy *p, unsigned *slot);
/* Fields not in s->own from the policy's effective values. */
void udm_pol_apply(const struct udm_policy *p, struct udm_subscriber *s, unsigned fields);

/* sqn.c, cluster mode: the SQN of the next vector after sqn_he (the subscriber's last SQN).
 * 0, -EAGAIN (lease not extended in time), -ERANGE (too far ahead of the clock), -EOVERFLOW. */
int udm_sqn_gen_next(struct udm_sqn_gen *g, uint64_t sqn_he, uint64_t *sqn);
/* After a valid AUTS: the SQN the subscriber keeps in *keep (SQN_MS when ahead, else sqn_he).
 * 0, or -ERANGE when the next vector would still fail the USIM's Delta check (C.2.1). */
int udm_sqn_gen_resync(struct udm_sqn_gen *g, uint64_t sqn_he, uint64_t sqn_ms, uint64_t *keep);

/* Record a new SQN and tell the sink. */
void udm_sqn_set(struct udm *udm, struct udm_subscriber *s, uint64_t sqn);

#endif
