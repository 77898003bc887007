/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * Wireshark's PFCP dissector as an independent decoder of what common/pfcp
 * encodes (TS 29.244): every message type with every IE (the test samples),
 * each minimal message (mandatory IEs only; CHOOSE and fixed F-TEIDs, IPv4,
 * IPv6 and FQDN Node IDs among them), as
 * IPv4 / UDP to port 8805 (4.2.2) in exported-PDU records for the "ip"
 * dissector, with real checksums (tshark verifies them: -o options below).
 * Fails on any Malformed frame, any error-level expert item, and any key
 * field that tshark reads back differently: message type, sequence number,
 * SEIDs (header and F-SEID), PDR / FAR / QER / URR / BAR IDs, F-TEID TEIDs and
 * CHOOSE IDs, precedence, outer header creation TEIDs, UE IPv4 addresses, UL MBR,
 * cause, downlink volume and duration measurements, Failed Rule IDs (8.2.80), Query URR (7.5.4.10), PDN Type (8.2.79) and 3GPP Interface Types
 * (8.2.118, in the PDI and in the Forwarding Parameters). Apply Action goes out in 2 octets and
 * Reporting / Usage Report Triggers in 3 (the Release 16 sizes, 8.2.26 / 8.2.19 / 8.2.41): tshark
 * must find nothing malformed in them.
 * Without tshark it prints why and exits 77 (meson: SKIP).
 *
 * argv[1] = path of tshark (from meson find_program), argv[2] = work dir.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/pfcp/pfcp_int.h"
#include "pfcp_sample.h"
#include "testlib.h"

#define MAX_FRAMES 64
#define LIST_LEN 512

enum {
	F_TYPE, F_SEQ, F_SEID, F_PDR, F_FAR, F_QER, F_URR, F_TEID, F_CAUSE, F_PREC, F_CHOOSE,
	F_OHC_TEID, F_UE_IP, F_UL_MBR, F_BAR, F_DL_VOLM, F_DURATION, F_IFTYPE, F_PDN, NF
};
static const char *const fields[NF] = {
	"pfcp.msg_type", "pfcp.seqno", "pfcp.seid", "pfcp.pdr_id", "pfcp.far_id",
	"pfcp.qer_id", "pfcp.urr_id", "pfcp.f_teid.teid", "pfcp.cause", "pfcp.precedence",
	"pfcp.f_teid.choose_id", "pfcp.outer_hdr_creation.teid", "pfcp.ue_ip_addr_ipv4",
	"pfcp.ul_mbr", "pfcp.bar_id", "pfcp.volume_measurement.dlvol", "pfcp.duration_measurement",
	"pfcp.tgpp_interface_type", "pfcp.pdn_type",
};

struct expect {
	char v[NF][LIST_LEN];
	char what[80];
};

static struct expect ex[MAX_FRAMES];
static int nframes;
static struct pfcp_msg msg;
static uint8_t pkt[28 + PFCP_MSG_MAX_LEN];

static void add(char *list, unsigned long long v)
{
	size_t n = strlen(list);

	snprintf(list + n, LIST_LEN - n, "%s%llu", n ? "," : "", v);
}

/* F-TEID: the TEID when fixed, the CHOOSE ID when the UP function chooses (8.2.3) */
static void fteid(const struct pfcp_fteid *t, struct expect *x)
{
	if (!(t->flags & PFCP_FTEID_CH))
		add(x->v[F_TEID], t->teid);
	else if (t->flags & PFCP_FTEID_CHID)
		add(x->v[F_CHOOSE], t->choose_id);
}

/* The values tshark shows, in wire order = table order (the encoder's order) */
static void collect(const struct pfcp_grp *g, const void *s, struct expect *x)
{
	for (unsigned i = 0; i < g->n; i++) {
		const struct pfcp_ie_desc *d = &g->ie[i];

		for (unsigned k = 0; k < pfcp_count(s, d); k++) {
			const void *v = pfcp_cval(s, d, k);
			int f = d->type == PFCP_IE_PDR_ID ? F_PDR : d->type == PFCP_IE_FAR_ID ? F_FAR :
				d->type == PFCP_IE_QER_ID ? F_QER : d->type == PFCP_IE_URR_ID ? F_URR :
				d->type == PFCP_IE_CAUSE ? F_CAUSE : d->type == PFCP_IE_PRECEDENCE ? F_PREC :
				d->type == PFCP_IE_BAR_ID ? F_BAR : d->type == PFCP_IE_DURATION_MEASUREMENT ? F_DURATION :
				d->type == PFCP_IE_3GPP_IF_TYPE ? F_IFTYPE : d->type == PFCP_IE_PDN_TYPE ? F_PDN : -1;

			if (d->kind == PFCP_K_GROUP)
				collect(d->grp, v, x);
			else if (d->kind == PFCP_K_FSEID)
				add(x->v[F_SEID], ((const struct pfcp_fseid *)v)->seid);
			else if (d->kind == PFCP_K_FTEID)
				fteid(v, x);
			else if (d->kind == PFCP_K_RULE_ID)   /* 8.2.80: tshark names the rule's own ID field */
				add(x->v[((const int[]){ F_PDR, F_FAR, F_QER, F_URR, F_BAR })
					 [((const struct pfcp_rule_id *)v)->type % 5]], ((const struct pfcp_rule_id *)v)->id);
			else if (d->kind == PFCP_K_OHC && (((const struct pfcp_ohc *)v)->desc & PFCP_OHC_GTPU4))
				add(x->v[F_OHC_TEID], ((const struct pfcp_ohc *)v)->teid);
			else if (d->kind == PFCP_K_UE_IP && (((const struct pfcp_ue_ip *)v)->flags & PFCP_UEIP_V4))
				add(x->v[F_UE_IP], pfcp_get(((const struct pfcp_ue_ip *)v)->ipv4, 4));
			else if (d->type == PFCP_IE_MBR)
				add(x->v[F_UL_MBR], ((const struct pfcp_bitrate *)v)->ul);
			else if (d->kind == PFCP_K_VOLMEAS && (((const struct pfcp_volume *)v)->flags & PFCP_VOL_DLVOL))
				add(x->v[F_DL_VOLM], ((const struct pfcp_volume *)v)->dl);
			else if (f >= 0)
				add(x->v[f], d->kind == PFCP_K_U8 ? *(const uint8_t *)v :
					     d->kind == PFCP_K_U16 ? *(const uint16_t *)v : *(const uint32_t *)v);
		}
	}
}

/* One's-complement sum of 16-bit words (RFC 1071), for the IPv4 and UDP checksums */
static uint32_t sum16(const uint8_t *p, size_t n, uint32_t s)
{
	for (size_t i = 0; i + 1 < n; i += 2)
		s += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (n & 1)
		s += (uint32_t)p[n - 1] << 8;
	return s;
}

static uint16_t fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

/* IPv4 10.0.0.1 -> 10.0.0.2, UDP 8805 -> 8805 (TS 29.244 4.2.2), real checksums */
static void ip_udp(uint8_t *p, size_t n)
{
	static const uint8_t hdr[20] = { 0x45, 0, 0, 0, 0, 1, 0x40, 0, 64, 17, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2 };
	uint8_t *u = p + 20;
	uint16_t c;

	memcpy(p, hdr, 20);
	p[2] = (uint8_t)((n + 28) >> 8);
	p[3] = (uint8_t)(n + 28);
	c = fold(sum16(p, 20, 0));
	p[10] = (uint8_t)(c >> 8);
	p[11] = (uint8_t)c;
	u[0] = u[2] = PFCP_PORT >> 8;
	u[1] = u[3] = PFCP_PORT & 0xff;
	u[4] = (uint8_t)((n + 8) >> 8);
	u[5] = (uint8_t)(n + 8);
	u[6] = u[7] = 0;
	/* pseudo header: addresses, protocol, UDP length (RFC 768) */
	c = fold(sum16(p + 12, 8, 17 + (uint32_t)(n + 8) + sum16(u, n + 8, 0)));
	c = c ? c : 0xffff;
	u[6] = (uint8_t)(c >> 8);
	u[7] = (uint8_t)c;
}

static int put(struct pcapw *w, const struct pfcp_msg *m, const char *what)
{
	struct expect *x = &ex[nframes];
	int n = pfcp_encode(m, pkt + 28, sizeof(pkt) - 28);

	if (n < 0 || nframes >= MAX_FRAMES) {
		fprintf(stderr, "%s: encode %d\n", what, n);
		return 1;
	}
	ip_udp(pkt, (size_t)n);
	memset(x, 0, sizeof(*x));
	snprintf(x->what, sizeof(x->what), "%s", what);
	add(x->v[F_TYPE], m->h.type);
	add(x->v[F_SEQ], m->h.seq);
	if (pfcp_msg_is_session(m->h.type) == 1)
		add(x->v[F_SEID], m->h.seid);
	collect(pfcp_msg_desc(m->h.type)->body, &m->node, x);
	nframes++;
	return pcapw_upper(w, "ip", pkt, (size_t)n + 28) ? 1 : 0;
}

/* a.b.c.d as a number, as add() stores addresses */
static unsigned long long ip4(const char *s)
{
	unsigned a = 0, b = 0, c = 0, d = 0;

	sscanf(s, "%u.%u.%u.%u", &a, &b, &c, &d);
	return (unsigned long long)a << 24 | b << 16 | c << 8 | d;
}

/* tshark shows numbers in decimal or 0x-hex, addresses dotted; compare lists value by value */
static int same_list(const char *want, const char *got)
{
	char g[LIST_LEN * 2], *save = NULL, *tok;
	const char *w = want;

	snprintf(g, sizeof(g), "%s", got);
	for (tok = strtok_r(g, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *end;
		unsigned long long a = strchr(tok, '.') ? ip4(tok) : strtoull(tok, NULL, 0);
		unsigned long long b = strtoull(w, &end, 10);

		if (!*w || a != b)
			return 0;
		w = *end ? end + 1 : end;
	}
	return !*w;
}

static int row(void *ctx, int frame, char **f)
{
	const struct expect *x = &ex[frame - 1];
	int bad = 0;

	(void)ctx;
	for (int i = 0; i < NF; i++)
		if (!same_list(x->v[i], f[i])) {
			fprintf(stderr, "frame %d (%s): %s = '%s', want '%s'\n", frame, x->what, fields[i], f[i],
				x->v[i]);
			bad++;
		}
	return bad;
}

static const char *name(void *ctx, int frame)
{
	(void)ctx;
	return ex[frame - 1].what;
}

/* Keep only the mandatory IEs of the message's table (TS 29.244 presence M) */
static void only_mandatory(const struct pfcp_grp *g, void *s)
{
	for (unsigned i = 0; i < g->n; i++) {
		const struct pfcp_ie_desc *d = &g->ie[i];

		if (!d->mand) {
			*(uint32_t *)s &= ~d->bit;
			if (d->max > 1)
				*((uint8_t *)s + d->cnt_off) = 0;
			continue;
		}
		for (unsigned k = 0; d->kind == PFCP_K_GROUP && k < pfcp_count(s, d); k++)
			only_mandatory(d->grp, pfcp_val(s, d, k));
	}
}

static int write_all(struct pcapw *w)
{
	char what[80];
	int bad = 0;

	for (unsigned i = 0; i < pfcp_sample_ntypes; i++) {
		uint8_t t = pfcp_sample_types[i];

		pfcp_sample(t, &msg);
		snprintf(what, sizeof(what), "%s, every IE", pfcp_msg_name(t));
		bad += put(w, &msg, what);
		only_mandatory(pfcp_msg_desc(t)->body, &msg.node);
		msg.h.has_prio = false;
		snprintf(what, sizeof(what), "%s, mandatory IEs", pfcp_msg_name(t));
		bad += put(w, &msg, what);
	}
	return bad;
}

int main(int argc, char **argv)
{
	char path[4096];
	struct tshark_fields q = { .opts = "-o ip.check_checksum:TRUE -o udp.check_checksum:TRUE", .fields = fields, .nfields = NF, .row = row, .name = name };
	struct pcapw *w;
	int rc, bad;

	rc = tshark_require(argc > 1 ? argv[1] : NULL, "check the PFCP encoder against Wireshark");
	if (rc)
		return rc;
	snprintf(path, sizeof(path), "%s/pfcp_tshark.pcap", argc > 2 ? argv[2] : ".");
	w = pcapw_open(path, PCAPW_EXPORTED_PDU);
	if (!w) {
		fprintf(stderr, "cannot write %s\n", path);
		return 1;
	}
	bad = write_all(w);
	if (pcapw_close(w) || bad) {
		fprintf(stderr, "writing %s failed\n", path);
		return 1;
	}
	q.nframes = nframes;
	bad = tshark_fields(argv[1], path, &q);
	printf("%d frames, %d problems (%s)\n", nframes, bad, path);
	return bad ? 1 : 0;
}
