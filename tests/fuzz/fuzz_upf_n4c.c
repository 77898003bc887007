/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * libFuzzer target: the SMF's N4 client (upf/upf_n4c*.c, TS 29.244) on one datagram from its
 * associated UPF. State carries over between inputs (sessions, transactions in flight). The
 * sequence number of an input is, when its last byte says so, set to the request most
 * recently sent, so answers reach the transaction code rather than being stale. Each input
 * also creates, modifies or removes a session as its first byte says.
 * Properties beyond "no crash, no leak, no read past the input": every datagram the client
 * sends encodes and decodes whole with our codec; no send fails to encode.
 */
#include <arpa/inet.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/ev.h"
#include "common/log.h"
#include "common/pfcp/pfcp.h"
#include "upf/upf_int.h"

#define MAX_SESS 16
#define UPF_ADDR 0x0a000002u

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct ev_loop *L;
static struct upf_n4c *C;
static struct upf *P;
static struct pfcp_msg out, rsp;
static uint32_t last_seq;
static uint8_t buf[PFCP_MSG_MAX_LEN];

static void on_send(void *arg, uint32_t addr, uint16_t port, const uint8_t *b, size_t len)
{
	(void)arg;
	(void)addr;
	(void)port;
	if (pfcp_decode(b, len, &out, NULL) != (int)len)
		abort();
	last_seq = out.h.seq;
}

static void on_dl(void *arg, uint32_t id)
{
	(void)arg;
	if (id >= MAX_SESS)
		abort();
}

static void on_lost(void *arg, uint32_t id, enum upf_lost_reason why)
{
	(void)arg;
	(void)why;
	if (id >= MAX_SESS)
		abort();
	upf_n4c_sess_remove(P, id);
}

static void init(void)
{
	struct upf_n4c_params p = { .addr = htonl(0x0a000001), .max_sessions = MAX_SESS, .no_socket = true,
				    .send = on_send, .recovery_ts = 5 };
	struct upf_n4c_peer pp = { .name = "upf", .addr = htonl(UPF_ADDR), .n3_addr = htonl(0x0a000003),
				   .on_dl_data = on_dl, .on_session_lost = on_lost };
	int err, n;

	log_set_level(LOGL_ERROR);
	L = ev_loop_new(&err);
	p.loop = L;
	if (!L || upf_n4c_open(&p, &C) || upf_n4c_peer_add(C, &pp, &P))
		abort();
	/* the association: answer our Setup Request */
	rsp.h.type = PFCP_ASSOC_SETUP_RSP;
	rsp.h.seq = last_seq;
	rsp.node.has = PFCP_N_NODE_ID | PFCP_N_CAUSE | PFCP_N_RECOVERY;
	rsp.node.node_id.type = PFCP_NODE_IPV4;
	rsp.node.cause = PFCP_CAUSE_ACCEPTED;
	rsp.node.recovery = 7;
	n = pfcp_encode(&rsp, buf, sizeof(buf));
	if (n < 0)
		abort();
	upf_n4c_input(C, htonl(UPF_ADDR), PFCP_PORT, buf, (size_t)n);
	if (!upf_n4c_ready(P))
		abort();
}

static void drive(uint8_t op)
{
	uint32_t id = op % MAX_SESS;
	struct upf_session_rule r = {
		.ul_teid = id + 1, .ue_addr = htonl(0x0a2d0001 + id), .gnb_addr = htonl(0x0a000009),
		.gnb_teid = op, .qfi = 9, .ambr_ul_bps = 1000000, .dl_state = (op & 0x40) ? UPF_DL_BUFFER : UPF_DL_ACTIVE,
	};

	if (!upf_n4c_ready(P))
		return;
	switch (op >> 6) {
	case 0:
		upf_n4c_sess_create(P, id, &r);
		break;
	case 1:
	case 2:
		upf_n4c_sess_modify(P, id, &r);
		break;
	default:
		upf_n4c_sess_remove(P, id);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t c[UPF_N4C__MAX];

	if (!C)
		init();
	if (size > sizeof(buf))
		return 0;
	memcpy(buf, data, size);
	if (size >= 16 && (data[size - 1] & 1)) {
		size_t off = (buf[0] & 1) ? 12 : 4;   /* 7.2.2.1: the S flag moves the sequence number */

		buf[off] = (uint8_t)(last_seq >> 16);
		buf[off + 1] = (uint8_t)(last_seq >> 8);
		buf[off + 2] = (uint8_t)last_seq;
	}
	if (size)
		drive(data[0]);
	upf_n4c_input(C, htonl(UPF_ADDR), PFCP_PORT, buf, size);
	if (upf_n4c_counters_get(C, c, UPF_N4C__MAX) || c[UPF_N4C_TX_FAILED])
		abort();
	return 0;
}
