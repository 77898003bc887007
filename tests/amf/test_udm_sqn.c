/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * Cluster SQNs (issue 20 item 3, udm/sqn.c, udm/sqn_lease_dqlite.c) against a REAL dqlite node
 * started in-process (libdqlite node API, 127.0.0.1:<free port>, temp data dir), every vector
 * checked by the USIM side of common/crypto (crypto_aka_ue_check: MAC-A, then the C.2.2 / C.2.1
 * freshness check with one SEQ_MS per IND):
 *  - single-node udm unchanged (crypto_sqn_next sequence);
 *  - two nodes (IND 3 and 17) on one subscriber, interleaved: unique, all accepted;
 *  - crash: children issue vectors and are SIGKILLed mid-stream (write-behind lost, the new
 *    run starts from the provisioned SQN at the same clock): no SQN repeats, all accepted;
 *  - lease exhaustion -> -EAGAIN (counted), extension committed -> issuing resumes;
 *  - resync: SQN_MS far ahead adopted; too far ahead -> -ERANGE; USIM too far behind -> -ERANGE;
 *  - store errors: no node / node stopped -> start fails; a failing extension never lets a SEQ
 *    reach the committed lease.
 * The clock is the test's (udm_sqn_cluster_conf.now_s), so SEQs are deterministic.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
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
#include <dqlite.h>

#include "common/crypto/crypto.h"
#include "db/cluster_pki.h"
#include "db/cluster_tls.h"
#include "db/dqlite_client.h"
#include "testlib.h"
#include "udm/udm.h"

static const uint8_t K1[16] = { 0x46, 0x5b, 0x5c, 0xe8, 0xb1, 0x99, 0xb4, 0x9f,
				0xaa, 0x5f, 0x0a, 0x2e, 0xe2, 0x38, 0xa6, 0xbc };
static const uint8_t OPC1[16] = { 0xcd, 0x63, 0xcb, 0x71, 0x95, 0x4a, 0x9f, 0x4e,
				  0x48, 0xa5, 0x99, 0x4e, 0x37, 0xa0, 0x2b, 0xaf };
static const char SNN[] = "5G:mnc001.mcc001.3gppnetwork.org";
static const char SUPI[] = "imsi-001010000000001";

#define SEQ(sqn) ((sqn) >> CRYPTO_SQN_IND_BITS)
#define IND(sqn) ((sqn) & (CRYPTO_SQN_IND_COUNT - 1))
#define TICK0 30000000LL                     /* the SEQ tick of most tests */
#define T0 (UDM_SQN_EPOCH_S + TICK0 * UDM_SQN_TICK_S)   /* ... as the clock reads it */
#define TICKS(n) ((int64_t)(n) * UDM_SQN_TICK_S)      /* seconds of n ticks */

/* ---- a real dqlite node ---- */
struct node {
	char dir[64];
	char addr[64];
	dqlite_node *n;
	struct cluster_tls *tls;      /* issue 31: the node behind the cluster's mutual TLS */
	char backend[64];
};

/* One cluster CA for every node of the test, and this process's client certificate. */
static char g_ca[64];

static void rm_ca(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", g_ca);
	if (system(cmd) != 0)
		fprintf(stderr, "cleanup of %s failed\n", g_ca);
}

static int node_certs(const char *dir)
{
	if (!g_ca[0]) {
		atexit(rm_ca);
		snprintf(g_ca, sizeof(g_ca), "/tmp/solocore-sqnca-XXXXXX");
		if (!mkdtemp(g_ca) || cluster_pki_init(g_ca, "test-ca") < 0 || dqlc_tls_init(g_ca) < 0)
			return -1;
	}
	return cluster_pki_present(dir) || cluster_pki_add_node(g_ca, dir, "test") == 0 ? 0 : -1;
}

static struct node g_node;             /* shared by the tests that do not stop it */
static struct udm_sqn_dqlite *g_store; /* on g_node */

/* Node id 1 with an empty data dir bootstraps a one-voter cluster; another id waits to be
 * added (wait_leader false). latency_ms: 0 = libdqlite's default. */
static int node_start_id(struct node *nd, unsigned id, bool fresh, bool wait_leader,
			 unsigned latency_ms)
{
	if (fresh) {
		snprintf(nd->dir, sizeof(nd->dir), "/tmp/solocore-sqntest-XXXXXX");
		if (!mkdtemp(nd->dir))
			return -1;
		snprintf(nd->addr, sizeof(nd->addr), "127.0.0.1:%d", tl_free_port());
	}
	static unsigned seq;

	snprintf(nd->backend, sizeof(nd->backend), "@solocore-sqntest-%ld-%u", (long)getpid(), ++seq);
	if (node_certs(nd->dir) < 0 || cluster_tls_start(nd->addr, nd->backend, nd->dir, &nd->tls) < 0) {
		fprintf(stderr, "dqlite node %s: certificates / TLS listener\n", nd->addr);
		return -1;
	}
	if (dqlite_node_create(id, nd->addr, nd->dir, &nd->n) != 0 ||
	    dqlite_node_set_bind_address(nd->n, nd->backend) != 0 ||
	    dqlite_node_set_connect_func(nd->n, cluster_tls_connect, nd->tls) != 0 ||
	    (latency_ms && dqlite_node_set_network_latency_ms(nd->n, latency_ms) != 0) ||
	    dqlite_node_start(nd->n) != 0) {
		fprintf(stderr, "dqlite node: %s\n", nd->n ? dqlite_node_errmsg(nd->n) : "create");
		return -1;
	}
	if (!wait_leader)
		return 0;
	for (int i = 0; i < 200; i++) {   /* <= 10 s until it has elected itself */
		struct dqlc *c;
		char leader[DQLC_ADDR_MAX] = "";

		if (dqlc_connect(nd->addr, 1000, &c) == 0) {
			int rc = dqlc_leader(c, NULL, leader, sizeof(leader));

			dqlc_close(c);
			if (rc == 0 && leader[0])
				return 0;
		}
		tl_sleep_ms(50);
	}
	fprintf(stderr, "dqlite node %s: no leader after 10 s\n", nd->addr);
	return -1;
}

static int node_start(struct node *nd, bool fresh)
{
	return node_start_id(nd, 1, fresh, true, 0);
}

static void node_stop(struct node *nd)
{
	if (nd->n) {
		dqlite_node_stop(nd->n);
		dqlite_node_destroy(nd->n);
		nd->n = NULL;
	}
	cluster_tls_stop(nd->tls);
	nd->tls = NULL;
}

static void node_rm(struct node *nd)
{
	char cmd[128];

	node_stop(nd);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", nd->dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cleanup of %s failed\n", nd->dir);
}

static struct udm_sqn_dqlite *store_on(const struct node *nd)
{
	const char *addrs[1] = { nd->addr };
	struct udm_sqn_dqlite *s = NULL;

	assert_int_equal(udm_sqn_dqlite_new(addrs, 1, "sqn.db", 2000, &s), 0);
	return s;
}

static int group_up(void **state)
{
	(void)state;
	if (node_start(&g_node, true) < 0)
		return -1;
	return udm_sqn_dqlite_new((const char *[]){ g_node.addr }, 1, "sqn.db", 5000, &g_store);
}

static int group_down(void **state)
{
	(void)state;
	udm_sqn_dqlite_free(g_store);
	node_rm(&g_node);
	return 0;
}

/* ---- the test's clock ---- */
static _Atomic int64_t g_now = T0;

static int64_t clk(void *arg)
{
	(void)arg;
	return atomic_load(&g_now);
}

/* ---- a udm with one subscriber ---- */
static struct udm *udm_one(uint64_t sqn)
{
	struct udm_sub_in in;
	struct udm *udm;
	int err = 0;

	udm = udm_new(4, &err);
	assert_non_null(udm);
	memset(&in, 0, sizeof(in));
	snprintf(in.data.supi, sizeof(in.data.supi), "%s", SUPI);
	memcpy(in.k, K1, 16);
	memcpy(in.opc, OPC1, 16);
	in.op_is_opc = true;
	in.amf[0] = 0x80;
	in.sqn = sqn;
	assert_int_equal(udm_add(udm, &in), 0);
	return udm;
}

static int cluster(struct udm *udm, unsigned ind, uint32_t lease, const struct udm_sqn_store_ops *ops,
		   void *arg)
{
	struct udm_sqn_cluster_conf c = { .ind = ind, .lease_ticks = lease, .now_s = clk };

	return udm_sqn_cluster(udm, &c, ops, arg);
}

/* A vector, waiting out -EAGAIN (the extension is asynchronous) for at most ms. */
static int av_wait_ms(struct udm *udm, struct udm_av *av, unsigned *eagain, int ms)
{
	int rc = -EAGAIN;

	for (int i = 0; i < ms; i++) {
		rc = udm_generate_av(udm, SUPI, SNN, av);
		if (rc != -EAGAIN)
			return rc;
		if (eagain)
			(*eagain)++;
		tl_sleep_ms(1);
	}
	return rc;
}

static int av_wait(struct udm *udm, struct udm_av *av, unsigned *eagain)
{
	return av_wait_ms(udm, av, eagain, 5000);
}

/* The USIM (TS 33.102 6.3.3, C.2.2): rc of crypto_aka_ue_check, the SQN it read from AUTN. */
static int usim(struct crypto_usim_sqn *st, const struct udm_av *av, uint64_t *sqn, uint8_t auts[14])
{
	struct crypto_ue_aka_out out;
	int rc = crypto_aka_ue_check(K1, OPC1, av->rand, av->autn, SNN, st, &out);

	if (sqn)
		*sqn = out.sqn;
	if (auts)
		memcpy(auts, out.auts, 14);
	if (rc == 0)
		assert_memory_equal(out.res_star, av->xres_star, 16);
	return rc;
}

static bool seen(const uint64_t *v, unsigned n, uint64_t x)
{
	for (unsigned i = 0; i < n; i++)
		if (v[i] == x)
			return true;
	return false;
}

/* ---- (a) single node: exactly crypto_sqn_next, as before ---- */
static void test_single_node_unchanged(void **state)
{
	struct crypto_usim_sqn st = { 0 };
	struct udm_sqn_stats ss;
	struct udm *udm = udm_one(5 << CRYPTO_SQN_IND_BITS | 30);
	struct udm_av av;
	uint64_t prev, sqn, ue;

	(void)state;
	assert_int_equal(udm_sqn_stats(udm, &ss), -ENOENT);
	udm_sqn_cluster_stop(udm);   /* never switched: nothing happens */
	for (int i = 0; i < 40; i++) {
		assert_int_equal(udm_get_sqn(udm, SUPI, &prev), 0);
		assert_int_equal(udm_generate_av(udm, SUPI, SNN, &av), 0);
		assert_int_equal(udm_get_sqn(udm, SUPI, &sqn), 0);
		assert_int_equal(sqn, crypto_sqn_next(prev));
		assert_int_equal(usim(&st, &av, &ue, NULL), 0);
		assert_int_equal(ue, sqn);
	}
	assert_int_equal(udm_generate_av(udm, "imsi-001010000000099", SNN, &av), -ENOENT);
	udm_free(udm);
}

/* The default clock (CLOCK_REALTIME) and the per-vector path: no allocation, SEQ = the tick
 * of now (TS 33.102 C.1.1.3), this node's IND. */
static void test_real_clock_no_alloc(void **state)
{
	struct udm_sqn_cluster_conf c = { .ind = 14 };
	struct crypto_usim_sqn st = { 0 };
	struct udm *udm = udm_one(0);
	struct udm_av av;
	uint64_t sqn, t0, t1;
	unsigned n;

	(void)state;
	t0 = (uint64_t)(time(NULL) - UDM_SQN_EPOCH_S) / UDM_SQN_TICK_S;
	assert_int_equal(udm_sqn_cluster(udm, &c, &udm_sqn_dqlite_ops, g_store), 0);
	assert_int_equal(udm_generate_av(udm, SUPI, SNN, &av), 0);   /* warm: per-thread contexts */
	assert_int_equal(usim(&st, &av, NULL, NULL), 0);
	nomalloc_begin();
	for (int i = 0; i < 100; i++)
		assert_int_equal(udm_generate_av(udm, SUPI, SNN, &av), 0);
	n = nomalloc_end();
	assert_int_equal(n, 0);
	t1 = (uint64_t)(time(NULL) - UDM_SQN_EPOCH_S) / UDM_SQN_TICK_S;
	assert_int_equal(udm_get_sqn(udm, SUPI, &sqn), 0);
	assert_int_equal(IND(sqn), 14);
	assert_true(SEQ(sqn) >= t0 + 100 && SEQ(sqn) <= t1 + 100);
	assert_int_equal(usim(&st, &av, NULL, NULL), 0);
	udm_sqn_cluster_stop(udm);
	udm_free(udm);
}

/* ---- configuration errors ---- */
static void test_conf_errors(void **state)
{
	struct udm_sqn_cluster_conf c = { .ind = 32, .now_s = clk };
	const struct udm_sqn_store_ops half = { .read = udm_sqn_dqlite_ops.read };
	struct udm *udm = udm_one(0);
	struct udm_av av;

	(void)state;
	assert_int_equal(udm_sqn_cluster(udm, &c, &udm_sqn_dqlite_ops, g_store), -EINVAL);
	c.ind = 1;
	c.lease_ticks = 1;
	assert_int_equal(udm_sqn_cluster(udm, &c, &udm_sqn_dqlite_ops, g_store), -EINVAL);
	c.lease_ticks = UDM_SQN_LEASE_MAX + 1;
	assert_int_equal(udm_sqn_cluster(udm, &c, &udm_sqn_dqlite_ops, g_store), -EINVAL);
	c.lease_ticks = 0;
	assert_int_equal(udm_sqn_cluster(udm, &c, NULL, g_store), -EINVAL);
	assert_int_equal(udm_sqn_cluster(udm, &c, &half, g_store), -EINVAL);
	assert_int_equal(udm_sqn_cluster(NULL, &c, &udm_sqn_dqlite_ops, g_store), -EINVAL);
	assert_int_equal(udm_sqn_cluster(udm, NULL, &udm_sqn_dqlite_ops, g_store), -EINVAL);
	assert_int_equal(udm_sqn_cluster(udm, &c, &udm_sqn_dqlite_ops, g_store), 0);
	assert_int_equal(udm_sqn_cluster(udm, &c, &udm_sqn_dqlite_ops, g_store), -EALREADY);
	assert_int_equal(udm_generate_av(udm, SUPI, SNN, &av), 0);
	udm_sqn_cluster_stop(udm);
	/* Never back to single-node SQNs once in cluster mode. */
	assert_int_equal(udm_generate_av(udm, SUPI, SNN, &av), -ESHUTDOWN);
	assert_int_equal(udm_sqn_cluster(udm, &c, &udm_sqn_dqlite_ops, g_store), -EALREADY);
	udm_sqn_cluster_stop(udm);
	udm_free(udm);

	struct udm_sqn_dqlite *s = NULL;
	const char *addrs[UDM_SQN_DQLITE_ADDRS_MAX + 1] = { 0 };
	char longname[80];

	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = 0;
	for (int i = 0; i <= UDM_SQN_DQLITE_ADDRS_MAX; i++)
		addrs[i] = g_node.addr;
	assert_int_equal(udm_sqn_dqlite_new(addrs, 0, "sqn.db", 0, &s), -EINVAL);
	assert_int_equal(udm_sqn_dqlite_new(addrs, UDM_SQN_DQLITE_ADDRS_MAX + 1, "sqn.db", 0, &s),
			 -EINVAL);
	assert_int_equal(udm_sqn_dqlite_new(addrs, 1, "", 0, &s), -EINVAL);
	assert_int_equal(udm_sqn_dqlite_new(addrs, 1, longname, 0, &s), -EINVAL);
	addrs[0] = "";
	assert_int_equal(udm_sqn_dqlite_new(addrs, 1, "sqn.db", 0, &s), -EINVAL);
	assert_null(s);
	uint64_t l;
	assert_int_equal(udm_sqn_dqlite_ops.read(g_store, 32, &l), -EINVAL);
	assert_int_equal(udm_sqn_dqlite_ops.extend(g_store, 0, (uint64_t)INT64_MAX + 1, 1), -EINVAL);
	assert_int_equal(udm_sqn_dqlite_ops.take(g_store, 0, (uint64_t)INT64_MAX + 1, 5, 1), -EINVAL);
	assert_int_equal(udm_sqn_dqlite_ops.read(g_store, 0, NULL), -EINVAL);
	assert_int_equal(udm_sqn_dqlite_ops.read(NULL, 0, &l), -EINVAL);
	udm_sqn_dqlite_free(NULL);
}

/* ---- (b) two nodes, one subscriber, interleaved ---- */
static void test_two_nodes_interleaved(void **state)
{
	enum { N = 240 };
	struct udm *a = udm_one(7 << CRYPTO_SQN_IND_BITS | 4), *b = udm_one(7 << CRYPTO_SQN_IND_BITS | 4);
	struct crypto_usim_sqn st = { 0 };
	struct udm_av qa[8], qb[8];
	static uint64_t all[N];
	unsigned n = 0, eagain = 0, na = 0, nb = 0;
	uint32_t rnd = 12345;
	struct udm_sqn_stats sa, sb;

	(void)state;
	atomic_store(&g_now, T0);
	/* L = 32: SEQ runs ahead of the fixed clock, so extensions happen during the test. */
	assert_int_equal(cluster(a, 3, 32, &udm_sqn_dqlite_ops, g_store), 0);
	assert_int_equal(cluster(b, 17, 32, &udm_sqn_dqlite_ops, g_store), 0);
	while (n < N) {
		/* Each node prepares a batch; the UE sees them interleaved in a random order
		 * (each node's own vectors stay in issue order: C.2.2 accepts that). */
		unsigned ka = (rnd = rnd * 1103515245u + 12345u) >> 29, kb = (rnd >> 13) & 7;
		unsigned ia = 0, ib = 0;

		for (unsigned i = 0; i < ka; i++)
			assert_int_equal(av_wait(a, &qa[i], &eagain), 0);
		for (unsigned i = 0; i < kb; i++)
			assert_int_equal(av_wait(b, &qb[i], &eagain), 0);
		while ((ia < ka || ib < kb) && n < N) {
			bool pick_a = ib == kb || (ia < ka && ((rnd = rnd * 1103515245u + 12345u) >> 31));
			uint64_t sqn;

			assert_int_equal(usim(&st, pick_a ? &qa[ia++] : &qb[ib++], &sqn, NULL), 0);
			assert_int_equal(IND(sqn), pick_a ? 3 : 17);
			assert_true(SEQ(sqn) >= TICK0);   /* time-based: never behind the clock */
			assert_false(seen(all, n, sqn));
			all[n++] = sqn;
			pick_a ? na++ : nb++;
		}
		if ((rnd >> 7) % 5 == 0)
			atomic_fetch_add(&g_now, TICKS((rnd >> 9) % 3));   /* the clock moves on sometimes */
	}
	assert_true(na > N / 4 && nb > N / 4);
	assert_int_equal(udm_sqn_stats(a, &sa), 0);
	assert_int_equal(udm_sqn_stats(b, &sb), 0);
	assert_true(sa.ext_ok + sb.ext_ok >= 2);
	assert_int_equal(sa.refused_lease + sb.refused_lease, eagain);
	assert_int_equal(sa.ind, 3);
	print_message("two nodes: %u vectors (%u / %u), %llu + %llu extensions, %u refused\n", n, na,
		      nb, (unsigned long long)sa.ext_ok, (unsigned long long)sb.ext_ok, eagain);
	udm_sqn_cluster_stop(a);
	udm_sqn_cluster_stop(b);
	udm_free(a);
	udm_free(b);
}

/* ---- (c) SIGKILL mid-stream ---- */
struct line {
	uint64_t sqn;
	struct udm_av av;
};

static void put_hex(char *p, const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sprintf(p + 2 * i, "%02x", b[i]);
}

/* The child: a node of slot ind that issues vectors until killed, one line per vector
 * written straight to the pipe (nothing buffered in the process). Never returns. */
static void child(int fd, const char *addr, unsigned ind)
{
	const char *addrs[1] = { addr };
	struct udm_sqn_dqlite *s = NULL;
	struct udm *udm = udm_one(0);   /* as provisioned: the write-behind of earlier runs is lost */
	struct udm_av av;
	char buf[160];
	time_t spin_since = 0;
	uint64_t sqn;

	int rc = udm_sqn_dqlite_new(addrs, 1, "sqn.db", 5000, &s);

	if (rc == 0)
		rc = cluster(udm, ind, 16, &udm_sqn_dqlite_ops, s);
	if (rc < 0) {
		fprintf(stderr, "child: start rc=%d\n", rc);
		_exit(2);
	}
	for (;;) {
		rc = udm_generate_av(udm, SUPI, SNN, &av);

		if (rc == -EAGAIN) {
			/* spin: the kill may land at any point of an extension; but a lease that
			 * is never extended must end the test (exit: the parent fails), not hang it */
			if (!spin_since)
				spin_since = time(NULL);
			else if (time(NULL) - spin_since > 15) {
				fprintf(stderr, "child: lease never extended\n");
				_exit(5);
			}
			continue;
		}
		spin_since = 0;
		if (rc < 0 || udm_get_sqn(udm, SUPI, &sqn) < 0) {
			fprintf(stderr, "child: vector rc=%d\n", rc);
			_exit(3);
		}
		int n = snprintf(buf, sizeof(buf), "%llu ", (unsigned long long)sqn);
		put_hex(buf + n, av.rand, 16);
		put_hex(buf + n + 32, av.autn, 16);
		put_hex(buf + n + 64, av.xres_star, 16);
		buf[n + 96] = '\n';
		if (write(fd, buf, (size_t)n + 97) != n + 97)
			_exit(4);
	}
}

static int unhex(const char *h, uint8_t *out, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned v;

		if (sscanf(h + 2 * i, "%2x", &v) != 1)
			return -1;
		out[i] = (uint8_t)v;
	}
	return 0;
}

/* Run a child, kill it after `want` lines (SIGKILL: no clean shutdown), collect all it wrote. */
static unsigned crash_run(unsigned ind, unsigned want, struct line *out, unsigned max)
{
	int p[2], status;
	unsigned n = 0;
	char buf[256];
	pid_t pid;
	FILE *f;

	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(p[0]);
		child(p[1], g_node.addr, ind);
	}
	close(p[1]);
	f = fdopen(p[0], "r");
	assert_non_null(f);
	while (n < max && fgets(buf, sizeof(buf), f)) {
		unsigned long long sqn;
		char *sp;

		if (n == want)
			kill(pid, SIGKILL);   /* lines already in the pipe are still read */
		assert_int_equal(sscanf(buf, "%llu", &sqn), 1);
		sp = strchr(buf, ' ');
		assert_non_null(sp);
		out[n].sqn = sqn;
		assert_int_equal(unhex(sp + 1, out[n].av.rand, 16), 0);
		assert_int_equal(unhex(sp + 33, out[n].av.autn, 16), 0);
		assert_int_equal(unhex(sp + 65, out[n].av.xres_star, 16), 0);
		n++;
	}
	if (n < max)
		kill(pid, SIGKILL);
	fclose(f);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (!WIFSIGNALED(status))
		print_message("child exited with %d after %u lines\n", WEXITSTATUS(status), n);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);   /* not an exit */
	return n;
}

static void test_crash(void **state)
{
	enum { MAX = 4000 };
	static struct line lines[MAX];
	struct crypto_usim_sqn st = { 0 };
	unsigned n = 0, eagain = 0;
	uint64_t top = 0, sqn;
	struct udm_sqn_stats ss;
	struct udm *udm;
	struct udm_av av;

	(void)state;
	atomic_store(&g_now, T0);   /* the clock does not move: only the lease protects */
	/* Two runs killed at different points, L = 16: many extensions in flight. */
	n += crash_run(7, 300, lines, MAX / 2);
	n += crash_run(7, 137, lines + n, MAX - n);
	assert_true(n >= 437);
	for (unsigned i = 0; i < n; i++) {
		uint64_t ue;

		assert_int_equal(IND(lines[i].sqn), 7);
		for (unsigned j = 0; j < i; j++)
			assert_true(lines[j].sqn != lines[i].sqn);
		/* All accepted by the USIM in the order they were issued. */
		assert_int_equal(usim(&st, &lines[i].av, &ue, NULL), 0);
		assert_int_equal(ue, lines[i].sqn);
		if (SEQ(lines[i].sqn) > top)
			top = SEQ(lines[i].sqn);
	}
	/* A third run in this process, from the provisioned SQN and the same clock. */
	udm = udm_one(0);
	assert_int_equal(cluster(udm, 7, 16, &udm_sqn_dqlite_ops, g_store), 0);
	assert_int_equal(udm_sqn_stats(udm, &ss), 0);
	assert_true(ss.floor > top);
	for (int i = 0; i < 100; i++) {
		assert_int_equal(av_wait(udm, &av, &eagain), 0);
		assert_int_equal(udm_get_sqn(udm, SUPI, &sqn), 0);
		for (unsigned j = 0; j < n; j++)
			assert_true(lines[j].sqn != sqn);
		assert_int_equal(usim(&st, &av, NULL, NULL), 0);
	}
	print_message("crash: %u vectors from 2 killed runs (top SEQ %llu), new floor %llu\n", n,
		      (unsigned long long)top, (unsigned long long)ss.floor);
	udm_sqn_cluster_stop(udm);
	udm_free(udm);
}

/* ---- a real store whose writes the test holds or fails ---- */
struct gate {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool hold;
	int fail;          /* != 0: writes return it without reaching the store */
	unsigned waiting;
	unsigned races;    /* takes that another writer beats (the lease moves before them) */
};

static struct gate g_gate = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, false, 0, 0, 0 };

/* Another live generator's extension, straight through dqlc on its own connection. */
static void bump_lease(unsigned ind, int64_t by)
{
	struct dqlc_value p[2] = { dqlc_int(by), dqlc_int(ind) };
	struct dqlc_result r;
	struct dqlc *c;
	uint32_t db;

	assert_int_equal(dqlc_connect(g_node.addr, 5000, &c), 0);
	assert_int_equal(dqlc_open(c, "sqn.db", &db), 0);
	assert_int_equal(dqlc_exec_sql(c, db, "UPDATE sqn_lease SET lease = lease + ? WHERE ind = ?",
				       p, 2, &r), 0);
	assert_int_equal(r.rows_affected, 1);
	dqlc_close(c);
}

static int gate_read(void *arg, unsigned ind, uint64_t *lease)
{
	return udm_sqn_dqlite_ops.read(arg, ind, lease);
}

static int gate_wait(void)
{
	int fail;

	pthread_mutex_lock(&g_gate.mu);
	g_gate.waiting++;
	while (g_gate.hold)
		pthread_cond_wait(&g_gate.cv, &g_gate.mu);
	g_gate.waiting--;
	fail = g_gate.fail;
	pthread_mutex_unlock(&g_gate.mu);
	return fail;
}

static int gate_take(void *arg, unsigned ind, uint64_t expect, uint64_t lease, uint64_t owner)
{
	int fail = gate_wait();

	if (g_gate.races) {   /* the control thread only */
		g_gate.races--;
		bump_lease(ind, 5);
	}

	return fail ? fail : udm_sqn_dqlite_ops.take(arg, ind, expect, lease, owner);
}

static int gate_extend(void *arg, unsigned ind, uint64_t lease, uint64_t owner)
{
	int fail = gate_wait();

	return fail ? fail : udm_sqn_dqlite_ops.extend(arg, ind, lease, owner);
}

static const struct udm_sqn_store_ops gate_ops = { gate_read, gate_take, gate_extend };

static void gate_set(bool hold, int fail)
{
	pthread_mutex_lock(&g_gate.mu);
	g_gate.hold = hold;
	g_gate.fail = fail;
	pthread_cond_broadcast(&g_gate.cv);
	pthread_mutex_unlock(&g_gate.mu);
}

static unsigned gate_waiting(void)
{
	unsigned w;

	pthread_mutex_lock(&g_gate.mu);
	w = g_gate.waiting;
	pthread_mutex_unlock(&g_gate.mu);
	return w;
}

/* Two live generators on one slot (a node restarted elsewhere while the old process runs on,
 * or a slot configured twice): the second takes the slot, the first can never extend again
 * and stops at its lease, below the second's floor. No SQN is issued twice. */
static void test_takeover(void **state)
{
	static uint64_t all[200];
	struct udm *a = udm_one(0), *b = udm_one(0);
	struct udm_sqn_stats sa, sb;
	struct udm_av av;
	unsigned n = 0, refused = 0;
	uint64_t sqn, top_a = 0;
	int rc;

	(void)state;
	atomic_store(&g_now, T0);
	assert_int_equal(cluster(a, 15, 16, &udm_sqn_dqlite_ops, g_store), 0);
	for (int i = 0; i < 20; i++) {
		assert_int_equal(av_wait(a, &av, NULL), 0);
		assert_int_equal(udm_get_sqn(a, SUPI, &sqn), 0);
		all[n++] = sqn;
	}
	assert_int_equal(cluster(b, 15, 16, &udm_sqn_dqlite_ops, g_store), 0);
	assert_int_equal(udm_sqn_stats(b, &sb), 0);
	for (int i = 0; i < 60; i++) {
		rc = udm_generate_av(a, SUPI, SNN, &av);
		if (rc == -EAGAIN) {
			refused++;
			tl_sleep_ms(2);
			continue;
		}
		assert_int_equal(rc, 0);
		assert_int_equal(udm_get_sqn(a, SUPI, &sqn), 0);
		assert_false(seen(all, n, sqn));
		all[n++] = sqn;
		assert_int_equal(av_wait(b, &av, NULL), 0);
		assert_int_equal(udm_get_sqn(b, SUPI, &sqn), 0);
		assert_false(seen(all, n, sqn));
		all[n++] = sqn;
	}
	for (unsigned i = 0; i < n; i++)
		if (SEQ(all[i]) < sb.floor && SEQ(all[i]) > top_a)
			top_a = SEQ(all[i]);
	assert_int_equal(udm_sqn_stats(a, &sa), 0);
	assert_true(sa.fenced);
	assert_true(refused >= 30);
	assert_true(sa.lease <= sb.floor);   /* everything a issued is below b's floor */
	assert_true(top_a < sb.floor);
	assert_false(sb.fenced);
	print_message("take-over: %u vectors, old generator fenced at %llu, new floor %llu\n", n,
		      (unsigned long long)sa.lease, (unsigned long long)sb.floor);
	udm_sqn_cluster_stop(a);
	udm_sqn_cluster_stop(b);
	udm_free(a);
	udm_free(b);
}

/* The take-over is a compare-and-set: a lease that moves between the read and the take (a
 * generator still alive on the slot extends it) is read again, so the floor is above it;
 * a slot that keeps moving fails the start with -EBUSY. */
static void test_take_race(void **state)
{
	struct udm *a = udm_one(0), *b = udm_one(0);
	struct udm_sqn_stats ss;
	uint64_t stored = 0;

	(void)state;
	atomic_store(&g_now, T0);
	assert_int_equal(cluster(a, 16, 16, &gate_ops, g_store), 0);   /* row: T + 16 */
	g_gate.races = 2;
	assert_int_equal(cluster(b, 16, 16, &gate_ops, g_store), 0);
	assert_int_equal(g_gate.races, 0);
	assert_int_equal(udm_sqn_stats(b, &ss), 0);
	assert_int_equal(ss.floor, TICK0 + 16 + 10);   /* above both moves */
	assert_int_equal(udm_sqn_dqlite_ops.read(g_store, 16, &stored), 0);
	assert_int_equal(stored, ss.floor + 16);
	udm_sqn_cluster_stop(b);
	udm_free(b);
	b = udm_one(0);
	g_gate.races = 100;
	assert_int_equal(cluster(b, 16, 16, &gate_ops, g_store), -EBUSY);
	assert_int_equal(g_gate.races, 100 - 8);
	g_gate.races = 0;
	assert_int_equal(udm_sqn_stats(b, &ss), -ENOENT);
	udm_sqn_cluster_stop(a);
	udm_free(a);
	udm_free(b);
}

/* ---- (d) lease exhaustion, then extension ---- */
static void test_lease_exhaustion(void **state)
{
	struct crypto_usim_sqn st = { 0 };
	struct udm_sqn_stats ss;
	struct udm *udm = udm_one(0);
	struct udm_av av;
	uint64_t sqn, stored = 0, floor;

	(void)state;
	atomic_store(&g_now, T0);
	assert_int_equal(cluster(udm, 8, 8, &gate_ops, g_store), 0);
	assert_int_equal(udm_sqn_stats(udm, &ss), 0);
	floor = ss.floor;
	assert_int_equal(ss.lease, floor + 8);
	gate_set(true, 0);   /* the extension is stuck in the store */
	for (unsigned i = 0; i < 8; i++) {
		assert_int_equal(udm_generate_av(udm, SUPI, SNN, &av), 0);
		assert_int_equal(udm_get_sqn(udm, SUPI, &sqn), 0);
		assert_int_equal(SEQ(sqn), floor + i);
		assert_int_equal(IND(sqn), 8);
		assert_int_equal(usim(&st, &av, NULL, NULL), 0);
	}
	/* SEQ floor + 8 = the committed lease: refused, counted, the SQN not moved. */
	assert_int_equal(udm_generate_av(udm, SUPI, SNN, &av), -EAGAIN);
	assert_int_equal(udm_generate_av(udm, SUPI, SNN, &av), -EAGAIN);
	atomic_fetch_add(&g_now, TICKS(3));   /* nor does the clock get past it */
	assert_int_equal(udm_generate_av(udm, SUPI, SNN, &av), -EAGAIN);
	assert_int_equal(udm_get_sqn(udm, SUPI, &sqn), 0);
	assert_int_equal(SEQ(sqn), floor + 7);
	assert_int_equal(udm_sqn_stats(udm, &ss), 0);
	assert_int_equal(ss.refused_lease, 3);
	assert_int_equal(ss.issued, 8);
	assert_int_equal(ss.lease, floor + 8);
	for (int i = 0; i < 200 && gate_waiting() == 0; i++)
		tl_sleep_ms(5);
	assert_int_equal(gate_waiting(), 1);   /* the extension was asked for, once */
	assert_int_equal(udm_sqn_dqlite_ops.read(g_store, 8, &stored), 0);
	assert_int_equal(stored, floor + 8);
	gate_set(false, 0);
	for (int i = 0; i < 1000; i++) {
		assert_int_equal(udm_sqn_stats(udm, &ss), 0);
		if (ss.ext_ok)
			break;
		tl_sleep_ms(5);
	}
	/* (The refusals asked for more meanwhile: a second extension may follow at once.) */
	assert_true(ss.ext_ok >= 1);
	assert_true(ss.lease >= floor + 12);
	assert_int_equal(udm_sqn_dqlite_ops.read(g_store, 8, &stored), 0);
	assert_true(stored >= ss.lease);   /* committed before it is used */
	assert_int_equal(udm_generate_av(udm, SUPI, SNN, &av), 0);
	assert_int_equal(udm_get_sqn(udm, SUPI, &sqn), 0);
	assert_int_equal(SEQ(sqn), floor + 8);
	assert_int_equal(usim(&st, &av, NULL, NULL), 0);
	udm_sqn_cluster_stop(udm);
	udm_free(udm);
}

/* An idle node: the clock alone runs past the lease (SEQ >= now); the extension thread moves
 * the lease with the clock, so the next vector is not refused. */
static void test_idle_clock(void **state)
{
	struct crypto_usim_sqn st = { 0 };
	struct udm_sqn_stats ss;
	struct udm *udm = udm_one(0);
	struct udm_av av;
	uint64_t sqn;

	(void)state;
	atomic_store(&g_now, T0);
	assert_int_equal(cluster(udm, 13, 16, &udm_sqn_dqlite_ops, g_store), 0);
	assert_int_equal(udm_generate_av(udm, SUPI, SNN, &av), 0);
	assert_int_equal(usim(&st, &av, NULL, NULL), 0);
	atomic_fetch_add(&g_now, TICKS(100));   /* 100 ticks without a vector, L = 16 */
	for (int i = 0; i < 300; i++) {   /* the thread looks at the clock every second */
		assert_int_equal(udm_sqn_stats(udm, &ss), 0);
		if (ss.lease > TICK0 + 100 + 8)
			break;
		tl_sleep_ms(10);
	}
	assert_true(ss.lease > TICK0 + 100 + 8);
	assert_int_equal(udm_generate_av(udm, SUPI, SNN, &av), 0);
	assert_int_equal(udm_get_sqn(udm, SUPI, &sqn), 0);
	assert_int_equal(SEQ(sqn), TICK0 + 100);   /* the clock's tick */
	assert_int_equal(usim(&st, &av, NULL, NULL), 0);
	assert_int_equal(udm_sqn_stats(udm, &ss), 0);
	assert_int_equal(ss.refused_lease, 0);
	udm_sqn_cluster_stop(udm);
	udm_free(udm);
}

/* ---- (e) resynchronisation ---- */
static int resync_from(struct udm *udm, struct crypto_usim_sqn *st)
{
	struct udm_av av;
	uint8_t auts[14];

	assert_int_equal(av_wait(udm, &av, NULL), 0);
	assert_int_equal(usim(st, &av, NULL, auts), -ESTALE);   /* synchronisation failure */
	return udm_resync(udm, SUPI, av.rand, auts);
}

static void test_resync(void **state)
{
	struct crypto_usim_sqn st = { 0 };
	struct udm_sqn_stats ss;
	struct udm *udm = udm_one(0);
	struct udm_av av;
	uint64_t sqn, ue, far = TICK0 + 1000000, before;
	uint8_t bad[14] = { 0 };
	unsigned eagain = 0;

	(void)state;
	atomic_store(&g_now, T0);
	assert_int_equal(cluster(udm, 5, 0, &udm_sqn_dqlite_ops, g_store), 0);
	/* The USIM holds SEQ `far` on our IND (another core served this SIM): our first
	 * vector is stale, its AUTS carries SQN_MS = far. */
	st.seq_ms[5] = far;
	assert_int_equal(resync_from(udm, &st), 0);
	assert_int_equal(udm_get_sqn(udm, SUPI, &sqn), 0);
	assert_int_equal(SEQ(sqn), far);   /* SQN_MS adopted */
	/* The next SEQ is past the lease (L = 4096): refused (-EAGAIN) until the extension the
	 * resync started lands. */
	assert_int_equal(av_wait(udm, &av, &eagain), 0);
	assert_int_equal(udm_sqn_stats(udm, &ss), 0);
	assert_int_equal(ss.refused_lease, eagain);
	assert_int_equal(usim(&st, &av, &ue, NULL), 0);
	assert_int_equal(SEQ(ue), far + 1);
	assert_int_equal(IND(ue), 5);
	assert_int_equal(udm_sqn_stats(udm, &ss), 0);
	assert_int_equal(ss.resync_adopted, 1);
	assert_true(ss.lease > far + 1);
	/* A wrong MAC-S changes nothing. */
	assert_int_equal(udm_resync(udm, SUPI, av.rand, bad), -EBADMSG);
	assert_int_equal(udm_get_sqn(udm, SUPI, &before), 0);
	assert_int_equal(before, ue);

	udm_sqn_cluster_stop(udm);
	udm_free(udm);
}

/* SQN_MS so far ahead of the clock that following it would drag the lease (and after a crash
 * every subscriber of the node) with it: adopted, but the next vector is -ERANGE. */
static void test_resync_too_far_ahead(void **state)
{
	struct crypto_usim_sqn st = { 0 };
	struct udm_sqn_stats ss;
	struct udm *udm = udm_one(0);
	struct udm_av av;
	uint64_t sqn, ahead = TICK0 + (1ull << 27);

	(void)state;
	atomic_store(&g_now, T0);
	assert_int_equal(cluster(udm, 6, 0, &udm_sqn_dqlite_ops, g_store), 0);
	st.seq_ms[6] = ahead;
	assert_int_equal(resync_from(udm, &st), 0);
	assert_int_equal(udm_get_sqn(udm, SUPI, &sqn), 0);
	assert_int_equal(SEQ(sqn), ahead);
	assert_int_equal(udm_generate_av(udm, SUPI, SNN, &av), -ERANGE);
	assert_int_equal(udm_generate_av(udm, SUPI, SNN, &av), -ERANGE);
	assert_int_equal(udm_sqn_stats(udm, &ss), 0);
	assert_int_equal(ss.refused_ahead, 2);
	assert_int_equal(ss.resync_adopted, 1);
	assert_true(ss.lease < ahead);   /* the lease did not follow */
	/* Two years later the clock has caught up: served again. */
	atomic_store(&g_now, T0 + TICKS((1ull << 27) - (1ull << 26) + 10));
	assert_int_equal(av_wait(udm, &av, NULL), 0);
	assert_int_equal(usim(&st, &av, &sqn, NULL), 0);
	assert_int_equal(SEQ(sqn), ahead + 1);
	assert_int_equal(IND(sqn), 6);
	udm_sqn_cluster_stop(udm);
	udm_free(udm);
}

/* A USIM left unused for more than Delta ticks (TS 33.102 C.2.1): every SQN >= the floor is
 * too far ahead of its SQN_MS and going back would re-issue SQNs: -ERANGE, the SQN kept. */
static void test_resync_unfixable(void **state)
{
	struct crypto_usim_sqn st = { 0 };
	struct udm_sqn_stats ss;
	struct udm *udm = udm_one(0);
	struct udm_av av;
	uint64_t before, after, ue;

	(void)state;
	atomic_store(&g_now, T0 + TICKS(CRYPTO_SQN_DELTA));
	assert_int_equal(cluster(udm, 9, 0, &udm_sqn_dqlite_ops, g_store), 0);
	assert_int_equal(av_wait(udm, &av, NULL), 0);
	assert_int_equal(udm_get_sqn(udm, SUPI, &before), 0);
	uint8_t auts[14];
	assert_int_equal(usim(&st, &av, NULL, auts), -ESTALE);
	assert_int_equal(udm_resync(udm, SUPI, av.rand, auts), -ERANGE);
	assert_int_equal(udm_get_sqn(udm, SUPI, &after), 0);
	assert_int_equal(after, before);   /* never back to SQN_MS = 0 */
	assert_int_equal(udm_sqn_stats(udm, &ss), 0);
	assert_int_equal(ss.resync_unfixable, 1);
	assert_int_equal(ss.resync_adopted, 0);
	/* What it issues next is still new (and still refused by that USIM). */
	assert_int_equal(av_wait(udm, &av, NULL), 0);
	assert_int_equal(udm_get_sqn(udm, SUPI, &after), 0);
	assert_true(SEQ(after) > SEQ(before));
	assert_int_equal(usim(&st, &av, &ue, NULL), -ESTALE);
	udm_sqn_cluster_stop(udm);
	udm_free(udm);
}

/* What the store holds or says is not trusted: a lease that is not an integer, a table of
 * another shape, a node that knows no leader. Each stops the start with its own error. */
static void test_store_bad_answers(void **state)
{
	struct udm *udm = udm_one(0);
	struct udm_sqn_dqlite *s;
	struct dqlc_result r;
	struct dqlc *c;
	uint32_t db;
	struct node lone = { 0 };

	(void)state;
	atomic_store(&g_now, T0);
	assert_int_equal(dqlc_connect(g_node.addr, 5000, &c), 0);
	assert_int_equal(dqlc_open(c, "sqn.db", &db), 0);
	assert_int_equal(dqlc_exec_sql(c, db, "INSERT INTO sqn_lease (ind, lease, owner) "
				       "VALUES (30, 'x', 1)",
				       NULL, 0, &r), 0);
	dqlc_close(c);
	assert_int_equal(dqlc_connect(g_node.addr, 5000, &c), 0);   /* one database a connection */
	assert_int_equal(dqlc_open(c, "other.db", &db), 0);
	assert_int_equal(dqlc_exec_sql(c, db, "CREATE TABLE sqn_lease (node_id INTEGER PRIMARY KEY, "
				       "lease INTEGER)", NULL, 0, &r), 0);
	dqlc_close(c);
	assert_int_equal(cluster(udm, 30, 0, &udm_sqn_dqlite_ops, g_store), -EPROTO);
	assert_int_equal(udm_sqn_dqlite_new((const char *[]){ g_node.addr }, 1, "other.db", 2000, &s), 0);
	assert_int_equal(cluster(udm, 1, 0, &udm_sqn_dqlite_ops, s), -DQLC_EFAILURE);
	udm_sqn_dqlite_free(s);
	/* A node that is in no cluster (id 5, empty dir: no bootstrap) has no leader. */
	assert_int_equal(node_start_id(&lone, 5, true, false, 0), 0);
	s = store_on(&lone);
	assert_int_equal(cluster(udm, 1, 0, &udm_sqn_dqlite_ops, s), -EHOSTUNREACH);
	assert_int_equal(udm_sqn_stats(udm, &(struct udm_sqn_stats){ 0 }), -ENOENT);
	udm_sqn_dqlite_free(s);
	node_rm(&lone);
	udm_free(udm);
}

/* The end of the 43-bit SEQ space (TS 33.102 C.1.2; 278,000 years of ticks away). */
static void test_seq_overflow(void **state)
{
	const int64_t seq_max = (1LL << 43) - 1;
	struct udm *udm = udm_one(0);
	struct udm_av av;

	(void)state;
	atomic_store(&g_now, UDM_SQN_EPOCH_S + TICKS(seq_max - 10));
	assert_int_equal(cluster(udm, 12, 16, &udm_sqn_dqlite_ops, g_store), -EOVERFLOW);
	atomic_store(&g_now, UDM_SQN_EPOCH_S + TICKS(seq_max - 100));
	assert_int_equal(cluster(udm, 12, 16, &udm_sqn_dqlite_ops, g_store), 0);
	assert_int_equal(udm_generate_av(udm, SUPI, SNN, &av), 0);
	atomic_store(&g_now, UDM_SQN_EPOCH_S + TICKS(seq_max + 1));
	assert_int_equal(udm_generate_av(udm, SUPI, SNN, &av), -EOVERFLOW);
	udm_sqn_cluster_stop(udm);
	udm_free(udm);
}

/* ---- leader changes: a 3-voter dqlite cluster, leadership transferred, then the leader
 * stopped; the lease store follows the leader, SQNs stay unique and accepted ---- */
static unsigned leader_id(const struct node *nd, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		struct dqlc *c;
		uint64_t id = 0;
		char addr[DQLC_ADDR_MAX] = "";

		if (!nd[i].n || dqlc_connect(nd[i].addr, 1000, &c) < 0)
			continue;
		if (dqlc_leader(c, &id, addr, sizeof(addr)) < 0)
			id = 0;
		dqlc_close(c);
		if (id)
			return (unsigned)id;
	}
	return 0;
}

static void issue_check(struct udm *udm, struct crypto_usim_sqn *st, uint64_t *all, unsigned *n,
			unsigned count, unsigned ind)
{
	struct udm_av av;
	uint64_t sqn;

	for (unsigned i = 0; i < count; i++) {
		assert_int_equal(av_wait_ms(udm, &av, NULL, 30000), 0);
		assert_int_equal(usim(st, &av, &sqn, NULL), 0);
		assert_int_equal(IND(sqn), ind);
		assert_false(seen(all, *n, sqn));
		all[(*n)++] = sqn;
	}
}

static void test_leader_change(void **state)
{
	static uint64_t all[400];
	struct node nd[3] = { 0 };
	struct crypto_usim_sqn st = { 0 };
	const char *addrs[3];
	struct udm_sqn_dqlite *s = NULL, *s2 = NULL;
	struct udm_sqn_stats ss;
	struct udm *udm, *udm2;
	struct dqlc *c;
	unsigned n = 0, lead;
	uint64_t top = 0;

	(void)state;
	atomic_store(&g_now, T0);
	assert_int_equal(node_start_id(&nd[0], 1, true, true, 5), 0);
	assert_int_equal(node_start_id(&nd[1], 2, true, false, 5), 0);
	assert_int_equal(node_start_id(&nd[2], 3, true, false, 5), 0);
	assert_int_equal(dqlc_connect(nd[0].addr, 10000, &c), 0);
	for (unsigned i = 1; i < 3; i++) {
		assert_int_equal(dqlc_add(c, i + 1, nd[i].addr), 0);
		assert_int_equal(dqlc_assign(c, i + 1, DQLC_ROLE_VOTER), 0);
	}
	for (unsigned i = 0; i < 3; i++)
		addrs[i] = nd[i].addr;
	/* The store knows node 3 first: it must be sent on to the leader (node 1). */
	addrs[0] = nd[2].addr;
	addrs[2] = nd[0].addr;
	assert_int_equal(udm_sqn_dqlite_new(addrs, 3, "sqn.db", 3000, &s), 0);
	udm = udm_one(0);
	assert_int_equal(cluster(udm, 11, 16, &udm_sqn_dqlite_ops, s), 0);
	issue_check(udm, &st, all, &n, 100, 11);

	/* Leadership moves to node 2 (no failure): the store's connection to node 1 answers
	 * "not leader"; it finds node 2. */
	assert_int_equal(dqlc_transfer(c, 2), 0);
	dqlc_close(c);
	for (int i = 0; i < 200 && (lead = leader_id(nd, 3)) != 2; i++)
		tl_sleep_ms(20);
	assert_int_equal(lead, 2);
	issue_check(udm, &st, all, &n, 100, 11);

	/* The leader dies: nodes 1 and 3 elect a new one. */
	node_stop(&nd[1]);
	issue_check(udm, &st, all, &n, 100, 11);
	lead = leader_id(nd, 3);
	assert_true(lead == 1 || lead == 3);
	assert_int_equal(udm_sqn_stats(udm, &ss), 0);
	assert_true(ss.ext_ok >= 3);
	print_message("leader change: %u vectors, %llu extensions (%llu failed), leader now %u\n", n,
		      (unsigned long long)ss.ext_ok, (unsigned long long)ss.ext_fail, lead);
	for (unsigned i = 0; i < n; i++)
		top = SEQ(all[i]) > top ? SEQ(all[i]) : top;

	/* A new run of the slot (provisioned SQN, same clock) after the old one vanished
	 * without stopping: everything is above what the lost leader and the old run saw. */
	assert_int_equal(udm_sqn_dqlite_new(addrs, 3, "sqn.db", 3000, &s2), 0);
	udm2 = udm_one(0);
	assert_int_equal(cluster(udm2, 11, 16, &udm_sqn_dqlite_ops, s2), 0);
	assert_int_equal(udm_sqn_stats(udm2, &ss), 0);
	assert_true(ss.floor > top);
	issue_check(udm2, &st, all, &n, 50, 11);
	udm_sqn_cluster_stop(udm2);
	udm_sqn_cluster_stop(udm);
	udm_free(udm2);
	udm_free(udm);
	udm_sqn_dqlite_free(s2);
	udm_sqn_dqlite_free(s);
	for (unsigned i = 0; i < 3; i++)
		node_rm(&nd[i]);
}

/* ---- (f) store errors ---- */
static void test_store_errors(void **state)
{
	struct node nd = { 0 };
	struct udm_sqn_dqlite *s;
	struct udm_sqn_stats ss;
	struct udm *udm = udm_one(0);
	struct udm_av av;
	uint64_t sqn;
	int rc;

	(void)state;
	atomic_store(&g_now, T0);
	/* Nobody listening: start fails, the udm is not in cluster mode. */
	char addr[64];
	snprintf(addr, sizeof(addr), "127.0.0.1:%d", tl_free_port());
	assert_int_equal(udm_sqn_dqlite_new((const char *[]){ addr }, 1, "sqn.db", 500, &s), 0);
	rc = cluster(udm, 2, 0, &udm_sqn_dqlite_ops, s);
	assert_int_equal(rc, -ECONNREFUSED);
	assert_int_equal(udm_sqn_stats(udm, &ss), -ENOENT);
	udm_sqn_dqlite_free(s);

	/* Read fine, write not committed: start fails too. */
	gate_set(false, -EIO);
	assert_int_equal(cluster(udm, 2, 0, &gate_ops, g_store), -EIO);
	assert_int_equal(udm_sqn_stats(udm, &ss), -ENOENT);
	gate_set(false, 0);

	/* A node that stops while vectors are issued. */
	assert_int_equal(node_start(&nd, true), 0);
	s = store_on(&nd);
	assert_int_equal(cluster(udm, 2, 8, &udm_sqn_dqlite_ops, s), 0);
	assert_int_equal(udm_sqn_stats(udm, &ss), 0);
	uint64_t floor = ss.floor;
	assert_int_equal(av_wait(udm, &av, NULL), 0);   /* floor */
	node_stop(&nd);
	unsigned ok = 1, refused = 0;
	for (int i = 0; i < 400; i++) {
		rc = udm_generate_av(udm, SUPI, SNN, &av);
		if (rc == -EAGAIN) {
			refused++;
			tl_sleep_ms(2);
			continue;
		}
		assert_int_equal(rc, 0);
		ok++;
		assert_int_equal(udm_get_sqn(udm, SUPI, &sqn), 0);
		assert_int_equal(udm_sqn_stats(udm, &ss), 0);
		assert_true(SEQ(sqn) < ss.lease);
	}
	assert_int_equal(udm_sqn_stats(udm, &ss), 0);
	/* The lease committed before the stop may have been extended once at most. */
	assert_true(ok <= ss.lease - floor);
	assert_true(refused >= 300);
	assert_int_equal(ss.refused_lease, refused);
	assert_true(ss.ext_fail >= 1);
	assert_int_equal(udm_get_sqn(udm, SUPI, &sqn), 0);
	assert_true(SEQ(sqn) < ss.lease);
	print_message("store down: %u issued, %u refused, %llu failed extensions, lease %llu\n", ok,
		      refused, (unsigned long long)ss.ext_fail, (unsigned long long)(ss.lease - floor));
	/* The node back (same data, same address): the extension is retried and lands. */
	assert_int_equal(node_start(&nd, false), 0);
	assert_int_equal(av_wait(udm, &av, NULL), 0);
	assert_int_equal(udm_sqn_stats(udm, &ss), 0);
	assert_true(ss.ext_ok >= 1);
	uint64_t stored = 0;
	udm_sqn_cluster_stop(udm);
	assert_int_equal(udm_sqn_dqlite_ops.read(s, 2, &stored), 0);
	assert_true(stored >= ss.lease);
	udm_sqn_dqlite_free(s);
	udm_free(udm);
	node_rm(&nd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_single_node_unchanged),
		cmocka_unit_test(test_conf_errors),
		cmocka_unit_test(test_real_clock_no_alloc),
		cmocka_unit_test(test_two_nodes_interleaved),
		cmocka_unit_test(test_crash),
		cmocka_unit_test(test_takeover),
		cmocka_unit_test(test_take_race),
		cmocka_unit_test(test_lease_exhaustion),
		cmocka_unit_test(test_idle_clock),
		cmocka_unit_test(test_resync),
		cmocka_unit_test(test_resync_too_far_ahead),
		cmocka_unit_test(test_resync_unfixable),
		cmocka_unit_test(test_store_errors),
		cmocka_unit_test(test_store_bad_answers),
		cmocka_unit_test(test_seq_overflow),
		cmocka_unit_test(test_leader_change),
	};

	/* libdqlite's Raft transport (libuv) writes to peers that are gone: without this the
	 * in-process nodes' SIGPIPE ends the test when a node is stopped. */
	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, group_up, group_down);
}
