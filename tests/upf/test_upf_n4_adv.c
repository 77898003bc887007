/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * Issue 31 points 2 and 4: what a stranger who can reach N4 tries against `solocore upf`,
 * run as a process in a private network namespace (generic XDP on the veths of
 * tests/upf/netns.h, PFCP on 127.0.0.1:8805). The SMF is a PFCP socket on 127.0.0.2:8805
 * (hand-built messages, or the SMF's own N4 client, upf/upf_n4c.c, in t_smf_cause72); the
 * stranger sends from 127.0.0.3 and 127.0.1.x, and from 127.0.0.2 on another port where a
 * forged source address is the attack (the UPF binds an association to the IP, port-agnostic,
 * TS 29.244 4.2.2). What survived is checked through the SMF's own requests (a Session
 * Deletion of its SEID: Cause 1, not 65 / 72) and the counters solocore upf logs at exit.
 *
 *   t_setup_hijack     Setup / Update / Release / session messages with the SMF's Node ID
 *                      from another address (6.2.6.2.2, 6.2.6.1): refused, sessions kept
 *   t_heartbeat_spoof  a Heartbeat Request with a new Recovery Time Stamp from the SMF's
 *                      address, forged (6.2.2, TS 23.007 19A): not purged unless the SMF's
 *                      own answer to the UPF's heartbeat confirms it
 *   t_slot_fill_allow  17 strangers' Setups with upf.n4_peers set: dropped, the SMF associates
 *   t_slot_fill_expiry 16 strangers' Setups that never answer a heartbeat: the slots come
 *                      back (heartbeat loss + upf.n4_release_timer), the SMF associates
 *   t_session_quota    a stranger's association at its quota (cause 75, 8.2.1): the SMF still
 *                      gets sessions
 *   t_dup_flush        2,000 heartbeats and 2,000 requests of another peer between an
 *                      Establishment and its retransmission (6.4): the cached answer, one session
 *   t_random_ids       1,000 UP SEIDs and CHOOSE TEIDs (5.5.3): unique, not sequential
 *   t_smf_cause72      the SMF's N4 client, the association released behind its back: Cause 72,
 *                      set up again, the next session works
 * Needs root; skips with 77 otherwise. argv: solocore path, build directory.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/ev.h"
#include "common/pfcp/pfcp.h"
#include "upf/upf.h"
#include "netns.h"

#define UPF_IP "127.0.0.1"
#define SMF_IP "127.0.0.2"
#define STRANGER_IP "127.0.0.3"
#define N3 "192.0.2.1"
#define SMF_REC 3900000000u

static const char *solocore, *dir;
static char conf_path[512], log_path[512];
static struct pfcp_msg Q, R;
static pid_t upf_pid = -1;
static int smf = -1, stranger = -1;
static uint32_t hb_answered;    /* the UPF's Heartbeat Requests we answered */

static uint32_t ip(const char *s)
{
	struct in_addr a;

	assert_int_equal(inet_pton(AF_INET, s, &a), 1);
	return a.s_addr;
}

static void conf(unsigned max_sessions, const char *more)
{
	FILE *f = fopen(conf_path, "w");

	assert_non_null(f);
	fprintf(f, "dnns:\n  - { name: internet, pool: 172.16.0.0/16 }\n"
		   "upf:\n  n3_interface: n3\n  n6_interface: n6\n  n4_address: " UPF_IP "\n"
		   "  xdp_mode: generic\n  max_sessions: %u\n%s", max_sessions, more);
	fclose(f);
}

static void send_q(int fd)
{
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(PFCP_PORT), .sin_addr.s_addr = ip(UPF_IP) };
	uint8_t b[2048];
	int n = pfcp_encode(&Q, b, sizeof(b));

	assert_true(n > 0);
	assert_int_equal(sendto(fd, b, (size_t)n, 0, (struct sockaddr *)&to, sizeof(to)), n);
}

/* The next datagram on fd that answers seq, decoded into R (raw bytes too); the UPF's own
 * Heartbeat Requests met on the way are answered with the SMF's Recovery Time Stamp, as an
 * SMF that is alive does (TS 29.244 7.4.2). 1, or 0 when none within wait_ms. */
static int recv_for(int fd, uint32_t seq, int wait_ms, uint8_t *raw, size_t *rawlen)
{
	static struct pfcp_msg hb;
	uint8_t b[2048];

	while (tn_wait_readable(fd, wait_ms)) {
		struct sockaddr_in from;
		socklen_t fl = sizeof(from);
		ssize_t n = recvfrom(fd, b, sizeof(b), 0, (struct sockaddr *)&from, &fl);

		assert_true(n > 0);
		assert_true(pfcp_decode(b, (size_t)n, &R, NULL) > 0);
		if (R.h.type == PFCP_HEARTBEAT_REQ) {
			memset(&hb, 0, sizeof(hb));
			hb.h.type = PFCP_HEARTBEAT_RSP;
			hb.h.seq = R.h.seq;
			hb.node.has = PFCP_N_RECOVERY;
			hb.node.recovery = SMF_REC;
			n = pfcp_encode(&hb, b, sizeof(b));
			assert_true(n > 0);
			assert_int_equal(sendto(fd, b, (size_t)n, 0, (struct sockaddr *)&from, fl), n);
			hb_answered++;
			continue;
		}
		if (R.h.seq != seq)
			continue;
		if (raw) {
			memcpy(raw, b, (size_t)n);
			*rawlen = (size_t)n;
		}
		return 1;
	}
	return 0;
}

static int xchg(int fd, int wait_ms)
{
	send_q(fd);
	return recv_for(fd, Q.h.seq, wait_ms, NULL, NULL);
}

static void node_msg(uint8_t type, uint32_t seq, const char *node, uint32_t recovery)
{
	memset(&Q, 0, sizeof(Q));
	Q.h.type = type;
	Q.h.seq = seq;
	Q.node.has = (node ? PFCP_N_NODE_ID : 0) | (recovery ? PFCP_N_RECOVERY : 0);
	Q.node.node_id.type = PFCP_NODE_IPV4;
	if (node)
		memcpy(Q.node.node_id.addr, &(uint32_t){ ip(node) }, 4);
	Q.node.recovery = recovery;
}

/* Association Setup (7.4.4.1) from fd with this Node ID: the cause, 0 without an answer */
static int setup_assoc(int fd, uint32_t seq, const char *node, uint32_t recovery)
{
	node_msg(PFCP_ASSOC_SETUP_REQ, seq, node, recovery);
	return xchg(fd, 1000) ? R.node.cause : 0;
}

static int bind_or_fail(const char *a, uint16_t port)
{
	int fd = tn_udp_bind(ip(a), port);

	assert_true(fd >= 0);
	return fd;
}

/* solocore upf with conf_path, up when it answers a heartbeat (a readiness wait) */
static void start(void)
{
	int up = 0;

	upf_pid = fork();
	assert_true(upf_pid >= 0);
	if (upf_pid == 0) {
		if (!freopen(log_path, "w", stderr) || !freopen(log_path, "a", stdout))
			_exit(127);
		execl(solocore, solocore, "upf", "-c", conf_path, (char *)NULL);
		_exit(127);
	}
	smf = bind_or_fail(SMF_IP, PFCP_PORT);
	stranger = bind_or_fail(STRANGER_IP, PFCP_PORT);
	for (uint32_t i = 1; i <= 200 && !up; i++) {
		node_msg(PFCP_HEARTBEAT_REQ, i, NULL, SMF_REC);
		up = xchg(smf, 50);
	}
	if (!up)
		fail_msg("solocore upf did not answer a heartbeat; its log: %s", log_path);
}

/* SIGTERM; its exit status 0; then its log holds the N4 counters (upf_alone.c n4_stop) */
static void stop(void)
{
	int status;

	assert_int_equal(kill(upf_pid, SIGTERM), 0);
	assert_int_equal(waitpid(upf_pid, &status, 0), upf_pid);
	upf_pid = -1;
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* The value of counter name in the stopped UPF's log (0: not logged) */
static unsigned long long counter(const char *name)
{
	char line[256], key[96];
	unsigned long long v = 0;
	FILE *f = fopen(log_path, "r");

	assert_non_null(f);
	snprintf(key, sizeof(key), "upf-n4: counter %s ", name);
	while (fgets(line, sizeof(line), f)) {
		char *p = strstr(line, key);

		if (p)
			v = strtoull(p + strlen(key), NULL, 10);
	}
	fclose(f);
	return v;
}

static int teardown(void **state)
{
	(void)state;
	if (upf_pid > 0) {   /* a failed test: never leave the process behind */
		kill(upf_pid, SIGKILL);
		waitpid(upf_pid, NULL, 0);
		upf_pid = -1;
	}
	if (smf >= 0)
		close(smf);
	if (stranger >= 0)
		close(stranger);
	smf = stranger = -1;
	hb_answered = 0;
	return 0;
}

/* Session Establishment Request (7.5.2) as test_upf_alone's: CHOOSE F-TEID, UE ue, CP
 * SEID cp_seid, the sender's Node ID node */
static void est_msg(uint32_t seq, const char *node, uint64_t cp_seid, uint32_t ue)
{
	struct pfcp_sess_est_req *e = &Q.est;
	uint32_t a = ip(node);

	memset(&Q, 0, sizeof(Q));
	Q.h.type = PFCP_SESS_EST_REQ;
	Q.h.seq = seq;
	e->has = PFCP_SER_NODE_ID | PFCP_SER_F_SEID | PFCP_SER_PDR | PFCP_SER_FAR;
	e->node_id.type = PFCP_NODE_IPV4;
	memcpy(e->node_id.addr, &a, 4);
	e->cp_fseid = (struct pfcp_fseid){ .flags = PFCP_ADDR_V4, .seid = cp_seid };
	memcpy(e->cp_fseid.ipv4, &a, 4);
	e->n_pdr = 2;
	e->pdr[0] = (struct pfcp_pdr){ .has = PFCP_PDR_ID | PFCP_PDR_PRECEDENCE | PFCP_PDR_PDI | PFCP_PDR_OHR |
					       PFCP_PDR_FAR_ID,
				       .pdr_id = 1, .far_id = 1,
				       .pdi = { .has = PFCP_PDI_SRC_IF | PFCP_PDI_F_TEID, .src_if = PFCP_IF_ACCESS,
						.fteid = { .flags = PFCP_FTEID_CH | PFCP_FTEID_V4 } } };
	e->pdr[1] = (struct pfcp_pdr){ .has = PFCP_PDR_ID | PFCP_PDR_PRECEDENCE | PFCP_PDR_PDI | PFCP_PDR_FAR_ID,
				       .pdr_id = 2, .far_id = 2,
				       .pdi = { .has = PFCP_PDI_SRC_IF | PFCP_PDI_UE_IP, .src_if = PFCP_IF_CORE,
						.ue_ip = { .flags = PFCP_UEIP_V4 | PFCP_UEIP_SD } } };
	memcpy(e->pdr[1].pdi.ue_ip.ipv4, &ue, 4);
	e->n_far = 2;
	e->far[0] = (struct pfcp_far){ .has = PFCP_FAR_ID | PFCP_FAR_APPLY, .far_id = 1, .apply = PFCP_AA_FORW };
	e->far[1] = (struct pfcp_far){ .has = PFCP_FAR_ID | PFCP_FAR_APPLY, .far_id = 2,
				       .apply = PFCP_AA_BUFF | PFCP_AA_NOCP };
}

static uint32_t ue(unsigned k)
{
	return htonl(ntohl(ip("172.16.0.10")) + k);
}

/* An establishment from fd: the cause; *seid / *teid the UP F-SEID and Created PDR's TEID */
static int establish(int fd, uint32_t seq, const char *node, unsigned k, uint64_t *seid, uint32_t *teid)
{
	est_msg(seq, node, 0x1000 + k, ue(k));
	assert_true(xchg(fd, 1000));
	assert_int_equal(R.h.type, PFCP_SESS_EST_RSP);
	if (R.rsp.cause == PFCP_CAUSE_ACCEPTED) {
		if (seid)
			*seid = R.rsp.up_fseid.seid;
		if (teid)
			*teid = R.rsp.created[0].fteid.teid;
	}
	return R.rsp.cause;
}

/* Session Deletion (7.5.6) of seid from fd: the cause */
static int delete(int fd, uint32_t seq, uint64_t seid)
{
	memset(&Q, 0, sizeof(Q));
	Q.h.type = PFCP_SESS_DEL_REQ;
	Q.h.seid = seid;
	Q.h.seq = seq;
	assert_true(xchg(fd, 1000));
	assert_int_equal(R.h.type, PFCP_SESS_DEL_RSP);
	return R.rsp.cause;
}

/* Issue 31 point 2: Association Setup, Update and Release carry a Node ID anyone can copy.
 * Before, a stranger's Setup with the SMF's Node ID replaced the association (6.2.6.2.2
 * "overwrite") and purged its sessions. Now the association is bound to the address its
 * Setup came from: a Setup from elsewhere gets Cause 64 "Request rejected" and changes
 * nothing; Update / Release / session messages from elsewhere get Cause 72 (6.2.6.1). */
static void t_setup_hijack(void **state)
{
	uint64_t seid;

	(void)state;
	conf(1024, "");
	start();
	assert_int_equal(setup_assoc(smf, 10, SMF_IP, SMF_REC), PFCP_CAUSE_ACCEPTED);
	assert_int_equal(establish(smf, 11, SMF_IP, 0, &seid, NULL), PFCP_CAUSE_ACCEPTED);

	assert_int_equal(setup_assoc(stranger, 1, SMF_IP, SMF_REC + 1), PFCP_CAUSE_REJECTED);
	node_msg(PFCP_ASSOC_UPDATE_REQ, 2, SMF_IP, 0);
	assert_true(xchg(stranger, 1000));
	assert_int_equal(R.node.cause, PFCP_CAUSE_NO_ASSOCIATION);
	node_msg(PFCP_ASSOC_RELEASE_REQ, 3, SMF_IP, 0);
	assert_true(xchg(stranger, 1000));
	assert_int_equal(R.node.cause, PFCP_CAUSE_NO_ASSOCIATION);
	assert_int_equal(delete(stranger, 4, seid), PFCP_CAUSE_NO_ASSOCIATION);
	/* an establishment naming the SMF's Node ID, from the stranger: no session for it */
	est_msg(5, SMF_IP, 0x66, ue(1));
	assert_true(xchg(stranger, 1000));
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_NO_ASSOCIATION);

	/* the SMF's association and session are as they were */
	assert_int_equal(delete(smf, 12, seid), PFCP_CAUSE_ACCEPTED);
	stop();
	assert_int_equal(counter("sess_purged"), 0);
	assert_int_equal(counter("assoc_refused"), 1);
	assert_int_equal(counter("rx_foreign"), 4);
}

/* Issue 31 point 4 (TS 29.244 6.2.2, TS 23.007 19A): a Heartbeat Request with a new Recovery
 * Time Stamp from the SMF's address, forged (here from the SMF's IP on another port, which
 * is what a forged UDP source looks like to the UPF). Before, it purged the SMF's sessions.
 * Now the UPF asks the SMF with a heartbeat of its own (a random sequence number the forger
 * does not see); the SMF answers with its real stamp: nothing is purged. */
static void t_heartbeat_spoof(void **state)
{
	uint64_t seid;
	int forger;

	(void)state;
	conf(1024, "");
	start();
	forger = bind_or_fail(SMF_IP, 40000);
	assert_int_equal(setup_assoc(smf, 10, SMF_IP, SMF_REC), PFCP_CAUSE_ACCEPTED);
	assert_int_equal(establish(smf, 11, SMF_IP, 0, &seid, NULL), PFCP_CAUSE_ACCEPTED);

	node_msg(PFCP_HEARTBEAT_REQ, 7, NULL, SMF_REC + 5);
	assert_true(xchg(forger, 1000));
	assert_int_equal(R.h.type, PFCP_HEARTBEAT_RSP);
	/* and from a stranger's address: never anyone's restart */
	node_msg(PFCP_HEARTBEAT_REQ, 8, NULL, SMF_REC + 6);
	assert_true(xchg(stranger, 1000));
	close(forger);

	/* the SMF (answering the UPF's heartbeat on the way) still has its session */
	assert_int_equal(delete(smf, 12, seid), PFCP_CAUSE_ACCEPTED);
	assert_int_equal(hb_answered, 1);
	stop();
	assert_int_equal(counter("sess_purged"), 0);
	assert_int_equal(counter("restart_unconfirmed"), 1);
}

/* 17 setups, each from its own address (127.0.1.x), with their own Node IDs */
static int strangers_setup(int fds[17], unsigned n, int wait_ms)
{
	int answered = 0;

	for (unsigned i = 0; i < n; i++) {
		char a[32];

		snprintf(a, sizeof(a), "127.0.1.%u", 10 + i);
		fds[i] = bind_or_fail(a, PFCP_PORT);
		node_msg(PFCP_ASSOC_SETUP_REQ, 1, a, SMF_REC);
		send_q(fds[i]);
		if (recv_for(fds[i], 1, wait_ms, NULL, NULL)) {
			answered++;
			assert_int_equal(R.node.cause, PFCP_CAUSE_ACCEPTED);
		}
	}
	return answered;
}

/* Issue 31 point 4, table fill: upf.n4_peers lets only the SMF in; the strangers' setups are
 * dropped undecoded (and counted) and the SMF associates. */
static void t_slot_fill_allow(void **state)
{
	int fds[17];

	(void)state;
	conf(1024, "  n4_peers: [\"" SMF_IP "\", \"10.9.0.0/16\"]\n");
	start();
	assert_int_equal(strangers_setup(fds, 17, 100), 0);
	for (unsigned i = 0; i < 17; i++)
		close(fds[i]);
	assert_int_equal(setup_assoc(smf, 10, SMF_IP, SMF_REC), PFCP_CAUSE_ACCEPTED);
	stop();
	assert_int_equal(counter("rx_not_allowed"), 17);
	assert_int_equal(counter("assoc_setup"), 1);
}

/* Issue 31 point 4, table fill without an allow-list: 16 strangers' setups take every slot
 * and never answer a heartbeat. Before, the slots were held for ever and the SMF got Cause 75
 * until a restart. Now heartbeat loss (heartbeat_interval, then pfcp_n1 retransmissions after
 * pfcp_t1) plus n4_release_timer releases them, and the SMF's setup, retried, is accepted. */
static void t_slot_fill_expiry(void **state)
{
	int fds[17], cause = 0;

	(void)state;
	conf(1024, "  heartbeat_interval: 200\n  pfcp_t1: 100\n  pfcp_n1: 1\n  n4_release_timer: 100\n");
	start();
	assert_int_equal(strangers_setup(fds, 16, 1000), 16);
	assert_int_equal(setup_assoc(smf, 10, SMF_IP, SMF_REC), PFCP_CAUSE_NO_RESOURCES);
	/* retried as an SMF does (every heartbeat period); a bound on the wait, not a measurement */
	for (uint32_t seq = 11; seq < 111 && cause != PFCP_CAUSE_ACCEPTED; seq++) {
		usleep(200 * 1000);
		cause = setup_assoc(smf, seq, SMF_IP, SMF_REC);
	}
	assert_int_equal(cause, PFCP_CAUSE_ACCEPTED);
	for (unsigned i = 0; i < 16; i++)
		close(fds[i]);
	stop();
	assert_int_equal(counter("assoc_expired"), 16);
}

/* Issue 31 point 4, session quota (TS 29.244 8.2.1 cause 75): max_sessions 64, so one
 * association holds at most 32 (n4_sessions_per_peer 0: half). Before, a stranger's
 * association took all 64 and the SMF got Cause 75. */
static void t_session_quota(void **state)
{
	unsigned k, taken = 0;
	int cause = PFCP_CAUSE_ACCEPTED;

	(void)state;
	conf(64, "");
	start();
	assert_int_equal(setup_assoc(stranger, 1, STRANGER_IP, SMF_REC), PFCP_CAUSE_ACCEPTED);
	for (k = 0; k < 64 && cause == PFCP_CAUSE_ACCEPTED; k++)
		if ((cause = establish(stranger, 2 + k, STRANGER_IP, k, NULL, NULL)) == PFCP_CAUSE_ACCEPTED)
			taken++;
	assert_int_equal(cause, PFCP_CAUSE_NO_RESOURCES);
	assert_int_equal(taken, 32);
	assert_int_equal(setup_assoc(smf, 10, SMF_IP, SMF_REC), PFCP_CAUSE_ACCEPTED);
	assert_int_equal(establish(smf, 11, SMF_IP, 100, NULL, NULL), PFCP_CAUSE_ACCEPTED);
	stop();
	assert_int_equal(counter("sess_quota"), 1);
}

/* Issue 31 point 4, duplicate cache (TS 29.244 6.4): the SMF's Establishment, then 2,000
 * heartbeats and 2,000 session requests of another peer, then the Establishment again (the
 * same bytes and sequence number: a retransmission after a lost answer). Before, the 1,024
 * shared entries were overwritten, the retransmission was executed again and refused (the
 * UE address is the first session's). Now it gets the saved answer, byte for byte, and
 * there is one session. */
static void t_dup_flush(void **state)
{
	uint8_t first[2048], again[2048];
	size_t l1 = 0, l2 = 0;

	(void)state;
	conf(1024, "");
	start();
	assert_int_equal(setup_assoc(smf, 10, SMF_IP, SMF_REC), PFCP_CAUSE_ACCEPTED);
	assert_int_equal(setup_assoc(stranger, 1, STRANGER_IP, SMF_REC), PFCP_CAUSE_ACCEPTED);
	est_msg(5000, SMF_IP, 0x4242, ue(0));
	send_q(smf);
	assert_true(recv_for(smf, 5000, 1000, first, &l1));
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	for (uint32_t i = 0; i < 2000; i++) {
		node_msg(PFCP_HEARTBEAT_REQ, 100 + i, NULL, SMF_REC);
		assert_true(xchg(stranger, 1000));
	}
	for (uint32_t i = 0; i < 2000; i++)
		assert_int_equal(delete(stranger, 3000 + i, 0x100000001ull + i), PFCP_CAUSE_SESSION_NOT_FOUND);
	est_msg(5000, SMF_IP, 0x4242, ue(0));
	send_q(smf);
	assert_true(recv_for(smf, 5000, 1000, again, &l2));
	assert_int_equal(l1, l2);
	assert_memory_equal(first, again, l1);
	stop();
	assert_int_equal(counter("sess_established"), 1);
	assert_int_equal(counter("rx_duplicate"), 1);
}

/* Issue 31 point 4 (TS 29.244 5.5.3.1: the UP function allocates the F-TEID): 1,000 UP SEIDs
 * and CHOOSE TEIDs. Before: SEID 1<<32 | (slot + 1) and TEID slot + 1, each one more than the
 * last. Now: unique; no two consecutive SEIDs differ by 1; TEIDs are random in 1..max_teid
 * (the data path's uplink array, 4096 here), so a +1 step between two consecutive ones has
 * odds 1/4096: fewer than 10 of 999 (the old code: 999). */
static void t_random_ids(void **state)
{
	static uint64_t seid[1000];
	static uint32_t teid[1000];
	static uint8_t seen[4097];
	unsigned steps = 0;

	(void)state;
	conf(4096, "  n4_sessions_per_peer: 4096\n");
	start();
	assert_int_equal(setup_assoc(smf, 10, SMF_IP, SMF_REC), PFCP_CAUSE_ACCEPTED);
	for (unsigned k = 0; k < 1000; k++) {
		assert_int_equal(establish(smf, 100 + k, SMF_IP, k, &seid[k], &teid[k]), PFCP_CAUSE_ACCEPTED);
		assert_in_range(teid[k], 1, 4096);
		assert_int_equal(seen[teid[k]], 0);
		seen[teid[k]] = 1;
		assert_true(seid[k] != 0);
		if (k) {
			assert_true(seid[k] - seid[k - 1] != 1 && seid[k - 1] - seid[k] != 1);
			steps += teid[k] == teid[k - 1] + 1;
		}
	}
	for (unsigned k = 0; k < 1000; k++)
		for (unsigned j = k + 1; j < k + 8 && j < 1000; j++)
			assert_true(seid[k] != seid[j]);
	assert_true(steps < 10);
	stop();
}

/* ---- the SMF's own N4 client (upf/upf_n4c.c) against solocore upf ---- */

static int c_up, c_lost[4];

static void c_on_state(void *arg, bool up)
{
	(void)arg;
	c_up += up;
}

static void c_on_dl(void *arg, uint32_t id)
{
	(void)arg;
	(void)id;
}

static struct upf *P;

static void c_on_lost(void *arg, uint32_t id, enum upf_lost_reason why)
{
	(void)arg;
	c_lost[why]++;
	assert_int_equal(upf_session_remove(P, id), 0);   /* as the SMF does */
}

static uint64_t ccnt(struct upf_n4c *c, unsigned idx)
{
	uint64_t v[UPF_N4C__MAX];

	assert_int_equal(upf_n4c_counters_get(c, v, UPF_N4C__MAX), 0);
	return v[idx];
}

/* Run the client's loop until cond (checked every turn) or about ms */
#define PUMP_UNTIL(L, ms, cond) \
	for (int t_ = 0; t_ < (ms) / 5 && !(cond); t_++) \
		ev_run_once(L, 5)

static int c_create(unsigned k)
{
	struct upf_session_rule r = {
		.ul_teid = 100 + k, .ue_addr = ue(k), .gnb_addr = ip("192.0.2.2"), .gnb_teid = 0x1000 + k,
		.qfi = 9, .ambr_ul_bps = 50000000, .ambr_dl_bps = 100000000, .dl_state = UPF_DL_ACTIVE,
	};

	return upf_session_create(P, k, &r);
}

/* Issue 31 point 2 (TS 29.244 6.2.6.1, 8.2.1): the UPF's association with the SMF goes
 * without the SMF hearing of it (here: a Release Request from the SMF's IP but another port,
 * accepted by the UPF, its answer to that port). The next request gets Cause 72. Before, the
 * client stayed "associated" and refused every PDU session (#26 to the UE) until a restart;
 * now it sets the association up again, sends that establishment again, and the next
 * session is established too. */
static void t_smf_cause72(void **state)
{
	struct upf_n4c_params cp = {
		.addr = ip(SMF_IP), .max_sessions = 64, .heartbeat_ms = 1000, .t1_ms = 200, .n1 = 2,
		.recovery_ts = SMF_REC,
	};
	struct upf_n4c_peer pp = {
		.name = "upf", .addr = ip(UPF_IP), .n3_addr = ip(N3), .on_dl_data = c_on_dl,
		.on_session_lost = c_on_lost, .on_state = c_on_state,
	};
	struct upf_n4c *c;
	struct ev_loop *L;
	int err, other;

	(void)state;
	conf(1024, "");   /* the SMF's own TEIDs (100 + k) within the UPF's max_teid */
	start();
	close(smf);   /* the client takes 127.0.0.2:8805 */
	smf = -1;
	c_up = 0;
	memset(c_lost, 0, sizeof(c_lost));
	L = ev_loop_new(&err);
	assert_non_null(L);
	cp.loop = L;
	assert_int_equal(upf_n4c_open(&cp, &c), 0);
	assert_int_equal(upf_n4c_peer_add(c, &pp, &P), 0);
	PUMP_UNTIL(L, 3000, upf_ready(P));
	assert_true(upf_ready(P));
	assert_int_equal(c_create(0), 0);
	PUMP_UNTIL(L, 3000, ccnt(c, UPF_N4C_EST_OK) == 1);
	assert_int_equal(ccnt(c, UPF_N4C_EST_OK), 1);

	other = bind_or_fail(SMF_IP, 40000);
	node_msg(PFCP_ASSOC_RELEASE_REQ, 9, SMF_IP, 0);
	assert_true(xchg(other, 1000));
	assert_int_equal(R.node.cause, PFCP_CAUSE_ACCEPTED);
	close(other);

	assert_int_equal(c_create(1), 0);          /* answered with Cause 72, then sent again */
	PUMP_UNTIL(L, 3000, ccnt(c, UPF_N4C_EST_OK) == 2);
	assert_int_equal(c_up, 2);
	assert_int_equal(ccnt(c, UPF_N4C_PEER_LOST), 1);
	assert_int_equal(c_lost[UPF_LOST_PEER], 1);     /* session 0: purged with the association */
	assert_int_equal(c_lost[UPF_LOST_REFUSED], 0);
	assert_int_equal(ccnt(c, UPF_N4C_EST_OK), 2);
	assert_int_equal(c_create(2), 0);          /* the next PDU session */
	PUMP_UNTIL(L, 3000, ccnt(c, UPF_N4C_EST_OK) == 3);
	assert_int_equal(ccnt(c, UPF_N4C_EST_OK), 3);
	upf_n4c_close(c);
	ev_loop_free(L);
	P = NULL;
	stop();
	assert_int_equal(counter("no_association"), 1);
}

int main(int argc, char **argv)
{
	int rc = tn_require_root_bpf("upf_n4_adv");
	int n3, n6;

	if (rc)
		return rc;
	if (argc < 3) {
		fprintf(stderr, "usage: test_upf_n4_adv SOLOCORE BUILDDIR\n");
		return 1;
	}
	solocore = argv[1];
	dir = argv[2];
	snprintf(conf_path, sizeof(conf_path), "%s/upf_n4_adv.yaml", dir);
	snprintf(log_path, sizeof(log_path), "%s/upf_n4_adv.log", dir);
	if (tn_unshare_net() || tn_fib_setup(&n3, &n6)) {
		fprintf(stderr, "network namespace setup failed\n");
		return 1;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(t_setup_hijack, teardown),
		cmocka_unit_test_teardown(t_heartbeat_spoof, teardown),
		cmocka_unit_test_teardown(t_slot_fill_allow, teardown),
		cmocka_unit_test_teardown(t_slot_fill_expiry, teardown),
		cmocka_unit_test_teardown(t_session_quota, teardown),
		cmocka_unit_test_teardown(t_dup_flush, teardown),
		cmocka_unit_test_teardown(t_random_ids, teardown),
		cmocka_unit_test_teardown(t_smf_cause72, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
