/* SPDX-License-Identifier: AGPL-3.0-or-later */
/* Test helpers: run shell commands, check root and BPF, private network namespace. */
#ifndef SOLOCORE_TESTS_UPF_NETNS_H
#define SOLOCORE_TESTS_UPF_NETNS_H

#include <stddef.h>
#include <stdint.h>

/* printf-style system(); returns the exit status (0 ok). */
int tn_sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* 0 if the process is root and the kernel accepts a BPF program; otherwise
 * prints why, loudly, and returns 77 (meson's skip code). */
int tn_require_root_bpf(const char *test);
/* Move this process into a fresh network namespace with lo up. 0 or -errno. */
int tn_unshare_net(void);
/* In the current namespace: veths n3 (192.0.2.1/24, gNB 192.0.2.2 =
 * 02:00:00:00:03:02) and n6 (198.51.100.1/24, default route via
 * 198.51.100.2 = 02:00:00:00:06:02), static neighbours, forwarding on, so
 * bpf_fib_lookup resolves without traffic. MACs: n3 02:00:00:00:03:01,
 * n6 02:00:00:00:06:01. 0 or -1. */
int tn_fib_setup(int *n3_ifindex, int *n6_ifindex);
/* One BPF_PROG_TEST_RUN of the XDP program prog_fd on frame as if received on ifindex: the
 * verdict (XDP_*), the output frame in out (*out_len: its size in, the output's length out);
 * -errno if the kernel refuses the run. */
int tn_xdp_run(int prog_fd, int ifindex, const uint8_t *frame, size_t len, uint8_t *out, uint32_t *out_len);
/* A UDP socket bound to addr (network order):port with SO_REUSEADDR; the fd or -1. */
int tn_udp_bind(uint32_t addr, uint16_t port);
/* Wait until fd is readable; 1 readable, 0 timeout. */
int tn_wait_readable(int fd, int timeout_ms);

#endif
