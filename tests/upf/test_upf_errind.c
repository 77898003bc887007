// SPDX-License-Identifier: AGPL-3.0-or-later
/*
 * test_upf_errind: a gNB's GTP-U Error Indication (TS 29.281 7.3.1) reaching the UPF's N3
 * socket (issue 32, "Error Indication ... only logged"). The real upf (XDP program loaded, not
 * attached) and real UDP sockets on loopback addresses in a private network namespace:
 *   - the gNB that holds a session's downlink tunnel says it lost it: on_err_ind with the
 *     session and the remote F-TEID (TEID Data I 8.3, GTP-U Peer Address 8.4), the data path
 *     itself unchanged (TS 29.244 5.10: the control plane decides);
 *   - adversary: the same message from another N3 address, one naming a TEID or an address
 *     that is no downlink tunnel of ours, one for a session whose downlink is not active, and
 *     malformed ones (no Peer Address, truncated IEs, two TEID Data I) change nothing.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include "upf/upf.h"
#include "netns.h"

#define N3_ADDR "192.0.2.1"
#define GNB_ADDR "192.0.2.2"     /* holds the sessions' downlink tunnels */
#define EVIL_ADDR "192.0.2.66"   /* another host on N3 */

struct fx {
	struct upf *u;
	int gnb, evil;           /* UDP sockets on GNB_ADDR:2152 and EVIL_ADDR:2152 */
	int ei;
	struct upf_err_ind last;
};

static uint32_t ip(const char *s)
{
	struct in_addr a;

	assert_int_equal(inet_pton(AF_INET, s, &a), 1);
	return a.s_addr;
}

static void on_ei(void *arg, const struct upf_err_ind *ei)
{
	struct fx *f = arg;

	f->ei++;
	f->last = *ei;
}

static uint64_t cnt(struct fx *f, unsigned idx)
{
	uint64_t c[UPF_STAT__MAX];

	assert_int_equal(upf_counters(f->u, c, UPF_STAT__MAX), 0);
	return c[idx];
}

static int fx_setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	struct upf_params p = {
		.xdp_mode = UPF_XDP_NONE, .n3_addr = ip(N3_ADDR),
		.ue_pool_addr = ip("10.45.0.0"), .ue_pool_plen = 16, .max_sessions = 1024,
		.err_ind_per_s = 100, .on_err_ind = on_ei,
	};

	assert_non_null(f);
	p.cb_arg = f;
	assert_int_equal(upf_open(&p, &f->u), 0);
	f->gnb = tn_udp_bind(ip(GNB_ADDR), 2152);
	f->evil = tn_udp_bind(ip(EVIL_ADDR), 2152);
	assert_true(f->gnb >= 0 && f->evil >= 0);
	*state = f;
	return 0;
}

static int fx_teardown(void **state)
{
	struct fx *f = *state;

	upf_close(f->u);
	close(f->gnb);
	close(f->evil);
	free(f);
	return 0;
}

/* Session id with uplink TEID id + 1, UE 10.45.0.(id + 1), downlink to gnb:gnb_teid. */
static void session(struct fx *f, uint32_t id, const char *gnb, uint32_t gnb_teid, enum upf_dl_state st)
{
	struct upf_session_rule r = {
		.ul_teid = id + 1, .ue_addr = htonl(0x0a2d0000u + id + 1), .gnb_addr = ip(gnb),
		.gnb_teid = gnb_teid, .qfi = 1, .dl_state = st,
	};

	assert_int_equal(upf_session_create(f->u, id, &r), 0);
}

/* An Error Indication as a gNB sends it (TS 29.281 7.3.1: TEID 0, S = 1, UDP Port extension
 * header 5.2.2.1 as our own ones carry; TEID Data I (16); GTP-U Peer Address (133), IPv4). */
static size_t errind(uint8_t *m, uint32_t teid, const char *peer)
{
	const uint8_t hdr[12] = { 0x36, 26, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x40 };
	uint32_t a = ip(peer);

	memcpy(m, hdr, 12);
	m[12] = 1, m[13] = 0x08, m[14] = 0x68, m[15] = 0;          /* UDP Port 2152 */
	m[16] = 16;
	m[17] = (uint8_t)(teid >> 24), m[18] = (uint8_t)(teid >> 16), m[19] = (uint8_t)(teid >> 8),
	m[20] = (uint8_t)teid;
	m[21] = 133, m[22] = 0, m[23] = 4;
	memcpy(m + 24, &a, 4);
	m[3] = 28 - 8;
	return 28;
}

/* Send from fd to our N3 socket and let the upf handle it. */
static void send_ei(struct fx *f, int fd, const uint8_t *m, size_t len)
{
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(2152), .sin_addr.s_addr = ip(N3_ADDR) };
	int fds[UPF_MAX_FDS];

	assert_int_equal(sendto(fd, m, len, 0, (struct sockaddr *)&to, sizeof(to)), (ssize_t)len);
	upf_fds(f->u, fds);
	assert_true(tn_wait_readable(fds[0], 2000));
	while (upf_process(f->u) > 0)
		;
}

/* TS 29.281 7.3.1: the gNB holding session 7's tunnel lost it -> reported with the session
 * and the remote F-TEID; the data path left as it is (TS 29.244 5.10). */
static void t_reported(void **state)
{
	struct fx *f = *state;
	uint8_t m[64];

	session(f, 3, GNB_ADDR, 0x1003, UPF_DL_ACTIVE);
	session(f, 7, GNB_ADDR, 0x1007, UPF_DL_ACTIVE);
	send_ei(f, f->gnb, m, errind(m, 0x1007, GNB_ADDR));
	assert_int_equal(f->ei, 1);
	assert_int_equal(f->last.session_id, 7);
	assert_int_equal(f->last.teid, 0x1007);
	assert_int_equal(f->last.addr, ip(GNB_ADDR));
	assert_int_equal(cnt(f, UPF_STAT_ERR_IND_REPORTED), 1);
	assert_int_equal(cnt(f, UPF_STAT_ERR_IND_IGNORED), 0);
	/* the session is still installed, unchanged: removing it works once */
	assert_int_equal(upf_session_remove(f->u, 7), 0);
	/* the same Error Indication again: no tunnel of ours any more */
	send_ei(f, f->gnb, m, errind(m, 0x1007, GNB_ADDR));
	assert_int_equal(f->ei, 1);
	assert_int_equal(cnt(f, UPF_STAT_ERR_IND_IGNORED), 1);
}

/* Adversary: anyone on N3 can send an Error Indication; only the tunnel's gNB may end it. */
static void t_forged(void **state)
{
	struct fx *f = *state;
	uint8_t m[64];
	size_t n;

	session(f, 7, GNB_ADDR, 0x1007, UPF_DL_ACTIVE);
	session(f, 8, GNB_ADDR, 0x1008, UPF_DL_BUFFER);
	/* 1. names session 7's tunnel exactly, but comes from another address */
	send_ei(f, f->evil, m, errind(m, 0x1007, GNB_ADDR));
	/* 2. from the other host, naming itself as the peer (the tunnel's TEID, not its address) */
	send_ei(f, f->evil, m, errind(m, 0x1007, EVIL_ADDR));
	/* 3. from the gNB, a TEID that is no tunnel of ours */
	send_ei(f, f->gnb, m, errind(m, 0x2007, GNB_ADDR));
	/* 4. from the gNB, session 8's tunnel, whose downlink is not active (nothing to end) */
	send_ei(f, f->gnb, m, errind(m, 0x1008, GNB_ADDR));
	assert_int_equal(f->ei, 0);
	assert_int_equal(cnt(f, UPF_STAT_ERR_IND_IGNORED), 4);
	assert_int_equal(cnt(f, UPF_STAT_ERR_IND_REPORTED), 0);
	/* malformed (TS 29.281 7.3.1: both IEs mandatory): no GTP-U Peer Address ... */
	n = errind(m, 0x1007, GNB_ADDR) - 7;
	m[3] = (uint8_t)(n - 8);
	send_ei(f, f->gnb, m, n);
	/* ... a Peer Address of 5 octets ... */
	n = errind(m, 0x1007, GNB_ADDR);
	m[23] = 5, m[28] = 0, m[3] = (uint8_t)(n + 1 - 8);
	send_ei(f, f->gnb, m, n + 1);
	/* ... TEID Data I twice (the second would name the tunnel) ... */
	n = errind(m, 0x2007, GNB_ADDR);
	memmove(m + 21, m + 16, 12);
	m[16] = 16, m[17] = 0, m[18] = 0, m[19] = 0x10, m[20] = 0x07;
	m[3] = (uint8_t)(n + 5 - 8);
	send_ei(f, f->gnb, m, n + 5);
	/* ... an IE cut short by the message length */
	n = errind(m, 0x1007, GNB_ADDR);
	m[3] = (uint8_t)(n - 2 - 8);
	send_ei(f, f->gnb, m, n - 2);
	assert_int_equal(f->ei, 0);
	assert_int_equal(cnt(f, UPF_STAT_SOCK_BAD), 4);
	/* the genuine one still works afterwards */
	send_ei(f, f->gnb, m, errind(m, 0x1007, GNB_ADDR));
	assert_int_equal(f->ei, 1);
	assert_int_equal(f->last.session_id, 7);
}

/* Issue 32 (Error Indication index): the lookup is an index by (gNB address, TEID) kept where
 * the downlink rule is written (upf_session_create / _modify / _remove), no longer a scan. It
 * must match exactly what the scan matched: after 300 sessions, 150 of them removed (entries
 * shifted back in the table), one tunnel moved to another TEID, one to another gNB, one
 * deactivated and one reactivated, each Error Indication finds its session or none. */
static void t_index(void **state)
{
	struct fx *f = *state;
	uint8_t m[64];
	int want = 0;

	for (uint32_t id = 0; id < 300; id++)
		session(f, id, GNB_ADDR, 0x5000 + id, UPF_DL_ACTIVE);
	for (uint32_t id = 0; id < 300; id += 2)
		assert_int_equal(upf_session_remove(f->u, id), 0);
	struct upf_session_rule r = {
		.ul_teid = 52, .ue_addr = htonl(0x0a2d0000u + 52), .gnb_addr = ip(GNB_ADDR),
		.gnb_teid = 0x9051, .qfi = 1, .dl_state = UPF_DL_ACTIVE,
	};
	assert_int_equal(upf_session_modify(f->u, 51, &r), 0);            /* another TEID */
	r.ul_teid = 54, r.ue_addr = htonl(0x0a2d0000u + 54), r.gnb_teid = 0x5000 + 53;
	r.dl_state = UPF_DL_BUFFER;
	assert_int_equal(upf_session_modify(f->u, 53, &r), 0);            /* deactivated */
	r.ul_teid = 56, r.ue_addr = htonl(0x0a2d0000u + 56), r.gnb_teid = 0x5000 + 55;
	r.gnb_addr = ip(EVIL_ADDR), r.dl_state = UPF_DL_ACTIVE;
	assert_int_equal(upf_session_modify(f->u, 55, &r), 0);            /* another gNB */
	r.ul_teid = 58, r.ue_addr = htonl(0x0a2d0000u + 58), r.gnb_teid = 0x5000 + 57;
	r.gnb_addr = ip(GNB_ADDR), r.dl_state = UPF_DL_BUFFER;
	assert_int_equal(upf_session_modify(f->u, 57, &r), 0);
	r.dl_state = UPF_DL_ACTIVE;
	assert_int_equal(upf_session_modify(f->u, 57, &r), 0);            /* active again */
	for (uint32_t id = 101; id < 300; id += 10) {
		send_ei(f, f->gnb, m, errind(m, 0x5000 + id, GNB_ADDR));
		assert_int_equal(f->ei, ++want);
		assert_int_equal(f->last.session_id, id);
	}
	send_ei(f, f->gnb, m, errind(m, 0x5000 + 100, GNB_ADDR));       /* removed */
	send_ei(f, f->gnb, m, errind(m, 0x5000 + 51, GNB_ADDR));        /* its old TEID */
	send_ei(f, f->gnb, m, errind(m, 0x5000 + 53, GNB_ADDR));             /* not active */
	send_ei(f, f->gnb, m, errind(m, 0x5000 + 55, GNB_ADDR));             /* now another gNB's */
	assert_int_equal(f->ei, want);
	assert_int_equal(cnt(f, UPF_STAT_ERR_IND_IGNORED), 4);
	send_ei(f, f->gnb, m, errind(m, 0x9051, GNB_ADDR));
	assert_int_equal(f->ei, ++want);
	assert_int_equal(f->last.session_id, 51);
	send_ei(f, f->evil, m, errind(m, 0x5000 + 55, EVIL_ADDR));
	assert_int_equal(f->ei, ++want);
	assert_int_equal(f->last.session_id, 55);
	send_ei(f, f->gnb, m, errind(m, 0x5000 + 57, GNB_ADDR));
	assert_int_equal(f->ei, ++want);
	assert_int_equal(f->last.session_id, 57);
	/* all removed: nothing found, the table empty again */
	for (uint32_t id = 1; id < 300; id += 2)
		assert_int_equal(upf_session_remove(f->u, id), 0);
	send_ei(f, f->gnb, m, errind(m, 0x5000 + 101, GNB_ADDR));
	assert_int_equal(f->ei, want);
}

/* A flood of Error Indications from the gNB's address is looked up at most err_ind_per_s a
 * second: the rest counted, none reported. */
static void t_rate(void **state)
{
	struct fx *f = *state;
	uint8_t m[64];
	uint64_t lim;

	for (int i = 0; i < 150; i++)
		send_ei(f, f->gnb, m, errind(m, 0x3000u + (uint32_t)i, GNB_ADDR));
	lim = cnt(f, UPF_STAT_ERR_IND_RX_LIMITED);
	assert_true(lim >= 40);
	assert_int_equal(cnt(f, UPF_STAT_ERR_IND_IGNORED) + lim, 150);
	assert_int_equal(f->ei, 0);
}

int main(void)
{
	int rc = tn_require_root_bpf("upf_errind");

	if (rc)
		return rc;
	if (tn_unshare_net() ||
	    tn_sh("ip link set lo up && ip addr add " N3_ADDR "/32 dev lo && ip addr add " GNB_ADDR
		  "/32 dev lo && ip addr add " EVIL_ADDR "/32 dev lo"))
		return 1;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(t_reported, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(t_forged, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(t_rate, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(t_index, fx_setup, fx_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
