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

static char *field(char *line, int idx)
{
	char *p = line;

	for (int i = 0; i < idx && p; i++) {
		p = strchr(p, '\t');
		if (p)
			p++;
	}
	if (!p)
		return (char *)"";
	return p;
}

/* Copy field idx (tab separated) into out. */
static void get(char *line, int idx, char *out, size_t cap)
{
	char *p = field(line, idx);
	size_t n = strcspn(p, "\t\n");

	if (n >= cap)
		n = cap - 1;
	memcpy(out, p, n);
	out[n] = 0;
}

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

static int check_fields(const char *tshark, const char *pcap)
{
	static const uint64_t amf_ok[] = { 0x123456789aULL, 0x123456789bULL, UINT64_MAX };
	static const uint64_t ran_ok[] = { 77, 78, UINT64_MAX };
	char cmd[1024], line[8192], v[2048];
	int seen = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd),
		 "'%s' -r '%s' -o nas-5gs.null_decipher:TRUE -T fields -E separator=/t -E occurrence=a "
		 "-E aggregator=, -e frame.number -e ngap.procedureCode -e ngap.AMF_UE_NGAP_ID "
		 "-e ngap.RAN_UE_NGAP_ID -e ngap.pLMNIdentity -e ngap.tAC -e ngap.gNB_ID -e _ws.malformed "
		 "-e _ws.expert.severity -e _ws.col.Info 2>&1", tshark, pcap);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while (fgets(line, sizeof(line), p)) {
		int pkt = atoi(line);
		const struct expect *e;

		if (pkt < 1 || pkt > npkts) {
			if (!strstr(line, "Running as user"))
				fprintf(stderr, "tshark: %s", line);
			continue;
		}
		e = &exp_[pkt - 1];
		seen++;
		get(line, 1, v, sizeof(v));
		if (atoi(v) != e->proc) /* the first occurrence is the outer PDU */
			FAIL("packet %d (%s): procedureCode %s, encoded %u", pkt, e->name, v, e->proc);
		get(line, 2, v, sizeof(v));
		n_amf += each(v, ok_u64, amf_ok, pkt, "AMF_UE_NGAP_ID");
		if (e->has_amf && !has_value(v, e->amf))
			FAIL("packet %d (%s): AMF_UE_NGAP_ID '%s', encoded %" PRIu64, pkt, e->name, v, e->amf);
		get(line, 3, v, sizeof(v));
		n_ran += each(v, ok_u64, ran_ok, pkt, "RAN_UE_NGAP_ID");
		if (e->has_ran && !has_value(v, e->ran))
			FAIL("packet %d (%s): RAN_UE_NGAP_ID '%s', encoded %u", pkt, e->name, v, e->ran);
		get(line, 4, v, sizeof(v));
		n_plmn += each(v, ok_plmn, NULL, pkt, "pLMNIdentity");
		get(line, 5, v, sizeof(v));
		n_tac += each(v, ok_tac, NULL, pkt, "tAC");
		get(line, 6, v, sizeof(v));
		if (e->gnb) {
			char hex[64];
			size_t k = 0;

			for (const char *s = v; *s && k < sizeof(hex) - 1; s++)
				if (*s != ':')
					hex[k++] = *s;
			hex[k] = 0;
			n_gnb++;
			if (strcmp(hex, "0000019b"))
				FAIL("packet %d (%s): gNB_ID '%s', encoded 0000019b", pkt, e->name, v);
		}
		get(line, 7, v, sizeof(v));
		if (v[0])
			FAIL("packet %d (%s): malformed", pkt, e->name);
		get(line, 9, v, sizeof(v));
		if (strstr(v, "Malformed"))
			FAIL("packet %d (%s): %s", pkt, e->name, v);
	}
	if (pclose(p) != 0)
		FAIL("tshark -T fields exited with an error");
	if (seen != npkts)
		FAIL("tshark showed %d packets, we wrote %d", seen, npkts);
	printf("compared: %d AMF UE ids, %d RAN UE ids, %d PLMNs, %d TACs, %d gNB ids\n", n_amf, n_ran, n_plmn,
	       n_tac, n_gnb);
	if (!n_amf || !n_ran || !n_plmn || !n_tac || !n_gnb)
		FAIL("a key field was never shown by tshark (field name changed?)");
	return 0;
}

static int check_expert(const char *tshark, const char *pcap)
{
	char cmd[1024], line[4096];
	bool in_errors = false;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "'%s' -r '%s' -o nas-5gs.null_decipher:TRUE -q -z expert 2>&1", tshark, pcap);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	/* "-z expert" prints sections "Errors (n)", "Warns (n)", "Notes (n)", "Chats (n)" */
	while (fgets(line, sizeof(line), p)) {
		if (strstr(line, "Malformed"))
			FAIL("tshark expert: %s", line);
		if (!strncmp(line, "Errors (", 8)) {
			in_errors = true;
			FAIL("tshark expert: %s", line);
		} else if (!strncmp(line, "Warns (", 7) || !strncmp(line, "Notes (", 7) ||
			   !strncmp(line, "Chats (", 7)) {
			in_errors = false;
			fprintf(stderr, "tshark expert (not an error): %s", line);
		} else if (in_errors && line[0] != '\n') {
			fprintf(stderr, "  %s", line);
		}
	}
	if (pclose(p) != 0)
		FAIL("tshark -z expert exited with an error");
	return 0;
}

int main(int argc, char **argv)
{
	char pcap[512];

	if (argc < 3) {
		fprintf(stderr, "usage: %s TSHARK WORKDIR\n", argv[0]);
		return 2;
	}
	if (access(argv[1], X_OK) != 0) {
		printf("SKIP: tshark not found (%s); install Debian package tshark to run this check\n", argv[1]);
		return 77;
	}
	snprintf(pcap, sizeof(pcap), "%s/ngap_tshark.pcap", argv[2]);
	if (write_pcap(pcap) != 0) {
		fprintf(stderr, "cannot write %s\n", pcap);
		return 1;
	}
	if (npkts < 2 * ngap_sample_count())
		FAIL("only %d packets written", npkts);
	check_fields(argv[1], pcap);
	check_expert(argv[1], pcap);
	printf("%d NGAP messages (%d kinds, optional IEs present and absent) checked by tshark: %d failure(s)\n",
	       npkts, ngap_sample_count(), failures);
	return failures ? 1 : 0;
}
