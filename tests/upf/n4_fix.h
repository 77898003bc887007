/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * The fixture of the issue 32 modification and usage reporting tests (test_upf_n4_mod.c,
 * test_upf_n4_urr.c): the standalone UPF's PFCP server on 127.0.0.1 over real UDP with the
 * real XDP program (BPF_PROG_TEST_RUN in a private network namespace), an SMF's socket on
 * 127.0.0.2:8805, every datagram into a pcap for tshark, and the messages and packets the
 * cases send.
 */
#ifndef SOLOCORE_TESTS_UPF_N4_FIX_H
#define SOLOCORE_TESTS_UPF_N4_FIX_H

#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <linux/bpf.h>

#include "common/pfcp/pfcp.h"
#include "upf/upf.h"
#include "upf/upf_n4.h"
#include "testlib.h"
#include "pkt.h"
#include "netns.h"

#define N3 "192.0.2.1"
#define GNB "192.0.2.2"
#define UE "172.16.0.3"
#define UPF_N4_ADDR "127.0.0.1"
#define SMF_ADDR "127.0.0.2"
#define MAX_SESS 16

extern const uint8_t N3_MAC[6], GNB_MAC[6], N6_MAC[6], DN_MAC[6];
extern const char *tshark_path;
extern int teardown_failed;
extern char pcap_path[512];
extern struct pcapw *W;
extern int n3_if, n6_if;
extern struct upf *U;
extern struct upf_n4 *N;
extern int cli;
extern struct pfcp_msg Q, R;          /* the request being built, the answer decoded */
extern uint8_t buf[4096];
extern const char DNN_LABELS[];
/* A URR measuring volume, no trigger (URR 1) */
extern const struct pfcp_urr VOLUM;

struct run {
	int verdict;
	uint8_t out[2048];
	uint32_t len;
};

uint32_t ip(const char *s);
int open_upf(struct upf_params *p, struct upf_n4_params *np);
int setup(void **state);
/* As setup, with a T1 of 1000 s: nothing we send is given up on during a case */
int setup_slow_t1(void **state);
int teardown(void **state);
void record(uint32_t src, uint32_t dst, const uint8_t *b, size_t len);
/* Q to the server, its answer decoded into R (both recorded) */
void xchg_raw(const uint8_t *b, size_t len);
void xchg(void);
void associate(void);
void est_head(uint32_t seq, uint64_t cp_seid);
struct pfcp_pdr *add_pdr(uint16_t id, uint32_t prec, uint8_t src_if, uint32_t far);
void refs(struct pfcp_pdr *d, unsigned n_qer, const uint32_t *qer, unsigned n_urr, const uint32_t *urr);
void sess_req(uint8_t type, uint32_t seq, uint64_t seid);
void ue_ip(struct pfcp_pdr *d, bool dst);
void far_core(uint32_t id);
void far_gnb(struct pfcp_far *f, uint32_t id, uint32_t gnb_teid);
/* free5GC's Session Establishment Request (upf_n4_shapes.c) */
void free5gc_est(uint32_t seq, uint64_t cp_seid, uint32_t teid, uint64_t flow_kbps, uint64_t ambr_kbps);
void xdp(int ifindex, const uint8_t *frame, size_t len, struct run *r);
/* An uplink G-PDU of size bytes on teid (QFI qfi): its verdict */
int ul(uint32_t teid, uint8_t qfi, size_t size);
/* A downlink packet to the UE (80 bytes): its verdict; *teid the GTP-U TEID it was sent with */
int dl(uint32_t *teid);
uint64_t upcnt(unsigned idx);
/* 50 back-to-back 1000-byte uplink packets on teid: how many the data path policed */
uint64_t ul_burst(uint32_t teid, uint8_t qfi);
uint64_t mono_ns(void);
/* The session of the common shape: UL PDR 1 (TEID 3), DL PDR 2 (FAR 2 to the gNB), QER 1 and
 * the URR u on both; est_k: the k-th such session (another TEID and UE address). Its UP SEID. */
uint64_t est_k(uint32_t seq, const struct pfcp_urr *u, uint8_t k);
uint64_t est(uint32_t seq, const struct pfcp_urr *u);
/* n uplink packets of size bytes and n downlink ones (80 bytes): all forwarded */
void traffic(int n, size_t size);
const struct pfcp_usage_report *usage_of(const struct pfcp_usage_report *u, unsigned n, uint32_t id);
/* The next Session Report Request the server sent (heartbeats skipped) into R; 0: none */
int report_rx(void);
/* Answer R's Session Report Request with cause 1 */
void report_answer(void);
/* The group: a network namespace and the pcap; at the end tshark over the pcap: nothing
 * malformed and each of want[] matching at least one frame */
int n4_fix_group_setup(void **state);
int n4_fix_group_teardown(const char *const *want, size_t n_want);

#endif
