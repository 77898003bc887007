/* SPDX-License-Identifier: AGPL-3.0-or-later */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>
#include <linux/if_link.h>

#include "upf/upf.h"
#include "e2e_topo.h"
#include "netns.h"

static struct e2e g_topo;
static int g_up;

uint32_t e2e_ip(const char *s)
{
	struct in_addr a = { 0 };

	inet_pton(AF_INET, s, &a);
	return a.s_addr;
}

uint64_t e2e_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void e2e_down(void)
{
	if (!g_up)
		return;
	g_up = 0;
	tn_sh("ip netns del %s 2>/dev/null; ip netns del %s 2>/dev/null; ip netns del %s 2>/dev/null",
	      g_topo.gnb, g_topo.core, g_topo.dn);
}

static void on_fatal(int sig)
{
	e2e_down();
	signal(sig, SIG_DFL);
	raise(sig);
}

int e2e_enter(const char *ns)
{
	char p[96];
	int fd, rc = 0;

	snprintf(p, sizeof(p), "/run/netns/%s", ns);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (setns(fd, CLONE_NEWNET) < 0)
		rc = -errno;
	close(fd);
	return rc;
}

int e2e_up(struct e2e *t)
{
	int pid = (int)getpid();

	/* Namespaces of earlier runs whose process is gone. */
	tn_sh("for n in $(ip netns list | awk '/^upfe2e-/{print $1}'); do "
	      "p=${n##*-}; [ -d /proc/$p ] || ip netns del $n; done");
	snprintf(t->gnb, sizeof(t->gnb), "upfe2e-g-%d", pid);
	snprintf(t->core, sizeof(t->core), "upfe2e-c-%d", pid);
	snprintf(t->dn, sizeof(t->dn), "upfe2e-d-%d", pid);
	g_topo = *t;
	g_up = 1;
	atexit(e2e_down);
	signal(SIGSEGV, on_fatal);
	signal(SIGABRT, on_fatal);
	signal(SIGINT, on_fatal);
	signal(SIGTERM, on_fatal);
	if (tn_sh("set -e; ip netns add %1$s; ip netns add %2$s; ip netns add %3$s;"
		  "ip -n %1$s link add gnb0 type veth peer name n3 netns %2$s;"
		  "ip -n %2$s link add n6 type veth peer name dn0 netns %3$s;"
		  "ip -n %1$s link set lo up; ip -n %2$s link set lo up; ip -n %3$s link set lo up;"
		  "ip -n %1$s link set gnb0 up; ip -n %2$s link set n3 up;"
		  "ip -n %2$s link set n6 up; ip -n %3$s link set dn0 up;"
		  "ip -n %1$s addr add " E2E_GNB_ADDR "/24 dev gnb0;"
		  "ip -n %2$s addr add " E2E_N3_ADDR "/24 dev n3;"
		  "ip -n %2$s addr add " E2E_N6_ADDR "/24 dev n6;"
		  "ip -n %3$s addr add " E2E_DN_ADDR "/24 dev dn0;"
		  "ip -n %3$s route add " E2E_POOL "/16 via " E2E_N6_ADDR ";"
		  "ip netns exec %2$s sh -c 'echo 1 > /proc/sys/net/ipv4/ip_forward';"
		  /* veth offloads would hand XDP-generic superframes; keep frames real. */
		  "for d in n3 n6; do ip netns exec %2$s ethtool -K $d gro off tso off gso off >/dev/null 2>&1 || true; done",
		  t->gnb, t->core, t->dn)) {
		fprintf(stderr, "e2e: building the namespaces failed\n");
		return -1;
	}
	return e2e_enter(t->core) ? -1 : 0;
}

int e2e_socket(const struct e2e *t, const char *ns, int domain, int type, int proto)
{
	int fd;

	if (e2e_enter(ns))
		return -1;
	fd = socket(domain, type, proto);
	e2e_enter(t->core);
	return fd;
}

int e2e_capture(const struct e2e *t, const char *ns, const char *ifname)
{
	struct sockaddr_ll a = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_IP) };
	int fd;

	if (e2e_enter(ns))
		return -1;
	fd = socket(AF_PACKET, SOCK_DGRAM | SOCK_CLOEXEC, htons(ETH_P_IP));
	a.sll_ifindex = (int)if_nametoindex(ifname);
	if (fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		close(fd);
		fd = -1;
	}
	e2e_enter(t->core);
	return fd;
}

int e2e_udp(const struct e2e *t, const char *ns, const char *addr, uint16_t port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	int fd = e2e_socket(t, ns, AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int sz = 8 << 20, one = 1;

	if (fd < 0)
		return -1;
	a.sin_addr.s_addr = e2e_ip(addr);
	setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz));
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

void e2e_pump(struct upf *u, int ms)
{
	uint64_t end = e2e_now_ns() + (uint64_t)ms * 1000000ull;
	int fds[UPF_MAX_FDS];
	int n = upf_fds(u, fds);

	while (e2e_now_ns() < end) {
		struct pollfd p[UPF_MAX_FDS];

		for (int i = 0; i < n; i++)
			p[i] = (struct pollfd){ fds[i], POLLIN, 0 };
		poll(p, (nfds_t)n, 10);
		upf_process(u);
	}
}

int e2e_recv_wait(struct upf *u, int fd, uint8_t *buf, size_t n, int ms)
{
	uint64_t end = e2e_now_ns() + (uint64_t)ms * 1000000ull;

	while (e2e_now_ns() < end) {
		ssize_t r = recv(fd, buf, n, MSG_DONTWAIT);

		if (r >= 0)
			return (int)r;
		e2e_pump(u, 5);
	}
	return -1;
}

int e2e_pass_prog(void)
{
	struct bpf_insn prog[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 0, .imm = XDP_PASS },
		{ .code = BPF_JMP | BPF_EXIT },
	};

	return bpf_prog_load(BPF_PROG_TYPE_XDP, "foreign", "GPL", prog, 2, NULL);
}

int e2e_attach_pass(const struct e2e *t, const char *ns, const char *ifname)
{
	int fd = e2e_pass_prog(), rc;

	if (fd < 0 || e2e_enter(ns))
		return -1;
	rc = bpf_xdp_attach((int)if_nametoindex(ifname), fd, XDP_FLAGS_DRV_MODE, NULL);
	e2e_enter(t->core);
	close(fd);
	return rc;
}

int e2e_main_start(int argc, char **argv, const char *test, const char **tshark, const char **outdir,
		   enum upf_xdp_mode *mode)
{
	const char *m = getenv("UPF_E2E_MODE");
	int rc = tn_require_root_bpf(test);

	if (rc)
		return rc;
	if (argc > 2) {
		*tshark = argv[1];
		*outdir = argv[2];
	}
	*mode = UPF_XDP_GENERIC;
	if (m && !strcmp(m, "native"))
		*mode = UPF_XDP_NATIVE;
	else if (m && !strcmp(m, "auto"))
		*mode = UPF_XDP_AUTO;
	return 0;
}
