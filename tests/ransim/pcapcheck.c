/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * ransim-pcapcheck TSHARK PCAP [MIN_NGAP]: the shared tshark runner (tests/lib, tshark_*)
 * for captures taken by shell tests (dumpcap on a veth, or ransim --pcap): no malformed
 * frame, no error-level expert item (tshark -z expert), and at least MIN_NGAP NGAP frames
 * decoded (default 1). Prints the counts. Exit 0 clean, 1 not, 77 without tshark.
 */
#include <stdio.h>
#include <stdlib.h>

#include "testlib.h"

/* NGAP frames tshark decodes in the capture; -1 when it cannot run. */
static int count_ngap(const char *tshark, const char *pcap)
{
	char cmd[1024];
	FILE *p;
	int n = -1;

	snprintf(cmd, sizeof(cmd), "'%s' -n -r '%s' -Y ngap 2>/dev/null | wc -l", tshark, pcap);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	if (fscanf(p, "%d", &n) != 1)
		n = -1;
	pclose(p);
	return n;
}

int main(int argc, char **argv)
{
	int rc, malformed, expert, ngap, min;

	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: ransim-pcapcheck TSHARK PCAP [MIN_NGAP]\n");
		return 2;
	}
	rc = tshark_require(argv[1], "decode the N2 capture");
	if (rc)
		return rc;
	min = argc == 4 ? atoi(argv[3]) : 1;
	/* the frames a display filter keeps, each echoed on stderr by tshark_lines() */
	malformed = tshark_lines(argv[1], argv[2], "-Y '_ws.malformed || _ws.expert.severity >= error'", NULL);
	expert = tshark_expert(argv[1], argv[2], NULL);
	ngap = count_ngap(argv[1], argv[2]);
	printf("pcap %s: ngap_frames %d malformed_or_error %d expert_errors %d\n", argv[2], ngap, malformed, expert);
	return malformed == 0 && expert == 0 && ngap >= min ? 0 : 1;
}
