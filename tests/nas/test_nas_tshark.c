/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * Every message our encoders produce (each type with no optional IE, with
 * each optional IE alone, with all of them; plain and security protected
 * with NEA0) goes into a pcap as Wireshark exported PDUs for the "nas-5gs"
 * dissector. tshark decodes it; the test fails on any Malformed packet or
 * error-level expert info, and on any key field that differs from what we
 * encoded. Without tshark it prints why and exits 77 (meson: SKIP).
 *
 * argv[1] = path of tshark (from meson find_program), argv[2] = work dir.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/nas/nas_int.h"
#include "nas_sample.h"
#include "testlib.h"

#define MAX_FRAMES 2048

struct expect {
	uint8_t type, epd;
	int mm_cause, sm_cause, type_id, psi;
	char msin[24], dnn[64];
	long tmsi, sst, ambr_dl, amf_set;
	char ipv4[20], text[32];
	char what[96];
};

static struct expect ex[MAX_FRAMES];
static int nframes;
static uint8_t buf[8192];

/* Expected first occurrence of each key field, in wire order like tshark's
 * dissection: header, then IEs, descending into nested NAS messages. */
static void expect_walk(const struct nas_msg *m, struct expect *x, int depth)
{
	const struct nas_msg_desc *md = nas_msg_desc_get(m->type);

	if (md->epd == NAS_EPD_5GSM && x->psi < 0)
		x->psi = m->psi;
	for (unsigned i = 0; i < md->n_ies; i++) {
		const struct nas_ie_desc *d = &md->ies[i];
		const void *f = (const uint8_t *)m + d->off;
		const struct nas_buf *b = f;
		if (d->has >= 0 && !*(const bool *)((const uint8_t *)m + d->has))
			continue;
		if (d->str == NAS_S_MMCAUSE && x->mm_cause < 0)
			x->mm_cause = *(const uint8_t *)f;
		if (d->str == NAS_S_SMCAUSE && x->sm_cause < 0)
			x->sm_cause = *(const uint8_t *)f;
		if (d->str == NAS_S_DNN && !x->dnn[0])
			nas_dnn_to_str(f, x->dnn, sizeof(x->dnn));
		if (d->codec == NAS_C_NSSAI && x->sst < 0 && ((const struct nas_nssai *)f)->n)
			x->sst = ((const struct nas_nssai *)f)->s[0].sst;
		if (d->codec == NAS_C_SNSSAI && x->sst < 0)
			x->sst = ((const struct nas_snssai *)f)->sst;
		if (d->codec == NAS_C_AMBR && x->ambr_dl < 0)
			x->ambr_dl = ((const struct nas_session_ambr *)f)->dl;
		if (d->codec == NAS_C_PDUADDR && !x->ipv4[0] && ((const struct nas_pdu_address *)f)->type == NAS_PDU_IPV4) {
			const uint8_t *a = ((const struct nas_pdu_address *)f)->ipv4;
			snprintf(x->ipv4, sizeof(x->ipv4), "%u.%u.%u.%u", a[0], a[1], a[2], a[3]);
		}
		if (d->codec == NAS_C_NETNAME && !x->text[0]) {
			char t[64];
			nas_network_name_to_str(f, t, sizeof(t));        /* "text" */
			snprintf(x->text, sizeof(x->text), "%.*s", (int)strlen(t) - 2, t + 1);
		}
		if (!strcmp(d->name, "identity_type") && x->type_id < 0)
			x->type_id = *(const uint8_t *)f;
		if (!strcmp(d->name, "reactivation_error") && b->len >= 2) {
			if (x->psi < 0)
				x->psi = b->p[0];
			if (x->mm_cause < 0)
				x->mm_cause = b->p[1];
		}
		if (d->codec == NAS_C_MOBID && x->type_id < 0) {
			const struct nas_mobile_id *id = f;
			char supi[64];
			x->type_id = id->type;
			if (id->type == NAS_MOBID_SUCI && nas_suci_null_supi(&id->suci, supi, sizeof(supi)) > 0)
				snprintf(x->msin, sizeof(x->msin), "%s", supi + 5 + 3 + (id->suci.plmn.mnc3 ? 3 : 2));
			if (id->type == NAS_MOBID_5G_GUTI || id->type == NAS_MOBID_5G_S_TMSI) {
				x->tmsi = id->guti.tmsi;
				x->amf_set = id->guti.amf_set_id;
			}
		}
		if (!strcmp(d->name, "psi") && x->psi < 0)
			x->psi = *(const uint8_t *)f;
		/* without its type IE tshark cannot know what the payload container holds */
		if (!strcmp(d->name, "payload_container") && !m->reg_req.has_payload_container_type)
			continue;
		if (d->str == NAS_S_NESTED && depth == 0) {
			struct nas_msg inner;
			if (nas_decode(b->p, b->len, &inner, NULL) == 0)
				expect_walk(&inner, x, 1);
		}
	}
}

static void expect_from(const struct nas_msg *m, struct expect *x)
{
	x->type = m->type;
	x->epd = nas_msg_desc_get(m->type)->epd;
	x->mm_cause = x->sm_cause = x->type_id = x->psi = -1;
	x->tmsi = x->sst = x->ambr_dl = x->amf_set = -1;
	x->msin[0] = x->dnn[0] = x->ipv4[0] = x->text[0] = 0;
	expect_walk(m, x, 0);
}

static int add(struct pcapw *w, const struct nas_msg *m, const char *what, int protect)
{
	int n, off = protect ? NAS_SEC_HDR_LEN : 0;
	struct nas_err e;

	if (nframes >= MAX_FRAMES)
		return -1;
	n = nas_encode(m, buf + off, sizeof(buf) - (size_t)off, &e);
	if (n < 0) {
		fprintf(stderr, "encode %s (%s): %d %s\n", nas_msg_name(m->type), what, n, e.reason);
		return -1;
	}
	if (protect) {  /* NEA0: the inner message stays readable (tshark null_decipher) */
		nas_sec_hdr_enc(buf, NAS_SEC_HDR_LEN, NAS_SHT_INTEGRITY_CIPHERED, 0x01020304, (uint8_t)nframes);
		n += NAS_SEC_HDR_LEN;
	}
	expect_from(m, &ex[nframes]);
	snprintf(ex[nframes].what, sizeof(ex[nframes].what), "%s: %s%s", nas_msg_name(m->type), what,
		 protect ? " (protected)" : "");
	nframes++;
	return pcapw_upper(w, "nas-5gs", buf, (size_t)n);
}

/* the k-th comma separated element of s (first when k = 0), or "" */
static void elem(const char *s, char *out, size_t sz)
{
	size_t n = strcspn(s, ",");
	if (n >= sz)
		n = sz - 1;
	memcpy(out, s, n);
	out[n] = 0;
}

static int check_int(int frame, const char *field, const char *got, long want)
{
	char v[64];
	elem(got, v, sizeof(v));
	if (want < 0 && !v[0])
		return 0;
	if (want < 0 || !v[0] || strtol(v, NULL, 0) != want) {
		fprintf(stderr, "frame %d (%s): %s: tshark '%s', encoded %ld\n", frame, ex[frame - 1].what, field, v, want);
		return 1;
	}
	return 0;
}

static int check_str(int frame, const char *field, const char *got, const char *want)
{
	char v[128];
	elem(got, v, sizeof(v));
	if (strcmp(v, want)) {
		fprintf(stderr, "frame %d (%s): %s: tshark '%s', encoded '%s'\n", frame, ex[frame - 1].what, field, v, want);
		return 1;
	}
	return 0;
}

/* The fields compared per frame, f[] order in row() */
static const char *const fields[] = {
	"nas_5gs.mm.message_type", "nas_5gs.sm.message_type", "nas_5gs.mm.5gmm_cause", "nas_5gs.sm.5gsm_cause",
	"nas_5gs.mm.type_id", "nas_5gs.mm.suci.msin", "nas_5gs.pdu_session_id", "nas_5gs.cmn.dnn",
	"nas_5gs.5g_tmsi", "nas_5gs.mm.sst", "nas_5gs.sm.session_ambr_dl", "nas_5gs.sm.pdu_addr_inf_ipv4",
	"nas_5gs.amf_set_id", "gsm_a.dtap.text_string",
};

static int row(void *ctx, int fr, char **f)
{
	const struct expect *x = &ex[fr - 1];
	int bad = 0;

	(void)ctx;
	bad += check_int(fr, x->epd == NAS_EPD_5GMM ? "mm.message_type" : "sm.message_type",
			 x->epd == NAS_EPD_5GMM ? f[0] : f[1], x->type);
	bad += check_int(fr, "5gmm_cause", f[2], x->mm_cause);
	bad += check_int(fr, "5gsm_cause", f[3], x->sm_cause);
	bad += check_int(fr, "type_id", f[4], x->type_id);
	if (x->msin[0])
		bad += check_str(fr, "suci.msin", f[5], x->msin);
	bad += check_int(fr, "pdu_session_id", f[6], x->psi);
	if (x->dnn[0])
		bad += check_str(fr, "dnn", f[7], x->dnn);
	if (x->tmsi >= 0)
		bad += check_int(fr, "5g_tmsi", f[8], x->tmsi);
	if (x->sst >= 0)
		bad += check_int(fr, "sst", f[9], x->sst);
	if (x->ambr_dl >= 0)
		bad += check_int(fr, "session_ambr_dl", f[10], x->ambr_dl);
	if (x->ipv4[0])
		bad += check_str(fr, "pdu_addr_inf_ipv4", f[11], x->ipv4);
	if (x->amf_set >= 0)
		bad += check_int(fr, "amf_set_id", f[12], x->amf_set);
	if (x->text[0])
		bad += check_str(fr, "network name text", f[13], x->text);
	return bad;
}

static const char *frame_what(void *ctx, int fr)
{
	(void)ctx;
	return ex[fr - 1].what;
}

/* Every frame's key fields as encoded, none malformed or with an error-level expert item;
 * then -z expert, a second, independent summary. */
static int run_tshark(const char *tshark, const char *pcap)
{
	const struct tshark_fields q = {
		.opts = TSHARK_NULL_DECIPHER, .fields = fields, .nfields = (int)(sizeof(fields) / sizeof(fields[0])),
		.nframes = nframes, .row = row, .name = frame_what,
	};
	int bad = tshark_fields(tshark, pcap, &q), e = tshark_expert(tshark, pcap, TSHARK_NULL_DECIPHER);

	return (bad < 0 ? 1 : bad) + (e < 0 ? 1 : e);
}

static const char *opt_name(uint8_t type, int k)
{
	const struct nas_msg_desc *md = nas_msg_desc_get(type);
	for (unsigned i = 0; i < md->n_ies; i++)
		if (md->ies[i].has >= 0 && k-- == 0)
			return md->ies[i].name;
	return "?";
}

int main(int argc, char **argv)
{
	uint8_t types[64];
	int nt = nas_sample_types(types, 64), bad;
	char pcap[1024];
	struct nas_msg m;
	struct pcapw *w;

	if (tshark_require(argc < 3 ? NULL : argv[1], "cross-check NAS encodings"))
		return 77;
	snprintf(pcap, sizeof(pcap), "%s/nas_tshark.pcap", argv[2]);
	w = pcapw_open(pcap, PCAPW_EXPORTED_PDU);
	if (!w)
		return 1;
	for (int i = 0; i < nt; i++) {
		nas_sample_fill(&m, types[i], 0);
		if (add(w, &m, "no optional IE", 0) < 0)
			return 1;
		nas_sample_fill(&m, types[i], 1);
		if (add(w, &m, "all optional IEs", 0) < 0 || add(w, &m, "all optional IEs", 1) < 0)
			return 1;
		for (int k = 0; k < nas_sample_n_opt(types[i]); k++) {
			char what[64];
			nas_sample_fill_one(&m, types[i], k);
			snprintf(what, sizeof(what), "optional IE #%d %s", k, opt_name(types[i], k));
			if (add(w, &m, what, 0) < 0)
				return 1;
		}
	}
	pcapw_close(w);
	bad = run_tshark(argv[1], pcap);
	if (getenv("NAS_TSHARK_LIST"))  /* frame list, for reading tshark -V output by hand */
		for (int i = 0; i < nframes; i++)
			printf("frame %d: %s\n", i + 1, ex[i].what);
	printf("%d NAS messages checked by tshark, %d problems\n", nframes, bad);
	return bad ? 1 : 0;
}
