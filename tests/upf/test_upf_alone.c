/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * `solocore upf -c FILE` as a process (issue 18 item 2): in a private network
 * namespace with the veths of tests/upf/netns.h (n3 192.0.2.1, n6
 * 198.51.100.1), generic XDP, PFCP on 127.0.0.1:8805, a PFCP client on
 * 127.0.0.2:8805. The binary comes up, answers Heartbeat and Association
 * Setup (TS 29.244 7.4.2, 7.4.4), installs a session (7.5.2) and reports its
 * allocated TEID, stops on SIGTERM with exit 0 and its XDP program detached;
 * `config check` names file:line of a bad upf.n4_address.
 * dist/solocore-upf.yaml passes `config check`. With dnns[].pool6, upf.n3_address6 and a DNN
 * with nat (the UPF box's own configuration, upf_alone.c): an IPv4v6 session gets its F-TEID
 * on both N3 addresses (TS 29.244 8.2.3) and its /64 accepted, a /64 outside pool6 refused;
 * pool6s that no /44 covers, or a NAT DNN without an IPv4 for it, stop `solocore upf` with
 * the reason.
 * Needs root; skips with 77 otherwise. argv: solocore path, build directory, the example file.
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

#include "common/pfcp/pfcp.h"
#include "netns.h"

static const char *solocore, *dir, *example;
static char conf_path[512], log_path[512];
static struct pfcp_msg Q, R;

static uint32_t ip(const char *s)
{
	struct in_addr a;

	assert_int_equal(inet_pton(AF_INET, s, &a), 1);
	return a.s_addr;
}

static void write_conf6(const char *path, const char *n4, const char *dnns, const char *upf)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fprintf(f, "dnns:\n%s"
		   "upf:\n  n3_interface: n3\n  n6_interface: n6\n  n4_address: %s\n"
		   "  xdp_mode: generic\n  max_sessions: 1024\n%s", dnns, n4, upf);
	fclose(f);
}

static void write_conf(const char *path, const char *n4)
{
	write_conf6(path, n4, "  - name: internet\n    pool: 172.16.0.0/16\n", "");
}

/* Q to the server from cli, the answer (if any within wait_ms) in R: 1, or 0 */
static int xchg(int cli, int wait_ms)
{
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(PFCP_PORT),
				  .sin_addr.s_addr = ip("127.0.0.1") };
	uint8_t b[2048];
	int n = pfcp_encode(&Q, b, sizeof(b));

	assert_true(n > 0);
	assert_int_equal(sendto(cli, b, (size_t)n, 0, (struct sockaddr *)&to, sizeof(to)), n);
	if (!tn_wait_readable(cli, wait_ms))
		return 0;
	n = (int)recv(cli, b, sizeof(b), 0);
	assert_true(pfcp_decode(b, (size_t)n, &R, NULL) > 0);
	assert_int_equal(R.h.seq, Q.h.seq);
	return 1;
}

static void heartbeat(uint32_t seq)
{
	memset(&Q, 0, sizeof(Q));
	Q.h.type = PFCP_HEARTBEAT_REQ;
	Q.h.seq = seq;
	Q.node.has = PFCP_N_RECOVERY;
	Q.node.recovery = 3900000000u;
}

static void est_req(void)
{
	struct pfcp_sess_est_req *e = &Q.est;
	uint32_t a = ip("127.0.0.2"), ue = ip("172.16.0.9");

	memset(&Q, 0, sizeof(Q));
	Q.h.type = PFCP_SESS_EST_REQ;
	Q.h.seq = 3;
	e->has = PFCP_SER_NODE_ID | PFCP_SER_F_SEID | PFCP_SER_PDR | PFCP_SER_FAR;
	e->node_id.type = PFCP_NODE_IPV4;
	memcpy(e->node_id.addr, &a, 4);
	e->cp_fseid = (struct pfcp_fseid){ .flags = PFCP_ADDR_V4, .seid = 42 };
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

static pid_t start(void)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		if (!freopen(log_path, "w", stderr) || !freopen(log_path, "a", stdout))
			_exit(127);
		execl(solocore, solocore, "upf", "-c", conf_path, (char *)NULL);
		_exit(127);
	}
	return pid;
}

/* Heartbeats until the first answer, then the association (7.4.2, 7.4.4) */
static int associate(void)
{
	int cli = tn_udp_bind(ip("127.0.0.2"), PFCP_PORT), up = 0;

	assert_true(cli >= 0);
	for (uint32_t i = 1; i <= 100 && !up; i++) {   /* a readiness wait, not a measurement */
		heartbeat(i);
		up = xchg(cli, 100);
	}
	assert_true(up);
	memset(&Q, 0, sizeof(Q));
	Q.h.type = PFCP_ASSOC_SETUP_REQ;
	Q.h.seq = 1000;
	Q.node.has = PFCP_N_NODE_ID | PFCP_N_RECOVERY;
	Q.node.node_id.type = PFCP_NODE_IPV4;
	memcpy(Q.node.node_id.addr, &(uint32_t){ ip("127.0.0.2") }, 4);
	Q.node.recovery = 3900000000u;
	assert_true(xchg(cli, 2000));
	assert_int_equal(R.node.cause, PFCP_CAUSE_ACCEPTED);
	return cli;
}

static void stop(pid_t pid)
{
	int status;

	assert_int_equal(kill(pid, SIGTERM), 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* The UPF box's IPv6 and NAT configuration reaches its PFCP server (upf_alone.c) */
static void t_process6(void **state)
{
	uint8_t n36[16], pfx[16];
	pid_t pid;
	int cli;

	(void)state;
	assert_int_equal(tn_sh("ip -6 addr add 2001:db8:3::1/64 dev n3 nodad"), 0);
	write_conf6(conf_path, "127.0.0.1",
		    "  - { name: internet, pool: 172.16.0.0/17, pool6: \"2001:db8:100::/48\" }\n"
		    "  - { name: nat, pool: 172.16.128.0/17, nat: true }\n",
		    "  n3_address6: \"2001:db8:3::1\"\n");
	pid = start();
	cli = associate();
	assert_int_equal(inet_pton(AF_INET6, "2001:db8:3::1", n36), 1);
	assert_int_equal(inet_pton(AF_INET6, "2001:db8:100:7::", pfx), 1);
	est_req();
	Q.est.pdr[0].pdi.fteid.flags = PFCP_FTEID_CH | PFCP_FTEID_V4 | PFCP_FTEID_V6;
	Q.est.pdr[1].pdi.ue_ip.flags |= PFCP_UEIP_V6;
	memcpy(Q.est.pdr[1].pdi.ue_ip.ipv6, pfx, 16);
	assert_true(xchg(cli, 2000));
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	assert_int_equal(R.rsp.created[0].fteid.flags, PFCP_FTEID_V4 | PFCP_FTEID_V6);
	assert_memory_equal(R.rsp.created[0].fteid.ipv6, n36, 16);
	/* a /64 outside pool6: refused (cause 73, UE IP Address) */
	est_req();
	Q.h.seq = 4;
	Q.est.cp_fseid.seid = 43;
	memcpy(Q.est.pdr[1].pdi.ue_ip.ipv4, &(uint32_t){ ip("172.16.0.10") }, 4);
	Q.est.pdr[1].pdi.ue_ip.flags |= PFCP_UEIP_V6;
	pfx[2] = 0x0e;
	memcpy(Q.est.pdr[1].pdi.ue_ip.ipv6, pfx, 16);
	assert_true(xchg(cli, 2000));
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_RULE_FAILURE);
	assert_int_equal(R.rsp.offending_ie, PFCP_IE_UE_IP_ADDRESS);
	/* a session of the NAT DNN (by its pool): accepted, the data path has nat_addr */
	est_req();
	Q.h.seq = 5;
	Q.est.cp_fseid.seid = 44;
	memcpy(Q.est.pdr[1].pdi.ue_ip.ipv4, &(uint32_t){ ip("172.16.128.10") }, 4);
	assert_true(xchg(cli, 2000));
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	stop(pid);
	close(cli);
	assert_int_equal(tn_sh("ip -6 addr del 2001:db8:3::1/64 dev n3"), 0);
	/* pool6s that no /44 covers: solocore upf stops, saying why */
	write_conf6(conf_path, "127.0.0.1",
		    "  - { name: a, pool: 172.16.0.0/17, pool6: \"2001:db8:100::/48\" }\n"
		    "  - { name: b, pool: 172.16.128.0/17, pool6: \"2001:db9:100::/48\" }\n", "");
	assert_int_equal(tn_sh("%s upf -c %s >%s 2>&1", solocore, conf_path, log_path), 1);
	assert_int_equal(tn_sh("grep -q 'pool6s must lie within one /44' %s", log_path), 0);
	/* a NAT DNN, no upf.nat_address and an N6 interface without IPv4: stops, saying why */
	assert_int_equal(tn_sh("ip link add nonat type veth peer name nonatp && ip link set nonat up"), 0);
	write_conf6(conf_path, "127.0.0.1", "  - { name: nat, pool: 172.16.0.0/16, nat: true }\n", "");
	assert_int_equal(tn_sh("sed -i 's/n6_interface: n6/n6_interface: nonat/' %s", conf_path), 0);
	assert_int_equal(tn_sh("%s upf -c %s >%s 2>&1", solocore, conf_path, log_path), 1);
	assert_int_equal(tn_sh("grep -q 'dnns.0..nat: no IPv4 on nonat for the NAT' %s", log_path), 0);
	assert_int_equal(tn_sh("ip link del nonat"), 0);
}

/* TS 29.244 7.4.2, 7.4.4, 7.5.2 against the running binary; SIGTERM: exit 0 */
static void t_process(void **state)
{
	int cli, status, up = 0;
	pid_t pid;

	(void)state;
	write_conf(conf_path, "127.0.0.1");
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (!freopen(log_path, "w", stderr) || !freopen(log_path, "a", stdout))
			_exit(127);
		execl(solocore, solocore, "upf", "-c", conf_path, (char *)NULL);
		_exit(127);
	}
	cli = tn_udp_bind(ip("127.0.0.2"), PFCP_PORT);
	assert_true(cli >= 0);
	/* Start-up (loading the XDP program) takes a moment: retry until the
	 * first answer; a readiness wait, not a measurement. */
	for (uint32_t i = 1; i <= 100 && !up; i++) {
		heartbeat(i);
		up = xchg(cli, 100);
	}
	assert_true(up);
	assert_int_equal(R.h.type, PFCP_HEARTBEAT_RSP);
	assert_true(R.node.has & PFCP_N_RECOVERY);

	memset(&Q, 0, sizeof(Q));
	Q.h.type = PFCP_ASSOC_SETUP_REQ;
	Q.h.seq = 1000;
	Q.node.has = PFCP_N_NODE_ID | PFCP_N_RECOVERY;
	Q.node.node_id.type = PFCP_NODE_IPV4;
	memcpy(Q.node.node_id.addr, &(uint32_t){ ip("127.0.0.2") }, 4);
	Q.node.recovery = 3900000000u;
	assert_true(xchg(cli, 2000));
	assert_int_equal(R.node.cause, PFCP_CAUSE_ACCEPTED);
	assert_memory_equal(R.node.node_id.addr, &(uint32_t){ ip("127.0.0.1") }, 4);

	est_req();
	assert_true(xchg(cli, 2000));
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	assert_int_equal(R.h.seid, 42);
	assert_int_equal(R.rsp.n_created, 1);
	/* issue 31 point 6: a random TEID in the data path's range (max_sessions 1024) */
	assert_in_range(R.rsp.created[0].fteid.teid, 1, 1024);
	assert_memory_equal(R.rsp.created[0].fteid.ipv4, &(uint32_t){ ip("192.0.2.1") }, 4);
	/* The program is attached to both interfaces while it runs */
	assert_int_equal(tn_sh("ip link show n3 | grep -q xdp && ip link show n6 | grep -q xdp"), 0);

	assert_int_equal(kill(pid, SIGTERM), 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(tn_sh("ip link show n3 | grep -q xdp"), 1);   /* detached */
	close(cli);
}

/* common/conf: a bad upf.n4_address stops `config check` and `upf` with file:line */
static void t_bad_conf(void **state)
{
	char path[300];

	(void)state;
	snprintf(path, sizeof(path), "%s/upf_alone_bad.yaml", dir);
	write_conf(path, "not-an-address");
	assert_int_equal(tn_sh("%s config check -c %s 2>&1 | grep -q '%s:7:.*upf.n4_address'", solocore, path, path), 0);
	assert_int_equal(tn_sh("%s upf -c %s >/dev/null 2>&1", solocore, path), 1);
	/* the documented example loads */
	assert_int_equal(tn_sh("%s config check -c %s >/dev/null", solocore, example), 0);
}

int main(int argc, char **argv)
{
	int rc = tn_require_root_bpf("upf_alone");
	int n3, n6;

	if (rc)
		return rc;
	if (argc < 4) {
		fprintf(stderr, "usage: test_upf_alone SOLOCORE BUILDDIR dist/solocore-upf.yaml\n");
		return 1;
	}
	solocore = argv[1];
	dir = argv[2];
	example = argv[3];
	snprintf(conf_path, sizeof(conf_path), "%s/upf_alone.yaml", dir);
	snprintf(log_path, sizeof(log_path), "%s/upf_alone.log", dir);
	if (tn_unshare_net() || tn_fib_setup(&n3, &n6)) {
		fprintf(stderr, "network namespace setup failed\n");
		return 1;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_process),
		cmocka_unit_test(t_bad_conf),
		cmocka_unit_test(t_process6),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
