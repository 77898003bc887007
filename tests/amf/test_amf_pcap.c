/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * The N2 exchange of a registration (NIA2/NEA0, so NAS stays readable), a
 * configuration update, a GUTI reallocation, an NG Setup failure, a reject and a
 * deregistration, written to a pcap and decoded by tshark: every frame must be
 * NGAP and none malformed or carrying an error-level expert item.
 * Exits 77 (SKIP) when tshark is not available.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness.h"
#include "testlib.h"

static struct h H;
static char pcap_path[] = "/tmp/solocore-amf-XXXXXX.pcap";
static unsigned frames;

static unsigned count_lines(const char *cmd)
{
	char line[512];
	unsigned n = 0;
	FILE *p = popen(cmd, "r");

	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		fprintf(stderr, "tshark: %s", line);
		n++;
	}
	pclose(p);
	return n;
}

static void test_tshark_clean(void **state)
{
	struct amf_cfg cfg;
	struct sue ue, bad;
	struct nas_msg m, dl;
	char cmd[1024];
	int fd;

	(void)state;
	fd = mkstemps(pcap_path, 5);
	assert_true(fd >= 0);
	close(fd);
	h_cfg(&cfg);
	snprintf(cfg.network_full_name, sizeof(cfg.network_full_name), "Solocore");
	cfg.send_tz = true;
	cfg.tz_quarters = -20;
	h_init(&H, &cfg);
	H.pcap = pcapw_open(pcap_path, PCAPW_SCTP_IPV4);
	assert_non_null(H.pcap);
	h_add_sub(&H, "imsi-001010000000001", 1, 0x010203, 0);
	h_ng_setup(&H, 1);
	sue_init(&ue, "0000000001", 1, 10);
	sue_register(&H, &ue, 2, 0);
	sue_dl(&H, &ue, &dl);
	assert_int_equal(dl.type, NAS_CONFIGURATION_UPDATE_COMMAND);
	memset(&m, 0, sizeof(m));
	m.type = NAS_CONFIGURATION_UPDATE_COMPLETE;
	sue_ul(&H, &ue, &m, NAS_SHT_INTEGRITY_CIPHERED);
	assert_int_equal(amf_guti_reallocate(H.amf, ue.supi), 0);
	sue_dl(&H, &ue, &dl);
	sue_ul(&H, &ue, &m, NAS_SHT_INTEGRITY_CIPHERED);
	/* A reject: unknown subscriber. */
	sue_init(&bad, "0000000099", 1, 11);
	sue_reg_req(&bad, &m, false);
	sue_initial(&H, &bad, &m, NAS_SHT_PLAIN);
	sue_dl(&H, &bad, &dl);
	assert_int_equal(dl.type, NAS_REGISTRATION_REJECT);
	h_expect(&H, NGAP_INITIATING, NGAP_PROC_UE_CONTEXT_RELEASE);
	sue_release_complete(&H, &bad);
	/* Deregistration. */
	sue_dereg(&H, &ue, 0x01);
	sue_dl(&H, &ue, &dl);
	h_expect(&H, NGAP_INITIATING, NGAP_PROC_UE_CONTEXT_RELEASE);
	sue_release_complete(&H, &ue);
	assert_int_equal(pcapw_close(H.pcap), 0);
	H.pcap = NULL;
	h_fini(&H);

	snprintf(cmd, sizeof(cmd), "%s -n -r %s -o nas-5gs.null_decipher:TRUE 2>/dev/null", TSHARK, pcap_path);
	frames = count_lines(cmd);
	assert_true(frames >= 20);
	snprintf(cmd, sizeof(cmd), "%s -n -r %s -o nas-5gs.null_decipher:TRUE -Y '!ngap' 2>/dev/null", TSHARK,
		 pcap_path);
	assert_int_equal(count_lines(cmd), 0);
	snprintf(cmd, sizeof(cmd),
		 "%s -n -r %s -o nas-5gs.null_decipher:TRUE -Y '_ws.malformed || _ws.expert.severity >= \"Error\"' 2>/dev/null",
		 TSHARK, pcap_path);
	assert_int_equal(count_lines(cmd), 0);
	unlink(pcap_path);
}

/* Control: the same filter does fire on a truncated NGAP PDU, so the check above can fail. */
static void test_filter_catches_malformed(void **state)
{
	static const uint8_t trunc[] = { 0x00, 0x15, 0x00, 0x33, 0x00, 0x00, 0x04, 0x00, 0x1b, 0x00 };
	char path[] = "/tmp/solocore-amf-bad-XXXXXX.pcap", cmd[1024];
	struct pcapw *w;
	int fd;

	(void)state;
	fd = mkstemps(path, 5);
	assert_true(fd >= 0);
	close(fd);
	w = pcapw_open(path, PCAPW_SCTP_IPV4);
	assert_non_null(w);
	assert_int_equal(pcapw_sctp(w, 1, 2, 40000, 38412, 0, 60, trunc, sizeof(trunc)), 0);
	assert_int_equal(pcapw_close(w), 0);
	snprintf(cmd, sizeof(cmd),
		 "%s -n -r %s -Y '_ws.malformed || _ws.expert.severity >= \"Error\"' 2>/dev/null", TSHARK, path);
	assert_int_equal(count_lines(cmd), 1);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tshark_clean),
		cmocka_unit_test(test_filter_catches_malformed),
	};

	if (access(TSHARK, X_OK) != 0) {
		printf("SKIP: tshark not available (%s)\n", TSHARK);
		return 77;
	}
	return cmocka_run_group_tests_name("amf_pcap", tests, NULL, NULL);
}
