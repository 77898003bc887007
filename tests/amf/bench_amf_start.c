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
#include "common/nas/nas.h"
#include "common/ngap/ngap.h"
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

static uint8_t pdu[4096];

static void send_msg(struct amf *amf, uint16_t stream, const struct ngap_msg *m)
{
	int n = ngap_encode(m, pdu, sizeof(pdu));

	if (n > 0)
		amf_n2_rx(amf, 1, stream, pdu, (size_t)n);
}

/* n live contexts: InitialUEMessage(Registration Request with an unknown 5G-GUTI), each
 * left waiting for its IDENTITY RESPONSE (T3570 running). */
static void live_contexts(struct amf *amf, uint32_t n)
{
	static struct ngap_msg m;
	static const uint8_t plmn[3] = { 0x00, 0xf1, 0x10 };
	struct nas_msg r;
	struct nas_err err;
	uint8_t nas[256];
	uint32_t i;
	int len;

	amf_n2_assoc_up(amf, 1, 8, 8);
	memset(&m, 0, sizeof(m));
	m.type = NGAP_INITIATING;
	m.proc = NGAP_PROC_NG_SETUP;
	memcpy(m.u.ng_setup_request.ran_node_id.plmn.v, plmn, 3);
	m.u.ng_setup_request.ran_node_id.id = 1;
	m.u.ng_setup_request.ran_node_id.id_bits = 22;
	m.u.ng_setup_request.n_tas = 1;
	m.u.ng_setup_request.tas[0].tac[2] = 1;
	m.u.ng_setup_request.tas[0].n_plmns = 1;
	memcpy(m.u.ng_setup_request.tas[0].plmns[0].plmn.v, plmn, 3);
	m.u.ng_setup_request.tas[0].plmns[0].n_slices = 1;
	m.u.ng_setup_request.tas[0].plmns[0].slices[0] = (struct ngap_snssai){ 1, true, { 1, 2, 3 } };
	send_msg(amf, 0, &m);
	for (i = 0; i < n; i++) {
		memset(&r, 0, sizeof(r));
		r.type = NAS_REGISTRATION_REQUEST;
		r.reg_req.reg_type = 0x01;
		r.reg_req.ngksi = 7;
		r.reg_req.mobile_id.type = NAS_MOBID_5G_GUTI;
		r.reg_req.mobile_id.guti.plmn.mcc = 1;
		r.reg_req.mobile_id.guti.plmn.mnc = 1;
		r.reg_req.mobile_id.guti.amf_region_id = 9;   /* not ours: unknown GUTI */
		r.reg_req.mobile_id.guti.tmsi = i;
		r.reg_req.has_ue_sec_cap = true;
		r.reg_req.ue_sec_cap.ea = 0xf0;
		r.reg_req.ue_sec_cap.ia = 0xf0;
		len = nas_encode(&r, nas, sizeof(nas), &err);
		if (len <= 0)
			return;
		memset(&m, 0, sizeof(m));
		m.type = NGAP_INITIATING;
		m.proc = NGAP_PROC_INITIAL_UE_MESSAGE;
		m.u.initial_ue_message.ran_ue_id = i;
		m.u.initial_ue_message.nas.p = nas;
		m.u.initial_ue_message.nas.len = (size_t)len;
		memcpy(m.u.initial_ue_message.uli.tai.plmn.v, plmn, 3);
		m.u.initial_ue_message.uli.tai.tac[2] = 1;
		memcpy(m.u.initial_ue_message.uli.nr_cgi.plmn.v, plmn, 3);
		send_msg(amf, 1, &m);
	}
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
		uint32_t live = max_ues < 200000 ? max_ues : 200000;
		struct amf *amf = amf_new(loop, &cfg, ausf, udm, &ops, &err);
		struct amf_stats st;
		double w0, w1;

		if (!amf)
			return 1;
		live_contexts(amf, live);
		amf_get_stats(amf, &st);
		w0 = now_s(CLOCK_MONOTONIC);
		amf_free(amf);
		w1 = now_s(CLOCK_MONOTONIC);
		printf("amf_free with %llu live contexts (T3570 running): %.3f ms wall\n",
		       (unsigned long long)st.ues, (w1 - w0) * 1e3);
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
