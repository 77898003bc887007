/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * bench_smf: thread CPU time per SMF step, no user plane attached (the SMF's
 * own cost: decode, checks, pool, state machine, encode of N1 and N2).
 * Run by hand: build-smf/tests/smf/bench_smf [cycles]. Best of 5 rounds.
 *   cycle = establishment request -> accept + Setup Request Transfer,
 *           Setup Response Transfer, UE context release, service request
 *           (Setup Request Transfer again), Setup Response, release request
 *           -> command + Release Command Transfer, Release Response Transfer,
 *           release complete.
 *   handover = one session's N2 handover with indirect forwarding (TS 23.502 4.9.1.3):
 *           Handover Required Transfer -> Handover Request Transfer, Handover Request
 *           Acknowledge Transfer -> Handover Command Transfer (forwarding tunnel), notify
 *           (rule update), end (forwarding tunnel removed).
 */
#include <arpa/inet.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/conf.h"
#include "common/ev.h"
#include "common/log.h"
#include "common/nas/nas.h"
#include "common/ngap/ngap.h"
#include "smf/smf.h"

static uint64_t cpu_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static int enc_gsm(uint8_t type, uint8_t psi, uint8_t pti, uint8_t *buf, size_t cap)
{
	static const uint8_t imr[2] = { 0xff, 0xff };
	struct nas_msg m;

	memset(&m, 0, sizeof(m));
	m.type = type;
	m.psi = psi;
	m.pti = pti;
	if (type == NAS_PDU_SESSION_ESTABLISHMENT_REQUEST) {
		m.pdu_est_req.integrity_max_rate = (struct nas_buf){ imr, 2 };
		m.pdu_est_req.has_pdu_session_type = true;
		m.pdu_est_req.pdu_session_type = NAS_PDU_IPV4;
	}
	return nas_encode(&m, buf, cap, NULL);
}

/* The handover cycle on the session psi 1 of ue (established, user plane active). 0 or -1. */
static int bench_ho(struct smf *smf, struct smf_ue *ue, struct smf_out *out, unsigned cycles)
{
	struct ngap_ho_required_transfer rq = { 0 };
	struct ngap_ho_request_ack_transfer ack;
	uint8_t rb[16], ab[128];
	uint64_t best = UINT64_MAX;
	int rn, an;

	memset(&ack, 0, sizeof(ack));
	ack.dl_tunnel.addr_bits = 32;
	ack.dl_tunnel.addr[0] = 192;
	ack.dl_tunnel.teid[3] = 2;
	ack.has_dl_forwarding = true;
	ack.dl_forwarding = ack.dl_tunnel;
	ack.dl_forwarding.teid[3] = 3;
	ack.n_flows = 1;
	ack.flows[0] = (struct ngap_qos_flow_fwd){ .qfi = 1, .forwarding_accepted = true };
	rn = ngap_enc_ho_required_transfer(&rq, rb, sizeof(rb));
	an = ngap_enc_ho_request_ack_transfer(&ack, ab, sizeof(ab));
	if (rn < 0 || an < 0)
		return -1;
	for (int round = 0; round < 5; round++) {
		uint64_t t0 = cpu_ns();
		for (unsigned i = 0; i < cycles; i++) {
			if (smf_ho_prepare(smf, ue, 1, rb, (size_t)rn, false, out) ||
			    smf_ho_admitted(smf, ue, 1, ab, (size_t)an, out) || out->n2_proc != SMF_N2_HO_COMMAND ||
			    smf_ho_complete(smf, ue, 1) || smf_ho_end(smf, ue, 1)) {
				fprintf(stderr, "handover %u failed\n", i);
				return -1;
			}
		}
		uint64_t dt = cpu_ns() - t0;
		if (dt < best)
			best = dt;
	}
	printf("smf N2 handover (4 SMF calls: prepare, admitted with indirect forwarding, complete, end): "
	       "%.0f ns/handover (best of 5 x %u)\n", (double)best / cycles, cycles);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned cycles = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 200000;
	uint8_t est[64], rel[16], cpl[16], rsp[64], relrsp[16], n1[SMF_N1_MAX], n2[SMF_N2_MAX];
	int n_est, n_rel, n_cpl, n_rsp, n_relrsp, err = 0;
	struct conf c;
	struct ev_loop *loop;
	struct smf *smf;
	struct smf_ue *ue;
	struct smf_out out;
	struct nas_ul_nas_transport ul_est, ul_rel, ul_cpl;
	struct ngap_setup_response_transfer t;
	struct ngap_release_response_transfer rt = { 0 };
	uint64_t best = UINT64_MAX;

	log_set_level(LOGL_ERROR);
	conf_defaults(&c);
	loop = ev_loop_new(&err);
	struct smf_params p = { .conf = &c, .loop = loop, .max_sessions = 1024, .max_ues = 16,
				.n3_addr = htonl(0xc0000201) };
	smf = smf_new(&p, &err);
	if (!smf || smf_ue_attach(smf, "imsi-001010000000001", NULL, &ue) < 0) {
		fprintf(stderr, "setup failed: %d\n", err);
		return 1;
	}
	n_est = enc_gsm(NAS_PDU_SESSION_ESTABLISHMENT_REQUEST, 1, 1, est, sizeof(est));
	n_rel = enc_gsm(NAS_PDU_SESSION_RELEASE_REQUEST, 1, 2, rel, sizeof(rel));
	n_cpl = enc_gsm(NAS_PDU_SESSION_RELEASE_COMPLETE, 1, 2, cpl, sizeof(cpl));
	memset(&t, 0, sizeof(t));
	t.dl_tunnel.addr_bits = 32;
	t.dl_tunnel.addr[0] = 192;
	t.dl_tunnel.teid[3] = 1;
	t.n_flows = 1;
	t.qfis[0] = 1;
	n_rsp = ngap_enc_setup_response_transfer(&t, rsp, sizeof(rsp));
	n_relrsp = ngap_enc_release_response_transfer(&rt, relrsp, sizeof(relrsp));
	if (n_est < 0 || n_rel < 0 || n_cpl < 0 || n_rsp < 0 || n_relrsp < 0)
		return 1;
	memset(&ul_est, 0, sizeof(ul_est));
	ul_est.payload_type = NAS_PAYLOAD_N1_SM;
	ul_rel = ul_cpl = ul_est;
	ul_est.payload = (struct nas_buf){ est, (uint16_t)n_est };
	ul_rel.payload = (struct nas_buf){ rel, (uint16_t)n_rel };
	ul_cpl.payload = (struct nas_buf){ cpl, (uint16_t)n_cpl };
	smf_out_init(&out, n1, sizeof(n1), n2, sizeof(n2));

	for (int round = 0; round < 5; round++) {
		uint64_t t0 = cpu_ns();
		for (unsigned i = 0; i < cycles; i++) {
			if (smf_n1_rx(smf, ue, &ul_est, &out) || out.n2_proc != SMF_N2_SETUP ||
			    smf_n2_rx(smf, ue, 1, SMF_N2_SETUP_RSP, rsp, (size_t)n_rsp, &out) ||
			    smf_up_deactivate(smf, ue) != 1 ||
			    smf_up_reactivate(smf, ue, 1, &out) ||
			    smf_n2_rx(smf, ue, 1, SMF_N2_SETUP_RSP, rsp, (size_t)n_rsp, &out) ||
			    smf_n1_rx(smf, ue, &ul_rel, &out) || out.n2_proc != SMF_N2_RELEASE ||
			    smf_n2_rx(smf, ue, 1, SMF_N2_RELEASE_RSP, relrsp, (size_t)n_relrsp, &out) ||
			    smf_n1_rx(smf, ue, &ul_cpl, &out) || smf_ue_psi_map(ue)) {
				fprintf(stderr, "cycle %u failed\n", i);
				return 1;
			}
		}
		uint64_t dt = cpu_ns() - t0;
		if (dt < best)
			best = dt;
	}
	printf("smf session cycle (8 SMF calls: establish, setup rsp, deactivate, reactivate, setup rsp, "
	       "release req, release rsp, release complete): %.0f ns/cycle, %.0f cycles/s (best of 5 x %u)\n",
	       (double)best / cycles, cycles * 1e9 / (double)best, cycles);
	if (smf_n1_rx(smf, ue, &ul_est, &out) || smf_n2_rx(smf, ue, 1, SMF_N2_SETUP_RSP, rsp, (size_t)n_rsp, &out) ||
	    bench_ho(smf, ue, &out, cycles) < 0)
		return 1;
	smf_free(smf);
	ev_loop_free(loop);
	return 0;
}
