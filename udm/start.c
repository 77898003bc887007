/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * udm_start(): the production start-up of the UDM from the configuration and
 * the database — store sized from the subscriber count, network defaults and
 * the SIDF keyring from conf, subscribers loaded, SQN changes to the writer.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/crypto/crypto.h"
#include "common/log.h"
#include "db/db.h"
#include "udm/udm_int.h"

static int keyring_from_conf(struct udm *udm, const struct conf *conf)
{
	struct crypto_keyring *kr;
	unsigned i;
	int rc;

	if (!conf->suci.n_keys)
		return 0;
	kr = crypto_keyring_new();
	if (!kr)
		return -ENOMEM;
	for (i = 0; i < conf->suci.n_keys; i++) {
		const struct conf_suci_key *ck = &conf->suci.keys[i];
		enum crypto_suci_scheme sch = ck->scheme == CONF_SUCI_A ? CRYPTO_SUCI_PROFILE_A
									: CRYPTO_SUCI_PROFILE_B;
		struct crypto_hn_key *key = NULL;
		char hex[2 * CONF_SUCI_KEY_LEN + 1];
		unsigned j;

		if (!ck->has_key)
			continue;
		for (j = 0; j < CONF_SUCI_KEY_LEN; j++)
			snprintf(hex + 2 * j, 3, "%02x", ck->private_key[j]);
		rc = crypto_hn_key_from_hex(&key, sch, ck->id, hex);
		explicit_bzero(hex, sizeof(hex));
		if (rc == 0)
			rc = crypto_keyring_add(kr, key);
		if (rc < 0) {
			crypto_hn_key_free(key);
			crypto_keyring_free(kr);
			log_error("udm", "suci.keys[%u] (id %u): unusable key rc=%d", i, ck->id, rc);
			return rc;
		}
	}
	udm->owned_keyring = kr;
	udm_set_keyring(udm, kr);
	return 0;
}

int udm_set_defaults_from_conf(struct udm *udm, const struct conf *conf)
{
	struct udm_sub_data defs;
	unsigned i;

	memset(&defs, 0, sizeof(defs));
	for (i = 0; i < conf->n_slices && i < UDM_MAX_SLICES; i++) {
		defs.slices[i].sst = conf->slices[i].sst;
		defs.slices[i].sd = conf->slices[i].has_sd ? conf->slices[i].sd : UDM_SD_NONE;
	}
	defs.n_slices = (uint8_t)i;
	for (i = 0; i < conf->n_dnns && i < UDM_MAX_DNNS; i++)
		defs.dnns[i] = conf->dnns[i].name;
	defs.n_dnns = (uint8_t)i;
	defs.qi5 = UDM_DEFAULT_5QI;
	defs.arp = UDM_DEFAULT_ARP;
	defs.ambr_ul_bps = UDM_DEFAULT_AMBR_BPS;
	defs.ambr_dl_bps = UDM_DEFAULT_AMBR_BPS;
	udm_set_ue_ambr_default(udm, conf->amf.ue_ambr_ul, conf->amf.ue_ambr_dl);
	return udm_set_defaults(udm, &defs);
}

struct udm *udm_start(const struct conf *conf, struct db *db, struct db_writer *w, int *err)
{
	int64_t count = db ? db_subscriber_count(db) : 0;
	uint64_t cap;
	struct udm *udm;
	int rc;

	if (count < 0) {
		*err = (int)count;
		return NULL;
	}
	/* Room for subscribers provisioned at runtime (web/REST): +25 % and 1024. In a cluster
	 * the other nodes provision too, and this node cannot refuse what their API accepted
	 * (a SIM would work on some nodes only): room for UDM_CLUSTER_ROOM more. Pages of the
	 * store never used stay unmapped, so the room costs address space, not memory. */
	cap = (uint64_t)count + (uint64_t)count / 4 + (conf->cluster.node_id ? UDM_CLUSTER_ROOM : 1024);
	if (cap > (1u << 28))
		cap = 1u << 28;
	udm = udm_new((uint32_t)cap, err);
	if (!udm)
		return NULL;
	udm_set_defaults_from_conf(udm, conf);
	rc = keyring_from_conf(udm, conf);
	if (rc == 0 && db)
		rc = udm_load_db(udm, db);
	if (rc < 0) {
		udm_free(udm);
		*err = rc;
		return NULL;
	}
	udm_use_db_writer(udm, w);
	if (udm_warm_up(udm) < 0)
		log_warn("udm", "crypto warm-up failed: the first vector will be slower");
	return udm;
}
