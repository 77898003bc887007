/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * Seeds for fuzz_upf_n4: the datagrams of a usual session's life that the
 * server ACCEPTS (the codec's samples carry every IE and are mostly refused
 * as unsupported rules, so the fuzzer would seldom reach the accept paths):
 * Session Establishment (CHOOSE, forward / buffer), Modification of the
 * downlink FAR, Deletion, a Session Report Response, Heartbeat, Association
 * Update. SEIDs are those of the fuzzer's first session (slot 0, generation 1).
 * usage: upf_n4_fuzz_seeds SEEDDIR CORPUSDIR STAMP (both directories created)
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/pfcp/pfcp.h"

static struct pfcp_msg m;
static uint8_t buf[4096];
static const uint8_t SMF[4] = { 10, 0, 0, 2 }, UE[4] = { 10, 45, 0, 3 }, GNB[4] = { 10, 0, 0, 9 };
#define SEID ((uint64_t)1 << 32 | 1)

static int put(const char *dir, const char *name)
{
	char path[600];
	int n = pfcp_encode(&m, buf, sizeof(buf));
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (n < 0 || !f || fwrite(buf, 1, (size_t)n, f) != (size_t)n) {
		fprintf(stderr, "%s: %d\n", name, n);
		return 1;
	}
	return fclose(f) ? 1 : 0;
}

static void ohc(struct pfcp_far *f, uint32_t teid)
{
	f->has |= PFCP_FAR_FWD;
	f->fwd.has = PFCP_FWD_DEST_IF | PFCP_FWD_OHC;
	f->fwd.dest_if = PFCP_IF_ACCESS;
	f->fwd.ohc.desc = PFCP_OHC_GTPU4;
	f->fwd.ohc.teid = teid;
	memcpy(f->fwd.ohc.ipv4, GNB, 4);
}

static void est(int buffer)
{
	struct pfcp_sess_est_req *e = &m.est;
	const uint32_t pdr_has = PFCP_PDR_ID | PFCP_PDR_PRECEDENCE | PFCP_PDR_PDI | PFCP_PDR_FAR_ID |
				 PFCP_PDR_QER_ID | PFCP_PDR_URR_ID;

	memset(&m, 0, sizeof(m));
	m.h.type = PFCP_SESS_EST_REQ;
	m.h.seq = buffer ? 11 : 10;
	e->has = PFCP_SER_NODE_ID | PFCP_SER_F_SEID | PFCP_SER_PDR | PFCP_SER_FAR | PFCP_SER_QER | PFCP_SER_URR;
	e->node_id.type = PFCP_NODE_IPV4;
	memcpy(e->node_id.addr, SMF, 4);
	e->cp_fseid = (struct pfcp_fseid){ .flags = PFCP_ADDR_V4, .seid = 7 };
	memcpy(e->cp_fseid.ipv4, SMF, 4);
	e->n_pdr = 2;
	e->pdr[0] = (struct pfcp_pdr){ .has = pdr_has | PFCP_PDR_OHR, .pdr_id = 1, .far_id = 1, .n_qer = 1,
				       .qer_id = { 1 }, .n_urr = 1, .urr_id = { 1 },
				       .pdi = { .has = PFCP_PDI_SRC_IF | PFCP_PDI_F_TEID, .src_if = PFCP_IF_ACCESS,
						.fteid = { .flags = PFCP_FTEID_CH | PFCP_FTEID_V4 } } };
	e->pdr[1] = (struct pfcp_pdr){ .has = pdr_has, .pdr_id = 2, .far_id = 2, .n_qer = 1, .qer_id = { 1 },
				       .n_urr = 1, .urr_id = { 1 },
				       .pdi = { .has = PFCP_PDI_SRC_IF | PFCP_PDI_UE_IP, .src_if = PFCP_IF_CORE,
						.ue_ip = { .flags = PFCP_UEIP_V4 | PFCP_UEIP_SD } } };
	memcpy(e->pdr[1].pdi.ue_ip.ipv4, UE, 4);
	e->n_far = 2;
	e->far[0] = (struct pfcp_far){ .has = PFCP_FAR_ID | PFCP_FAR_APPLY, .far_id = 1, .apply = PFCP_AA_FORW };
	e->far[1] = (struct pfcp_far){ .has = PFCP_FAR_ID | PFCP_FAR_APPLY, .far_id = 2,
				       .apply = buffer ? PFCP_AA_BUFF | PFCP_AA_NOCP : PFCP_AA_FORW };
	if (!buffer)
		ohc(&e->far[1], 0x99);
	e->n_qer = 1;
	e->qer[0] = (struct pfcp_qer){ .has = PFCP_QER_ID | PFCP_QER_GATE | PFCP_QER_MBR | PFCP_QER_QFI,
				       .qer_id = 1, .mbr = { 1000, 2000 }, .qfi = 5 };
	e->n_urr = 1;
	e->urr[0] = (struct pfcp_urr){ .has = PFCP_URR_ID | PFCP_URR_METHOD | PFCP_URR_TRIGGERS, .urr_id = 1,
				       .method = PFCP_MM_VOLUM };
}

static void sess(uint8_t type, uint32_t seq)
{
	memset(&m, 0, sizeof(m));
	m.h.type = type;
	m.h.seq = seq;
	m.h.seid = SEID;
}

int main(int argc, char **argv)
{
	int bad = 0;
	FILE *stamp;

	if (argc != 4 || (mkdir(argv[1], 0755) && access(argv[1], W_OK)) ||
	    (mkdir(argv[2], 0755) && access(argv[2], W_OK)))
		return 2;
	est(0);
	bad |= put(argv[1], "est-forward");
	est(1);
	bad |= put(argv[1], "est-buffer");
	sess(PFCP_SESS_MOD_REQ, 12);
	m.mod.has = PFCP_SMR_UPD_FAR | PFCP_SMR_UPD_QER;
	m.mod.n_upd_far = 1;
	m.mod.upd_far[0] = (struct pfcp_far){ .has = PFCP_FAR_ID | PFCP_FAR_APPLY, .far_id = 2,
					      .apply = PFCP_AA_FORW };
	ohc(&m.mod.upd_far[0], 0x77);
	m.mod.n_upd_qer = 1;
	m.mod.upd_qer[0] = (struct pfcp_qer){ .has = PFCP_QER_ID | PFCP_QER_MBR, .qer_id = 1, .mbr = { 5, 6 } };
	bad |= put(argv[1], "mod-far-qer");
	sess(PFCP_SESS_DEL_REQ, 13);
	bad |= put(argv[1], "del");
	sess(PFCP_SESS_REPORT_RSP, 1);
	m.rep_rsp.has = PFCP_SRRSP_CAUSE;
	m.rep_rsp.cause = PFCP_CAUSE_ACCEPTED;
	bad |= put(argv[1], "report-rsp");
	memset(&m, 0, sizeof(m));
	m.h.type = PFCP_HEARTBEAT_REQ;
	m.h.seq = 14;
	m.node.has = PFCP_N_RECOVERY;
	bad |= put(argv[1], "heartbeat");
	m.h.type = PFCP_ASSOC_UPDATE_REQ;
	m.node.has = PFCP_N_NODE_ID;
	m.node.node_id.type = PFCP_NODE_IPV4;
	memcpy(m.node.node_id.addr, SMF, 4);
	bad |= put(argv[1], "assoc-update");
	stamp = fopen(argv[3], "w");
	return bad || !stamp || fclose(stamp) ? 1 : 0;
}
