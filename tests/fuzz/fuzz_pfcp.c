/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * libFuzzer target: the PFCP decoder (common/pfcp, TS 29.244) on one datagram.
 * Properties beyond "no crash, no read past the input": an error names a
 * reason and an offset inside the input, and maps to a cause or to no answer;
 * a decoded message re-encodes, the re-encoding decodes to the same text
 * (every IE value), and encoding that again gives the same bytes.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/pfcp/pfcp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct pfcp_msg m1, m2;
static uint8_t o1[PFCP_MSG_MAX_LEN], o2[PFCP_MSG_MAX_LEN];
static char t1[1 << 17], t2[1 << 17];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pfcp_err e;
	int n, l1, l2;

	n = pfcp_decode(data, size, &m1, &e);
	if (n < 0) {
		if (!e.reason || e.off > size)
			abort();
		(void)pfcp_err_cause(n);
		return 0;
	}
	if ((size_t)n > size || (m1.h.fo ? (size_t)n > size : (size_t)n != size))
		abort();
	pfcp_msg_to_str(&m1, t1, sizeof(t1));
	l1 = pfcp_encode(&m1, o1, sizeof(o1));
	if (l1 < 0) {
		/* only a message at the 16-bit length limit that grows by a minimal-length
		 * bit string re-encoded at its release's length can fail */
		if (l1 != -ERANGE)
			abort();
		return 0;
	}
	if (pfcp_decode(o1, (size_t)l1, &m2, &e) != l1)
		abort();
	pfcp_msg_to_str(&m2, t2, sizeof(t2));
	if (strcmp(t1, t2))
		abort();
	l2 = pfcp_encode(&m2, o2, sizeof(o2));
	if (l2 != l1 || memcmp(o1, o2, (size_t)l1))
		abort();
	return 0;
}
