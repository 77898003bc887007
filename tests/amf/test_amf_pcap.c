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
static int frames;

static void test_tshark_clean(void **state)
{
	struct amf_cfg cfg;
	struct sue ue, bad;
	struct nas_msg m, dl;
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
	/* sue_register answered the CONFIGURATION UPDATE COMMAND (in the pcap). */
	assert_int_equal(H.n_cuc, 1);
	memset(&m, 0, sizeof(m));
	m.type = NAS_CONFIGURATION_UPDATE_COMPLETE;
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
	/* NG Setup failures on a second association: our cause numbering, as tshark reads it. */
	{
		static struct ngap_msg g;
		static const uint8_t other[3] = { 0x99, 0xf9, 0x07 };

		amf_n2_assoc_up(H.amf, 2, 2, 2);
		memset(&g, 0, sizeof(g));
		g.type = NGAP_INITIATING;
		g.proc = NGAP_PROC_NG_SETUP;
		g.u.ng_setup_request.ran_node_id.kind = NGAP_RAN_GNB;
		memcpy(g.u.ng_setup_request.ran_node_id.plmn.v, other, 3);
		g.u.ng_setup_request.ran_node_id.id = 2;
		g.u.ng_setup_request.ran_node_id.id_bits = 22;
		g.u.ng_setup_request.n_tas = 1;
		g.u.ng_setup_request.tas[0].tac[2] = 1;
		g.u.ng_setup_request.tas[0].n_plmns = 1;
		memcpy(g.u.ng_setup_request.tas[0].plmns[0].plmn.v, other, 3);
		g.u.ng_setup_request.tas[0].plmns[0].n_slices = 1;
		g.u.ng_setup_request.tas[0].plmns[0].slices[0].sst = 1;
		h_send(&H, 2, 0, &g);
		h_expect(&H, NGAP_UNSUCCESSFUL, NGAP_PROC_NG_SETUP);
		memcpy(g.u.ng_setup_request.ran_node_id.plmn.v, "\x00\xf1\x10", 3);
		memcpy(g.u.ng_setup_request.tas[0].plmns[0].plmn.v, "\x00\xf1\x10", 3);
		g.u.ng_setup_request.tas[0].plmns[0].slices[0].sst = 77;
		h_send(&H, 2, 0, &g);
		h_expect(&H, NGAP_UNSUCCESSFUL, NGAP_PROC_NG_SETUP);
		/* An uplink NAS for an unknown AMF UE NGAP ID: Error Indication. */
		memset(&g, 0, sizeof(g));
		g.type = NGAP_INITIATING;
		g.proc = NGAP_PROC_UPLINK_NAS_TRANSPORT;
		g.u.uplink_nas_transport.amf_ue_id = 123456;
		g.u.uplink_nas_transport.ran_ue_id = 1;
		g.u.uplink_nas_transport.nas.p = (const uint8_t *)"\x7e\x00\x43";
		g.u.uplink_nas_transport.nas.len = 3;
		g.u.uplink_nas_transport.uli.tai.tac[2] = 1;
		h_send(&H, 1, 1, &g);
		h_expect(&H, NGAP_INITIATING, NGAP_PROC_ERROR_INDICATION);
	}
	assert_int_equal(pcapw_close(H.pcap), 0);
	H.pcap = NULL;
	h_fini(&H);

	frames = tshark_lines(TSHARK, pcap_path, TSHARK_NULL_DECIPHER, NULL);
	assert_true(frames >= 20);
	assert_int_equal(tshark_lines(TSHARK, pcap_path, TSHARK_NULL_DECIPHER " -Y '!ngap'", NULL), 0);
	assert_int_equal(tshark_lines(TSHARK, pcap_path,
				      TSHARK_NULL_DECIPHER " -Y '_ws.malformed || _ws.expert.severity >= \"Error\"'", NULL), 0);
	/* The cause values as Wireshark names them (TS 38.413 9.3.1.2 enumerations). */
	assert_true(tshark_lines(TSHARK, pcap_path, "-V",
				 "grep -E 'misc: unknown-PLMN-or-SNPN|radioNetwork: slice-not-supported|"
				 "radioNetwork: unknown-local-UE-NGAP-ID|nas: deregister|nas: normal-release'") >= 5);
	assert_int_equal(tshark_lines(TSHARK, pcap_path, "-V", "grep -c 'misc: unknown-PLMN-or-SNPN' | grep -x 1"), 1);
	assert_int_equal(tshark_lines(TSHARK, pcap_path, "-V",
				      "grep -c 'radioNetwork: slice-not-supported' | grep -x 1"), 1);
	assert_int_equal(tshark_lines(TSHARK, pcap_path, "-V",
				      "grep -c 'radioNetwork: unknown-local-UE-NGAP-ID' | grep -x 2"), 1);   /* Error Indication + NG Reset */
	unlink(pcap_path);
}

/* Control: the same filter does fire on a truncated NGAP PDU, so the check above can fail. */
static void test_filter_catches_malformed(void **state)
{
	static const uint8_t trunc[] = { 0x00, 0x15, 0x00, 0x33, 0x00, 0x00, 0x04, 0x00, 0x1b, 0x00 };
	char path[] = "/tmp/solocore-amf-bad-XXXXXX.pcap";
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
	assert_int_equal(tshark_lines(TSHARK, path, "-Y '_ws.malformed || _ws.expert.severity >= \"Error\"'", NULL), 1);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tshark_clean),
		cmocka_unit_test(test_filter_catches_malformed),
	};

	if (tshark_require(TSHARK, "decode the AMF's N2 exchange"))
		return 77;
	return cmocka_run_group_tests_name("amf_pcap", tests, NULL, NULL);
}
