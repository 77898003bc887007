/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * upf end to end: gnb | core | dn namespaces (tests/upf/e2e_topo.h), the real
 * XDP program attached to the core's n3 and n6 veths, a GTP-U generator and
 * receiver in the gnb namespace (UDP sockets on 2152), a capture and a sender
 * in the dn namespace. Needs root; skips with 77 otherwise.
 *
 * XDP mode: UPF_E2E_MODE=generic|native|auto (default generic). Native mode
 * on veth needs an XDP program on the receiving peers too; the test attaches
 * an XDP_PASS program to gnb0 and dn0 in that case.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_link.h>
#include <net/if.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "upf/upf.h"
#include "e2e_topo.h"
#include "netns.h"
#include "pkt.h"
#include "testlib.h"

#define UE "10.45.0.1"
#define TEID_UL 0x11
#define TEID_DL 0x100

static const char *tshark = "/nonexistent/tshark";   /* argv[1] (meson's find_program) */
static const char *outdir = ".";                       /* argv[2]: where the pcap goes */

/* The first End Markers the gNB received (t_modify_under_traffic), as bytes for tshark. */
#define EM_KEEP 8
static uint8_t em_bytes[EM_KEEP][16];
static int em_kept;

static struct e2e topo;
static struct upf *U;
static enum upf_xdp_mode mode = UPF_XDP_GENERIC;
static int gnb_sock = -1, dn_sock = -1, dn_cap = -1;
static int notified;

static void on_dl(void *arg, uint32_t id)
{
	(void)arg;
	(void)id;
	notified++;
}

static struct upf_session_rule rule_a(void)
{
	struct upf_session_rule r = {
		.ul_teid = TEID_UL, .ue_addr = e2e_ip(UE), .gnb_addr = e2e_ip(E2E_GNB_ADDR),
		.gnb_teid = TEID_DL, .qfi = 1, .dl_state = UPF_DL_ACTIVE,
	};

	return r;
}

static int upf_up(struct upf **u)
{
	struct upf_params p = {
		.n3_ifname = "n3", .n6_ifname = "n6", .xdp_mode = mode,
		.n3_addr = e2e_ip(E2E_N3_ADDR), .ue_pool_addr = e2e_ip(E2E_POOL),
		.ue_pool_plen = E2E_POOL_PLEN, .max_sessions = 4096,
		.buffer_per_session = 8, .on_dl_data = on_dl,
	};

	return upf_open(&p, u);
}

static uint64_t cnt(unsigned idx)
{
	uint64_t c[UPF_STAT__MAX];

	assert_int_equal(upf_counters(U, c, UPF_STAT__MAX), 0);
	return c[idx];
}

/* Serve the upf exception path for ms milliseconds. */
static void pump(int ms)
{
	e2e_pump(U, ms);
}

static void gnb_send(const uint8_t *gtp, size_t len)
{
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(2152),
				  .sin_addr.s_addr = e2e_ip(E2E_N3_ADDR) };

	assert_int_equal(sendto(gnb_sock, gtp, len, 0, (struct sockaddr *)&to, sizeof(to)), (ssize_t)len);
}

static void dn_send(const char *to_addr, uint16_t port, const uint8_t *buf, size_t len)
{
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(port),
				  .sin_addr.s_addr = e2e_ip(to_addr) };

	assert_int_equal(sendto(dn_sock, buf, len, 0, (struct sockaddr *)&to, sizeof(to)), (ssize_t)len);
}

/* Next packet on fd within ms (serving the upf meanwhile); length or -1. */
static int recv_wait(int fd, uint8_t *buf, size_t n, int ms)
{
	return e2e_recv_wait(U, fd, buf, n, ms);
}

static void drain(int fd)
{
	uint8_t b[2048];

	while (recv(fd, b, sizeof(b), MSG_DONTWAIT) >= 0)
		;
}

/* Uplink: G-PDUs from the gNB arrive in the DN decapsulated, byte for byte. */
static void t_uplink(void **state)
{
	uint8_t inner[200], gtp[300], got[2048];
	int ok = 0;

	(void)state;
	for (int i = 0; i < 20; i++) {
		pkt_inner_udp(inner, e2e_ip(UE), e2e_ip(E2E_DN_ADDR), sizeof(inner));
		inner[PKT_IP + PKT_UDP] = (uint8_t)i;
		size_t gl = pkt_gpdu(gtp, TEID_UL, i & 1 ? 1 : -1, 1, inner, sizeof(inner));

		gnb_send(gtp, gl);
		int n = recv_wait(dn_cap, got, sizeof(got), 2000);

		assert_int_equal(n, (int)sizeof(inner));
		/* The kernel path (first packet, before ARP) decrements the TTL;
		 * the XDP path leaves the packet untouched. */
		if (memcmp(got, inner, sizeof(inner)) == 0)
			ok++;
		else
			assert_memory_equal(got + 20, inner + 20, sizeof(inner) - 20);
	}
	assert_true(ok >= 18);
	assert_true(cnt(UPF_CNT_UL_FWD) >= 18);
	drain(dn_sock);
}

/* Downlink: the DN's packets arrive at the gNB in GTP-U with our TEID and QFI. */
static void t_downlink(void **state)
{
	uint8_t payload[300], got[2048];
	struct upf_session_stats st;

	(void)state;
	for (int i = 0; i < 20; i++) {
		for (size_t k = 0; k < sizeof(payload); k++)
			payload[k] = (uint8_t)(k + (size_t)i);
		dn_send(UE, 40000, payload, sizeof(payload));
		int n = recv_wait(gnb_sock, got, sizeof(got), 2000);

		assert_int_equal(n, 16 + PKT_IP + PKT_UDP + (int)sizeof(payload));
		assert_int_equal(got[0], 0x34);
		assert_int_equal(got[1], 0xff);
		assert_int_equal(pkt_rd32(got + 4), TEID_DL);
		assert_int_equal(got[11], 0x85);
		assert_int_equal(got[12], 1);
		assert_int_equal(got[13] >> 4, 0);    /* DL PDU SESSION INFORMATION */
		assert_int_equal(got[14] & 0x3f, 1); /* QFI */
		assert_int_equal(htonl(pkt_rd32(got + 16 + 16)), e2e_ip(UE));
		assert_int_equal(htonl(pkt_rd32(got + 16 + 12)), e2e_ip(E2E_DN_ADDR));
		assert_memory_equal(got + 16 + PKT_IP + PKT_UDP, payload, sizeof(payload));
	}
	assert_true(cnt(UPF_CNT_DL_FWD) >= 18);
	assert_int_equal(upf_session_stats(U, 1, &st), 0);
	assert_true(st.dl_pkts >= 18);
}

static void t_exceptions(void **state)
{
	const uint8_t echo[12] = { 0x32, 0x01, 0x00, 0x04, 0, 0, 0, 0, 0x00, 0x07, 0, 0 };
	const uint8_t em[8] = { 0x30, 0xfe, 0, 0, 0, 0, 0, TEID_UL };
	uint8_t inner[100], gtp[200], got[2048];
	size_t gl;
	int n;

	(void)state;
	drain(gnb_sock);
	/* Echo Request -> Echo Response with the same sequence number. */
	gnb_send(echo, sizeof(echo));
	n = recv_wait(gnb_sock, got, sizeof(got), 2000);
	assert_int_equal(n, 14);
	assert_int_equal(got[1], 2);
	assert_int_equal(got[9], 7);
	assert_int_equal(cnt(UPF_CNT_ECHO_REQ), 1);

	/* Unknown TEID -> Error Indication carrying that TEID. */
	pkt_inner_udp(inner, e2e_ip(UE), e2e_ip(E2E_DN_ADDR), sizeof(inner));
	gl = pkt_gpdu(gtp, 0x4242, 1, 1, inner, sizeof(inner));
	gnb_send(gtp, gl);
	n = recv_wait(gnb_sock, got, sizeof(got), 2000);
	assert_int_equal(n, 28);
	assert_int_equal(got[1], 26);
	assert_int_equal(got[16], 16);
	assert_int_equal(pkt_rd32(got + 17), 0x4242);
	assert_int_equal(cnt(UPF_CNT_UNKNOWN_TEID), 1);

	/* Wrong inner source, malformed GTP-U, End Marker: counted, nothing in the DN. */
	drain(dn_cap);
	pkt_inner_udp(inner, e2e_ip("10.45.0.99"), e2e_ip(E2E_DN_ADDR), sizeof(inner));
	gl = pkt_gpdu(gtp, TEID_UL, 1, 1, inner, sizeof(inner));
	gnb_send(gtp, gl);
	gtp[3] += 4;   /* length beyond the datagram */
	gnb_send(gtp, gl);
	gnb_send(em, sizeof(em));
	pump(200);
	assert_int_equal(cnt(UPF_CNT_DROP_BAD_SRC), 1);
	assert_int_equal(cnt(UPF_CNT_DROP_MALFORMED), 1);
	assert_int_equal(cnt(UPF_CNT_END_MARKER), 1);
	assert_int_equal(recv(dn_cap, got, sizeof(got), MSG_DONTWAIT), -1);
}

/* Buffering: downlink for an idle session is held, the control plane is
 * notified once, and the packets reach the gNB in order on reactivation. */
static void t_buffering(void **state)
{
	struct upf_session_rule r = rule_a();
	uint8_t payload[64], got[2048];

	(void)state;
	drain(gnb_sock);
	r.dl_state = UPF_DL_BUFFER;
	assert_int_equal(upf_session_modify(U, 1, &r), 0);
	notified = 0;
	for (int i = 0; i < 5; i++) {
		memset(payload, 0xb0 + i, sizeof(payload));
		dn_send(UE, 40000, payload, sizeof(payload));
	}
	pump(300);
	assert_int_equal(notified, 1);
	assert_int_equal(recv(gnb_sock, got, sizeof(got), MSG_DONTWAIT), -1);
	r.dl_state = UPF_DL_ACTIVE;
	assert_int_equal(upf_session_modify(U, 1, &r), 0);
	for (int i = 0; i < 5; i++) {
		int n = recv_wait(gnb_sock, got, sizeof(got), 2000);

		assert_int_equal(n, 16 + PKT_IP + PKT_UDP + (int)sizeof(payload));
		assert_int_equal(got[16 + PKT_IP + PKT_UDP], 0xb0 + i);
	}
	assert_int_equal(cnt(UPF_STAT_BUF_RELEASED), 5);
}

struct flood {
	int count;
	size_t len;
	uint64_t pps;        /* 0: as fast as possible */
	volatile int done;
	int rt;              /* run the sender SCHED_FIFO (paced runs on a busy machine) */
	uint64_t max_late_ns; /* worst lateness of a paced send */
	uint64_t t_first, t_last;
};

static void *dn_flood(void *arg)
{
	struct flood *f = arg;
	uint8_t payload[1500];
	uint64_t t0 = e2e_now_ns();
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(40000),
				  .sin_addr.s_addr = e2e_ip(UE) };

	memset(payload, 0x5a, sizeof(payload));
	if (f->rt) {
		struct sched_param sp = { .sched_priority = 10 };

		pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
	}
	t0 = e2e_now_ns();
	f->max_late_ns = 0;
	f->t_first = t0;
	for (int i = 0; i < f->count; i++) {
		if (f->pps) {
			uint64_t due = t0 + (uint64_t)i * 1000000000ull / f->pps, now;

			/* Sleep, not spin: a spinning SCHED_FIFO thread is
			 * throttled by the kernel after 950 ms of each second. */
			if (e2e_now_ns() < due) {
				struct timespec ts = { .tv_sec = (time_t)(due / 1000000000ull),
						       .tv_nsec = (long)(due % 1000000000ull) };

				clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
			}
			now = e2e_now_ns();
			if (now > due && now - due > f->max_late_ns)
				f->max_late_ns = now - due;
		}
		sendto(dn_sock, payload, f->len, 0, (struct sockaddr *)&to, sizeof(to));
	}
	f->t_last = e2e_now_ns();
	__atomic_store_n(&f->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static const char *const em_fields[] = { "gtp.message", "gtp.teid", "gtp.ext_hdr.pdu_ses_con.qos_flow_id" };

static int em_row(void *ctx, int fr, char **f)
{
	const uint8_t *b = em_bytes[fr - 1];
	uint32_t teid = pkt_rd32(b + 4);
	int bad = 0;

	(void)ctx;
	if (strtoul(f[0], NULL, 0) != 0xfe) {
		fprintf(stderr, "End Marker %d: gtp.message '%s', want 0xfe\n", fr, f[0]);
		bad++;
	}
	if (strtoul(f[1], NULL, 0) != teid) {
		fprintf(stderr, "End Marker %d: gtp.teid '%s', want 0x%08x\n", fr, f[1], teid);
		bad++;
	}
	if (strtoul(f[2], NULL, 0) != (teid == 0x100 ? 1u : 2u)) {
		fprintf(stderr, "End Marker %d: QFI '%s'\n", fr, f[2]);
		bad++;
	}
	return bad;
}

/* tshark, an independent GTP-U decoder, reads the End Markers as sent: well formed, type
 * 254, the old tunnel's TEID and QFI. */
static int em_check_tshark(void)
{
	char path[512];
	struct pcapw *w;
	const struct tshark_fields q = { .fields = em_fields, .nfields = 3, .nframes = em_kept,
					 .row = em_row };

	snprintf(path, sizeof(path), "%s/upf_end_marker.pcap", outdir);
	w = pcapw_open(path, PCAPW_EXPORTED_PDU);
	if (!w)
		return -1;
	for (int i = 0; i < em_kept; i++)
		if (pcapw_upper(w, "gtp", em_bytes[i], 16) < 0)
			return -1;
	pcapw_close(w);
	return tshark_fields(tshark, path, &q);
}

/* Rules flip between A (TEID 0x100, QFI 1) and B (TEID 0x200, QFI 2) while
 * the DN floods: every packet at the gNB carries a whole rule, never a mix;
 * each switch of the downlink tunnel ends the old one with an End Marker
 * (TS 23.501 5.8.2.9, TS 29.281 7.3.2: type 254, the old TEID and its QFI, no
 * payload); after removal nothing is forwarded. */
static void t_modify_under_traffic(void **state)
{
	struct upf_session_rule a = rule_a(), b = rule_a();
	struct flood fl = { .count = 100000, .len = 64, .pps = 200000 };
	uint8_t got[2048];
	pthread_t th;
	int na = 0, nb = 0, flips = 0, em = 0;
	uint64_t fwd0 = cnt(UPF_CNT_DL_FWD), em0 = cnt(UPF_STAT_END_MARKER_SENT),
		 emf0 = cnt(UPF_STAT_END_MARKER_FAILED);

	(void)state;
	b.gnb_teid = 0x200;
	b.qfi = 2;
	drain(gnb_sock);
	assert_int_equal(pthread_create(&th, NULL, dn_flood, &fl), 0);
	for (;;) {
		int n;

		while ((n = (int)recv(gnb_sock, got, sizeof(got), MSG_DONTWAIT)) >= 0) {
			uint32_t teid = pkt_rd32(got + 4);

			assert_true(n >= 16);
			if (got[1] == 254) {
				/* header, sequence/N-PDU/next type, the PDU session container: no payload */
				assert_int_equal(n, 16);
				assert_int_equal(pkt_rd32(got) & 0xffff, 8);
				assert_true(teid == 0x100 || teid == 0x200);
				assert_int_equal(got[14], teid == 0x100 ? 1 : 2);
				if (em_kept < EM_KEEP)
					memcpy(em_bytes[em_kept++], got, 16);
				em++;
				continue;
			}
			if (teid == 0x100) {
				assert_int_equal(got[14], 1);
				na++;
			} else {
				assert_int_equal(teid, 0x200);
				assert_int_equal(got[14], 2);
				nb++;
			}
		}
		if (__atomic_load_n(&fl.done, __ATOMIC_ACQUIRE))
			break;
		assert_int_equal(upf_session_modify(U, 1, (flips++ & 1) ? &a : &b), 0);
	}
	pthread_join(th, NULL);
	pump(100);
	drain(gnb_sock);
	uint64_t fwd = cnt(UPF_CNT_DL_FWD) - fwd0, busy = cnt(UPF_CNT_DROP_RULE_BUSY);

	uint64_t ems = cnt(UPF_STAT_END_MARKER_SENT) - em0;
	uint64_t emf = cnt(UPF_STAT_END_MARKER_FAILED) - emf0;

	printf("modify under traffic: %d flips, %d packets with rule A, %d with rule B, "
	       "%llu forwarded, %llu dropped as rule-busy, %llu End Markers sent, %d seen\n", flips,
	       na, nb, (unsigned long long)fwd, (unsigned long long)busy, (unsigned long long)ems, em);
	assert_true(na > 0 && nb > 0);
	/* every flip switched the tunnel and tried its End Marker: sent, or refused by our own
	 * socket under the flood (counted); the gNB's socket may drop some of those sent */
	if (emf)
		printf("modify under traffic: %llu End Markers refused by the GTP-U socket (buffer full)\n",
		       (unsigned long long)emf);
	assert_int_equal(ems + emf, (uint64_t)flips);
	assert_true(ems > 0);
	assert_true(em > 0 && (uint64_t)em <= ems);
	assert_int_equal(em_check_tshark(), 0);
	assert_true(fwd > 0);
	/* A packet that keeps meeting a rule in mid-write is dropped and
	 * counted, never forwarded on a mix; with the rule rewritten
	 * non-stop that must stay rare. */
	assert_true(busy * 100 <= fwd);

	/* Removal: nothing forwarded afterwards (a switch back to A first: its End Marker on
	 * B's tunnel goes before the removal, drained here). */
	assert_int_equal(upf_session_modify(U, 1, &a), 0);
	pump(20);
	drain(gnb_sock);
	assert_int_equal(upf_session_remove(U, 1), 0);
	uint64_t nos = cnt(UPF_CNT_DROP_NO_SESSION);

	fl.count = 200;
	fl.pps = 20000;
	dn_flood(&fl);
	pump(200);
	assert_int_equal(recv(gnb_sock, got, sizeof(got), MSG_DONTWAIT), -1);
	assert_int_equal(cnt(UPF_CNT_DROP_NO_SESSION) - nos, 200);
	assert_int_equal(upf_session_create(U, 1, &a), 0);
}

/* Session-AMBR DL 20 Mbit/s, offered 40 Mbit/s for one second: the gNB
 * receives within 10% of 20 Mbit/s. */
/* Session-AMBR DL 20 Mbit/s, offered 40 Mbit/s for one second: the gNB
 * receives within 10% of 20 Mbit/s. A policer cannot make up for time the
 * sender did not offer, so the sender runs SCHED_FIFO, and a run in which it
 * still fell more than 5 ms behind its schedule (a starved machine) is
 * repeated, at most three times. */
static void t_ambr_rate(void **state)
{
	struct upf_session_rule r = rule_a();
	const uint64_t rate = 20000000;
	struct flood fl = { .count = 5000, .len = 1000 - PKT_IP - PKT_UDP, .pps = 5000, .rt = 1 };
	uint8_t got[2048];
	double got_bps = 0;
	int valid = 0;

	(void)state;
	for (int attempt = 0; attempt < 3 && !valid; attempt++) {
		uint64_t bytes = 0, drops0 = cnt(UPF_CNT_DROP_AMBR_DL);
		pthread_t th;

		r.ambr_dl_bps = rate;
		assert_int_equal(upf_session_modify(U, 1, &r), 0);
		drain(gnb_sock);
		assert_int_equal(pthread_create(&th, NULL, dn_flood, &fl), 0);
		pthread_join(th, NULL);
		for (;;) {
			int n = (int)recv(gnb_sock, got, sizeof(got), MSG_DONTWAIT);

			if (n < 0) {
				if (!tn_wait_readable(gnb_sock, 200))
					break;
				continue;
			}
			bytes += (uint64_t)(n - 16);   /* inner IP bytes, what the AMBR counts */
		}
		double secs = (double)(fl.t_last - fl.t_first) / 1e9;

		got_bps = (double)bytes * 8 / secs;
		/* Lateness below the burst tolerance (10 ms) loses no capacity. */
		valid = fl.max_late_ns < 5000000;
		printf("AMBR: configured %.1f Mbit/s, offered %.1f Mbit/s, received %.2f Mbit/s over %.2f s, "
		       "sender at most %.2f ms late%s\n", rate / 1e6, fl.pps * 1000 * 8 / 1e6, got_bps / 1e6, secs,
		       fl.max_late_ns / 1e6, valid ? "" : ": run disturbed, repeating");
		assert_true(cnt(UPF_CNT_DROP_AMBR_DL) > drops0);
		/* Disturbed or not, policing never lets more through. */
		assert_true(got_bps < rate * 1.1);
		r.ambr_dl_bps = 0;
		assert_int_equal(upf_session_modify(U, 1, &r), 0);
	}
	assert_true(valid);
	assert_true(got_bps > rate * 0.9 && got_bps < rate * 1.1);
}

static uint32_t xdp_prog_id(const char *ns, const char *ifname)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);
	int ifindex;

	e2e_enter(ns);
	ifindex = (int)if_nametoindex(ifname);
	if (bpf_xdp_query(ifindex, 0, &q))
		q.prog_id = 0;
	e2e_enter(topo.core);
	return q.prog_id;
}

/* Attach all or roll back; a stale program of a crashed run is replaced;
 * a foreign program is left alone; close detaches. */
static void t_attach_lifecycle(void **state)
{
	struct upf *u2 = NULL;
	uint32_t before;
	pid_t pid;
	int st, fd;

	(void)state;
	upf_close(U);
	U = NULL;
	assert_int_equal(xdp_prog_id(topo.core, "n3"), 0);
	assert_int_equal(xdp_prog_id(topo.core, "n6"), 0);

	/* A crashed run: attaches and exits without detaching. */
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct upf *c = NULL;

		_exit(upf_up(&c) == 0 ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	before = xdp_prog_id(topo.core, "n3");
	assert_int_not_equal(before, 0);
	assert_int_equal(upf_up(&U), 0);
	assert_int_not_equal(xdp_prog_id(topo.core, "n3"), 0);
	assert_int_not_equal(xdp_prog_id(topo.core, "n3"), before);

	/* A foreign program on n6: refuse, and n3 is left as it was (none). */
	upf_close(U);
	U = NULL;
	fd = e2e_pass_prog();
	assert_true(fd >= 0);
	assert_int_equal(bpf_xdp_attach((int)if_nametoindex("n6"), fd, XDP_FLAGS_SKB_MODE, NULL), 0);
	assert_int_equal(upf_up(&u2), -EBUSY);
	assert_null(u2);
	assert_int_equal(xdp_prog_id(topo.core, "n3"), 0);
	bpf_xdp_detach((int)if_nametoindex("n6"), XDP_FLAGS_SKB_MODE, NULL);
	close(fd);

	/* Back to the normal state for the next tests. */
	assert_int_equal(upf_up(&U), 0);
	struct upf_session_rule r = rule_a();

	assert_int_equal(upf_session_create(U, 1, &r), 0);
}

static int group_setup(void **state)
{
	struct upf_session_rule r = rule_a();
	(void)state;
	if (e2e_up(&topo))
		return -1;
	if (mode == UPF_XDP_NATIVE && (e2e_attach_pass(&topo, topo.gnb, "gnb0") || e2e_attach_pass(&topo, topo.dn, "dn0")))
		return -1;
	if (upf_up(&U)) {
		fprintf(stderr, "upf_open failed\n");
		return -1;
	}
	if (upf_session_create(U, 1, &r))
		return -1;
	gnb_sock = e2e_udp(&topo, topo.gnb, E2E_GNB_ADDR, 2152);
	dn_sock = e2e_udp(&topo, topo.dn, E2E_DN_ADDR, 9);
	dn_cap = e2e_capture(&topo, topo.dn, "dn0");
	if (gnb_sock < 0 || dn_sock < 0 || dn_cap < 0)
		return -1;
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	upf_close(U);
	U = NULL;
	e2e_down();
	return 0;
}

int main(int argc, char **argv)
{
	int rc = e2e_main_start(argc, argv, "upf_e2e", &tshark, &outdir, &mode);

	if (rc)
		return rc;
	rc = tshark_require(tshark, "decode the End Markers the UPF sends");
	if (rc)
		return rc;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_uplink),
		cmocka_unit_test(t_downlink),
		cmocka_unit_test(t_exceptions),
		cmocka_unit_test(t_buffering),
		cmocka_unit_test(t_modify_under_traffic),
		cmocka_unit_test(t_ambr_rate),
		cmocka_unit_test(t_attach_lifecycle),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
