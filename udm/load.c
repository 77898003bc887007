/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * Start-up load of the subscriber store from db/ and the SQN sink that hands
 * SQN changes to db's write-behind writer.
 */
#include <errno.h>
#include <string.h>

#include "common/log.h"
#include "db/db.h"
#include "udm/udm_int.h"

struct load_ctx {
	struct udm *udm;
	uint32_t loaded, clipped, failed;
};

/* One db row into the store. Fields db/ leaves at 0 / empty take the store's network
 * defaults (udm_set_defaults); more slices or DNNs than UDM_MAX_* are dropped (*clipped). */
static int add_db(struct udm *udm, const struct db_subscriber *s, bool *clipped)
{
	struct udm_sub_in in;
	unsigned i;
	int rc;

	memset(&in, 0, sizeof(in));
	memcpy(in.data.supi, s->supi, sizeof(in.data.supi));
	in.data.supi[sizeof(in.data.supi) - 1] = '\0';
	if (s->n_slices) {
		in.data.n_slices = s->n_slices > UDM_MAX_SLICES ? UDM_MAX_SLICES : s->n_slices;
		for (i = 0; i < in.data.n_slices; i++) {
			in.data.slices[i].sst = s->slices[i].sst;
			in.data.slices[i].sd = s->slices[i].sd;
		}
	} else {
		in.data.n_slices = udm->defaults.n_slices;
		memcpy(in.data.slices, udm->defaults.slices, sizeof(in.data.slices));
	}
	if (s->n_dnns) {
		in.data.n_dnns = s->n_dnns > UDM_MAX_DNNS ? UDM_MAX_DNNS : s->n_dnns;
		for (i = 0; i < in.data.n_dnns; i++)
			in.data.dnns[i] = s->dnns[i];
	} else {
		in.data.n_dnns = udm->defaults.n_dnns;
		memcpy(in.data.dnns, udm->defaults.dnns, sizeof(in.data.dnns));
	}
	*clipped = s->n_slices > UDM_MAX_SLICES || s->n_dnns > UDM_MAX_DNNS;
	in.data.ambr_ul_bps = s->ambr_ul ? s->ambr_ul : udm->defaults.ambr_ul_bps;
	in.data.ambr_dl_bps = s->ambr_dl ? s->ambr_dl : udm->defaults.ambr_dl_bps;
	in.data.qi5 = s->default_5qi ? s->default_5qi : udm->defaults.qi5;
	in.data.arp = s->arp ? s->arp : udm->defaults.arp;
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

	if (!udm || !s)
		return -EINVAL;
	return add_db(udm, s, &clipped);
}

static int load_one(const struct db_subscriber *s, void *arg)
{
	struct load_ctx *lc = arg;
	bool clipped = false;
	int rc = add_db(lc->udm, s, &clipped);

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

	rc = db_load_subscribers(db, load_one, &lc);
	if (rc < 0) {
		log_error("udm", "loading subscribers failed rc=%d (store capacity %u)", rc, udm->cap);
		return rc;
	}
	if (lc.clipped)
		log_warn("udm", "%u subscribers have more than %u slices / %u DNNs: extra ones ignored",
			 lc.clipped, UDM_MAX_SLICES, UDM_MAX_DNNS);
	if (lc.failed)
		log_warn("udm", "%u subscribers could not be loaded", lc.failed);
	log_info("udm", "loaded %u subscribers", lc.loaded);
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
