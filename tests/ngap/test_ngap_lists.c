/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * Lists at the specification's maxima (issue 14 item 6): NG Setup Request with maxnoofTACs 256 TAs,
 * maxnoofBPLMNs 12 PLMNs and maxnoofSliceItems 1024 slices per PLMN, NG Reset / Acknowledge with
 * maxnoofNGConnectionsToReset 65536 UEs (fragmented counts and open types, X.691 11.9.3.8).
 * Encoded, decoded (no allocation: nomalloc guard around decode, iteration and re-encode), walked
 * item by item, re-encoded to the same octets; one item more is a clean error. Before this, 17 TAs,
 * 17 slices or 33 UEs were -E2BIG.
 * With arguments TSHARK WORKDIR: Wireshark decodes what we encode (lists that fit one SCTP packet:
 * 256 TAs, 1024 slices, 12 PLMNs, 16,383 UEs in a 48 KB NG Reset whose message and IE values are
 * fragmented open types). Wireshark 4.0 does not decode a fragmented SEQUENCE OF count (16,384 items
 * and more: "something unknown here [10.9.3.8.1]"), so those sizes are checked by our round trip only.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/ngap/ngap.h"
#include "testlib.h"

#define BIG (4u << 20)

static uint8_t *enc1, *enc2, *raw, *scratch;
static struct ngap_ta_entry *ents;
static struct ngap_ue_assoc *ues;
static struct ngap_msg m, m2;

static int setup(void **state)
{
	(void)state;
	enc1 = malloc(BIG), enc2 = malloc(BIG), raw = malloc(BIG), scratch = malloc(2 * BIG);
	ents = calloc(300000, sizeof(*ents));
	ues = calloc(NGAP_MAXNOOF_NG_CONNECTIONS_TO_RESET + 1, sizeof(*ues));
	return !(enc1 && enc2 && raw && scratch && ents && ues);
}

static int teardown(void **state)
{
	(void)state;
	free(enc1), free(enc2), free(raw), free(scratch), free(ents), free(ues);
	return 0;
}

/* TA t (TAC t+1) has plmns PLMNs, each with slices slices (SST 1 + k % 255, SD k on odd k). */
static size_t fill_tas(unsigned n_tas, unsigned plmns0, unsigned plmns, unsigned slices)
{
	size_t n = 0;

	for (unsigned t = 0; t < n_tas; t++)
		for (unsigned p = 0; p < (t ? plmns : plmns0); p++)
			for (unsigned k = 0; k < slices; k++, n++) {
				struct ngap_ta_entry *e = &ents[n];

				memset(e, 0, sizeof(*e));
				e->ta_idx = (uint16_t)t;
				e->tac[1] = (uint8_t)((t + 1) >> 8), e->tac[2] = (uint8_t)(t + 1);
				e->plmn_idx = (uint8_t)p;
				e->plmn = (struct ngap_plmn){ { 0x00, 0xf1, (uint8_t)((p % 10) << 4 | p / 10) } }; /* MNC p */
				e->slice_idx = (uint16_t)k;
				e->slice.sst = (uint8_t)(1 + k % 255);
				if (k & 1) {
					e->slice.has_sd = true;
					e->slice.sd[1] = (uint8_t)(k >> 8), e->slice.sd[2] = (uint8_t)k;
				}
			}
	return n;
}

static void ng_setup(struct ngap_msg *x, const uint8_t *r, size_t rlen)
{
	memset(x, 0, sizeof(*x));
	x->type = NGAP_INITIATING;
	x->proc = NGAP_PROC_NG_SETUP;
	x->u.ng_setup_request.ran_node_id =
		(struct ngap_global_ran_node_id){ NGAP_RAN_GNB, { { 0x00, 0xf1, 0x10 } }, 0x19b, 22 };
	x->u.ng_setup_request.tas_raw = (struct ngap_bytes){ r, rlen };
	x->u.ng_setup_request.default_paging_drx = 2;
}

static bool same_entry(const struct ngap_ta_entry *a, const struct ngap_ta_entry *b)
{
	return a->ta_idx == b->ta_idx && !memcmp(a->tac, b->tac, 3) && a->plmn_idx == b->plmn_idx &&
	       !memcmp(&a->plmn, &b->plmn, sizeof(a->plmn)) && a->slice_idx == b->slice_idx &&
	       a->slice.sst == b->slice.sst && a->slice.has_sd == b->slice.has_sd &&
	       (!a->slice.has_sd || !memcmp(a->slice.sd, b->slice.sd, 3));
}

/* Every dimension at its maximum at once: 256 TAs, TA 0 with 12 PLMNs, every PLMN with 1024 slices. */
static void test_ng_setup_at_maxima(void **state)
{
	struct ngap_dec_info info;
	struct ngap_ta_iter it;
	struct ngap_ta_entry e;
	size_t n = fill_tas(NGAP_MAXNOOF_TACS, NGAP_MAXNOOF_BPLMNS, 1, NGAP_MAXNOOF_SLICE_ITEMS), k = 0;
	int rl, l1, l2, rc, bad = 0;
	unsigned calls;

	(void)state;
	rl = ngap_enc_ta_list(ents, n, raw, BIG);
	assert_true(rl > 16384);
	ng_setup(&m, raw, (size_t)rl);
	l1 = ngap_encode(&m, enc1, BIG);
	assert_true(l1 > rl);
	/* without a scratch buffer a fragmented open type is not decoded, and says so */
	assert_int_equal(ngap_decode(enc1, (size_t)l1, &m2, &info), -ENOTSUP);
	assert_int_equal(ngap_decode_scratch(enc1, (size_t)l1, &m2, &info, scratch, 16), -ENOBUFS);

	nomalloc_begin();
	rc = ngap_decode_scratch(enc1, (size_t)l1, &m2, &info, scratch, 2 * (size_t)l1);
	if (ngap_ta_iter_init(&it, m2.u.ng_setup_request.tas_raw) != NGAP_MAXNOOF_TACS)
		bad++;
	while (ngap_ta_iter_next(&it, &e) == 1)
		bad += k >= n || !same_entry(&e, &ents[k]), k++;
	l2 = ngap_encode(&m2, enc2, BIG); /* tas_raw set by the decode: sent as is */
	calls = nomalloc_end();
	assert_int_equal(calls, 0);
	assert_int_equal(rc, 0);
	assert_int_equal(bad, 0);
	assert_int_equal(k, n);
	assert_int_equal(l2, l1);
	assert_memory_equal(enc1, enc2, (size_t)l1);

	/* the arrays the AMF reads today: the first 16 TAs, 12 PLMNs, the first 16 slices, and the totals */
	const struct ngap_ng_setup_request *rq = &m2.u.ng_setup_request;
	assert_int_equal(rq->n_tas, NGAP_MAX_TAS);
	assert_int_equal(rq->total_tas, NGAP_MAXNOOF_TACS);
	assert_int_equal(rq->tas[0].n_plmns, 12);
	assert_int_equal(rq->tas[1].n_plmns, 1);
	assert_int_equal(rq->tas[15].tac[2], 16);
	assert_int_equal(rq->tas[0].plmns[11].plmn.v[2], 0x11);
	assert_int_equal(rq->tas[0].plmns[11].n_slices, NGAP_MAX_SLICES);
	assert_int_equal(rq->tas[0].plmns[11].total_slices, NGAP_MAXNOOF_SLICE_ITEMS);
	assert_int_equal(rq->tas[3].plmns[0].slices[15].sst, 16);
	assert_true(rq->tas[3].plmns[0].slices[15].has_sd);
	assert_int_equal(rq->tas[3].plmns[0].slices[15].sd[2], 15);

	/* just over each maximum: the encoder refuses (the decoder cannot even be sent more: these counts
	 * are constrained whole numbers of exactly 8 / 4 / 10 bits) */
	n = fill_tas(NGAP_MAXNOOF_TACS + 1, 1, 1, 1);
	assert_int_equal(ngap_enc_ta_list(ents, n, raw, BIG), -EINVAL);
	n = fill_tas(1, NGAP_MAXNOOF_BPLMNS + 1, 1, 1);
	assert_int_equal(ngap_enc_ta_list(ents, n, raw, BIG), -EINVAL);
	n = fill_tas(1, 1, 1, NGAP_MAXNOOF_SLICE_ITEMS + 1);
	assert_int_equal(ngap_enc_ta_list(ents, n, raw, BIG), -EINVAL);
	assert_int_equal(ngap_enc_ta_list(ents, 0, raw, BIG), -EINVAL);
	n = fill_tas(2, 1, 1, 1);
	rl = ngap_enc_ta_list(ents, n, raw, BIG);
	assert_true(rl > 0);
	for (int cap = 0; cap < rl; cap++)
		assert_int_equal(ngap_enc_ta_list(ents, n, raw, (size_t)cap), -ENOSPC);
}

/* 20 TAs of 20 slices, small enough for ngap_decode without scratch: -E2BIG before this change. */
static void test_ng_setup_over_arrays(void **state)
{
	struct ngap_dec_info info;
	struct ngap_ta_iter it;
	struct ngap_ta_entry e;
	size_t n = fill_tas(20, 1, 1, 20), k = 0;
	int rl, l1;

	(void)state;
	rl = ngap_enc_ta_list(ents, n, raw, BIG);
	ng_setup(&m, raw, (size_t)rl);
	l1 = ngap_encode(&m, enc1, BIG);
	assert_true(l1 > 0 && l1 < 16384);
	assert_int_equal(ngap_decode(enc1, (size_t)l1, &m2, &info), 0);
	assert_int_equal(m2.u.ng_setup_request.n_tas, 16);
	assert_int_equal(m2.u.ng_setup_request.total_tas, 20);
	assert_int_equal(m2.u.ng_setup_request.tas[15].plmns[0].total_slices, 20);
	assert_int_equal(ngap_ta_iter_init(&it, m2.u.ng_setup_request.tas_raw), 20);
	while (ngap_ta_iter_next(&it, &e) == 1)
		assert_true(same_entry(&e, &ents[k++]));
	assert_int_equal(k, n);
	/* the same list built from the arrays (<= 16) still encodes as before, with no raw */
	memset(&m2.u.ng_setup_request.tas_raw, 0, sizeof(struct ngap_bytes));
	l1 = ngap_encode(&m2, enc2, BIG);
	assert_int_equal(ngap_decode(enc2, (size_t)l1, &m, &info), 0);
	assert_int_equal(m.u.ng_setup_request.total_tas, 16);
	/* the RAN Configuration Update carries the same list */
	memset(&m, 0, sizeof(m));
	m.type = NGAP_INITIATING;
	m.proc = NGAP_PROC_RAN_CONFIGURATION_UPDATE;
	m.u.ran_configuration_update.tas_raw = (struct ngap_bytes){ raw, (size_t)rl };
	l1 = ngap_encode(&m, enc1, BIG);
	assert_int_equal(ngap_decode(enc1, (size_t)l1, &m2, &info), 0);
	assert_int_equal(m2.u.ran_configuration_update.n_tas, 16);
	assert_int_equal(m2.u.ran_configuration_update.total_tas, 20);
}

static void fill_ues(size_t n)
{
	for (size_t i = 0; i < n; i++) {
		memset(&ues[i], 0, sizeof(ues[i]));
		ues[i].has_ran_ue_id = true;
		ues[i].ran_ue_id = (uint32_t)(i * 7919u);
		if (i % 3) {
			ues[i].has_amf_ue_id = true;
			ues[i].amf_ue_id = (uint64_t)i << 20;
		}
	}
}

static void ng_reset(struct ngap_msg *x, const uint8_t *r, size_t rlen)
{
	memset(x, 0, sizeof(*x));
	x->type = NGAP_INITIATING;
	x->proc = NGAP_PROC_NG_RESET;
	x->u.ng_reset.cause = (struct ngap_cause){ NGAP_CAUSE_MISC, NGAP_CAUSE_MISC_UNSPECIFIED };
	x->u.ng_reset.ues_raw = (struct ngap_bytes){ r, rlen };
}

static bool same_ue(const struct ngap_ue_assoc *a, const struct ngap_ue_assoc *b)
{
	return a->has_amf_ue_id == b->has_amf_ue_id && a->has_ran_ue_id == b->has_ran_ue_id &&
	       (!a->has_amf_ue_id || a->amf_ue_id == b->amf_ue_id) &&
	       (!a->has_ran_ue_id || a->ran_ue_id == b->ran_ue_id);
}

/* One NG Reset of n UEs: encode, decode (no allocation), walk, echo in the acknowledge. */
static void reset_round_trip(size_t n)
{
	struct ngap_dec_info info;
	struct ngap_ue_assoc_iter it;
	struct ngap_ue_assoc u;
	size_t k = 0;
	int rl, l1, l2, la, rc, rc2, total, bad = 0;
	unsigned calls;

	fill_ues(n);
	rl = ngap_enc_ue_assoc_list(ues, n, raw, BIG);
	assert_true(rl > 0);
	ng_reset(&m, raw, (size_t)rl);
	l1 = ngap_encode(&m, enc1, BIG);
	assert_true(l1 > rl);

	nomalloc_begin();
	rc = ngap_decode_scratch(enc1, (size_t)l1, &m2, &info, scratch, 2 * (size_t)l1);
	total = ngap_ue_assoc_iter_init(&it, m2.u.ng_reset.ues_raw);
	while (ngap_ue_assoc_iter_next(&it, &u) == 1)
		bad += k >= n || !same_ue(&u, &ues[k]), k++;
	l2 = ngap_encode(&m2, enc2, BIG);
	/* NG Reset Acknowledge echoing the whole list (TS 38.413 8.7.4.2.1) */
	{
		struct ngap_bytes echo = m2.u.ng_reset.ues_raw;

		memset(&m2, 0, sizeof(m2));
		m2.type = NGAP_SUCCESSFUL;
		m2.proc = NGAP_PROC_NG_RESET;
		m2.u.ng_reset_ack.ues_raw = echo;
		la = ngap_encode(&m2, enc2 + l2, BIG - (size_t)l2);
		rc2 = ngap_decode_scratch(enc2 + l2, (size_t)la, &m, &info, scratch + 2 * (size_t)l1,
					  2 * BIG - 2 * (size_t)l1);
	}
	calls = nomalloc_end();
	assert_int_equal(calls, 0);
	assert_int_equal(rc, 0);
	assert_int_equal(total, (int)n);
	assert_int_equal(m2.u.ng_reset_ack.ues_raw.len, (size_t)rl);
	assert_int_equal(bad, 0);
	assert_int_equal(k, n);
	assert_int_equal(l2, l1);
	assert_memory_equal(enc1, enc2, (size_t)l1);
	assert_int_equal(rc2, 0);
	assert_int_equal(m.u.ng_reset_ack.total_ues, n);
	assert_int_equal(m.u.ng_reset_ack.n_ues, n < NGAP_MAX_UE_ASSOC ? n : NGAP_MAX_UE_ASSOC);
	assert_true(same_ue(&m.u.ng_reset_ack.ues[m.u.ng_reset_ack.n_ues - 1], &ues[m.u.ng_reset_ack.n_ues - 1]));
	/* decoded again from the first encoding: the arrays hold the first 32 */
	assert_int_equal(ngap_decode_scratch(enc1, (size_t)l1, &m2, &info, scratch, 2 * (size_t)l1), 0);
	assert_int_equal(m2.u.ng_reset.total_ues, n);
	assert_int_equal(m2.u.ng_reset.n_ues, n < NGAP_MAX_UE_ASSOC ? n : NGAP_MAX_UE_ASSOC);
	for (unsigned i = 0; i < m2.u.ng_reset.n_ues; i++)
		assert_true(same_ue(&m2.u.ng_reset.ues[i], &ues[i]));
	assert_false(m2.u.ng_reset.reset_all);
}

static void test_ng_reset_sizes(void **state)
{
	(void)state;
	reset_round_trip(1);
	reset_round_trip(33);      /* -E2BIG before */
	reset_round_trip(16383);   /* the largest unfragmented count */
	reset_round_trip(16384);   /* one fragment, then an empty last part */
	reset_round_trip(40000);   /* two fragments and a rest */
	reset_round_trip(NGAP_MAXNOOF_NG_CONNECTIONS_TO_RESET); /* 4 x 16K, then 0 */
}

/* 65537 items: the 65536-item list with its empty last part replaced by a one-item part. */
static void test_ng_reset_over(void **state)
{
	struct ngap_dec_info info;
	struct ngap_ue_assoc_iter it;
	uint8_t one[16];
	int rl, ol, l1;

	(void)state;
	fill_ues(NGAP_MAXNOOF_NG_CONNECTIONS_TO_RESET + 1);
	assert_int_equal(ngap_enc_ue_assoc_list(ues, NGAP_MAXNOOF_NG_CONNECTIONS_TO_RESET + 1, raw, BIG), -EINVAL);
	assert_int_equal(ngap_enc_ue_assoc_list(ues, 0, raw, BIG), -EINVAL);
	rl = ngap_enc_ue_assoc_list(ues, NGAP_MAXNOOF_NG_CONNECTIONS_TO_RESET, raw, BIG);
	ol = ngap_enc_ue_assoc_list(&ues[1], 1, one, sizeof(one));
	assert_int_equal(raw[rl - 1], 0x00);
	assert_int_equal(one[0], 0x01);
	memcpy(raw + rl - 1, one, (size_t)ol);
	rl += ol - 1;
	assert_int_equal(ngap_ue_assoc_iter_init(&it, (struct ngap_bytes){ raw, (size_t)rl }), -ERANGE);
	ng_reset(&m, raw, (size_t)rl);
	l1 = ngap_encode(&m, enc1, BIG);
	assert_true(l1 > 0);
	assert_int_equal(ngap_decode_scratch(enc1, (size_t)l1, &m2, &info, scratch, 2 * (size_t)l1), -ERANGE);
	assert_string_equal(info.why, "more than maxnoofNGConnectionsToReset items");
	/* and in the acknowledge */
	memset(&m, 0, sizeof(m));
	m.type = NGAP_SUCCESSFUL;
	m.proc = NGAP_PROC_NG_RESET;
	m.u.ng_reset_ack.ues_raw = (struct ngap_bytes){ raw, (size_t)rl };
	l1 = ngap_encode(&m, enc1, BIG);
	assert_int_equal(ngap_decode_scratch(enc1, (size_t)l1, &m2, &info, scratch, 2 * (size_t)l1), -ERANGE);
	/* a truncated fragmented list fails cleanly at every length */
	rl = ngap_enc_ue_assoc_list(ues, 20000, raw, BIG);
	ng_reset(&m, raw, (size_t)rl);
	l1 = ngap_encode(&m, enc1, BIG);
	for (int cut = 0; cut < l1; cut += 97)
		assert_true(ngap_decode_scratch(enc1, (size_t)cut, &m2, &info, scratch, 2 * (size_t)l1) < 0);
}

/* ---- tshark ---- */

static int count_fields(const char *tshark, const char *pcap, const char *field, int frame)
{
	char cmd[1024];
	int c, n = 0, any = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "%s -n -r %s -Y frame.number==%d -T fields -e %s 2>/dev/null", tshark, pcap, frame,
		 field);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while ((c = fgetc(p)) != EOF) {
		if (c == ',')
			n++;
		else if (c != '\n')
			any = 1;
	}
	pclose(p);
	return any ? n + 1 : 0;
}

static int run_tshark(const char *tshark, const char *dir)
{
	char pcap[512];
	struct pcapw *w;
	int l, fails = 0, got;
	size_t n;

	if (tshark_require(tshark, "decode the spec-sized lists"))
		return 77;
	if (setup(NULL))
		return 1;
	snprintf(pcap, sizeof(pcap), "%s/ngap_lists.pcap", dir);
	w = pcapw_open(pcap, PCAPW_SCTP_IPV4);
	if (!w)
		return 1;
	/* frame 1: 256 TAs of 2 slices; frame 2: one TA with 1024 slices; frame 3: 12 PLMNs */
	n = fill_tas(256, 1, 1, 2);
	ng_setup(&m, raw, (size_t)ngap_enc_ta_list(ents, n, raw, BIG));
	l = ngap_encode(&m, enc1, BIG);
	pcapw_sctp(w, 0x0a000001, 0x0a000002, 38412, 38412, 0, 60, enc1, (size_t)l);
	n = fill_tas(1, 1, 1, 1024);
	ng_setup(&m, raw, (size_t)ngap_enc_ta_list(ents, n, raw, BIG));
	l = ngap_encode(&m, enc1, BIG);
	pcapw_sctp(w, 0x0a000001, 0x0a000002, 38412, 38412, 0, 60, enc1, (size_t)l);
	n = fill_tas(1, 12, 1, 3);
	ng_setup(&m, raw, (size_t)ngap_enc_ta_list(ents, n, raw, BIG));
	l = ngap_encode(&m, enc1, BIG);
	pcapw_sctp(w, 0x0a000001, 0x0a000002, 38412, 38412, 0, 60, enc1, (size_t)l);
	/* frame 4: NG Reset of 16,383 UEs (the largest unfragmented count; the message and the ResetType
	 * values are > 16 KB: fragmented open types) */
	fill_ues(16383);
	for (size_t i = 0; i < 16383; i++)
		ues[i].ran_ue_id = (uint32_t)i, ues[i].has_amf_ue_id = false;
	ng_reset(&m, raw, (size_t)ngap_enc_ue_assoc_list(ues, 16383, raw, BIG));
	l = ngap_encode(&m, enc1, BIG);
	printf("NG Reset of 16383 UEs: %d octets\n", l);
	if (pcapw_sctp(w, 0x0a000001, 0x0a000002, 38412, 38412, 0, 60, enc1, (size_t)l))
		fails++;
	pcapw_close(w);
#define EXPECT(frame, field, want) \
	do { \
		got = count_fields(tshark, pcap, field, frame); \
		printf("frame %d: %d x %s (encoded %d)\n", frame, got, field, want); \
		fails += got != (want); \
	} while (0)
	EXPECT(1, "ngap.SupportedTAItem_element", 256);
	EXPECT(1, "ngap.sST", 512);
	EXPECT(2, "ngap.sST", 1024);
	EXPECT(2, "ngap.sD", 512);
	EXPECT(3, "ngap.BroadcastPLMNItem_element", 12);
	EXPECT(4, "ngap.RAN_UE_NGAP_ID", 16383);
	EXPECT(4, "ngap.AMF_UE_NGAP_ID", 0);
	got = tshark_lines(tshark, pcap, "-Y _ws.malformed", NULL);
	fails += got != 0;
	got = tshark_expert(tshark, pcap, NULL);
	fails += got != 0;
	teardown(NULL);
	printf("%d failure(s)\n", fails);
	return fails ? 1 : 0;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ng_setup_at_maxima),
		cmocka_unit_test(test_ng_setup_over_arrays),
		cmocka_unit_test(test_ng_reset_sizes),
		cmocka_unit_test(test_ng_reset_over),
	};

	if (argc >= 3)
		return run_tshark(argv[1], argv[2]);
	return cmocka_run_group_tests(tests, setup, teardown);
}
