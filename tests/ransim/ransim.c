/* SPDX-License-Identifier: AGPL-3.0-or-later */
/* ransim: configuration, life cycle and SIM files (see ransim.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/toml/toml.h"
#include "rs_int.h"
#include "testlib.h"

void ransim_cfg_init(struct ransim_cfg *c)
{
	memset(c, 0, sizeof(*c));
	n2sctp_cfg_init(&c->sctp);
	c->sctp.backend = N2SCTP_BACKEND_USRSCTP;
	c->sctp.encap = N2SCTP_ENCAP_RAW;
	snprintf(c->addr, sizeof(c->addr), "127.0.0.1");
	c->port = N2SCTP_PORT_NGAP;
	snprintf(c->mcc, sizeof(c->mcc), "001");
	snprintf(c->mnc, sizeof(c->mnc), "01");
	c->tac = 1;
	c->sst = 1;
	c->sd = 0x010203;
	c->req_sst = 1;
	c->req_sd = 0x010203;
	c->n_gnbs = 1;
	c->n_ues = 1;
	c->concurrency = 1;
	c->ue_ia = 0xf0;  /* 5G-IA0..3 (TS 24.501 9.11.3.54) */
	c->ue_ea = 0xf0;  /* 5G-EA0..3 */
	c->expect_nia = -1;
	c->expect_nea = -1;
	c->dereg = RANSIM_DEREG_NORMAL;
	c->ue_timeout_ms = 10000;
	c->attack_quiet_ms = 3000;
	c->attack_window_ms = 2000;
	c->psi = 1;
	c->pdu_type = NAS_PDU_IPV4V6;
}

/* "001"/"01" -> struct nas_plmn; -EINVAL on anything else. */
static int parse_plmn(const char *mcc, const char *mnc, struct nas_plmn *p)
{
	size_t lm = strlen(mcc), ln = strlen(mnc);
	char *end;

	if (lm != 3 || (ln != 2 && ln != 3))
		return -EINVAL;
	p->mcc = (uint16_t)strtoul(mcc, &end, 10);
	if (*end)
		return -EINVAL;
	p->mnc = (uint16_t)strtoul(mnc, &end, 10);
	if (*end)
		return -EINVAL;
	p->mnc3 = ln == 3;
	return 0;
}

struct ransim *ransim_new(struct ev_loop *loop, const struct ransim_cfg *cfg,
			  const struct ransim_sim *sims, unsigned n_sims, int *err)
{
	struct ransim *rs;
	unsigned i;

	*err = -EINVAL;
	if (!cfg->n_gnbs || cfg->n_gnbs > RANSIM_MAX_GNBS || !cfg->n_ues || !n_sims || !cfg->concurrency)
		return NULL;
	if (cfg->psi < 1 || cfg->psi > 15)
		return NULL;
	/* the DL TEIDs of several gNBs carry the gNB in their top bits (RS_GNB_DL_TEID_AT) */
	if (cfg->n_gnbs > 1 && cfg->n_ues > 1u << RS_TEID_UE_BITS)
		return NULL;
	if (cfg->suci != RANSIM_SUCI_NULL && !cfg->hn_pub_len)
		return NULL;
	rs = calloc(1, sizeof(*rs));
	if (!rs) {
		*err = -ENOMEM;
		return NULL;
	}
	rs->loop = loop;
	rs->cfg = *cfg;
	if (parse_plmn(cfg->mcc, cfg->mnc, &rs->nplmn) < 0 ||
	    parse_plmn(cfg->home_mcc[0] ? cfg->home_mcc : cfg->mcc, cfg->home_mnc[0] ? cfg->home_mnc : cfg->mnc,
		       &rs->home) < 0)
		goto fail;
	nas_plmn_enc(&rs->nplmn, rs->plmn);
	/* TS 24.501 9.12.1: serving network name, MNC with three digits. */
	snprintf(rs->snn, sizeof(rs->snn), "5G:mnc%03u.mcc%03u.3gppnetwork.org", rs->nplmn.mnc, rs->nplmn.mcc);
	*err = -ENOMEM;
	rs->sims = calloc(n_sims, sizeof(*sims));
	rs->ues = calloc(cfg->n_ues, sizeof(*rs->ues));
	if (!rs->sims || !rs->ues)
		goto fail;
	memcpy(rs->sims, sims, n_sims * sizeof(*sims));
	rs->n_sims = n_sims;
	/* the AMF set: cfg.amfs, else the one AMF at addr:port (as before issue 20) */
	if (cfg->n_amfs > RANSIM_MAX_AMFS || RANSIM_MAX_AMFS > RS_AMF_MAX)
		goto fail_inval;
	rs->n_amfs = cfg->n_amfs ? cfg->n_amfs : 1;
	for (i = 0; i < rs->n_amfs; i++) {
		const char *a = cfg->n_amfs ? cfg->amfs[i].addr : cfg->addr;
		uint16_t port = cfg->n_amfs && cfg->amfs[i].port ? cfg->amfs[i].port : cfg->port;

		snprintf(rs->amfs[i].addr, sizeof(rs->amfs[i].addr), "%s", a);
		rs->amfs[i].port = port;
		rs->amfs[i].udp_peer_port = cfg->n_amfs && cfg->amfs[i].udp_peer_port ? cfg->amfs[i].udp_peer_port
										      : cfg->sctp.udp_peer_port;
	}
	for (i = 0; i < cfg->n_gnbs; i++) {
		rs->gnbs[i].sel.n = rs->n_amfs;
		for (unsigned j = 0; j < RS_AMF_MAX; j++) {
			rs->gnbs[i].n2[j].g = &rs->gnbs[i];
			rs->gnbs[i].n2[j].ai = j;
		}
		rs->gnbs[i].rs = rs;
		rs->gnbs[i].idx = i;
	}
	for (i = 0; i < cfg->n_ues; i++)
		rs_ue_init(rs, &rs->ues[i], i);
	if (cfg->attack) {
		*err = rs_adv_new(rs);
		if (*err < 0)
			goto fail;
	}
	if (cfg->amf_ids) {
		rs->amf_ids = fopen(cfg->amf_ids, "w");
		if (!rs->amf_ids) {
			*err = -errno;
			goto fail;
		}
	}
	if (cfg->pcap) {
		rs->pcap = pcapw_open(cfg->pcap, PCAPW_SCTP_IPV4);
		if (!rs->pcap) {
			*err = -EIO;
			goto fail;
		}
	}
	*err = 0;
	return rs;
fail_inval:
	*err = -EINVAL;
fail:
	ransim_free(rs);
	return NULL;
}

int ransim_start(struct ransim *rs)
{
	unsigned i;
	int rc;

	for (i = 0; i < rs->cfg.n_gnbs; i++) {
		rc = rs_gnb_connect(&rs->gnbs[i]);
		if (rc < 0)
			return rc;
	}
	return 0;
}

bool ransim_done(const struct ransim *rs)
{
	unsigned passes = rs->cfg.passes ? rs->cfg.passes : 1;

	if (rs->adv && !rs_adv_done(rs))
		return false;
	return rs->finished >= (uint64_t)rs->cfg.n_ues * passes || (rs->stopping && !rs->in_flight);
}

void ransim_stop(struct ransim *rs)
{
	rs->stopping = true;
}

uint64_t ransim_finished(const struct ransim *rs)
{
	return rs->finished;
}

unsigned ransim_in_flight(const struct ransim *rs)
{
	return rs->in_flight;
}

void ransim_shutdown(struct ransim *rs)
{
	unsigned i;

	for (i = 0; i < rs->cfg.n_gnbs; i++)
		rs_gnb_shutdown(&rs->gnbs[i]);
}

void ransim_abort(struct ransim *rs)
{
	unsigned i;

	for (i = 0; i < rs->cfg.n_gnbs; i++)
		rs_gnb_abort(&rs->gnbs[i]);   /* ABORT, no callbacks */
}

void ransim_restart(struct ransim *rs)
{
	unsigned i;

	for (i = 0; i < rs->cfg.n_gnbs; i++)
		if (rs->gnbs[i].st == RS_GNB_READY)
			rs_gnb_restart(&rs->gnbs[i]);
}

void ransim_free(struct ransim *rs)
{
	unsigned i;

	if (!rs)
		return;
	for (i = 0; i < RANSIM_MAX_GNBS; i++)
		for (unsigned j = 0; j < RS_AMF_MAX; j++)
			n2sctp_free(rs->gnbs[i].n2[j].ep);
	if (rs->ues) {
		for (i = 0; i < rs->cfg.n_ues; i++)
			ev_timer_stop(rs->loop, &rs->ues[i].guard);
		rs_n2ho_free(rs);
	}
	if (rs->pcap)
		pcapw_close(rs->pcap);
	if (rs->amf_ids)
		fclose(rs->amf_ids);
	rs_adv_free(rs);
	free(rs->ues);
	if (rs->sims) {
		memset(rs->sims, 0, rs->n_sims * sizeof(*rs->sims));   /* keys */
		free(rs->sims);
	}
	free(rs);
}

/* ---- SIM files (db/SIMS.md) ---- */

static int hex16(const struct toml_node *n, uint8_t out[16])
{
	size_t len;
	const char *s = n ? toml_str(n, &len) : NULL;
	unsigned i, v;

	if (!s || len != 32)
		return -EINVAL;
	for (i = 0; i < 16; i++) {
		if (sscanf(s + 2 * i, "%2x", &v) != 1)
			return -EINVAL;
		out[i] = (uint8_t)v;
	}
	return 0;
}

static int sim_from_table(const struct toml_node *t, struct ransim_sim *s, char *err, size_t errsz)
{
	const char *name = toml_key(t);
	const struct toml_node *n;
	uint8_t op[16];

	memset(s, 0, sizeof(*s));
	if (strncmp(name, "imsi-", 5) || strlen(name) >= sizeof(s->supi))
		goto bad;
	snprintf(s->supi, sizeof(s->supi), "%s", name);
	if (hex16(toml_get(t, "ki"), s->k) < 0)
		goto bad;
	if (toml_get(t, "opc")) {
		if (hex16(toml_get(t, "opc"), s->opc) < 0)
			goto bad;
	} else if (hex16(toml_get(t, "op"), op) < 0 || crypto_milenage_opc(s->k, op, s->opc) < 0) {
		goto bad;
	}
	n = toml_get(t, "sqn");
	if (n && toml_type(n) == TOML_INT) {
		s->sqn = (uint64_t)toml_int(n);
	} else if (n) {
		const char *v = toml_str(n, NULL);

		if (!v)
			goto bad;
		s->sqn = strtoull(v, NULL, 16);
	}
	return 0;
bad:
	snprintf(err, errsz, "line %u: [%s]: needs ki and opc (or op), 32 hex digits each", toml_line(t), name);
	return -EINVAL;
}

int ransim_sims_load(const char *path, struct ransim_sim **out, unsigned *n, char *err, size_t errsz)
{
	struct toml_doc *doc;
	const struct toml_node *t;
	struct ransim_sim *v;
	size_t cnt;
	unsigned i = 0;
	int rc = toml_parse_file(path, &doc, err, errsz);

	if (rc < 0)
		return rc;
	cnt = toml_count(toml_root(doc));
	v = calloc(cnt ? cnt : 1, sizeof(*v));
	if (!v) {
		toml_free(doc);
		return -ENOMEM;
	}
	for (t = toml_first(toml_root(doc)); t; t = toml_next(t)) {
		if (toml_type(t) != TOML_TABLE)
			continue;
		rc = sim_from_table(t, &v[i], err, errsz);
		if (rc < 0) {
			free(v);
			toml_free(doc);
			return rc;
		}
		i++;
	}
	toml_free(doc);
	if (!i) {
		free(v);
		snprintf(err, errsz, "%s: no [imsi-...] table", path);
		return -ENOENT;
	}
	*out = v;
	*n = i;
	return 0;
}
