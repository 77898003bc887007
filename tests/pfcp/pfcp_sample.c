/* SPDX-License-Identifier: AGPL-3.0-or-later */
#include <stdio.h>
#include <string.h>

#include "common/pfcp/pfcp_int.h"
#include "pfcp_sample.h"

const uint8_t pfcp_sample_types[] = {
	PFCP_HEARTBEAT_REQ, PFCP_HEARTBEAT_RSP, PFCP_ASSOC_SETUP_REQ, PFCP_ASSOC_SETUP_RSP,
	PFCP_ASSOC_UPDATE_REQ, PFCP_ASSOC_UPDATE_RSP, PFCP_ASSOC_RELEASE_REQ, PFCP_ASSOC_RELEASE_RSP,
	PFCP_VERSION_NOT_SUPPORTED_RSP, PFCP_NODE_REPORT_REQ, PFCP_NODE_REPORT_RSP, PFCP_SESS_EST_REQ, PFCP_SESS_EST_RSP,
	PFCP_SESS_MOD_REQ, PFCP_SESS_MOD_RSP, PFCP_SESS_DEL_REQ, PFCP_SESS_DEL_RSP,
	PFCP_SESS_REPORT_REQ, PFCP_SESS_REPORT_RSP,
};
const unsigned pfcp_sample_ntypes = sizeof(pfcp_sample_types);

static const uint8_t ni[] = "\x08internet";
static const uint8_t fd[] = "permit out ip from any to assigned";
static const uint8_t fqdn[] = "\x03upf\x04test";
static const uint8_t up_feat[] = { 0x01, 0x02 };    /* BUCP, DDND (8.2.25) */
static const uint8_t cp_feat[] = { 0x01 };          /* LOAD (8.2.58) */
static const uint8_t peer_a[] = { 0x02, 10, 0, 0, 9 };  /* V4 (8.2.70) */
static const uint8_t peer_b[] = { 0x02, 10, 0, 0, 10 };

static void pdi(struct pfcp_pdi *p, int i)
{
	p->src_if = i ? PFCP_IF_CORE : PFCP_IF_ACCESS;
	if (i) {    /* downlink: UE address as destination, a fixed F-TEID */
		p->fteid = (struct pfcp_fteid){ PFCP_FTEID_V4 | PFCP_FTEID_V6, 0x1000 + (uint32_t)i,
						{ 192, 168, 0, 2 }, { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 }, 0 };
		p->ue_ip = (struct pfcp_ue_ip){ PFCP_UEIP_V4 | PFCP_UEIP_SD | PFCP_UEIP_V6 | PFCP_UEIP_V6D | PFCP_UEIP_V6PL,
						{ 10, 45, 0, 7 }, { 0x20, 0x01, 0x0d, 0xb8, 0, 1 }, 8, 64 };
	} else {    /* uplink: the UPF chooses the TEID (CHOOSE, CHOOSE ID 5) */
		p->fteid = (struct pfcp_fteid){ PFCP_FTEID_V4 | PFCP_FTEID_CH | PFCP_FTEID_CHID, 0, { 0 }, { 0 }, 5 };
		p->ue_ip = (struct pfcp_ue_ip){ PFCP_UEIP_V4, { 10, 45, 0, 7 }, { 0 }, 0, 0 };
	}
	p->ni = (struct pfcp_buf){ ni, sizeof(ni) - 1 };
	p->n_sdf = 2;
	p->sdf[0] = (struct pfcp_sdf){ PFCP_SDF_FD | PFCP_SDF_BID, { fd, sizeof(fd) - 1 }, 0, 0, 0, 7 };
	p->sdf[1] = (struct pfcp_sdf){ PFCP_SDF_TTC | PFCP_SDF_SPI | PFCP_SDF_FL, { NULL, 0 }, 0x2eff,
				       0x11223344, 0xabcde, 0 };
	p->n_qfi = 2;
	p->qfi[0] = 9;
	p->qfi[1] = 5;
	p->src_if_type = i ? PFCP_IFT_N6 : PFCP_IFT_N3_3GPP;   /* 8.2.118 */
}

static void pdr(struct pfcp_pdr *p, int i)
{
	p->pdr_id = (uint16_t)(1 + i);
	p->precedence = 255 - (uint32_t)i;
	pdi(&p->pdi, i);
	p->ohr = (struct pfcp_ohr){ PFCP_OHR_GTPU_UDP_IPV4, i == 1, 1 };
	p->far_id = 1 + (uint32_t)i;
	p->n_urr = 2;
	p->urr_id[0] = 1;
	p->urr_id[1] = 2;
	p->n_qer = 1;
	p->qer_id[0] = 1;
}

static void far(struct pfcp_far *f, int i)
{
	f->far_id = 1 + (uint32_t)i;
	f->apply = i ? PFCP_AA_BUFF | PFCP_AA_NOCP : PFCP_AA_FORW;
	f->fwd.dest_if = i ? PFCP_IF_ACCESS : PFCP_IF_CORE;
	f->fwd.dest_if_type = i ? PFCP_IFT_N3_3GPP : PFCP_IFT_N6;
	f->fwd.ni = (struct pfcp_buf){ ni, sizeof(ni) - 1 };
	if (i)
		f->fwd.ohc = (struct pfcp_ohc){ PFCP_OHC_GTPU4, 0x55667788, { 192, 168, 0, 10 }, { 0 }, 0, 0, 0 };
	else
		f->fwd.ohc = (struct pfcp_ohc){ PFCP_OHC_UDP4 | PFCP_OHC_CTAG | PFCP_OHC_STAG, 0, { 172, 16, 0, 1 },
						{ 0 }, 2152, 0x10064, 0x200c8 };
	f->bar_id = 1;
}

static void urr(struct pfcp_urr *u, int i)
{
	u->urr_id = 1 + (uint32_t)i;
	u->method = PFCP_MM_DURAT | PFCP_MM_VOLUM;
	u->triggers = PFCP_RT_VOLTH | PFCP_RT_TIMTH | PFCP_RT_VOLQU;
	u->period = 60;
	u->vol_thresh = (struct pfcp_volume){ PFCP_VOL_TOVOL | PFCP_VOL_ULVOL | PFCP_VOL_DLVOL, 3000000, 1000000,
					      2000000, 0, 0, 0 };
	u->vol_quota = (struct pfcp_volume){ PFCP_VOL_DLVOL, 0, 0, 50000000, 0, 0, 0 };
	u->time_thresh = 600;
	u->time_quota = 3600;
}

static void qer(struct pfcp_qer *q, int i)
{
	q->qer_id = 1 + (uint32_t)i;
	q->gate = (uint8_t)(PFCP_GATE_OPEN << 2 | (i ? PFCP_GATE_CLOSED : PFCP_GATE_OPEN));
	q->mbr = (struct pfcp_bitrate){ 100000, 200000 };
	q->gbr = (struct pfcp_bitrate){ 1000, 2000 };
	q->qfi = 9;
}

static void bar(struct pfcp_bar *b)
{
	*b = (struct pfcp_bar){ 0, 1, 20, 10 };
}

static void usage(struct pfcp_usage_report *u, int i)
{
	u->urr_id = 1 + (uint32_t)i;
	u->seqn = 7 + (uint32_t)i;
	u->trigger = PFCP_URT_VOLTH | PFCP_URT_TERMR;
	u->start = 0xe7000000u;
	u->end = 0xe7000e10u;
	u->volume = (struct pfcp_volume){ 0x3f, 3000, 1000, 2000, 30, 10, 20 };
	u->duration = 3600;
}

static void node(struct pfcp_node_msg *n)
{
	n->node_id = (struct pfcp_node_id){ PFCP_NODE_IPV4, { 10, 0, 0, 1 }, { NULL, 0 } };
	n->cause = PFCP_CAUSE_ACCEPTED;
	n->recovery = 0xe1234567u;
	n->up_features = (struct pfcp_buf){ up_feat, sizeof(up_feat) };
	n->cp_features = (struct pfcp_buf){ cp_feat, sizeof(cp_feat) };
	n->offending_ie = PFCP_IE_NODE_ID;
	n->report_type = PFCP_NRT_UPFR;
	n->path_failure.n_peer = 2;
	n->path_failure.peer[0] = (struct pfcp_buf){ peer_a, sizeof(peer_a) };
	n->path_failure.peer[1] = (struct pfcp_buf){ peer_b, sizeof(peer_b) };
}

static void rules(struct pfcp_pdr *p, struct pfcp_far *f, struct pfcp_urr *u, struct pfcp_qer *q)
{
	for (int i = 0; i < 2; i++) {
		pdr(&p[i], i);
		far(&f[i], i);
		urr(&u[i], i);
		qer(&q[i], i);
	}
}

/* Every single IE of the table marked present, recursively (counts are set by the fillers) */
static void mark(const struct pfcp_grp *g, void *s)
{
	for (unsigned i = 0; i < g->n; i++) {
		const struct pfcp_ie_desc *d = &g->ie[i];

		*(uint32_t *)s |= d->bit;
		if (d->kind != PFCP_K_GROUP)
			continue;
		for (unsigned k = 0; k < pfcp_count(s, d); k++)
			mark(d->grp, pfcp_val(s, d, k));
	}
}

static void sess(struct pfcp_msg *m)
{
	struct pfcp_sess_mod_req *r = &m->mod;

	m->h.seid = 0x0102030405060708ull;
	m->h.has_prio = true;
	m->h.prio = 3;
	switch (m->h.type) {
	case PFCP_SESS_EST_REQ:
		m->h.seid = 0;  /* TS 29.244 7.2.2.4.2: no UP SEID yet */
		m->est.node_id = (struct pfcp_node_id){ PFCP_NODE_FQDN, { 0 }, { fqdn, sizeof(fqdn) - 1 } };
		m->est.cp_fseid = (struct pfcp_fseid){ PFCP_ADDR_V4, 0x1122334455667788ull, { 10, 0, 0, 1 }, { 0 } };
		m->est.n_pdr = m->est.n_far = m->est.n_urr = m->est.n_qer = 2;
		rules(m->est.pdr, m->est.far, m->est.urr, m->est.qer);
		bar(&m->est.bar);
		m->est.pdn_type = PFCP_PDN_IPV4V6;
		break;
	case PFCP_SESS_MOD_REQ:
		r->cp_fseid = (struct pfcp_fseid){ PFCP_ADDR_V4 | PFCP_ADDR_V6, 0x1122334455667788ull,
						   { 10, 0, 0, 1 }, { 0xfd, [15] = 1 } };
		r->n_rm_pdr = r->n_rm_far = r->n_rm_urr = r->n_rm_qer = 1;
		r->rm_pdr[0].id = 3;
		r->rm_far[0].id = r->rm_urr[0].id = r->rm_qer[0].id = 3;
		r->rm_bar.bar_id = 2;
		r->n_pdr = r->n_far = r->n_urr = r->n_qer = 2;
		rules(r->pdr, r->far, r->urr, r->qer);
		r->n_upd_pdr = r->n_upd_far = r->n_upd_urr = r->n_upd_qer = 2;
		rules(r->upd_pdr, r->upd_far, r->upd_urr, r->upd_qer);
		bar(&r->bar);
		bar(&r->upd_bar);
		r->flags = PFCP_SMF_DROBU | PFCP_SMF_SNDEM | PFCP_SMF_QAURR;   /* 8.2.31 */
		r->n_query_urr = 1;
		r->query_urr[0].id = 2;
		break;
	case PFCP_SESS_EST_RSP:
	case PFCP_SESS_MOD_RSP:
	case PFCP_SESS_DEL_RSP:
		m->rsp.node_id = (struct pfcp_node_id){ PFCP_NODE_IPV6, { 0xfd, 0, [15] = 2 }, { NULL, 0 } };
		m->rsp.cause = PFCP_CAUSE_ACCEPTED;
		m->rsp.offending_ie = PFCP_IE_CREATE_PDR;
		m->rsp.up_fseid = (struct pfcp_fseid){ PFCP_ADDR_V4, 0x0102030405060708ull, { 10, 0, 0, 2 }, { 0 } };
		m->rsp.n_created = m->rsp.n_usage = 2;
		for (int i = 0; i < 2; i++) {
			m->rsp.created[i] = (struct pfcp_created_pdr){ 0, (uint16_t)(1 + i),
				{ PFCP_FTEID_V4, 0x2000 + (uint32_t)i, { 192, 168, 0, 1 }, { 0 }, 0 },
				{ PFCP_UEIP_V4 | PFCP_UEIP_SD, { 10, 45, 0, 7 }, { 0 }, 0, 0 } };
			usage(&m->rsp.usage[i], i);
		}
		m->rsp.failed_rule = (struct pfcp_rule_id){ PFCP_RULE_QER, 3 };   /* 8.2.80 */
		break;
	case PFCP_SESS_REPORT_REQ:
		m->rep.type = PFCP_RPT_DLDR | PFCP_RPT_USAR | PFCP_RPT_ERIR;
		m->rep.dl.n_pdr = 2;
		m->rep.dl.pdr_id[0] = 2;
		m->rep.dl.pdr_id[1] = 4;
		m->rep.n_usage = 2;
		usage(&m->rep.usage[0], 0);
		usage(&m->rep.usage[1], 1);
		/* 7.5.8.4: two Remote F-TEIDs, IPv4 and IPv6 */
		m->rep.err_ind.n_fteid = 2;
		m->rep.err_ind.fteid[0] = (struct pfcp_fteid){ PFCP_FTEID_V4, 0x10000007, { 192, 0, 2, 2 }, { 0 }, 0 };
		m->rep.err_ind.fteid[1] = (struct pfcp_fteid){ PFCP_FTEID_V6, 0x10000008, { 0 }, { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 }, 0 };
		break;
	case PFCP_SESS_REPORT_RSP:
		m->rep_rsp.cause = PFCP_CAUSE_ACCEPTED;
		m->rep_rsp.offending_ie = PFCP_IE_REPORT_TYPE;
		bar(&m->rep_rsp.upd_bar);
		break;
	default:
		break;
	}
}

int pfcp_sample(uint8_t type, struct pfcp_msg *m)
{
	const struct pfcp_msg_desc *md = pfcp_msg_desc(type);

	memset(m, 0, sizeof(*m));
	if (!md)
		return -ENOMSG;
	m->h.type = type;
	m->h.seq = 0x00abcd00u + type;
	if (md->session)
		sess(m);
	else
		node(&m->node);
	mark(md->body, &m->node);
	return 0;
}

static int all_present(const struct pfcp_grp *g, const void *s, const char *msg)
{
	for (unsigned i = 0; i < g->n; i++) {
		const struct pfcp_ie_desc *d = &g->ie[i];
		unsigned n = pfcp_count(s, d);

		if (!n) {
			fprintf(stderr, "%s: %s missing in %s\n", msg, pfcp_ie_name(d->type),
				g->type ? pfcp_ie_name(g->type) : "the message");
			return 0;
		}
		for (unsigned k = 0; d->kind == PFCP_K_GROUP && k < n; k++)
			if (!all_present(d->grp, pfcp_cval(s, d, k), msg))
				return 0;
	}
	return 1;
}

int pfcp_sample_all_present(const struct pfcp_msg *m)
{
	const struct pfcp_msg_desc *md = pfcp_msg_desc(m->h.type);

	return md && all_present(md->body, &m->node, md->name);
}
