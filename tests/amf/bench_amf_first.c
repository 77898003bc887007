/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * bench_amf_first [--warm]: the first registration after start-up. A fresh process
 * creates udm/ausf/amf, sets up one gNB, and times inside the AMF the InitialUEMessage
 * (Registration Request -> Authentication Request: SUCI, the first 5G HE AV) and the
 * Authentication Response (-> Security Mode Command) of the first UE, then of a second
 * and a third one. --warm runs udm_warm_up() and amf_warm_up() first, as udm_start() and
 * amf_start() do in production. Run by hand, one process per figure:
 *   build-amf/tests/amf/bench_amf_first; build-amf/tests/amf/bench_amf_first --warm
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "common/log.h"
#include "harness.h"

static struct h H;
static bool warm;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void one(unsigned i)
{
	struct nas_msg m, dl;
	struct sue ue;
	char msin[16];
	uint8_t res[16], auts[14];
	uint64_t t0, t_init, t_auth;

	snprintf(msin, sizeof(msin), "%010u", i + 1);
	sue_init(&ue, msin, 1, i + 1);
	sue_reg_req(&ue, &m, false);
	t0 = H.amf_ns;
	sue_initial(&H, &ue, &m, NAS_SHT_PLAIN);
	t_init = H.amf_ns - t0;
	assert_int_equal(sue_dl(&H, &ue, &dl), NGAP_PROC_DOWNLINK_NAS_TRANSPORT);
	assert_int_equal(dl.type, NAS_AUTHENTICATION_REQUEST);
	assert_int_equal(sue_aka(&H, &ue, &dl, res, auts), 0);
	t0 = H.amf_ns;
	sue_auth_resp(&H, &ue, res);
	t_auth = H.amf_ns - t0;
	assert_int_equal(sue_dl(&H, &ue, &dl), NGAP_PROC_DOWNLINK_NAS_TRANSPORT);
	assert_int_equal(dl.type, NAS_SECURITY_MODE_COMMAND);
	printf("UE %u: Registration Request -> Authentication Request %8.1f us; "
	       "Authentication Response -> Security Mode Command %8.1f us\n",
	       i + 1, t_init / 1e3, t_auth / 1e3);
}

static void run(void **state)
{
	struct amf_cfg cfg;
	unsigned i;
	uint64_t t0;

	(void)state;
	h_cfg(&cfg);
	h_init(&H, &cfg);
	for (i = 1; i <= 3; i++) {
		char supi[32];

		snprintf(supi, sizeof(supi), "imsi-00101%010u", i);
		h_add_sub(&H, supi, 1, 0x010203, 0);
	}
	h_ng_setup(&H, 1);
	log_set_level(LOGL_ERROR);
	if (warm) {
		t0 = now_ns();
		assert_int_equal(udm_warm_up(H.udm), 0);
		assert_int_equal(amf_warm_up(H.amf), 0);
		printf("warm-up (udm_warm_up + amf_warm_up): %.1f us\n", (now_ns() - t0) / 1e3);
	}
	for (i = 0; i < 3; i++)
		one(i);
	h_fini(&H);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(run) };

	warm = argc > 1 && strcmp(argv[1], "--warm") == 0;
	return cmocka_run_group_tests_name("bench_amf_first", tests, NULL, NULL);
}
