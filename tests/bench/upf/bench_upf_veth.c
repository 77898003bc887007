/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * bench_upf_veth - packets per second end to end over the veth topology of
 * tests/upf/e2e_topo.h (gnb | core | dn), the upf XDP program attached to
 * the core's n3 and n6.
 *
 *   uplink:   AF_PACKET generator on gnb0 sends GTP-U G-PDUs (inner 64 B,
 *             PDU Session Container) -> upf decapsulates -> counted on dn0
 *   downlink: AF_PACKET generator on dn0 sends IPv4/UDP to the UE -> upf
 *             encapsulates -> counted on gnb0
 *
 * Frames cycle over 64 sessions. Received = the sink interface's rx_packets
 * over the run (a bound, unread UDP socket keeps the sink from answering).
 *
 * pfcp: the sessions are installed the way `solocore run` (upf.mode pfcp) installs them in
 * `solocore upf`: the SMF's N4 client (upf_n4c) sends Session Establishment Requests to the
 * UPF's PFCP server (upf_n4), which writes the same XDP maps; here both in this process, the
 * datagrams carried by the benchmark. The packets then meet rules that came over PFCP.
 *
 * external: the real `solocore upf` process (argv[4]) in the core namespace, its 64 sessions
 * installed by `pfcp-install --hold` (argv[5]) over PFCP on 127.0.0.1; the benchmark only
 * generates and counts ("forwarded" is then the sink's count: the UPF's counters are that
 * process's).
 *
 * Usage: bench_upf_veth [seconds per run, default 3] [generic|native, default generic]
 *        [inproc|pfcp|external SOLOCORE PFCP_INSTALL]
 * Needs root; exits 77 with a message otherwise.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_link.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>

#include "common/ev.h"
#include "common/pfcp/pfcp.h"
#include "upf/upf.h"
#include "upf/upf_n4.h"
#include "e2e_topo.h"
#include "netns.h"
#include "pkt.h"

#define NSESS 64
#define BATCH 64

static struct e2e topo;
static struct upf *U;

struct gen {
	int fd;
	uint8_t frames[NSESS][128];
	size_t len;
	uint64_t stop_ns;
	uint64_t sent;
};

static int hwaddr(const char *ns, const char *ifname, uint8_t mac[6])
{
	struct ifreq ifr;
	int fd = e2e_socket(&topo, ns, AF_INET, SOCK_DGRAM, 0), rc;

	if (fd < 0)
		return -1;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	rc = ioctl(fd, SIOCGIFHWADDR, &ifr);
	close(fd);
	memcpy(mac, ifr.ifr_hwaddr.sa_data, 6);
	return rc;
}

static int packet_socket(const char *ns, const char *ifname)
{
	struct sockaddr_ll a = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_IP) };
	int one = 1, fd;

	if (e2e_enter(ns))
		return -1;
	fd = socket(AF_PACKET, SOCK_RAW, 0);
	a.sll_ifindex = (int)if_nametoindex(ifname);
	if (fd >= 0) {
		setsockopt(fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof(one));
		if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
			close(fd);
			fd = -1;
		}
	}
	e2e_enter(topo.core);
	return fd;
}

static void *generate(void *arg)
{
	struct gen *g = arg;
	struct mmsghdr m[BATCH];
	struct iovec iov[BATCH];
	unsigned k = 0;

	while (e2e_now_ns() < g->stop_ns) {
		for (int i = 0; i < BATCH; i++, k++) {
			iov[i].iov_base = g->frames[k % NSESS];
			iov[i].iov_len = g->len;
			memset(&m[i], 0, sizeof(m[i]));
			m[i].msg_hdr.msg_iov = &iov[i];
			m[i].msg_hdr.msg_iovlen = 1;
		}
		int n = sendmmsg(g->fd, m, BATCH, 0);

		if (n > 0)
			g->sent += (uint64_t)n;
	}
	return NULL;
}

static uint64_t rx_packets(const char *ns, const char *ifname)
{
	char cmd[256], buf[8192];
	uint64_t v = 0;
	FILE *f;
	size_t n;

	snprintf(cmd, sizeof(cmd), "ip -n %s -j -s link show dev %s", ns, ifname);
	f = popen(cmd, "r");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	pclose(f);
	buf[n] = 0;
	char *p = strstr(buf, "\"rx\":");

	if (p && (p = strstr(p, "\"packets\":")))
		v = strtoull(p + 10, NULL, 10);
	return v;
}

static uint64_t counter(unsigned idx)
{
	uint64_t c[UPF_STAT__MAX];

	return !U || upf_counters(U, c, UPF_STAT__MAX) ? 0 : c[idx];
}

static void serve(void)
{
	if (U)
		upf_process(U);
}

static int run(int ul, double secs, const char *mode)
{
	static struct gen g;
	uint8_t gnb_mac[6], n3_mac[6], n6_mac[6], dn_mac[6], inner[64], gtp[128];
	const char *gen_ns = ul ? topo.gnb : topo.dn, *sink_ns = ul ? topo.dn : topo.gnb;
	const char *gen_if = ul ? "gnb0" : "dn0", *sink_if = ul ? "dn0" : "gnb0";
	unsigned fwd = ul ? UPF_CNT_UL_FWD : UPF_CNT_DL_FWD;
	pthread_t th;

	if (hwaddr(topo.gnb, "gnb0", gnb_mac) || hwaddr(topo.core, "n3", n3_mac) ||
	    hwaddr(topo.core, "n6", n6_mac) || hwaddr(topo.dn, "dn0", dn_mac))
		return -1;
	memset(&g, 0, sizeof(g));
	for (int i = 0; i < NSESS; i++) {
		uint32_t ue = htonl(ntohl(e2e_ip(E2E_POOL)) + 1 + (uint32_t)i);

		if (ul) {
			pkt_inner_udp(inner, ue, e2e_ip(E2E_DN_ADDR), sizeof(inner));
			size_t gl = pkt_gpdu(gtp, 0x100 + (uint32_t)i, 9, 1, inner, sizeof(inner));

			g.len = pkt_gtpu_frame(g.frames[i], n3_mac, gnb_mac, e2e_ip(E2E_GNB_ADDR),
					       e2e_ip(E2E_N3_ADDR), gtp, gl);
		} else {
			pkt_inner_udp(inner, e2e_ip(E2E_DN_ADDR), ue, sizeof(inner));
			g.len = pkt_ip_frame(g.frames[i], n6_mac, dn_mac, inner, sizeof(inner));
		}
	}
	g.fd = packet_socket(gen_ns, gen_if);
	if (g.fd < 0)
		return -1;
	/* Warm-up: neighbours resolved, next-hop cache filled. */
	g.stop_ns = e2e_now_ns() + 300000000ull;
	generate(&g);
	usleep(100000);
	serve();

	uint64_t rx0 = rx_packets(sink_ns, sink_if), f0 = counter(fwd);
	uint64_t t0 = e2e_now_ns();

	g.sent = 0;
	g.stop_ns = t0 + (uint64_t)(secs * 1e9);
	pthread_create(&th, NULL, generate, &g);
	while (e2e_now_ns() < g.stop_ns) {
		usleep(20000);
		serve();
	}
	pthread_join(th, NULL);
	double el = (double)(e2e_now_ns() - t0) / 1e9;

	usleep(200000);
	uint64_t rx = rx_packets(sink_ns, sink_if) - rx0, f = U ? counter(fwd) - f0 : rx;

	printf("| %-8s | %-7s | %10.0f | %10.0f | %10.0f |\n", ul ? "uplink" : "downlink", mode,
	       (double)g.sent / el, (double)f / el, (double)rx / el);
	fflush(stdout);
	close(g.fd);
	return 0;
}

static int attach_pass(const char *ns, const char *ifname)
{
	struct bpf_insn prog[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 0, .imm = XDP_PASS },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int fd = bpf_prog_load(BPF_PROG_TYPE_XDP, "pass", "GPL", prog, 2, NULL), rc;

	if (fd < 0 || e2e_enter(ns))
		return -1;
	rc = bpf_xdp_attach((int)if_nametoindex(ifname), fd, XDP_FLAGS_DRV_MODE, NULL);
	e2e_enter(topo.core);
	close(fd);
	return rc;
}

/* ---- pfcp: the SMF's client and the UPF's server, datagrams carried here ---- */
static struct { int to_srv; uint16_t len; uint8_t b[2048]; } pq[2 * NSESS + 64];
static unsigned pqn;

static void pq_push(int to_srv, const uint8_t *b, size_t len)
{
	if (pqn < sizeof(pq) / sizeof(pq[0]) && len <= sizeof(pq[0].b)) {
		pq[pqn].to_srv = to_srv;
		pq[pqn].len = (uint16_t)len;
		memcpy(pq[pqn].b, b, len);
		pqn++;
	}
}

static void to_srv(void *a, uint32_t addr, uint16_t port, const uint8_t *b, size_t len)
{
	(void)a; (void)addr; (void)port;
	pq_push(1, b, len);
}

static void to_cli(void *a, uint32_t addr, uint16_t port, const uint8_t *b, size_t len)
{
	(void)a; (void)addr; (void)port;
	pq_push(0, b, len);
}

static void on_lost(void *arg, uint32_t id, enum upf_lost_reason why)
{
	(void)arg;
	fprintf(stderr, "pfcp: session %u lost (%d)\n", id, why);
}

static void on_dl(void *arg, uint32_t id)
{
	(void)arg;
	(void)id;
}

/* Install rules through PFCP; 0 when the UPF holds every session. */
static int install_pfcp(const struct upf_session_rule *rules, unsigned n)
{
	uint32_t smf = htonl(0x7f000002), upf = htonl(0x7f000001);
	struct upf_n4_params np = { .upf = U, .addr = upf, .no_socket = true, .send = to_cli,
		.n3_addr = e2e_ip(E2E_N3_ADDR), .ue_pool_addr = e2e_ip(E2E_POOL), .ue_pool_plen = E2E_POOL_PLEN,
		.max_sessions = 1024, .max_teid = 1024 };
	struct upf_n4c_params cp = { .addr = smf, .max_sessions = 1024, .no_socket = true, .send = to_srv };
	struct upf_n4c_peer pp = { .name = "upf", .addr = upf, .n3_addr = e2e_ip(E2E_N3_ADDR),
				   .on_dl_data = on_dl, .on_session_lost = on_lost };
	struct ev_loop *L;
	struct upf_n4 *S;
	struct upf_n4c *C;
	struct upf *P;
	int err, rc = 0;

	L = ev_loop_new(&err);
	cp.loop = L;
	if (!L || upf_n4_open(&np, &S) || upf_n4c_open(&cp, &C) || upf_n4c_peer_add(C, &pp, &P))
		return -1;
	for (int round = 0; round < 3; round++) {
		for (unsigned i = 0; round == 1 && i < n; i++)
			if (upf_session_create(P, i, &rules[i]))
				rc = -1;
		while (pqn) {
			unsigned k = 0, m = pqn;

			for (; k < m; k++) {
				if (pq[k].to_srv)
					upf_n4_input(S, smf, PFCP_PORT, pq[k].b, pq[k].len);
				else
					upf_n4c_input(C, upf, PFCP_PORT, pq[k].b, pq[k].len);
			}
			memmove(pq, pq + m, (pqn - m) * sizeof(pq[0]));
			pqn -= m;
		}
	}
	if (upf_n4_sessions(S) != n)
		rc = -1;
	printf("sessions installed over PFCP: %u (Session Establishment Request / Response each)\n",
	       upf_n4_sessions(S));
	/* The rules stay in the data path: upf_n4_close leaves them (upf_close removes them).
	 * The client is dropped without its Association Release going anywhere. */
	upf_n4c_close(C);
	upf_n4_close(S);
	ev_loop_free(L);
	return rc;
}

/* ---- external: solocore upf + pfcp-install as processes ---- */
static pid_t spawn(char *const av[], const char *out)
{
	pid_t pid = fork();

	if (pid == 0) {
		FILE *f = freopen(out, "w", stdout);

		(void)f;
		dup2(1, 2);
		execv(av[0], av);
		_exit(127);
	}
	return pid;
}

static int external(const char *solocore, const char *installer, pid_t *upf_pid, pid_t *inst_pid)
{
	static char conf[] = "/tmp/bench-upf-veth-XXXXXX";
	char line[256];
	FILE *f;
	int fd = mkstemp(conf);

	if (fd < 0 || !(f = fdopen(fd, "w")))
		return -1;
	fprintf(f, "log: { level: warn }\ndnns: [{ name: internet, pool: %s/%d }]\n"
		   "upf: { n3_interface: n3, n6_interface: n6, n4_address: 127.0.0.1, xdp_mode: generic, max_sessions: 1024 }\n",
		E2E_POOL, E2E_POOL_PLEN);
	fclose(f);
	char *uav[] = { (char *)solocore, "upf", "-c", conf, NULL };

	*upf_pid = spawn(uav, "/tmp/bench-upf-veth-upf.log");
	sleep(1);
	char *iav[] = { (char *)installer, "--upf", "127.0.0.1", "--local", "127.0.0.2", "--n3", E2E_N3_ADDR,
			"--sessions", "64", "--teid-base", "256", "--ue-pool", E2E_POOL, "--gnb", E2E_GNB_ADDR,
			"--gnb-teid", "4096", "--hold", NULL };

	*inst_pid = spawn(iav, "/tmp/bench-upf-veth-install.out");
	for (int i = 0; i < 100; i++) {
		usleep(100000);
		f = fopen("/tmp/bench-upf-veth-install.out", "r");
		while (f && fgets(line, sizeof(line), f))
			if (!strcmp(line, "established 64\n")) {
				fclose(f);
				unlink(conf);
				printf("sessions installed over PFCP into `solocore upf` (pid %d) by pfcp-install: 64\n",
				       (int)*upf_pid);
				return 0;
			}
		if (f)
			fclose(f);
	}
	unlink(conf);
	fprintf(stderr, "pfcp-install did not report 64 sessions (see /tmp/bench-upf-veth-*)\n");
	return -1;
}

static void reap(pid_t pid)
{
	if (pid > 0) {
		kill(pid, SIGTERM);
		waitpid(pid, NULL, 0);
	}
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 3.0;
	const char *mode = argc > 2 ? argv[2] : "generic";
	int rc = tn_require_root_bpf("bench_upf_veth");

	if (rc)
		return rc;
	if (e2e_up(&topo))
		return 1;
	if (!strcmp(mode, "native") && (attach_pass(topo.gnb, "gnb0") || attach_pass(topo.dn, "dn0"))) {
		fprintf(stderr, "cannot attach the peers' XDP programs for native mode\n");
		return 1;
	}
	struct upf_params p = {
		.n3_ifname = "n3", .n6_ifname = "n6",
		.xdp_mode = !strcmp(mode, "native") ? UPF_XDP_NATIVE : UPF_XDP_GENERIC,
		.n3_addr = e2e_ip(E2E_N3_ADDR), .ue_pool_addr = e2e_ip(E2E_POOL),
		.ue_pool_plen = E2E_POOL_PLEN, .max_sessions = 1024,
	};

	bool ext = argc > 5 && !strcmp(argv[3], "external");
	pid_t upf_pid = 0, inst_pid = 0;

	if (ext) {
		rc = external(argv[4], argv[5], &upf_pid, &inst_pid);
		if (rc) {
			reap(inst_pid);
			reap(upf_pid);
			return 1;
		}
		goto traffic;
	}
	rc = upf_open(&p, &U);
	if (rc) {
		fprintf(stderr, "upf_open: %s\n", strerror(-rc));
		return 1;
	}
	struct upf_session_rule rules[NSESS];
	bool pfcp = argc > 3 && !strcmp(argv[3], "pfcp");

	for (uint32_t i = 0; i < NSESS; i++) {
		rules[i] = (struct upf_session_rule){
			.ul_teid = 0x100 + i, .ue_addr = htonl(ntohl(e2e_ip(E2E_POOL)) + 1 + i),
			.gnb_addr = e2e_ip(E2E_GNB_ADDR), .gnb_teid = 0x1000 + i, .qfi = 9,
		};
		if (!pfcp && upf_session_create(U, i, &rules[i]))
			return 1;
	}
	if (pfcp && install_pfcp(rules, NSESS)) {
		fprintf(stderr, "the sessions could not be installed over PFCP\n");
		return 1;
	}
traffic:;
	/* Unread sockets on the sinks: no ICMP port unreachable back into the test. */
	int s1 = e2e_udp(&topo, topo.dn, E2E_DN_ADDR, 9), s2 = e2e_udp(&topo, topo.gnb, E2E_GNB_ADDR, 2152);

	if (s1 < 0 || s2 < 0)
		return 1;
	printf("upf end to end over veth, %d sessions (%s), inner 64 B, %.1f s per run, packets/s\n", NSESS,
	       ext ? "solocore upf, installed by pfcp-install" : pfcp ? "installed over PFCP" : "upf_session_create",
	       secs);
	printf("| dir      | XDP     | offered    | forwarded  | received   |\n");
	printf("|----------|---------|------------|------------|------------|\n");
	rc = run(1, secs, mode) || run(0, secs, mode);
	reap(inst_pid);
	reap(upf_pid);
	if (rc)
		return 1;
	upf_close(U);
	e2e_down();
	return 0;
}
