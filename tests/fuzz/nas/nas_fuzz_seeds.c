/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * Writes the seed corpora of the NAS fuzzers: the captured messages of
 * tests/vectors (plain, protected, and the NAS inside NGAP), every message
 * type encoded with all optional IEs, and the mobile identities in them.
 * Usage: nas_fuzz_seeds OUTDIR STAMP  (creates OUTDIR/{plain,sec,mobid}
 * with seeds and OUTDIR/corpus_{plain,sec,mobid} empty for new inputs).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "common/nas/nas.h"
#include "nas_sample.h"
#include "testlib.h"

static const char *outdir;
static int nseeds;

static int put(const char *kind, const uint8_t *p, size_t n)
{
	char path[1024];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s/seed_%04d", outdir, kind, nseeds++);
	f = fopen(path, "wb");
	if (!f || fwrite(p, 1, n, f) != n) {
		perror(path);
		if (f)
			fclose(f);
		return -1;
	}
	return fclose(f);
}

static void mobids(const struct nas_msg *m, const uint8_t *raw, size_t n)
{
	(void)raw;
	(void)n;
	uint8_t v[256];
	const struct nas_mobile_id *ids[4] = { 0 };
	int k = 0;

	if (m->type == NAS_REGISTRATION_REQUEST)
		ids[k++] = &m->reg_req.mobile_id;
	if (m->type == NAS_REGISTRATION_ACCEPT && m->reg_acc.has_guti)
		ids[k++] = &m->reg_acc.guti;
	if (m->type == NAS_SECURITY_MODE_COMPLETE && m->smc_cpl.has_imeisv)
		ids[k++] = &m->smc_cpl.imeisv;
	if (m->type == NAS_SERVICE_REQUEST)
		ids[k++] = &m->svc_req.s_tmsi;
	if (m->type == NAS_DEREGISTRATION_REQUEST_UE_ORIG || m->type == NAS_IDENTITY_RESPONSE)
		ids[k++] = m->type == NAS_IDENTITY_RESPONSE ? &m->id_resp.mobile_id : &m->dereg_req.mobile_id;
	for (int i = 0; i < k; i++) {
		int l = nas_mobile_id_enc(ids[i], v, sizeof(v));
		if (l > 0)
			put("mobid", v, (size_t)l);
	}
}

static void message(const uint8_t *p, size_t n)
{
	struct nas_sec_hdr h;
	struct nas_msg m;

	if (nas_sec_decode(p, n, &h, NULL) == 0) {
		put("sec", p, n);
		p = h.msg.p;
		n = h.msg.len;
	}
	if (nas_decode(p, n, &m, NULL) != 0)
		return;
	put("plain", p, n);
	mobids(&m, p, n);
	if (m.type == NAS_UL_NAS_TRANSPORT)
		put("plain", m.ul_nas.payload.p, m.ul_nas.payload.len);
	if (m.type == NAS_DL_NAS_TRANSPORT)
		put("plain", m.dl_nas.payload.p, m.dl_nas.payload.len);
	if (m.type == NAS_SECURITY_MODE_COMPLETE && m.smc_cpl.has_nas_container)
		message(m.smc_cpl.nas_container.p, m.smc_cpl.nas_container.len);
}

int main(int argc, char **argv)
{
	static const char *dirs[] = { "plain", "sec", "mobid", "corpus_plain", "corpus_sec", "corpus_mobid" };
	uint8_t buf[8192], types[64];
	char path[1024];
	struct nas_msg m;
	int nt;

	if (argc != 3)
		return 2;
	outdir = argv[1];
	mkdir(outdir, 0755);
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", outdir, dirs[i]);
		if (mkdir(path, 0755) < 0 && errno != EEXIST)
			return 1;
	}
	struct tv_file *f = tv_open("nas5gs_messages.txt");
	for (int s = 0; f && s < tv_sections(f); s++) {
		int n = tv_hex(f, s, "hex", buf, sizeof(buf));
		if (n > 0)
			message(buf, (size_t)n);
	}
	tv_close(f);
	/* the NAS-PDU inside NGAP: a 0x7e preceded by its one-octet length */
	f = tv_open("ngap_messages.txt");
	for (int s = 0; f && s < tv_sections(f); s++) {
		int n = tv_hex(f, s, "hex", buf, sizeof(buf));
		for (int i = 1; i < n; i++)
			if (buf[i] == NAS_EPD_5GMM && buf[i - 1] >= 3 && i + buf[i - 1] <= n) {
				message(buf + i, buf[i - 1]);
				break;
			}
	}
	tv_close(f);
	f = tv_open("suci_ts33501_annex_c4.txt");
	for (int s = 0; f && s < tv_sections(f); s++) {
		int n = tv_hex(f, s, "suci_nas_mobile_identity_value_example", buf, sizeof(buf));
		if (n > 0)
			put("mobid", buf, (size_t)n);
	}
	tv_close(f);
	nt = nas_sample_types(types, 64);
	for (int i = 0; i < nt; i++) {
		nas_sample_fill(&m, types[i], 1);
		int n = nas_encode(&m, buf + NAS_SEC_HDR_LEN, sizeof(buf) - NAS_SEC_HDR_LEN, NULL);
		if (n <= 0)
			return 1;
		message(buf + NAS_SEC_HDR_LEN, (size_t)n);
		nas_sec_hdr_enc(buf, NAS_SEC_HDR_LEN, NAS_SHT_INTEGRITY_CIPHERED, 0, (uint8_t)i);
		put("sec", buf, (size_t)n + NAS_SEC_HDR_LEN);
	}
	FILE *st = fopen(argv[2], "w");
	if (!st)
		return 1;
	fprintf(st, "%d seeds\n", nseeds);
	fclose(st);
	printf("%d seeds in %s\n", nseeds, outdir);
	return 0;
}
