/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * The SMF's observation API (smf.h) for the web views and /metrics: the session walk
 * (cursor paging, per-UE walk, what a view holds, no allocation), the setup latency
 * histogram (establishment request -> Setup Response on the loop's cached clock; a
 * reactivation is not a setup) and the establishment outcomes (completed, failed by the
 * gNB, rejected by 5GSM cause). No user plane here: counters are zeros, has_counters
 * false (tests/web/test_web_sess.c checks them with the real UPF).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "smf_fx.h"
#include "testlib.h"

struct seen {
	unsigned n;
	unsigned stop_after;       /* 0: never stop */
	char supi[8][24];
	uint8_t psi[8];
	struct smf_sess_view v[8];
};

static int collect(const struct smf_sess_view *v, void *arg)
{
	struct seen *s = arg;

	assert_true(s->n < 8);
	snprintf(s->supi[s->n], sizeof(s->supi[0]), "%s", v->supi);
	s->psi[s->n] = v->psi;
	s->v[s->n] = *v;
	s->n++;
	return s->stop_after && s->n % s->stop_after == 0 ? 1 : 0;
}

static int count_only(const struct smf_sess_view *v, void *arg)
{
	(void)v;
	(*(unsigned *)arg)++;
	return 0;
}

/* Three sessions on two UEs: pages of two by the cursor, every session once with what
 * smf_sess_info says; the per-UE walk; a released session leaves the walk. */
static void test_walk(void **state)
{
	struct fx *f = fx_new(16, 0);
	struct smf_sess_info a, b, c;
	struct seen s = { .stop_after = 2 };
	uint32_t cursor = 0;
	unsigned n = 0;
	int rc;

	(void)state;
	assert_int_equal(smf_sess_walk(f->smf, NULL, 0, count_only, &n), 0);
	assert_int_equal(n, 0);
	fx_establish(f, f->ue1, 1, "internet", &a);
	fx_establish(f, f->ue2, 5, "internet", &b);
	fx_establish(f, f->ue1, 2, "ims", &c);

	rc = smf_sess_walk(f->smf, &cursor, 0, collect, &s);
	assert_int_equal(rc, 1);                 /* stopped by the callback after two */
	assert_int_equal(s.n, 2);
	assert_true(cursor != SMF_WALK_END);
	rc = smf_sess_walk(f->smf, &cursor, 0, collect, &s);
	assert_int_equal(rc, 0);                 /* the rest: one */
	assert_int_equal(s.n, 3);
	assert_int_equal(cursor, SMF_WALK_END);
	for (unsigned i = 0; i < 3; i++) {
		const struct smf_sess_info *want = s.psi[i] == 1 ? &a : s.psi[i] == 5 ? &b : &c;
		const struct smf_sess_view *v = &s.v[i];

		assert_string_equal(s.supi[i], s.psi[i] == 5 ? SUPI2 : SUPI1);
		assert_memory_equal(&v->info, want, sizeof(*want));
		assert_false(v->has_counters);
		assert_int_equal(v->ul_pkts + v->ul_bytes + v->dl_pkts + v->dl_bytes, 0);
		assert_int_equal(v->info.gnb_addr, fx_ip(GNB_ADDR));
		assert_int_equal(v->info.gnb_teid, 0x1000u + s.psi[i]);
	}
	assert_true(s.psi[0] != s.psi[1] && s.psi[1] != s.psi[2] && s.psi[0] != s.psi[2]);
	assert_string_equal(s.v[0].info.dnn, s.psi[0] == 2 ? "ims" : "internet");

	/* One UE's sessions, by PSI. */
	memset(&s, 0, sizeof(s));
	assert_int_equal(smf_ue_sess_walk(f->smf, f->ue1, collect, &s), 0);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.psi[0], 1);
	assert_int_equal(s.psi[1], 2);
	assert_int_equal(smf_ue_sess_walk(f->smf, NULL, collect, &s), 0);
	assert_int_equal(s.n, 2);

	/* Walking allocates nothing. */
	n = 0;
	nomalloc_begin();
	smf_sess_walk(f->smf, NULL, 0, count_only, &n);
	smf_ue_sess_walk(f->smf, f->ue1, count_only, &n);
	assert_int_equal(nomalloc_end(), 0);
	assert_int_equal(n, 5);

	/* Released: gone from both walks; a cursor past the end gives nothing. */
	assert_int_equal(smf_ue_detach(f->smf, f->ue1), 2);
	f->ue1 = NULL;
	n = 0;
	assert_int_equal(smf_sess_walk(f->smf, NULL, 0, count_only, &n), 0);
	assert_int_equal(n, 1);
	cursor = 1000;
	assert_int_equal(smf_sess_walk(f->smf, &cursor, 0, count_only, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(cursor, SMF_WALK_END);
	/* A budget bounds the slots one call looks at (a REST page over a sparse pool, issue
	 * 15): three slots were used, the first and the last are free now; one slot a call,
	 * three calls, the first empty with a cursor to go on, the last empty at the end. */
	unsigned calls = 0, empty = 0;
	n = 0;
	cursor = 0;
	while (cursor != SMF_WALK_END) {
		unsigned before = n;

		assert_int_equal(smf_sess_walk(f->smf, &cursor, 1, count_only, &n), 0);
		assert_true(n - before <= 1);
		empty += n == before && cursor != SMF_WALK_END;
		assert_true(++calls <= 3);
	}
	assert_int_equal(n, 1);
	assert_int_equal(empty, 1);
	assert_int_equal(calls, 3);
	/* No UPF: no totals. */
	struct smf_upf_totals t;
	assert_int_equal(smf_upf_totals(f->smf, &t), -ENODEV);
	fx_free(f);
}

static uint64_t hist_sum(const struct hist *h)
{
	uint64_t n = 0;

	for (unsigned i = 0; i <= HIST_N; i++)
		n += h->bucket[i];
	return n;
}

/* The latency is the loop's cached time between the request and the Setup Response: with
 * at least 3 ms slept (and the cache refreshed) in between, the observation cannot fall in
 * a bucket at or below 2.5 ms. (A lower bound only: no wall-clock ceiling is asserted.) */
static void test_setup_latency(void **state)
{
	struct fx *f = fx_new(16, 0);
	struct est_opt o = { .psi = 1, .pti = 7, .dnn = "internet" };
	struct timespec ts = { 0, 3 * 1000 * 1000 };
	const uint32_t *b;
	struct smf_stats st;
	struct smf_sess_info info;
	unsigned n;

	(void)state;
	b = hist_bounds_us(&n);
	assert_int_equal(n, HIST_N);
	for (unsigned i = 1; i < n; i++)
		assert_true(b[i] > b[i - 1]);
	assert_int_equal(b[0], 500);
	assert_int_equal(b[2], 2500);
	assert_int_equal(b[n - 1], 10000000);
	/* Prometheus "le": a value equal to a bound is in that bucket; above the last: +Inf. */
	struct hist h = { 0 };
	hist_add(&h, 0);
	hist_add(&h, 500000);
	hist_add(&h, 500001);
	hist_add(&h, 10000000000ull);
	hist_add(&h, 10000000001ull);
	assert_int_equal(h.bucket[0], 2);
	assert_int_equal(h.bucket[1], 1);
	assert_int_equal(h.bucket[HIST_N - 1], 1);
	assert_int_equal(h.bucket[HIST_N], 1);
	assert_int_equal(h.count, 5);
	assert_int_equal(hist_sum(&h), 5);
	assert_int_equal(h.sum_ns, 500000ull + 500001ull + 10000000000ull + 10000000001ull);

	ev_update_now(f->loop);
	assert_int_equal(fx_est(f, f->ue1, &o), 0);
	assert_int_equal(f->out.n2_proc, SMF_N2_SETUP);
	smf_get_stats(f->smf, &st);
	assert_int_equal(st.setup_latency.count, 0);    /* not before the gNB answers */
	/* The UE's retransmission of the request (same PTI) does not restart the clock. */
	nanosleep(&ts, NULL);
	ev_update_now(f->loop);
	assert_int_equal(fx_est(f, f->ue1, &o), 0);
	assert_int_equal(f->out.n2_proc, SMF_N2_SETUP);
	nanosleep(&ts, NULL);
	ev_update_now(f->loop);
	assert_int_equal(fx_setup_rsp(f, f->ue1, 1, 0x42), 0);
	smf_get_stats(f->smf, &st);
	assert_int_equal(st.setup_latency.count, 1);
	assert_int_equal(hist_sum(&st.setup_latency), 1);
	assert_true(st.setup_latency.sum_ns >= 6u * 1000 * 1000);
	assert_int_equal(st.setup_latency.bucket[0] + st.setup_latency.bucket[1] + st.setup_latency.bucket[2], 0);
	assert_int_equal(st.est_completed, 1);
	assert_int_equal(st.est_accepted, 1);

	/* AN release and service request: the Setup Response of a reactivation is no setup. */
	assert_int_equal(smf_up_deactivate(f->smf, f->ue1), 1);
	assert_int_equal(smf_up_reactivate(f->smf, f->ue1, 1, &f->out), 0);
	assert_int_equal(fx_setup_rsp(f, f->ue1, 1, 0x43), 0);
	assert_int_equal(smf_sess_info(f->smf, f->ue1, 1, &info), 0);
	assert_true(info.up_active);
	smf_get_stats(f->smf, &st);
	assert_int_equal(st.setup_latency.count, 1);
	assert_int_equal(st.est_completed, 1);

	/* Without time passing (the cache not refreshed), a setup lands in the first bucket. */
	fx_establish(f, f->ue2, 3, "internet", &info);
	smf_get_stats(f->smf, &st);
	assert_int_equal(st.setup_latency.count, 2);
	assert_int_equal(st.setup_latency.bucket[0], 1);
	assert_int_equal(st.est_completed, 2);
	fx_free(f);
}

/* Outcomes: rejects counted under their 5GSM cause, a gNB refusal as failed (the UE gets
 * a release with #38), neither in the histogram. */
static void test_outcomes(void **state)
{
	struct fx *f = fx_new(16, 0);
	struct smf_stats st;
	struct nas_msg m;

	(void)state;
	assert_int_equal(fx_est(f, f->ue1, &(struct est_opt){ .psi = 1, .pti = 1, .dnn = "nope" }), 0);
	fx_dec_n1(f, &m, NAS_PDU_SESSION_ESTABLISHMENT_REJECT);
	assert_int_equal(m.pdu_est_rej.cause, NAS_5GSM_MISSING_OR_UNKNOWN_DNN);
	assert_int_equal(fx_est(f, f->ue2, &(struct est_opt){ .psi = 1, .pti = 2, .dnn = "ims" }), 0);
	fx_dec_n1(f, &m, NAS_PDU_SESSION_ESTABLISHMENT_REJECT);
	assert_int_equal(m.pdu_est_rej.cause, NAS_5GSM_SERVICE_OPTION_NOT_SUBSCRIBED);
	assert_int_equal(fx_est(f, f->ue2, &(struct est_opt){ .psi = 2, .pti = 3, .dnn = "ims" }), 0);
	assert_int_equal(fx_est(f, f->ue1, &(struct est_opt){ .psi = 3, .pti = 4, .dnn = "internet" }), 0);
	fx_dec_n1(f, &m, NAS_PDU_SESSION_ESTABLISHMENT_ACCEPT);
	assert_int_equal(fx_n2(f, f->ue1, 3, SMF_N2_SETUP_FAIL), 0);
	fx_dec_n1(f, &m, NAS_PDU_SESSION_RELEASE_COMMAND);
	assert_int_equal(m.pdu_rel_cmd.cause, NAS_5GSM_NETWORK_FAILURE);

	smf_get_stats(f->smf, &st);
	assert_int_equal(st.est_rejected, 3);
	assert_int_equal(st.est_rej_cause[NAS_5GSM_MISSING_OR_UNKNOWN_DNN], 1);
	assert_int_equal(st.est_rej_cause[NAS_5GSM_SERVICE_OPTION_NOT_SUBSCRIBED], 2);
	uint64_t total = 0;
	for (unsigned i = 0; i < SMF_CAUSE_SLOTS; i++)
		total += st.est_rej_cause[i];
	assert_int_equal(total, st.est_rejected);
	assert_int_equal(st.est_accepted, 1);
	assert_int_equal(st.est_failed, 1);
	assert_int_equal(st.est_completed, 0);
	assert_int_equal(st.setup_latency.count, 0);
	assert_int_equal(hist_sum(&st.setup_latency), 0);
	fx_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_walk),
		cmocka_unit_test(test_setup_latency),
		cmocka_unit_test(test_outcomes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
