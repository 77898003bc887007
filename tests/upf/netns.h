/* SPDX-License-Identifier: AGPL-3.0-or-later */
/* Test helpers: run shell commands, check root and BPF, private network namespace. */
#ifndef SOLOCORE_TESTS_UPF_NETNS_H
#define SOLOCORE_TESTS_UPF_NETNS_H

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
/* Wait until fd is readable; 1 readable, 0 timeout. */
int tn_wait_readable(int fd, int timeout_ms);

#endif
