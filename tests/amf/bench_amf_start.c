/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * bench_amf_start [max_ues] [runs]: wall and CPU time of amf_new() and amf_free() for a
 * pool of max_ues contexts (default 1048576 = limits.max_ues' default), and the resident
 * memory after creation; then the same for smf_new()/smf_free() sized for max_ues UEs
 * (conf defaults), since solocore starts and stops both. Prints figures; run by hand.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "amf/amf.h"
#include "ausf/ausf.h"
#include "common/conf.h"
#include "common/ev.h"
#include "common/log.h"
#include "smf/smf.h"
#include "udm/udm.h"

static double now_s(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static long rss_kb(void)
{
	FILE *f = fopen("/proc/self/statm", "r");
	long pages = 0, res = 0;

	if (!f)
		return -1;
	if (fscanf(f, "%ld %ld", &pages, &res) != 2)
		res = -1;
	fclose(f);
	return res * 4;
}

static int no_send(void *arg, uint32_t assoc, uint16_t stream, const uint8_t *buf, size_t len)
{
	(void)arg;
	(void)assoc;
	(void)stream;
	(void)buf;
	(void)len;
	return 0;
}

int main(int argc, char **argv)
{
	uint32_t max_ues = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 0) : 1048576u;
	int runs = argc > 2 ? atoi(argv[2]) : 5, i, err = 0;
	struct amf_n2_ops ops = { .send = no_send };
	struct amf_cfg cfg;
	struct ev_loop *loop;
	struct udm *udm;
	struct ausf *ausf;

	log_set_level(LOGL_WARN);
	loop = ev_loop_new(&err);
	udm = udm_new(16, &err);
	ausf = ausf_new(udm, &err);
	if (!loop || !udm || !ausf)
		return 1;
	amf_cfg_default(&cfg);
	cfg.max_ues = max_ues;
	printf("max_ues=%u runs=%d\n", max_ues, runs);
	for (i = 0; i < runs; i++) {
		double w0 = now_s(CLOCK_MONOTONIC), c0 = now_s(CLOCK_PROCESS_CPUTIME_ID), w1, c1, w2, c2;
		long rss0 = rss_kb(), rss1;
		struct amf *amf = amf_new(loop, &cfg, ausf, udm, &ops, &err);

		if (!amf) {
			fprintf(stderr, "amf_new failed %d\n", err);
			return 1;
		}
		w1 = now_s(CLOCK_MONOTONIC);
		c1 = now_s(CLOCK_PROCESS_CPUTIME_ID);
		rss1 = rss_kb();
		amf_free(amf);
		w2 = now_s(CLOCK_MONOTONIC);
		c2 = now_s(CLOCK_PROCESS_CPUTIME_ID);
		printf("run %d: amf_new %.3f ms wall %.3f ms cpu, +%ld kB resident; amf_free %.3f ms wall %.3f ms cpu\n",
		       i, (w1 - w0) * 1e3, (c1 - c0) * 1e3, rss1 - rss0, (w2 - w1) * 1e3, (c2 - c1) * 1e3);
	}
	{
		static struct conf c;
		struct smf_params p;

		if (conf_defaults(&c) < 0)
			return 1;
		memset(&p, 0, sizeof(p));
		p.conf = &c;
		p.loop = loop;
		p.max_ues = max_ues;
		for (i = 0; i < runs; i++) {
			double w0 = now_s(CLOCK_MONOTONIC), w1, w2;
			long rss0 = rss_kb(), rss1;
			struct smf *smf = smf_new(&p, &err);

			if (!smf) {
				fprintf(stderr, "smf_new failed %d\n", err);
				return 1;
			}
			w1 = now_s(CLOCK_MONOTONIC);
			rss1 = rss_kb();
			smf_free(smf);
			w2 = now_s(CLOCK_MONOTONIC);
			printf("run %d: smf_new %.3f ms wall, +%ld kB resident; smf_free %.3f ms wall\n", i,
			       (w1 - w0) * 1e3, rss1 - rss0, (w2 - w1) * 1e3);
		}
	}
	ausf_free(ausf);
	udm_free(udm);
	ev_loop_free(loop);
	return 0;
}
