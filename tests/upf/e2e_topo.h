/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * The end-to-end topology of the upf tests and benchmarks: three network
 * namespaces joined by veth pairs,
 *
 *   gnb-ns: gnb0 192.0.2.2/24 ── n3 192.0.2.1/24 :core-ns: n6 198.51.100.1/24 ── dn0 198.51.100.2/24 :dn-ns
 *
 * the UE pool 10.45.0.0/16 routed by the DN toward the core, forwarding on in
 * the core. Namespace names carry the pid; stale ones of dead runs are removed
 * first, and e2e_down() runs at exit and on fatal signals.
 */
#ifndef SOLOCORE_TESTS_UPF_E2E_TOPO_H
#define SOLOCORE_TESTS_UPF_E2E_TOPO_H

#include <stddef.h>
#include <stdint.h>

#include "upf/upf.h"

#define E2E_N3_ADDR "192.0.2.1"
#define E2E_GNB_ADDR "192.0.2.2"
#define E2E_N6_ADDR "198.51.100.1"
#define E2E_DN_ADDR "198.51.100.2"
#define E2E_POOL "10.45.0.0"
#define E2E_POOL_PLEN 16

struct e2e {
	char gnb[32], core[32], dn[32];
};

/* Build the topology; 0 or -1 (printed). */
int e2e_up(struct e2e *t);
/* Remove it (idempotent). */
void e2e_down(void);
/* Enter a namespace with this thread; 0 or -errno. */
int e2e_enter(const char *ns);
/* A socket created inside ns (the calling thread returns to the core ns). */
int e2e_socket(const struct e2e *t, const char *ns, int domain, int type, int proto);
/* An AF_PACKET socket capturing incoming IPv4 on ifname in ns. */
int e2e_capture(const struct e2e *t, const char *ns, const char *ifname);
/* A UDP socket in ns bound to addr:port, with a large receive buffer. */
int e2e_udp(const struct e2e *t, const char *ns, const char *addr, uint16_t port);
uint32_t e2e_ip(const char *s);
uint64_t e2e_now_ns(void);

/* main()'s start for the e2e tests: root and BPF (else the 77 of tn_require_root_bpf, to
 * return), argv[1] the tshark and argv[2] the output dir when given, the XDP mode from
 * UPF_E2E_MODE (native, auto; generic otherwise). 0 or 77. */
int e2e_main_start(int argc, char **argv, const char *test, const char **tshark, const char **outdir,
		   enum upf_xdp_mode *mode);
/* Serve u's exception path (socket, ring) for ms milliseconds. */
void e2e_pump(struct upf *u, int ms);
/* The next packet on fd within ms, serving u meanwhile; its length or -1. */
int e2e_recv_wait(struct upf *u, int fd, uint8_t *buf, size_t n, int ms);
/* A two-instruction XDP_PASS program named "foreign"; its fd or -errno. */
int e2e_pass_prog(void);
/* Native XDP_REDIRECT / XDP_TX into a veth delivers to the peer's XDP rx path, which exists
 * only while the peer has an XDP program of its own: attach e2e_pass_prog() to ifname in ns.
 * 0 or -1. */
int e2e_attach_pass(const struct e2e *t, const char *ns, const char *ifname);

#endif
