/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * bench_amf [N] [nea]: N UEs register (5G-AKA, SMC, ICS, complete) and deregister
 * in process, one after another; prints the AMF's own time per NGAP message and per
 * registration (time inside amf_n2_rx, which includes AUSF/UDM: Milenage, KDFs, NIA/NEA),
 * and the bytes of one UE context. The UE side's crypto is not counted.
 * Run by hand: build-amf/tests/amf/bench_amf 10000
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "amf/amf_int.h"
#include "common/log.h"
#include "harness.h"

static struct h H;
static unsigned N = 10000;
static uint8_t NEA;

static void run(void **state)
{
	struct amf_cfg cfg;
	struct nas_msg m, dl;
	struct sue ue;
	char msin[16];
	unsigned i;
	uint64_t regs_ns = 0, msgs = 0, t;

	(void)state;
	h_cfg(&cfg);
	cfg.max_ues = N + 16;
	if (NEA)
		cfg.ciph_prio[0] = NEA, cfg.ciph_prio[1] = 0;
	h_init(&H, &cfg);
	for (i = 0; i < N; i++) {
		char supi[32];

		snprintf(supi, sizeof(supi), "imsi-00101%010u", i);
		h_add_sub(&H, supi, 1, 0x010203, 0);
	}
	h_ng_setup(&H, 1);
	log_set_level(LOGL_ERROR);
	for (i = 0; i < N; i++) {
		snprintf(msin, sizeof(msin), "%010u", i);
		sue_init(&ue, msin, 1, i + 1);
		t = H.amf_ns;
		msgs -= H.amf_calls;
		sue_register(&H, &ue, 2, NEA);
		regs_ns += H.amf_ns - t;
		memset(&m, 0, sizeof(m));
		m.type = NAS_DEREGISTRATION_REQUEST_UE_ORIG;
		m.dereg_req.dereg_type = 0x01;
		m.dereg_req.mobile_id = ue.guti;
		sue_ul(&H, &ue, &m, NAS_SHT_INTEGRITY_CIPHERED);
		sue_dl(&H, &ue, &dl);
		h_expect(&H, NGAP_INITIATING, NGAP_PROC_UE_CONTEXT_RELEASE);
		sue_release_complete(&H, &ue);
		msgs += H.amf_calls;
	}
	printf("AMF: %u registrations + deregistrations (NIA2/NEA%u), %llu NGAP messages received\n", N, NEA,
	       (unsigned long long)msgs);
	printf("AMF time per registration (5 uplink NGAP msgs incl. AKA + SMC): %.1f us\n",
	       regs_ns / 1e3 / N);
	printf("AMF time per received NGAP message (all): %.1f us -> %.0f msgs/s on one core\n",
	       H.amf_ns / 1e3 / H.amf_calls, H.amf_calls / (H.amf_ns / 1e9));
	printf("UE context: %zu bytes (pool of %u = %.1f MB)\n", sizeof(struct amf_ue), cfg.max_ues,
	       sizeof(struct amf_ue) * (double)cfg.max_ues / 1048576.0);
	h_fini(&H);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(run) };

	if (argc > 1)
		N = (unsigned)strtoul(argv[1], NULL, 10);
	if (argc > 2)
		NEA = (uint8_t)atoi(argv[2]);
	return cmocka_run_group_tests_name("bench_amf", tests, NULL, NULL);
}
