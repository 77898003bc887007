/* SPDX-License-Identifier: AGPL-3.0-or-later */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <linux/bpf.h>

#include "netns.h"

int tn_sh(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;
	int rc;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	rc = system(cmd);
	if (rc == -1)
		return -1;
	return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

int tn_require_root_bpf(const char *test)
{
	struct bpf_insn prog[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 0, .imm = XDP_PASS },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int fd;

	if (geteuid() != 0) {
		fprintf(stderr, "\n*** %s SKIPPED: needs root (BPF, XDP, network namespaces). ***\n\n", test);
		return 77;
	}
	fd = bpf_prog_load(BPF_PROG_TYPE_XDP, "probe", "GPL", prog, 2, NULL);
	if (fd < 0) {
		fprintf(stderr, "\n*** %s SKIPPED: the kernel refuses BPF XDP programs (%s). ***\n\n",
			test, strerror(errno));
		return 77;
	}
	close(fd);
	return 0;
}

int tn_unshare_net(void)
{
	if (unshare(CLONE_NEWNET) < 0)
		return -errno;
	return tn_sh("ip link set lo up") == 0 ? 0 : -EIO;
}

int tn_xdp_run(int prog_fd, int ifindex, const uint8_t *frame, size_t len, uint8_t *out, uint32_t *out_len)
{
	struct xdp_md ctx = { .data = 0, .data_end = (uint32_t)len, .ingress_ifindex = (uint32_t)ifindex };
	LIBBPF_OPTS(bpf_test_run_opts, o,
		.data_in = frame, .data_size_in = (uint32_t)len,
		.data_out = out, .data_size_out = *out_len,
		.ctx_in = &ctx, .ctx_size_in = sizeof(ctx),
		.repeat = 1);

	if (bpf_prog_test_run_opts(prog_fd, &o))
		return -errno;
	*out_len = o.data_size_out;
	return (int)o.retval;
}

int tn_udp_bind(uint32_t addr, uint16_t port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = addr };
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), one = 1;

	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

int tn_wait_readable(int fd, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, timeout_ms) > 0;
}

int tn_fib_setup(int *n3_ifindex, int *n6_ifindex)
{
	if (tn_sh("ip link add n3 address 02:00:00:00:03:01 type veth peer name n3p && "
		  "ip link add n6 address 02:00:00:00:06:01 type veth peer name n6p && "
		  "for d in n3 n3p n6 n6p; do ip link set $d up || exit 1; done && "
		  "ip addr add 192.0.2.1/24 dev n3 && ip addr add 198.51.100.1/24 dev n6 && "
		  "ip neigh replace 192.0.2.2 lladdr 02:00:00:00:03:02 dev n3 nud permanent && "
		  "ip neigh replace 198.51.100.2 lladdr 02:00:00:00:06:02 dev n6 nud permanent && "
		  "ip route add default via 198.51.100.2 dev n6 && "
		  "echo 1 > /proc/sys/net/ipv4/ip_forward"))
		return -1;
	*n3_ifindex = (int)if_nametoindex("n3");
	*n6_ifindex = (int)if_nametoindex("n6");
	return *n3_ifindex && *n6_ifindex ? 0 : -1;
}
