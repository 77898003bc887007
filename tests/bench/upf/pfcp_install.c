/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * pfcp-install - install N sessions into a UPF over PFCP (TS 29.244), like a PFCP simulator,
 * and say how fast: the usual UPF benchmark method is this, then N3 and N6 traffic from the
 * packet generator of your choice for the sessions it lists (--list).
 *
 * It is solocore's own SMF client (upf/upf_n4c, the code `solocore run` uses in upf.mode
 * pfcp): Association Setup, then Session Establishment Requests with at most --window in
 * flight, each the usual SMF rule set (uplink PDR with the F-TEID {teid, --n3}, downlink PDR
 * with the UE address, FARs to Core and to the gNB tunnel {--gnb, gnb teid}, one QER, one
 * URR). Session i: TEID teid-base + i, UE address ue-pool + 1 + i, gNB TEID gnb-teid + i.
 *
 *   pfcp-install --upf ADDR --local ADDR --n3 ADDR --sessions N [--window 256]
 *       [--ue-pool 10.45.0.0] [--gnb 192.0.2.2] [--gnb-teid 65536] [--teid-base 1]
 *       [--list FILE] [--modify] [--choose] [--delete] [--hold] [--t1 MS] [--n1 N]
 *
 * --choose: take each establishment's answer as the SMF does (on_est_done, issue 32): with a
 * UPF that advertises FTUP the request asks it to CHOOSE the F-TEID (TS 29.244 8.2.3) and the
 * Created PDR gives it (7.5.3.2); --list then writes the chosen TEIDs. --modify: after the
 * establishments, two Session Modifications per session, the pair a live network sends most:
 * the downlink to buffering (AN release, TS 23.502 4.2.6: FAR Apply Action BUFF) and back to
 * the gNB tunnel (Service Request, 4.2.3.2: FORW), each pass with at most --window in flight.
 * Prints "key value" lines: sessions, established, refused (lost or refused), elapsed_s,
 * est_per_s, retransmissions, est_cpu_us (this process's CPU time per establishment); with
 * --modify also modified, mod_elapsed_s, mod_per_s, mod_cpu_us; with --delete also deleted,
 * del_elapsed_s, del_per_s, del_cpu_us. --hold
 * keeps the association (and so the sessions) until SIGINT / SIGTERM; otherwise it releases
 * the association at the end, which makes the UPF purge every session (6.2.8).
 * Exit 0 when every session was established (and deleted with --delete), 1 otherwise, 2 on
 * a usage error.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "common/ev.h"
#include "common/log.h"
#include "upf/upf.h"

static uint64_t lost;
static volatile sig_atomic_t stop;
static struct upf *P;
static uint32_t *chosen;   /* --choose: the uplink TEID of each session's Created PDR */

static void on_dl(void *arg, uint32_t id)
{
	(void)arg;
	(void)id;
}

static void on_lost(void *arg, uint32_t id, enum upf_lost_reason why)
{
	(void)arg;
	(void)why;
	lost++;
	upf_session_remove(P, id);   /* refused or not answered: gone */
}

static void on_est(void *arg, uint32_t id, const struct upf_est_result *r)
{
	(void)arg;
	if (r->status == UPF_EST_OK) {
		chosen[id] = r->ul_teid;
		return;
	}
	lost++;   /* counted as removed by the client (upf.h): removed here as well */
	upf_session_remove(P, id);
}

static void on_sig(int sig)
{
	(void)sig;
	stop = 1;
}

static uint64_t cnt(struct upf_n4c *c, unsigned k)
{
	uint64_t v[UPF_N4C__MAX];

	upf_n4c_counters_get(c, v, UPF_N4C__MAX);
	return v[k];
}

static int addr(const char *s, uint32_t *out)
{
	struct in_addr a;

	if (!s || inet_pton(AF_INET, s, &a) != 1)
		return -1;
	*out = a.s_addr;
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: pfcp-install --upf ADDR --local ADDR --n3 ADDR --sessions N [--window W]\n"
			"  [--ue-pool A.B.C.D] [--gnb ADDR] [--gnb-teid N] [--teid-base N] [--list FILE]\n"
			"  [--modify] [--choose] [--delete] [--hold] [--t1 MS] [--n1 N]\n");
	exit(2);
}

/* Run the loop until cond holds or limit_ms passes; 0 or -ETIMEDOUT. */
static int run_until(struct ev_loop *L, bool (*cond)(void *), void *arg, uint64_t limit_ms)
{
	uint64_t end = ev_update_now(L) + limit_ms * 1000000u;

	while (!cond(arg) && !stop) {
		if (ev_update_now(L) > end)
			return -ETIMEDOUT;
		ev_run_once(L, 10);
	}
	return cond(arg) ? 0 : -EINTR;
}

/* Session i's rule: ACTIVE toward the gNB tunnel or BUFFER (--modify's first pass). */
static struct upf_session_rule rule_of(uint32_t i, uint32_t teid_base, uint32_t pool, uint32_t gnb, uint32_t gnb_teid,
				       enum upf_dl_state dl)
{
	return (struct upf_session_rule){
		.ul_teid = chosen && chosen[i] ? chosen[i] : teid_base + i,
		.ue_addr = htonl(ntohl(pool) + 1 + i), .gnb_addr = gnb,
		.gnb_teid = gnb_teid + i, .qfi = 9, .dl_state = dl,
	};
}

/* One pass of Session Modifications, every session to dl, at most window unanswered. The
 * client counts no accepted modification; the responses it received (rx) less the other
 * messages (heartbeats: at most a few a second) stand for them, so the pass may end with a
 * heartbeat's worth still in flight. Returns the modifications sent. */
static uint64_t mod_pass(struct ev_loop *L, struct upf_n4c *C, uint32_t n, uint32_t window, uint32_t teid_base,
			 uint32_t pool, uint32_t gnb, uint32_t gnb_teid, enum upf_dl_state dl)
{
	uint64_t mod0 = cnt(C, UPF_N4C_MOD), rx0 = cnt(C, UPF_N4C_RX), lost0 = lost;
	uint32_t i = 0;

	while (!stop && upf_ready(P)) {
		uint64_t sent = cnt(C, UPF_N4C_MOD) - mod0, done = cnt(C, UPF_N4C_RX) - rx0 + (lost - lost0);

		if (i >= n && done >= sent)
			break;
		while (i < n && sent - (done < sent ? done : sent) < window) {
			struct upf_session_rule r = rule_of(i, teid_base, pool, gnb, gnb_teid, dl);

			i++;
			if (upf_session_modify(P, i - 1, &r) == 0)
				sent = cnt(C, UPF_N4C_MOD) - mod0;
		}
		ev_run_once(L, 10);
	}
	return cnt(C, UPF_N4C_MOD) - mod0;
}

/* This process's CPU time (user + system), microseconds: the cost per message, which a
 * loaded host leaves steadier than the rate. */
static uint64_t cpu_us(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000u +
	       (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

static bool ready(void *arg)
{
	(void)arg;
	return upf_ready(P);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "upf", 1, 0, 'u' }, { "local", 1, 0, 'l' }, { "n3", 1, 0, '3' }, { "sessions", 1, 0, 'n' },
		{ "window", 1, 0, 'w' }, { "ue-pool", 1, 0, 'p' }, { "gnb", 1, 0, 'g' }, { "gnb-teid", 1, 0, 'G' },
		{ "teid-base", 1, 0, 't' }, { "list", 1, 0, 'L' }, { "delete", 0, 0, 'd' }, { "hold", 0, 0, 'h' },
		{ "t1", 1, 0, 'T' }, { "n1", 1, 0, 'N' }, { "modify", 0, 0, 'm' }, { "choose", 0, 0, 'c' },
		{ 0, 0, 0, 0 },
	};
	uint32_t upf = 0, local = 0, n3 = 0, pool = htonl(0x0a2d0000), gnb = htonl(0xc0000202);
	uint32_t n = 0, window = 256, gnb_teid = 65536, teid_base = 1, t1 = 0, n1 = 0;
	const char *list = NULL;
	bool del = false, hold = false, modify = false, choose = false;
	struct upf_n4c_params cp = { 0 };
	struct upf_n4c_peer pp = { .name = "upf", .on_dl_data = on_dl, .on_session_lost = on_lost };
	struct ev_loop *L;
	struct upf_n4c *C;
	uint64_t t0, t_est, created = 0, ok, c0;
	int o, err, rc = 0;

	while ((o = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (o) {
		case 'u': if (addr(optarg, &upf)) usage(); break;
		case 'l': if (addr(optarg, &local)) usage(); break;
		case '3': if (addr(optarg, &n3)) usage(); break;
		case 'p': if (addr(optarg, &pool)) usage(); break;
		case 'g': if (addr(optarg, &gnb)) usage(); break;
		case 'n': n = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'w': window = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'G': gnb_teid = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 't': teid_base = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'T': t1 = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'N': n1 = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'L': list = optarg; break;
		case 'd': del = true; break;
		case 'h': hold = true; break;
		case 'm': modify = true; break;
		case 'c': choose = true; break;
		default: usage();
		}
	}
	if (!upf || !local || !n3 || !n || !window || !teid_base || n1 > 10)
		usage();
	log_set_level(LOGL_WARN);
	signal(SIGINT, on_sig);
	signal(SIGTERM, on_sig);
	L = ev_loop_new(&err);
	if (!L)
		return 1;
	cp = (struct upf_n4c_params){ .loop = L, .addr = local, .max_sessions = n, .t1_ms = t1, .n1 = (uint8_t)n1,
				      .heartbeat_ms = 2000 };
	if ((err = upf_n4c_open(&cp, &C)) < 0) {
		fprintf(stderr, "pfcp-install: PFCP on %s: %s\n", inet_ntoa((struct in_addr){ local }), strerror(-err));
		return 1;
	}
	pp.addr = upf;
	pp.n3_addr = n3;
	if (choose) {
		chosen = calloc(n, sizeof(*chosen));
		if (!chosen)
			return 1;
		pp.on_est_done = on_est;
	}
	if ((err = upf_n4c_peer_add(C, &pp, &P)) < 0) {
		fprintf(stderr, "pfcp-install: peer: %s\n", strerror(-err));
		return 1;
	}
	if (run_until(L, ready, NULL, 10000) < 0) {
		fprintf(stderr, "pfcp-install: no PFCP association with %s\n", inet_ntoa((struct in_addr){ upf }));
		upf_n4c_close(C);
		return 1;
	}
	t0 = ev_update_now(L);
	c0 = cpu_us();
	while (!stop) {
		ok = cnt(C, UPF_N4C_EST_OK);
		if (ok + lost >= n)
			break;
		/* TS 29.244 6.4: a bounded window, as a PFCP simulator keeps, so the UPF's socket
		 * buffer is not what is measured */
		while (created < n && cnt(C, UPF_N4C_EST) - cnt(C, UPF_N4C_EST_OK) - lost < window) {
			struct upf_session_rule r = rule_of((uint32_t)created, teid_base, pool, gnb, gnb_teid,
							    UPF_DL_ACTIVE);

			if (upf_session_create(P, (uint32_t)created, &r) < 0)
				break;
			created++;
		}
		if (!upf_ready(P)) {
			fprintf(stderr, "pfcp-install: the association was lost\n");
			break;
		}
		ev_run_once(L, 10);
	}
	t_est = ev_update_now(L);
	ok = cnt(C, UPF_N4C_EST_OK);
	printf("sessions %u\nestablished %llu\nrefused %llu\nelapsed_s %.3f\nest_per_s %.0f\nretransmissions %llu\n", n,
	       (unsigned long long)ok, (unsigned long long)lost, (double)(t_est - t0) / 1e9,
	       t_est > t0 ? (double)ok * 1e9 / (double)(t_est - t0) : 0.0,
	       (unsigned long long)cnt(C, UPF_N4C_RETX));
	printf("est_cpu_us %.2f\n", ok ? (double)(cpu_us() - c0) / (double)ok : 0.0);
	if (ok != n)
		rc = 1;
	if (list) {
		FILE *f = fopen(list, "w");

		if (!f) {
			perror(list);
			rc = 1;
		} else {
			fprintf(f, "# id ul_teid ue_addr gnb_teid (N3 %s)\n", inet_ntoa((struct in_addr){ n3 }));
			for (uint32_t i = 0; i < n; i++)
				fprintf(f, "%u %u %s %u\n", i, chosen ? chosen[i] : teid_base + i,
					inet_ntoa((struct in_addr){ htonl(ntohl(pool) + 1 + i) }), gnb_teid + i);
			fclose(f);
		}
	}
	if (modify && !stop && ok == n) {
		uint64_t t2 = ev_update_now(L), t3, m, c2 = cpu_us();

		m = mod_pass(L, C, n, window, teid_base, pool, gnb, gnb_teid, UPF_DL_BUFFER);
		m += mod_pass(L, C, n, window, teid_base, pool, gnb, gnb_teid, UPF_DL_ACTIVE);
		t3 = ev_update_now(L);
		printf("modified %llu\nmod_elapsed_s %.3f\nmod_per_s %.0f\n", (unsigned long long)m,
		       (double)(t3 - t2) / 1e9, t3 > t2 ? (double)m * 1e9 / (double)(t3 - t2) : 0.0);
		printf("mod_cpu_us %.2f\n", m ? (double)(cpu_us() - c2) / (double)m : 0.0);
		if (m != 2ull * n || lost)
			rc = 1;
	}
	if (del && !stop) {
		uint64_t t2 = ev_update_now(L), t3, dok, removed = 0, c2 = cpu_us();

		while (!stop && upf_ready(P)) {
			dok = cnt(C, UPF_N4C_DEL_OK);
			if (dok >= ok)
				break;
			while (removed < n && cnt(C, UPF_N4C_DEL) - cnt(C, UPF_N4C_DEL_OK) < window) {
				if (upf_session_remove(P, (uint32_t)removed++) < 0)
					continue;
			}
			ev_run_once(L, 10);
		}
		t3 = ev_update_now(L);
		dok = cnt(C, UPF_N4C_DEL_OK);
		printf("deleted %llu\ndel_elapsed_s %.3f\ndel_per_s %.0f\n", (unsigned long long)dok,
		       (double)(t3 - t2) / 1e9, t3 > t2 ? (double)dok * 1e9 / (double)(t3 - t2) : 0.0);
		printf("del_cpu_us %.2f\n", dok ? (double)(cpu_us() - c2) / (double)dok : 0.0);
		if (dok != ok)
			rc = 1;
	}
	fflush(stdout);
	while (hold && !stop)
		ev_run_once(L, 100);
	upf_n4c_close(C);
	ev_loop_free(L);
	free(chosen);
	return rc;
}
