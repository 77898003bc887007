/* SPDX-License-Identifier: AGPL-3.0-or-later */
/* udm internals: the subscriber store shared by store.c, arpf.c and sidf.c. */
#ifndef SOLOCORE_UDM_UDM_INT_H
#define SOLOCORE_UDM_UDM_INT_H

#include "udm/udm.h"

#define UDM_NIL UINT32_MAX

struct udm_subscriber {
	struct udm_sub_data data;
	uint8_t k[16];
	uint8_t opc[16];
	uint8_t amf[2];
	bool used;
	uint64_t sqn;          /* last SQN issued (48 bits) */
	uint32_t next;         /* hash chain / free list */
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
	struct crypto_keyring *owned_keyring; /* built by udm_start(), freed with the udm */
};

const char *udm_dnn_intern(struct udm *udm, const char *dnn);
int udm_opc_from_op(const uint8_t k[16], const uint8_t op[16], uint8_t opc[16]);

/* sidf.c: one SUCI round trip per ECIES profile in the keyring (udm_warm_up). 0 or -errno. */
int udm_sidf_warm_up(const struct udm *udm);

struct udm_subscriber *udm_find(const struct udm *udm, const char *supi);
/* Record a new SQN and tell the sink. */
void udm_sqn_set(struct udm *udm, struct udm_subscriber *s, uint64_t sqn);

#endif
