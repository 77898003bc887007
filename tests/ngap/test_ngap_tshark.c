/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * Wireshark's NGAP dissector as an independent decoder (issue 3, item 5): every message our encoders
 * produce (each sample with optional IEs present and absent, SM transfers inside) goes into a pcap as
 * NGAP in IPv4/SCTP with PPID 60, then
 *   tshark -r FILE -o nas-5gs.null_decipher:TRUE -T fields -e ...   per-packet key fields
 *   tshark -r FILE -o nas-5gs.null_decipher:TRUE -q -z expert        expert infos
 * The test fails on any malformed packet, any error-level expert info, and any key field that
 * differs from what we encoded: procedure code, AMF/RAN UE NGAP IDs, PLMN, TAC, gNB ID.
 * Usage: test_ngap_tshark TSHARK_PATH WORK_DIR. No tshark: prints why and exits 77 (skip).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/ngap/ngap.h"
#include "ngap_samples.h"
#include "testlib.h"

#define MAX_PKTS 128

struct expect {
	const char *name;
	uint8_t proc;
	bool has_amf, has_ran;
	uint64_t amf;
	uint32_t ran;
	bool gnb;                 /* NG Setup Request with gNB id 0x19b */
};

static struct expect exp_[MAX_PKTS];
static int npkts, failures;
static int n_amf, n_ran, n_plmn, n_tac, n_gnb; /* values compared, so a renamed field cannot pass silently */

#define FAIL(...) do { fprintf(stderr, "FAIL: " __VA_ARGS__); fputc('\n', stderr); failures++; } while (0)

/* Every comma-separated value in list passes ok(); returns the number of values. */
static int each(const char *list, bool (*ok)(const char *v, const void *arg), const void *arg, int pkt,
		const char *what)
{
	char tmp[2048], *save = NULL, *v;
	int n = 0;

	snprintf(tmp, sizeof(tmp), "%s", list);
	for (v = strtok_r(tmp, ",", &save); v; v = strtok_r(NULL, ",", &save), n++)
		if (!ok(v, arg))
			FAIL("packet %d (%s): %s value %s is not what we encoded", pkt, exp_[pkt - 1].name, what, v);
	return n;
}

static bool ok_plmn(const char *v, const void *arg)
{
	char hex[16];
	size_t k = 0;

	(void)arg;
	for (; *v && k < sizeof(hex) - 1; v++)
		if (*v != ':')
			hex[k++] = *v;
	hex[k] = 0;
	return strcmp(hex, "00f110") == 0;
}

static bool ok_tac(const char *v, const void *arg)
{
	(void)arg;
	return strcmp(v, "1") == 0 || strcmp(v, "2") == 0;
}

static bool ok_u64(const char *v, const void *arg)
{
	const uint64_t *allowed = arg;
	uint64_t x = strtoull(v, NULL, 0);

	for (; *allowed != UINT64_MAX; allowed++)
		if (x == *allowed)
			return true;
	return false;
}

static bool has_value(const char *list, uint64_t want)
{
	char tmp[2048], *save = NULL, *v;

	snprintf(tmp, sizeof(tmp), "%s", list);
	for (v = strtok_r(tmp, ",", &save); v; v = strtok_r(NULL, ",", &save))
		if (strtoull(v, NULL, 0) == want)
			return true;
	return false;
}

static int write_pcap(const char *path)
{
	static struct ngap_msg m, m2;
	static uint8_t buf[4096];
	struct ngap_dec_info info;
	struct pcapw *w = pcapw_open(path, PCAPW_SCTP_IPV4);

	if (!w)
		return -1;
	for (int i = 0; i < ngap_sample_count(); i++)
		for (int full = 1; full >= 0; full--) {
			struct expect *e = &exp_[npkts];
			int l;

			ngap_sample(i, full, &m);
			l = ngap_encode(&m, buf, sizeof(buf));
			if (l <= 0 || ngap_decode(buf, (size_t)l, &m2, &info) != 0) {
				FAIL("sample %d does not encode/decode", i);
				continue;
			}
			e->name = ngap_msg_name(m.type, m.proc);
			e->proc = m.proc;
			e->has_amf = info.ue_ids_seen & 1;
			e->has_ran = info.ue_ids_seen & 2;
			e->amf = info.amf_ue_id;
			e->ran = info.ran_ue_id;
			if (m.type == NGAP_INITIATING && m.proc == NGAP_PROC_UE_CONTEXT_RELEASE) {
				e->has_amf = true; /* inside UE-NGAP-IDs */
				e->amf = m.u.ue_context_release_command.amf_ue_id;
			}
			e->gnb = m.type == NGAP_INITIATING && m.proc == NGAP_PROC_NG_SETUP;
			/* gNB 10.0.0.1 -> AMF 10.0.0.2, port 38412, stream 0 for non-UE, 1 for UE messages */
			if (pcapw_sctp(w, 0x0a000001, 0x0a000002, 38412, 38412, e->has_ran ? 1 : 0, 60, buf, (size_t)l))
				return -1;
			npkts++;
		}
	return pcapw_close(w);
}

/* The fields compared per packet, f[] order in row() */
static const char *const fields[] = {
	"ngap.procedureCode", "ngap.AMF_UE_NGAP_ID", "ngap.RAN_UE_NGAP_ID", "ngap.pLMNIdentity", "ngap.tAC",
	"ngap.gNB_ID", "_ws.col.Info",
};

/* Returns the failures found in this packet (also counted in failures by FAIL). */
static int row(void *ctx, int pkt, char **f)
{
	static const uint64_t amf_ok[] = { 0x123456789aULL, 0x123456789bULL, UINT64_MAX };
	static const uint64_t ran_ok[] = { 77, 78, UINT64_MAX };
	const struct expect *e = &exp_[pkt - 1];
	int before = failures;

	(void)ctx;
	if (atoi(f[0]) != e->proc) /* the first occurrence is the outer PDU */
		FAIL("packet %d (%s): procedureCode %s, encoded %u", pkt, e->name, f[0], e->proc);
	n_amf += each(f[1], ok_u64, amf_ok, pkt, "AMF_UE_NGAP_ID");
	if (e->has_amf && !has_value(f[1], e->amf))
		FAIL("packet %d (%s): AMF_UE_NGAP_ID '%s', encoded %" PRIu64, pkt, e->name, f[1], e->amf);
	n_ran += each(f[2], ok_u64, ran_ok, pkt, "RAN_UE_NGAP_ID");
	if (e->has_ran && !has_value(f[2], e->ran))
		FAIL("packet %d (%s): RAN_UE_NGAP_ID '%s', encoded %u", pkt, e->name, f[2], e->ran);
	n_plmn += each(f[3], ok_plmn, NULL, pkt, "pLMNIdentity");
	n_tac += each(f[4], ok_tac, NULL, pkt, "tAC");
	if (e->gnb) {
		char hex[64];
		size_t k = 0;

		for (const char *s = f[5]; *s && k < sizeof(hex) - 1; s++)
			if (*s != ':')
				hex[k++] = *s;
		hex[k] = 0;
		n_gnb++;
		if (strcmp(hex, "0000019b"))
			FAIL("packet %d (%s): gNB_ID '%s', encoded 0000019b", pkt, e->name, f[5]);
	}
	if (strstr(f[6], "Malformed"))
		FAIL("packet %d (%s): %s", pkt, e->name, f[6]);
	return failures - before;
}

static const char *pkt_name(void *ctx, int pkt)
{
	(void)ctx;
	return exp_[pkt - 1].name;
}

static int check_fields(const char *tshark, const char *pcap)
{
	const struct tshark_fields q = {
		.opts = TSHARK_NULL_DECIPHER, .fields = fields, .nfields = (int)(sizeof(fields) / sizeof(fields[0])),
		.nframes = npkts, .row = row, .name = pkt_name,
	};
	int before = failures, n = tshark_fields(tshark, pcap, &q);

	/* n counts row()'s failures too: the total is what tshark_fields() found */
	if (n < 0)
		FAIL("tshark -T fields could not run");
	else
		failures = before + n;
	printf("compared: %d AMF UE ids, %d RAN UE ids, %d PLMNs, %d TACs, %d gNB ids\n", n_amf, n_ran, n_plmn,
	       n_tac, n_gnb);
	if (!n_amf || !n_ran || !n_plmn || !n_tac || !n_gnb)
		FAIL("a key field was never shown by tshark (field name changed?)");
	return 0;
}

static int check_expert(const char *tshark, const char *pcap)
{
	int n = tshark_expert(tshark, pcap, TSHARK_NULL_DECIPHER);

	if (n < 0)
		FAIL("tshark -z expert could not run");
	else if (n > 0)
		FAIL("tshark -z expert: %d error(s) or malformed packet(s)", n);
	return 0;
}

int main(int argc, char **argv)
{
	char pcap[512];

	if (argc < 3) {
		fprintf(stderr, "usage: %s TSHARK WORKDIR\n", argv[0]);
		return 2;
	}
	if (tshark_require(argv[1], "run this check"))
		return 77;
	snprintf(pcap, sizeof(pcap), "%s/ngap_tshark.pcap", argv[2]);
	if (write_pcap(pcap) != 0) {
		fprintf(stderr, "cannot write %s\n", pcap);
		return 1;
	}
	if (npkts < 2 * ngap_sample_count())
		FAIL("only %d packets written", npkts);
	check_fields(argv[1], pcap);
	check_expert(argv[1], pcap);
	/* the transfers and IEs of issue 14 item 7 are decoded by Wireshark as what we meant: frames holding
	 * each (full and minimal sample; the Notify and its two transfers, Modify Indication / Confirm) */
	{
		static const struct { const char *filter; int frames; } seen[] = {
			{ "-Y ngap.PDUSessionResourceNotifyTransfer_element", 2 },
			{ "-Y ngap.notificationCause==1", 1 },
			{ "-Y ngap.PDUSessionResourceNotifyReleasedTransfer_element", 1 },
			{ "-Y ngap.PDUSessionResourceModifyIndicationTransfer_element", 2 },
			{ "-Y ngap.PDUSessionResourceModifyConfirmTransfer_element", 2 },
			{ "-Y ngap.PDUSessionResourceModifyIndicationUnsuccessfulTransfer_element", 1 },
			{ "-Y ngap.uERadioCapabilityForPagingOfNR", 2 }, /* Paging and the Info Indication */
			{ "-Y \"ngap.procedureCode==14 && ngap.UERadioCapability\"", 1 },
			/* issue 17: the mobility messages' transfers and IEs, as we set them (full + minimal
			 * samples unless said) */
			{ "-Y ngap.HandoverRequiredTransfer_element", 2 },
			{ "-Y ngap.HandoverCommandTransfer_element", 1 },           /* full only */
			{ "-Y ngap.HandoverPreparationUnsuccessfulTransfer_element", 1 },
			{ "-Y ngap.HandoverRequestAcknowledgeTransfer_element", 2 },
			{ "-Y ngap.HandoverResourceAllocationUnsuccessfulTransfer_element", 1 },
			{ "-Y ngap.PathSwitchRequestTransfer_element", 2 },
			{ "-Y ngap.PathSwitchRequestSetupFailedTransfer_element", 1 },
			{ "-Y ngap.PathSwitchRequestAcknowledgeTransfer_element", 2 },
			{ "-Y ngap.PathSwitchRequestUnsuccessfulTransfer_element", 3 }, /* PS ack full, PS failure */
			{ "-Y ngap.nextHopChainingCount==7", 1 },                   /* Handover Request full */
			{ "-Y ngap.nextHopChainingCount==2", 1 },                   /* Path Switch Ack full */
			{ "-Y ngap.dRB_ID==32", 2 },              /* Handover Command / Request Ack Transfers */
			{ "-Y \"ngap.gNB_ID==00:00:01:9c\"", 2 },                   /* Target ID */
			{ "-Y \"ngap.procedureCode==25 && ngap.AMF_UE_NGAP_ID==78187493530\"", 6 }, /* request (source AMF UE id), ack, failure */
			{ "-Y ngap.pDCP_SN12==200", 4 },                            /* RAN status transfers */
			{ "-Y ngap.SourceNGRANNode_ToTargetNGRANNode_TransparentContainer_element", 4 },
			{ "-Y ngap.TargetNGRANNode_ToSourceNGRANNode_TransparentContainer_element", 4 },
		};

		for (size_t i = 0; i < sizeof(seen) / sizeof(seen[0]); i++) {
			int n = tshark_lines(argv[1], pcap, seen[i].filter, NULL);

			if (n != seen[i].frames)
				FAIL("tshark %s: %d frame(s), we encoded %d", seen[i].filter, n, seen[i].frames);
		}
	}
	printf("%d NGAP messages (%d kinds, optional IEs present and absent) checked by tshark: %d failure(s)\n",
	       npkts, ngap_sample_count(), failures);
	return failures ? 1 : 0;
}
