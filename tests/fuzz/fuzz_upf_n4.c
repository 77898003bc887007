/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * libFuzzer target: the standalone UPF's PFCP server (upf/upf_n4.h, TS 29.244)
 * on one datagram from an associated SMF, with no data path (upf = NULL: the
 * rules are checked and answered, installed nowhere). State carries over
 * between inputs (sessions, the transaction cache), as on a real N4.
 * Properties beyond "no crash, no leak, no read past the input": every
 * datagram the server sends (answers, cached duplicates, Session Report
 * Requests) encodes and decodes with our own codec, whole; the session
 * count never passes its bound.
 */
#include <arpa/inet.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/pfcp/pfcp.h"
#include "upf/upf_n4.h"

#define MAX_SESS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct upf_n4 *N;
static struct pfcp_msg out, assoc;
static uint8_t abuf[256];

static void on_send(void *arg, uint32_t addr, uint16_t port, const uint8_t *b, size_t len)
{
	(void)arg;
	(void)addr;
	(void)port;
	if (pfcp_decode(b, len, &out, NULL) != (int)len)
		abort();
}

static void init(void)
{
	struct upf_n4_params p = {
		.addr = htonl(0x0a000001), .no_socket = true, .send = on_send, .n3_addr = htonl(0x0a000001),
		.ue_pool_addr = htonl(0x0a2d0000), .ue_pool_plen = 16, .max_sessions = MAX_SESS,
		.max_teid = MAX_SESS, .recovery_ts = 1,
	};

	log_set_level(LOGL_ERROR);
	if (upf_n4_open(&p, &N))
		abort();
	assoc.h.type = PFCP_ASSOC_SETUP_REQ;
	assoc.h.seq = 1;
	assoc.node.has = PFCP_N_NODE_ID | PFCP_N_RECOVERY;
	assoc.node.node_id.type = PFCP_NODE_IPV4;
	memcpy(assoc.node.node_id.addr, (uint8_t[]){ 10, 0, 0, 2 }, 4);
	assoc.node.recovery = 2;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!N)
		init();
	if (!upf_n4_associations(N)) {
		/* a new sequence number each time, so the cache never answers it */
		int n;

		assoc.h.seq = assoc.h.seq % PFCP_SEQ_MAX + 1;
		n = pfcp_encode(&assoc, abuf, sizeof(abuf));
		if (n < 0)
			abort();
		upf_n4_input(N, htonl(0x0a000002), 8805, abuf, (size_t)n);
	}
	upf_n4_input(N, htonl(0x0a000002), 8805, data, size);
	if (size)
		upf_n4_dl_data(N, data[size - 1] % MAX_SESS);
	if (upf_n4_sessions(N) > MAX_SESS)
		abort();
	/* no socket: a failed send is an answer we could not encode */
	uint64_t c[UPF_N4__MAX];

	if (upf_n4_counters(N, c, UPF_N4__MAX) || c[UPF_N4_TX_FAILED])
		abort();
	return 0;
}
