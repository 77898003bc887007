/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * PFCP codec (common/pfcp, TS 29.244): round trip of every message with every
 * IE, byte-exact encodes of hand-built messages against the layouts of 7.2.2
 * and 8.2, and every decode error path (truncation at every byte, bad
 * lengths, missing mandatory IEs, misplaced grouped IEs, limits), each with
 * the offending IE a server puts in its answer.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "common/pfcp/pfcp.h"
#include "pfcp_sample.h"
#include "testlib.h"

static struct pfcp_msg m1, m2;
static uint8_t b1[PFCP_MSG_MAX_LEN], b2[PFCP_MSG_MAX_LEN];
static char s1[65536], s2[65536];

static void unhex(const char *hex, uint8_t *out, size_t *len)
{
	int n = tv_unhex(hex, out, PFCP_MSG_MAX_LEN);

	assert_true(n > 0);
	*len = (size_t)n;
}

/* TS 29.244 7.2 / 7.4 / 7.5: every message, every IE of its table, repeated
 * IEs twice: encode, decode, every IE back, same text, same bytes again. */
static void test_roundtrip_every_message(void **state)
{
	(void)state;
	for (unsigned i = 0; i < pfcp_sample_ntypes; i++) {
		uint8_t t = pfcp_sample_types[i];
		struct pfcp_err e;
		int n1, n2;

		assert_int_equal(pfcp_sample(t, &m1), 0);
		n1 = pfcp_encode(&m1, b1, sizeof(b1));
		assert_true(n1 >= PFCP_HDR_LEN);
		assert_int_equal(pfcp_decode(b1, (size_t)n1, &m2, &e), n1);
		assert_int_equal(m2.h.type, t);
		assert_int_equal(m2.h.seq, m1.h.seq);
		assert_true(pfcp_sample_all_present(&m2));
		assert_true(pfcp_msg_to_str(&m1, s1, sizeof(s1)) < (int)sizeof(s1));
		pfcp_msg_to_str(&m2, s2, sizeof(s2));
		assert_string_equal(s1, s2);
		n2 = pfcp_encode(&m2, b2, sizeof(b2));
		assert_int_equal(n2, n1);
		assert_memory_equal(b1, b2, (size_t)n1);
		assert_int_equal(pfcp_msg_is_session(t), t >= PFCP_SESS_EST_REQ);
		if (t >= PFCP_SESS_EST_REQ) {
			assert_int_equal(m2.h.seid, m1.h.seid);
			assert_true(m2.h.has_prio);
			assert_int_equal(m2.h.prio, 3);
		}
	}
}

static void est_req_hand(struct pfcp_msg *m);

/* Spot checks of decoded values that the string comparison would not name. */
static void test_roundtrip_values(void **state)
{
	const struct pfcp_pdr *p;
	int n;

	(void)state;
	pfcp_sample(PFCP_SESS_EST_REQ, &m1);
	n = pfcp_encode(&m1, b1, sizeof(b1));
	assert_true(n > 0);
	assert_int_equal(pfcp_decode(b1, (size_t)n, &m2, NULL), n);
	assert_int_equal(m2.est.n_pdr, 2);
	p = &m2.est.pdr[0];
	/* 8.2.3: CHOOSE with CHOOSE ID, no TEID / address on the wire */
	assert_int_equal(p->pdi.fteid.flags, PFCP_FTEID_V4 | PFCP_FTEID_CH | PFCP_FTEID_CHID);
	assert_int_equal(p->pdi.fteid.choose_id, 5);
	assert_int_equal(p->pdi.n_sdf, 2);
	assert_int_equal(p->pdi.sdf[0].flow.len, strlen("permit out ip from any to assigned"));
	assert_memory_equal(p->pdi.sdf[0].flow.p, "permit out", 10);
	assert_true(p->pdi.sdf[0].flow.p >= b1 && p->pdi.sdf[0].flow.p < b1 + n); /* points into input */
	assert_int_equal(m2.est.pdr[1].pdi.fteid.teid, 0x1001);
	assert_int_equal(m2.est.pdr[1].pdi.ue_ip.v6_prefix_len, 64);
	assert_int_equal(m2.est.far[1].apply, PFCP_AA_BUFF | PFCP_AA_NOCP);
	assert_int_equal(m2.est.far[1].fwd.ohc.teid, 0x55667788);
	assert_int_equal(m2.est.far[0].fwd.ohc.port, 2152);
	assert_int_equal(m2.est.far[0].fwd.ohc.stag, 0x200c8);
	assert_int_equal(m2.est.qer[0].mbr.dl, 200000);
	assert_int_equal(m2.est.urr[0].vol_thresh.dl, 2000000);
	assert_int_equal(m2.est.urr[0].triggers, PFCP_RT_VOLTH | PFCP_RT_TIMTH | PFCP_RT_VOLQU);
	assert_int_equal(m2.est.bar.suggested_pkts, 10);

	/* the same struct again with a message that lacks the optional IEs: nothing stale
	 * from the first decode is left (7.5.2: only the mandatory IEs) */
	est_req_hand(&m1);
	n = pfcp_encode(&m1, b1, sizeof(b1));
	assert_int_equal(pfcp_decode(b1, (size_t)n, &m2, NULL), n);
	assert_int_equal(m2.est.n_urr, 0);
	assert_int_equal(m2.est.n_pdr, 1);
	assert_int_equal(m2.est.pdr[0].pdi.n_sdf, 0);
	assert_int_equal(m2.est.pdr[1].pdr_id, 0);
	assert_int_equal(m2.est.has & PFCP_SER_BAR, 0);

	pfcp_sample(PFCP_SESS_DEL_RSP, &m1);
	n = pfcp_encode(&m1, b1, sizeof(b1));
	assert_int_equal(pfcp_decode(b1, (size_t)n, &m2, NULL), n);
	assert_int_equal(m2.rsp.n_usage, 2);
	assert_int_equal(m2.rsp.usage[1].volume.dl_pkts, 20);
	assert_int_equal(m2.rsp.usage[0].trigger, PFCP_URT_VOLTH | PFCP_URT_TERMR);
	assert_int_equal(m2.rsp.has & PFCP_SRSP_NODE_ID, 0);   /* not in 7.5.7's table */
}

/* TS 29.244 7.2.2.1 header (version 1, no SEID: 8 octets), 8.2.65 Recovery Time Stamp */
static void test_bytes_heartbeat(void **state)
{
	size_t len;
	uint8_t want[64];
	int n;

	(void)state;
	memset(&m1, 0, sizeof(m1));
	m1.h.type = PFCP_HEARTBEAT_REQ;
	m1.h.seq = 0x000102;
	m1.node.has = PFCP_N_RECOVERY;
	m1.node.recovery = 0xe1234567u;
	unhex("20 01 000c 000102 00"        /* v1, S=0; type 1; length 12; seq; spare */
	      "0060 0004 e1234567",         /* Recovery Time Stamp (96) */
	      want, &len);
	n = pfcp_encode(&m1, b1, sizeof(b1));
	assert_int_equal(n, (int)len);
	assert_memory_equal(b1, want, len);
}

/* 7.4.4.1 Association Setup Request: Node ID (8.2.38 IPv4), Recovery Time
 * Stamp, CP Function Features (8.2.58) */
static void test_bytes_assoc_setup(void **state)
{
	static const uint8_t cpf[] = { 0x01 };
	size_t len;
	uint8_t want[64];
	int n;

	(void)state;
	memset(&m1, 0, sizeof(m1));
	m1.h.type = PFCP_ASSOC_SETUP_REQ;
	m1.h.seq = 1;
	m1.node.has = PFCP_N_NODE_ID | PFCP_N_RECOVERY | PFCP_N_CP_FEATURES;
	m1.node.node_id.type = PFCP_NODE_IPV4;
	memcpy(m1.node.node_id.addr, "\x0a\x00\x00\x01", 4);
	m1.node.recovery = 0xe1234567u;
	m1.node.cp_features = (struct pfcp_buf){ cpf, 1 };
	unhex("20 05 001a 000001 00"
	      "003c 0005 00 0a000001"       /* Node ID: type 0 IPv4, 10.0.0.1 */
	      "0060 0004 e1234567"          /* Recovery Time Stamp */
	      "0059 0001 01",               /* CP Function Features: LOAD */
	      want, &len);
	n = pfcp_encode(&m1, b1, sizeof(b1));
	assert_int_equal(n, (int)len);
	assert_memory_equal(b1, want, len);
}

/* The Session Establishment Request of the byte-exact test, as hex */
#define EST_REQ_HEX                                                                                \
	"23 32 0074 0000000000000000 000002 50" /* v1, MP, S; type 50; length 116; SEID 0; seq 2; prio 5 */ \
	"003c 0005 00 0a000001"                 /* Node ID IPv4 10.0.0.1 */                              \
	"0039 000d 02 0000000000000001 0a000001" /* F-SEID: V4, SEID 1, 10.0.0.1 */                     \
	"0001 002f"                             /* Create PDR */                                           \
	"  0038 0002 0001"                      /* PDR ID 1 */                                             \
	"  001d 0004 000000ff"                  /* Precedence 255 */                                       \
	"  0002 0010"                           /* PDI */                                                  \
	"    0014 0001 00"                      /* Source Interface: Access */                             \
	"    0015 0002 0d 05"                   /* F-TEID: CHID | CH | V4, CHOOSE ID 5 */                  \
	"    007c 0001 09"                      /* QFI 9 */                                                \
	"  005f 0001 00"                        /* Outer Header Removal: GTP-U/UDP/IPv4 */                 \
	"  006c 0004 00000001"                  /* FAR ID 1 */                                             \
	"0003 0017"                             /* Create FAR */                                           \
	"  006c 0004 00000001"                  /* FAR ID 1 */                                             \
	"  002c 0002 0200"                      /* Apply Action: FORW, 2 octets (8.2.26, Rel-16) */        \
	"  0004 0005"                           /* Forwarding Parameters */                                \
	"    002a 0001 01"                      /* Destination Interface: Core */

static void est_req_hand(struct pfcp_msg *m)
{
	struct pfcp_pdr *p = &m->est.pdr[0];
	struct pfcp_far *f = &m->est.far[0];

	memset(m, 0, sizeof(*m));
	m->h = (struct pfcp_hdr){ PFCP_SESS_EST_REQ, false, true, 5, 0, 2 };
	m->est.has = PFCP_SER_NODE_ID | PFCP_SER_F_SEID | PFCP_SER_PDR | PFCP_SER_FAR;
	m->est.node_id.type = PFCP_NODE_IPV4;
	memcpy(m->est.node_id.addr, "\x0a\x00\x00\x01", 4);
	m->est.cp_fseid = (struct pfcp_fseid){ PFCP_ADDR_V4, 1, { 10, 0, 0, 1 }, { 0 } };
	m->est.n_pdr = m->est.n_far = 1;
	p->has = PFCP_PDR_ID | PFCP_PDR_PRECEDENCE | PFCP_PDR_PDI | PFCP_PDR_OHR | PFCP_PDR_FAR_ID;
	p->pdr_id = 1;
	p->precedence = 255;
	p->pdi.has = PFCP_PDI_SRC_IF | PFCP_PDI_F_TEID | PFCP_PDI_QFI;
	p->pdi.src_if = PFCP_IF_ACCESS;
	p->pdi.fteid = (struct pfcp_fteid){ PFCP_FTEID_V4 | PFCP_FTEID_CH | PFCP_FTEID_CHID, 0, { 0 }, { 0 }, 5 };
	p->pdi.n_qfi = 1;
	p->pdi.qfi[0] = 9;
	p->far_id = 1;
	f->has = PFCP_FAR_ID | PFCP_FAR_APPLY | PFCP_FAR_FWD;
	f->far_id = 1;
	f->apply = PFCP_AA_FORW;
	f->fwd.has = PFCP_FWD_DEST_IF;
	f->fwd.dest_if = PFCP_IF_CORE;
}

/* 7.5.2 Session Establishment Request, grouped IEs per 7.5.2.2 / 7.5.2.3 */
static void test_bytes_sess_est(void **state)
{
	size_t len;
	int n;

	(void)state;
	est_req_hand(&m1);
	unhex(EST_REQ_HEX, b2, &len);
	n = pfcp_encode(&m1, b1, sizeof(b1));
	assert_int_equal(n, (int)len);
	assert_memory_equal(b1, b2, len);
	assert_int_equal(pfcp_decode(b2, len, &m2, NULL), (int)len);
	assert_int_equal(m2.h.prio, 5);
	assert_int_equal(m2.est.pdr[0].pdi.fteid.choose_id, 5);
}

/* The offset of the IE bytes given in hex inside b1[0..n), or -1 */
static long find_ie(int n, const char *hex, uint8_t *ie, size_t *len)
{
	unhex(hex, ie, len);
	for (long i = 0; i + (long)*len <= n; i++)
		if (!memcmp(b1 + i, ie, *len))
			return i;
	return -1;
}

/* 8.2.62 UE IP Address for IPv6 sessions, as the SMF's N4 client sends them: V4 + V6 with the
 * /64 (the default prefix length: no IPv6D, no IP6PL), V6 alone as source, and the optional
 * IPv6 Prefix Delegation Bits / IPv6 Prefix Length octets; each byte-exact in a Session
 * Establishment Request, decoded back; a length shorter than the flags ask for is -EBADMSG
 * naming the UE IP Address inside the PDI (cause 68). */
static void test_ue_ip_v6(void **state)
{
	static const struct { struct pfcp_ue_ip v; const char *hex; } c[] = {
		{ { PFCP_UEIP_V4 | PFCP_UEIP_V6 | PFCP_UEIP_SD, { 10, 45, 0, 7 },
		    { 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x45, 0x00, 0x07 }, 0, 0 },
		  "005d 0015 07 0a2d0007 20010db8 00450007 00000000 00000000" },   /* type 93, len 21 */
		{ { PFCP_UEIP_V6, { 0 }, { 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x45, 0x00, 0x07 }, 0, 0 },
		  "005d 0011 01 20010db8 00450007 00000000 00000000" },            /* source, /64 */
		{ { PFCP_UEIP_V6 | PFCP_UEIP_SD | PFCP_UEIP_V6D | PFCP_UEIP_V6PL, { 0 },
		    { 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x45, 0x00, 0x07 }, 0, 64 },
		  "005d 0013 4d 20010db8 00450007 00000000 00000000 00 40" },      /* bits 0, /64 */
	};
	uint8_t ie[64];
	struct pfcp_err e;
	size_t len;
	long at;
	int n;

	(void)state;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		est_req_hand(&m1);
		m1.est.pdr[0].pdi.has |= PFCP_PDI_UE_IP;
		m1.est.pdr[0].pdi.ue_ip = c[i].v;
		n = pfcp_encode(&m1, b1, sizeof(b1));
		assert_true(n > 0);
		at = find_ie(n, c[i].hex, ie, &len);
		assert_true(at > 0);
		assert_int_equal(pfcp_decode(b1, (size_t)n, &m2, NULL), n);
		assert_true(m2.est.pdr[0].pdi.has & PFCP_PDI_UE_IP);
		assert_int_equal(m2.est.pdr[0].pdi.ue_ip.flags, c[i].v.flags);
		assert_memory_equal(m2.est.pdr[0].pdi.ue_ip.ipv6, c[i].v.ipv6, 16);
		assert_memory_equal(m2.est.pdr[0].pdi.ue_ip.ipv4, c[i].v.ipv4, 4);
		assert_int_equal(m2.est.pdr[0].pdi.ue_ip.v6d_bits, c[i].v.v6d_bits);
		assert_int_equal(m2.est.pdr[0].pdi.ue_ip.v6_prefix_len, c[i].v.v6_prefix_len);
		/* one octet fewer than the flags ask for (the IE's length, 8.1.1): the parent PDI
		 * still ends where it did, the UE IP Address is short */
		b1[at + 3]--;
		assert_int_equal(pfcp_decode(b1, (size_t)n, &m2, &e), -EBADMSG);
		assert_int_equal(e.ie, PFCP_IE_UE_IP_ADDRESS);
		assert_int_equal(e.parent, PFCP_IE_PDI);
		assert_int_equal(pfcp_err_cause(-EBADMSG), PFCP_CAUSE_INVALID_LENGTH);
		/* a length of 0 (no flags octet) */
		b1[at + 3] = 0;
		assert_int_equal(pfcp_decode(b1, (size_t)n, &m2, &e), -EBADMSG);
	}
	/* octet 5 bit 8 is spare: a value with it is not encoded */
	est_req_hand(&m1);
	m1.est.pdr[0].pdi.has |= PFCP_PDI_UE_IP;
	m1.est.pdr[0].pdi.ue_ip.flags = 0x80 | PFCP_UEIP_V6;
	assert_int_equal(pfcp_encode(&m1, b1, sizeof(b1)), -EINVAL);
}

/* 7.5.8 Session Report Request: Report Type USAR, Usage Report (80) with
 * Usage Report Trigger (8.2.41, 3 octets from Release 16) and Volume Measurement (8.2.44) */
static void test_bytes_sess_report(void **state)
{
	struct pfcp_usage_report *u = &m1.rep.usage[0];
	size_t len;
	uint8_t want[128];
	int n;

	(void)state;
	memset(&m1, 0, sizeof(m1));
	m1.h = (struct pfcp_hdr){ PFCP_SESS_REPORT_REQ, false, false, 0, 0x1122334455667788ull, 3 };
	m1.rep.has = PFCP_SRR_TYPE | PFCP_SRR_USAGE;
	m1.rep.type = PFCP_RPT_USAR;
	m1.rep.n_usage = 1;
	u->has = PFCP_UR_URR_ID | PFCP_UR_SEQN | PFCP_UR_TRIGGER | PFCP_UR_VOLUME;
	u->urr_id = 7;
	u->seqn = 1;
	u->trigger = PFCP_URT_VOLTH;
	u->volume = (struct pfcp_volume){ PFCP_VOL_TOVOL | PFCP_VOL_DLVOL, 1000, 0, 600, 0, 0, 0 };
	unhex("21 38 0041 1122334455667788 000003 00"
	      "0027 0001 02"                            /* Report Type: USAR */
	      "0050 002c"                               /* Usage Report (Session Report Request) */
	      "  0051 0004 00000007"                    /* URR ID 7 */
	      "  0068 0004 00000001"                    /* UR-SEQN 1 */
	      "  003f 0003 020000"                      /* Usage Report Trigger: VOLTH */
	      "  0042 0011 05 00000000000003e8 0000000000000258", /* TOVOL 1000, DLVOL 600 */
	      want, &len);
	n = pfcp_encode(&m1, b1, sizeof(b1));
	assert_int_equal(n, (int)len);
	assert_memory_equal(b1, want, len);
}

/* 7.5.8 Session Report Request, Report Type ERIR (8.2.21 bit 3) with the Error Indication Report
 * (7.5.8.4, type 99) carrying the Remote F-TEID (8.2.3: V4, the gNB's TEID and address) of the
 * tunnel a gNB sent a GTP-U Error Indication about (issue 32); decoded back the same. */
static void test_bytes_sess_report_erir(void **state)
{
	struct pfcp_fteid *f = &m1.rep.err_ind.fteid[0];
	size_t len;
	uint8_t want[64];
	int n;

	(void)state;
	memset(&m1, 0, sizeof(m1));
	m1.h = (struct pfcp_hdr){ PFCP_SESS_REPORT_REQ, false, false, 0, 0x1122334455667788ull, 4 };
	m1.rep.has = PFCP_SRR_TYPE | PFCP_SRR_ERR_IND;
	m1.rep.type = PFCP_RPT_ERIR;
	m1.rep.err_ind.has = PFCP_ERIR_F_TEID;
	m1.rep.err_ind.n_fteid = 1;
	f->flags = PFCP_FTEID_V4;
	f->teid = 0x10000007;
	memcpy(f->ipv4, (const uint8_t[]){ 192, 0, 2, 2 }, 4);
	unhex("21 38 0022 1122334455667788 000004 00"
	      "0027 0001 04"                            /* Report Type: ERIR */
	      "0063 000d"                               /* Error Indication Report */
	      "  0015 0009 01 10000007 c0000202",       /* Remote F-TEID: V4, TEID, 192.0.2.2 */
	      want, &len);
	n = pfcp_encode(&m1, b1, sizeof(b1));
	assert_int_equal(n, (int)len);
	assert_memory_equal(b1, want, len);
	memset(&m2, 0xa5, sizeof(m2));
	assert_int_equal(pfcp_decode(want, len, &m2, NULL), (int)len);
	assert_true(m2.rep.has & PFCP_SRR_ERR_IND);
	assert_int_equal(m2.rep.type, PFCP_RPT_ERIR);
	assert_int_equal(m2.rep.err_ind.n_fteid, 1);
	assert_int_equal(m2.rep.err_ind.fteid[0].teid, 0x10000007);
	assert_memory_equal(m2.rep.err_ind.fteid[0].ipv4, f->ipv4, 4);
	/* 7.5.8.4: the Remote F-TEID is mandatory in the report */
	unhex("21 38 0015 1122334455667788 000004 00 0027 0001 04 0063 0000", want, &len);
	assert_int_equal(pfcp_decode(want, len, &m2, NULL), -ENOENT);
}

/* 7.5.4 Session Modification Request: Create PDR with a UE IP address (8.2.62,
 * S/D set: downlink), Update FAR with Update Forwarding Parameters and Outer
 * Header Creation GTP-U/UDP/IPv4 (8.2.56), in the order of table 7.5.4.1-1 */
static void test_bytes_sess_mod(void **state)
{
	struct pfcp_pdr *p = &m1.mod.pdr[0];
	struct pfcp_far *f = &m1.mod.upd_far[0];
	size_t len;
	uint8_t want[128];
	int n;

	(void)state;
	memset(&m1, 0, sizeof(m1));
	m1.h = (struct pfcp_hdr){ PFCP_SESS_MOD_REQ, false, false, 0, 1, 4 };
	m1.mod.has = PFCP_SMR_PDR | PFCP_SMR_UPD_FAR;
	m1.mod.n_pdr = m1.mod.n_upd_far = 1;
	p->has = PFCP_PDR_ID | PFCP_PDR_PRECEDENCE | PFCP_PDR_PDI | PFCP_PDR_FAR_ID;
	p->pdr_id = 2;
	p->precedence = 32;
	p->pdi.has = PFCP_PDI_SRC_IF | PFCP_PDI_UE_IP;
	p->pdi.src_if = PFCP_IF_CORE;
	p->pdi.ue_ip = (struct pfcp_ue_ip){ PFCP_UEIP_V4 | PFCP_UEIP_SD, { 10, 45, 0, 7 }, { 0 }, 0, 0 };
	p->far_id = 2;
	f->has = PFCP_FAR_ID | PFCP_FAR_APPLY | PFCP_FAR_FWD;
	f->far_id = 2;
	f->apply = PFCP_AA_FORW;
	f->fwd.has = PFCP_FWD_DEST_IF | PFCP_FWD_OHC;
	f->fwd.dest_if = PFCP_IF_ACCESS;
	f->fwd.ohc = (struct pfcp_ohc){ PFCP_OHC_GTPU4, 0x01020304, { 192, 168, 0, 10 }, { 0 }, 0, 0, 0 };
	unhex("21 34 0061 0000000000000001 000004 00"
	      "0001 0028"                       /* Create PDR */
	      "  0038 0002 0002"                /* PDR ID 2 */
	      "  001d 0004 00000020"            /* Precedence 32 */
	      "  0002 000e"                     /* PDI */
	      "    0014 0001 01"                /* Source Interface: Core */
	      "    005d 0005 06 0a2d0007"       /* UE IP Address: V4 | S/D, 10.45.0.7 */
	      "  006c 0004 00000002"            /* FAR ID 2 */
	      "000a 0025"                       /* Update FAR */
	      "  006c 0004 00000002"            /* FAR ID 2 */
	      "  002c 0002 0200"                /* Apply Action: FORW (2 octets, 8.2.26) */
	      "  000b 0013"                     /* Update Forwarding Parameters */
	      "    002a 0001 00"                /* Destination Interface: Access */
	      "    0054 000a 0100 01020304 c0a8000a", /* OHC: GTP-U/UDP/IPv4, TEID, 192.168.0.10 */
	      want, &len);
	n = pfcp_encode(&m1, b1, sizeof(b1));
	assert_int_equal(n, (int)len);
	assert_memory_equal(b1, want, len);
	assert_int_equal(pfcp_decode(want, len, &m2, NULL), (int)len);
	assert_int_equal(m2.mod.upd_far[0].fwd.ohc.teid, 0x01020304);
}

static size_t put_ie(uint8_t *b, uint16_t t, const void *v, size_t n)
{
	b[0] = (uint8_t)(t >> 8);
	b[1] = (uint8_t)t;
	b[2] = (uint8_t)(n >> 8);
	b[3] = (uint8_t)n;
	memcpy(b + 4, v, n);
	return 4 + n;
}

/* Into b2: a Session Modification Request (SEID 1, seq 6) with an Update FAR whose Apply
 * Action is aa[0..naa) and an Update URR whose Reporting Triggers are rt[0..nrt) */
static size_t mod_flags(const void *aa, size_t naa, const void *rt, size_t nrt)
{
	uint8_t far[64], urr[64];
	size_t nf = 0, nu = 0, o = 16;

	nf += put_ie(far, PFCP_IE_FAR_ID, "\0\0\0\2", 4);
	nf += put_ie(far + nf, PFCP_IE_APPLY_ACTION, aa, naa);
	nu += put_ie(urr, PFCP_IE_URR_ID, "\0\0\0\1", 4);
	nu += put_ie(urr + nu, PFCP_IE_REPORTING_TRIGGERS, rt, nrt);
	memcpy(b2, "\x21\x34\0\0" "\0\0\0\0\0\0\0\1" "\0\0\6\0", 16);
	o += put_ie(b2 + o, PFCP_IE_UPDATE_FAR, far, nf);
	o += put_ie(b2 + o, PFCP_IE_UPDATE_URR, urr, nu);
	b2[2] = (uint8_t)((o - 4) >> 8);
	b2[3] = (uint8_t)(o - 4);
	return o;
}

/* Issue 32: the Release 16+ sizes. We send Apply Action in 2 octets (TS 29.244 8.2.26) and
 * Reporting Triggers / Usage Report Trigger in 3 (8.2.19 / 8.2.41), as Open5GS 2.8 requires
 * (it drops a Session Establishment whose Apply Action has 1 octet); we read the Release 15
 * forms (1 and 2 octets: the missing flags are 0) and longer ones (octets a later release
 * appends are ignored, 8.1.1: "present only if explicitly specified"). PDN Type (8.2.79, in the
 * Session Establishment Request, 7.5.2.1) and the 3GPP Interface Type (8.2.118) as Source
 * Interface Type in a PDI and Destination Interface Type in Forwarding Parameters go out
 * byte-exact and come back. */
static void test_rel16_sizes(void **state)
{
	static const struct { const char *aa; size_t naa; const char *rt; size_t nrt; uint32_t apply, trig; } c[] = {
		{ "\x02", 1, "\x02", 1, PFCP_AA_FORW, PFCP_RT_VOLTH },                  /* short */
		{ "\x0c", 1, "\x02\x01", 2, PFCP_AA_BUFF | PFCP_AA_NOCP, PFCP_RT_VOLTH | PFCP_RT_VOLQU }, /* Rel-15 */
		{ "\x02\x01", 2, "\x02\x01\x01", 3, 0x102, PFCP_RT_VOLTH | PFCP_RT_VOLQU | 0x10000 }, /* Rel-16 */
		{ "\x02\x00\xff\xff\xff", 5, "\x02\x00\x00\xff\xff\xff", 6, PFCP_AA_FORW, PFCP_RT_VOLTH }, /* longer */
	};
	struct pfcp_err e;
	uint8_t ie[64];
	size_t len;
	int n;

	(void)state;
	/* encode: Update FAR / Update URR in a modification */
	memset(&m1, 0, sizeof(m1));
	m1.h = (struct pfcp_hdr){ PFCP_SESS_MOD_REQ, false, false, 0, 1, 6 };
	m1.mod.has = PFCP_SMR_UPD_FAR | PFCP_SMR_UPD_URR;
	m1.mod.n_upd_far = m1.mod.n_upd_urr = 1;
	m1.mod.upd_far[0] = (struct pfcp_far){ .has = PFCP_FAR_ID | PFCP_FAR_APPLY, .far_id = 2, .apply = PFCP_AA_FORW };
	m1.mod.upd_urr[0] = (struct pfcp_urr){ .has = PFCP_URR_ID | PFCP_URR_TRIGGERS, .urr_id = 1,
					       .triggers = PFCP_RT_VOLTH };
	n = pfcp_encode(&m1, b1, sizeof(b1));
	assert_true(n > 0);
	assert_true(find_ie(n, "002c 0002 0200", ie, &len) > 0);
	assert_true(find_ie(n, "0025 0003 020000", ie, &len) > 0);
	len = mod_flags("\x02\x00", 2, "\x02\x00\x00", 3);
	assert_int_equal(n, (int)len);
	assert_memory_equal(b1, b2, len);
	/* a flag past the octets we send is not ours to send (our decoder would drop it) */
	m1.mod.upd_far[0].apply = 1u << 16;
	assert_int_equal(pfcp_encode(&m1, b1, sizeof(b1)), -ERANGE);
	/* decode: every length from 1 octet up */
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		len = mod_flags(c[i].aa, c[i].naa, c[i].rt, c[i].nrt);
		assert_int_equal(pfcp_decode(b2, len, &m2, NULL), (int)len);
		assert_true(m2.mod.upd_far[0].has & PFCP_FAR_APPLY);
		assert_int_equal(m2.mod.upd_far[0].apply, c[i].apply);
		assert_true(m2.mod.upd_urr[0].has & PFCP_URR_TRIGGERS);
		assert_int_equal(m2.mod.upd_urr[0].triggers, c[i].trig);
	}
	/* an empty Apply Action has no flags at all: cause 68 naming it */
	len = mod_flags("", 0, "\x02", 1);
	assert_int_equal(pfcp_decode(b2, len, &m2, &e), -EBADMSG);
	assert_int_equal(e.ie, PFCP_IE_APPLY_ACTION);
	assert_int_equal(e.parent, PFCP_IE_UPDATE_FAR);

	/* PDN Type and the 3GPP Interface Types */
	est_req_hand(&m1);
	m1.est.has |= PFCP_SER_PDN_TYPE;
	m1.est.pdn_type = PFCP_PDN_IPV4V6;
	m1.est.pdr[0].pdi.has |= PFCP_PDI_SRC_IF_TYPE;
	m1.est.pdr[0].pdi.src_if_type = PFCP_IFT_N3_3GPP;
	m1.est.far[0].fwd.has |= PFCP_FWD_DEST_IF_TYPE;
	m1.est.far[0].fwd.dest_if_type = PFCP_IFT_N6;
	n = pfcp_encode(&m1, b1, sizeof(b1));
	assert_true(n > 0);
	assert_true(find_ie(n, "0071 0001 03", ie, &len) > 0);   /* PDN Type IPv4v6, last IE */
	assert_int_equal(find_ie(n, "0071 0001 03", ie, &len), n - 5);
	assert_true(find_ie(n, "0014 0001 00 0015 0002 0d 05 007c 0001 09 00a0 0001 0b", ie, &len) > 0);
	assert_true(find_ie(n, "002a 0001 01 00a0 0001 11", ie, &len) > 0);
	assert_int_equal(pfcp_decode(b1, (size_t)n, &m2, NULL), n);
	assert_int_equal(m2.est.pdn_type, PFCP_PDN_IPV4V6);
	assert_true(m2.est.has & PFCP_SER_PDN_TYPE);
	assert_int_equal(m2.est.pdr[0].pdi.src_if_type, PFCP_IFT_N3_3GPP);
	assert_int_equal(m2.est.far[0].fwd.dest_if_type, PFCP_IFT_N6);
	assert_true(m2.est.far[0].fwd.has & PFCP_FWD_DEST_IF_TYPE);
}

/* 7.5.3 Session Establishment Response: Cause, UP F-SEID, Created PDR with the
 * F-TEID the UP function chose (8.2.3: V4, TEID, IPv4) */
/* Issue 32 (rules in a modification): the Session Modification Request's PFCPSMReq-Flags (TS
 * 29.244 8.2.31: DROBU, SNDEM, QAURR) and Query URR (7.5.4.10, the URR ID), the Failed Rule ID
 * (8.2.80: Rule ID Type, then the PDR ID in 2 octets, FAR / QER / URR ID in 4, BAR ID in 1) in
 * the establishment and modification responses: byte-exact, and back. */
static void test_rule_ids(void **state)
{
	static const struct { uint8_t type; uint32_t id; const char *hex; } fr[] = {
		{ PFCP_RULE_PDR, 2, "0072 0003 00 0002" },
		{ PFCP_RULE_FAR, 7, "0072 0005 01 00000007" },
		{ PFCP_RULE_QER, 0x10203, "0072 0005 02 00010203" },
		{ PFCP_RULE_URR, 9, "0072 0005 03 00000009" },
		{ PFCP_RULE_BAR, 1, "0072 0002 04 01" },
	};
	uint8_t ie[64];
	size_t len;
	int n;

	(void)state;
	memset(&m1, 0, sizeof(m1));
	m1.h = (struct pfcp_hdr){ PFCP_SESS_MOD_REQ, false, false, 0, 1, 6 };
	m1.mod.has = PFCP_SMR_FLAGS | PFCP_SMR_QUERY_URR;
	m1.mod.flags = PFCP_SMF_SNDEM | PFCP_SMF_QAURR;
	m1.mod.n_query_urr = 2;
	m1.mod.query_urr[0] = (struct pfcp_rm){ PFCP_RM_ID, 1 };
	m1.mod.query_urr[1] = (struct pfcp_rm){ PFCP_RM_ID, 2 };
	n = pfcp_encode(&m1, b1, sizeof(b1));
	assert_true(n > 0);
	assert_true(find_ie(n, "0031 0001 06", ie, &len) > 0);
	assert_true(find_ie(n, "004d 0008 0051 0004 00000002", ie, &len) > 0);
	assert_int_equal(pfcp_decode(b1, (size_t)n, &m2, NULL), n);
	assert_true(m2.mod.has & PFCP_SMR_FLAGS);
	assert_int_equal(m2.mod.flags, PFCP_SMF_SNDEM | PFCP_SMF_QAURR);
	assert_int_equal(m2.mod.n_query_urr, 2);
	assert_int_equal(m2.mod.query_urr[1].id, 2);
	for (size_t i = 0; i < sizeof(fr) / sizeof(fr[0]); i++) {
		for (int type = PFCP_SESS_EST_RSP; type <= PFCP_SESS_MOD_RSP; type += 2) {
			memset(&m1, 0, sizeof(m1));
			m1.h = (struct pfcp_hdr){ (uint8_t)type, false, false, 0, 1, 6 };
			m1.rsp.has = PFCP_SRSP_CAUSE | PFCP_SRSP_OFFENDING | PFCP_SRSP_FAILED_RULE;
			if (type == PFCP_SESS_EST_RSP) {
				m1.rsp.has |= PFCP_SRSP_NODE_ID;
				m1.rsp.node_id.type = PFCP_NODE_IPV4;
			}
			m1.rsp.cause = PFCP_CAUSE_RULE_FAILURE;
			m1.rsp.offending_ie = PFCP_IE_CREATE_PDR;
			m1.rsp.failed_rule = (struct pfcp_rule_id){ fr[i].type, fr[i].id };
			n = pfcp_encode(&m1, b1, sizeof(b1));
			assert_true(n > 0);
			assert_true(find_ie(n, fr[i].hex, ie, &len) > 0);
			assert_int_equal(pfcp_decode(b1, (size_t)n, &m2, NULL), n);
			assert_true(m2.rsp.has & PFCP_SRSP_FAILED_RULE);
			assert_int_equal(m2.rsp.failed_rule.type, fr[i].type);
			assert_int_equal(m2.rsp.failed_rule.id, fr[i].id);
			assert_true(pfcp_msg_to_str(&m2, s1, sizeof(s1)) > 0);
			assert_non_null(strstr(s1, "Failed Rule ID"));
		}
	}
	/* a PDR ID above 16 bits cannot be sent; an unknown Rule ID Type is refused both ways */
	m1.rsp.failed_rule = (struct pfcp_rule_id){ PFCP_RULE_PDR, 0x10000 };
	assert_int_equal(pfcp_encode(&m1, b1, sizeof(b1)), -ERANGE);
	m1.rsp.failed_rule = (struct pfcp_rule_id){ 5, 1 };
	assert_int_equal(pfcp_encode(&m1, b1, sizeof(b1)), -EINVAL);
	m1.rsp.failed_rule = (struct pfcp_rule_id){ PFCP_RULE_PDR, 1 };
	n = pfcp_encode(&m1, b1, sizeof(b1));
	assert_true(n > 0);
	len = (size_t)find_ie(n, "0072 0003 00 0001", ie, &len);
	b1[len + 4] = 5;
	assert_int_equal(pfcp_decode(b1, (size_t)n, &m2, NULL), -EINVAL);
	b1[len + 4] = PFCP_RULE_FAR;   /* a FAR ID needs 4 octets: 2 is a length error (68) */
	assert_int_equal(pfcp_decode(b1, (size_t)n, &m2, NULL), -EBADMSG);
}

static void test_bytes_sess_est_rsp(void **state)
{
	struct pfcp_created_pdr *c = &m1.rsp.created[0];
	size_t len;
	uint8_t want[128];
	int n;

	(void)state;
	memset(&m1, 0, sizeof(m1));
	m1.h = (struct pfcp_hdr){ PFCP_SESS_EST_RSP, false, false, 0, 1, 2 };
	m1.rsp.has = PFCP_SRSP_NODE_ID | PFCP_SRSP_CAUSE | PFCP_SRSP_F_SEID | PFCP_SRSP_CREATED_PDR;
	m1.rsp.node_id.type = PFCP_NODE_IPV4;
	memcpy(m1.rsp.node_id.addr, "\xc0\xa8\x00\x01", 4);
	m1.rsp.cause = PFCP_CAUSE_ACCEPTED;
	m1.rsp.up_fseid = (struct pfcp_fseid){ PFCP_ADDR_V4, 9, { 192, 168, 0, 1 }, { 0 } };
	m1.rsp.n_created = 1;
	c->has = PFCP_CPDR_ID | PFCP_CPDR_F_TEID;
	c->pdr_id = 1;
	c->fteid = (struct pfcp_fteid){ PFCP_FTEID_V4, 0x11223344, { 192, 168, 0, 1 }, { 0 }, 0 };
	unhex("21 33 0042 0000000000000001 000002 00"
	      "003c 0005 00 c0a80001"                   /* Node ID 192.168.0.1 */
	      "0013 0001 01"                            /* Cause: Request accepted */
	      "0039 000d 02 0000000000000009 c0a80001"  /* UP F-SEID 9 */
	      "0008 0013"                               /* Created PDR */
	      "  0038 0002 0001"                        /* PDR ID 1 */
	      "  0015 0009 01 11223344 c0a80001",       /* F-TEID: V4, TEID, 192.168.0.1 */
	      want, &len);
	n = pfcp_encode(&m1, b1, sizeof(b1));
	assert_int_equal(n, (int)len);
	assert_memory_equal(b1, want, len);
}

/* A real message cut at every byte: never a read past the cut (ASan), always
 * -EBADMSG (the header's length runs past the datagram, 7.2.2.1) ... */
static void test_truncated_every_byte(void **state)
{
	struct pfcp_err e;
	int n;

	(void)state;
	pfcp_sample(PFCP_SESS_MOD_REQ, &m1);
	n = pfcp_encode(&m1, b1, sizeof(b1));
	assert_true(n > 0);
	for (int cut = 0; cut < n; cut++) {
		memcpy(b2, b1, (size_t)cut);
		assert_int_equal(pfcp_decode(b2, (size_t)cut, &m2, &e), -EBADMSG);
		assert_non_null(e.reason);
	}
	/* ... and with the header's length cut to match: the last IE runs past the message
	 * (Invalid length with that IE as the offending one) or, cut at an IE boundary, is
	 * simply not there (all IEs of 7.5.4 are optional: then it decodes). */
	for (int cut = PFCP_HDR_SEID_LEN; cut < n; cut++) {
		int rc;

		memcpy(b2, b1, (size_t)cut);
		b2[2] = (uint8_t)((cut - 4) >> 8);
		b2[3] = (uint8_t)(cut - 4);
		rc = pfcp_decode(b2, (size_t)cut, &m2, &e);
		if (rc < 0) {
			assert_true(rc == -EBADMSG || rc == -ENOENT);
			assert_true(e.off <= (size_t)cut);
			/* the offending IE is named unless not even its type made it */
			assert_true(rc != -EBADMSG || e.ie != 0 || e.off + 1 == (size_t)cut);
		} else {
			assert_int_equal(rc, cut);
		}
	}
}

/* 8.1.1: an IE length past its container, and a value shorter than its
 * flags need: Invalid length (cause 68) naming the IE */
static void test_bad_lengths(void **state)
{
	struct pfcp_err e;
	size_t len;

	(void)state;
	unhex(EST_REQ_HEX, b1, &len);
	b1[16 + 9 + 3] = 5;        /* F-SEID length 13 -> 5: shorter than flags + SEID (8.2.37) */
	assert_int_equal(pfcp_decode(b1, len, &m2, &e), -EBADMSG);
	assert_int_equal(e.ie, PFCP_IE_F_SEID);
	assert_int_equal(pfcp_err_cause(-EBADMSG), PFCP_CAUSE_INVALID_LENGTH);

	unhex(EST_REQ_HEX, b1, &len);
	b1[16 + 9 + 17 + 3] = 0xff; /* Create PDR length past the message */
	assert_int_equal(pfcp_decode(b1, len, &m2, &e), -EBADMSG);
	assert_int_equal(e.ie, PFCP_IE_CREATE_PDR);
	assert_int_equal(e.parent, 0);

	unhex(EST_REQ_HEX, b1, &len);
	b1[16 + 9 + 17 + 4 + 6 + 8 + 4 + 5 + 3] = 1; /* PDI's F-TEID: CH + CHID but no CHOOSE ID */
	assert_int_equal(pfcp_decode(b1, len, &m2, &e), -EBADMSG);
	assert_int_equal(e.ie, PFCP_IE_F_TEID);
	assert_int_equal(e.parent, PFCP_IE_PDI);

	unhex(EST_REQ_HEX, b1, &len);
	b1[3] -= 1;                /* message length one short of the datagram, FO not set */
	assert_int_equal(pfcp_decode(b1, len, &m2, &e), -EBADMSG);
	unhex("20 01 0003 000001", b1, &len); /* length too small for the header */
	assert_int_equal(pfcp_decode(b1, len, &m2, &e), -EBADMSG);
}

/* 7.5.2 / 7.5.2.2 presence M: missing Node ID, missing PDI: Mandatory IE
 * missing (cause 66) with the IE and the grouped IE it belongs in */
static void test_missing_mandatory(void **state)
{
	struct pfcp_err e;
	size_t len;

	(void)state;
	unhex("21 32 006a 0000000000000000 000002 00"
	      "0039 000d 02 0000000000000001 0a000001"
	      "0001 002f 0038 0002 0001 001d 0004 000000ff 0002 0010 0014 0001 00 0015 0002 0d 05"
	      "007c 0001 09 005f 0001 00 006c 0004 00000001"
	      "0003 0016 006c 0004 00000001 002c 0001 02 0004 0005 002a 0001 01",
	      b1, &len);
	assert_int_equal(pfcp_decode(b1, len, &m2, &e), -ENOENT);
	assert_int_equal(e.ie, PFCP_IE_NODE_ID);
	assert_int_equal(e.parent, 0);
	assert_int_equal(pfcp_err_cause(-ENOENT), PFCP_CAUSE_MANDATORY_IE_MISSING);

	unhex("21 32 0052 0000000000000000 000002 00"
	      "003c 0005 00 0a000001 0039 000d 02 0000000000000001 0a000001"
	      "0001 000e 0038 0002 0001 001d 0004 000000ff"         /* Create PDR without PDI */
	      "0003 0016 006c 0004 00000001 002c 0001 02 0004 0005 002a 0001 01",
	      b1, &len);
	assert_int_equal(pfcp_decode(b1, len, &m2, &e), -ENOENT);
	assert_int_equal(e.ie, PFCP_IE_PDI);
	assert_int_equal(e.parent, PFCP_IE_CREATE_PDR);

	/* the encoder refuses to leave one out */
	est_req_hand(&m1);
	m1.est.pdr[0].has &= ~(uint32_t)PFCP_PDR_PDI;
	assert_int_equal(pfcp_encode(&m1, b1, sizeof(b1)), -EINVAL);
	/* 7.4.2.1: a Heartbeat Request without its Recovery Time Stamp */
	unhex("20 01 0004 000001 00", b1, &len);
	assert_int_equal(pfcp_decode(b1, len, &m2, &e), -ENOENT);
	assert_int_equal(e.ie, PFCP_IE_RECOVERY_TIME_STAMP);
}

/* A grouped IE inside a grouped IE whose table (7.5.2.2) has no place for
 * it: a PDI inside the PDI, 1000 levels deep. TS 29.244 7.6.1: an unexpected
 * IE is silently discarded, so the nested PDI is skipped without being
 * descended into, and the outer PDI then lacks its mandatory Source
 * Interface (it sits in the innermost one): -ENOENT, cause 66. */
static void test_grouped_too_deep(void **state)
{
	enum { LEVELS = 1000 };
	struct pfcp_err e;
	size_t pos, len;

	(void)state;
	unhex(EST_REQ_HEX, b1, &len);
	/* keep header, Node ID, F-SEID; then a Create PDR whose PDI nests PDIs:
	 * PDI i holds PDI i + 1, the innermost one a Source Interface */
	pos = 16 + 9 + 17;
	size_t pdi0 = 5 + 4 * (size_t)(LEVELS - 1);
	size_t pdr_len = 6 + 8 + 4 + pdi0;
	uint8_t *p = b1 + pos;
	p[0] = 0; p[1] = 1; p[2] = (uint8_t)(pdr_len >> 8); p[3] = (uint8_t)pdr_len;
	memcpy(p + 4, "\x00\x38\x00\x02\x00\x01" "\x00\x1d\x00\x04\x00\x00\x00\xff", 14);
	p += 18;
	for (int i = 0; i < LEVELS; i++) {
		size_t l = 5 + 4 * (size_t)(LEVELS - 1 - i);

		p[0] = 0; p[1] = 2; p[2] = (uint8_t)(l >> 8); p[3] = (uint8_t)l;
		p += 4;
	}
	memcpy(p, "\x00\x14\x00\x01\x00", 5);
	p += 5;
	len = (size_t)(p - b1);
	b1[2] = (uint8_t)((len - 4) >> 8);
	b1[3] = (uint8_t)(len - 4);
	assert_int_equal(pfcp_decode(b1, len, &m2, &e), -ENOENT);
	assert_int_equal(e.ie, PFCP_IE_SOURCE_IF);
	assert_int_equal(e.parent, PFCP_IE_PDI);
	assert_int_equal(pfcp_err_cause(-ENOENT), PFCP_CAUSE_MANDATORY_IE_MISSING);

	/* at message level a grouped IE of another message is only unexpected: skipped */
	unhex("20 01 0016 000001 00 0060 0004 e1234567 0001 0006 0038 0002 0001", b1, &len);
	assert_int_equal(pfcp_decode(b1, len, &m2, &e), (int)len);
	assert_int_equal(m2.node.recovery, 0xe1234567u);
}

/* PFCP_PDR_MAX + 1 Create PDRs: -E2BIG naming Create PDR (No resources
 * available, cause 75), never a truncated rule set; the encoder refuses too */
static void test_too_many_pdrs(void **state)
{
	struct pfcp_err e;
	int n;

	(void)state;
	est_req_hand(&m1);
	for (int i = 1; i < PFCP_PDR_MAX; i++) {
		m1.est.pdr[i] = m1.est.pdr[0];
		m1.est.pdr[i].pdr_id = (uint16_t)(i + 1);
	}
	m1.est.n_pdr = PFCP_PDR_MAX;
	n = pfcp_encode(&m1, b1, sizeof(b1));
	assert_true(n > 0);
	assert_int_equal(pfcp_decode(b1, (size_t)n, &m2, &e), n);
	assert_int_equal(m2.est.n_pdr, PFCP_PDR_MAX);
	/* one more: append a copy of the last Create PDR (51 octets) */
	size_t pdr_at = 16 + 9 + 17 + 51 * (PFCP_PDR_MAX - 1);
	memmove(b1 + pdr_at + 51, b1 + pdr_at, (size_t)n - pdr_at);
	n += 51;
	b1[2] = (uint8_t)((n - 4) >> 8);
	b1[3] = (uint8_t)(n - 4);
	assert_int_equal(pfcp_decode(b1, (size_t)n, &m2, &e), -E2BIG);
	assert_int_equal(e.ie, PFCP_IE_CREATE_PDR);
	assert_int_equal(pfcp_err_cause(-E2BIG), PFCP_CAUSE_NO_RESOURCES);
	m1.est.n_pdr = PFCP_PDR_MAX + 1;
	assert_int_equal(pfcp_encode(&m1, b1, sizeof(b1)), -E2BIG);
}

/* 7.2.2.1 / 7.4.4.7 / 7.6: version, unknown type, S flag, FO */
static void test_header_errors(void **state)
{
	struct pfcp_err e;
	size_t len;

	(void)state;
	unhex("40 01 000c 000102 00 0060 0004 e1234567", b1, &len);   /* version 2 */
	assert_int_equal(pfcp_decode(b1, len, &m2, &e), -EPROTONOSUPPORT);
	assert_int_equal(m2.h.type, PFCP_HEARTBEAT_REQ);                 /* for the answer */
	assert_int_equal(m2.h.seq, 0x102);
	assert_int_equal(pfcp_err_cause(-EPROTONOSUPPORT), 0);
	/* ... answered by a Version Not Supported Response (7.4.4.7): our header alone,
	 * the request's sequence number */
	memset(&m1, 0, sizeof(m1));
	m1.h.type = PFCP_VERSION_NOT_SUPPORTED_RSP;
	m1.h.seq = m2.h.seq;
	assert_int_equal(pfcp_encode(&m1, b2, sizeof(b2)), 8);
	assert_memory_equal(b2, "\x20\x0b\x00\x04\x00\x01\x02\x00", 8);
	unhex("20 63 0004 000102 00", b1, &len);                         /* type 99 */
	assert_int_equal(pfcp_decode(b1, len, &m2, &e), -ENOMSG);
	unhex("21 01 0014 0000000000000001 000102 00 0060 0004 e1234567", b1, &len); /* S on a node msg */
	assert_int_equal(pfcp_decode(b1, len, &m2, &e), -EPROTO);
	unhex("20 36 0004 000102 00", b1, &len);                         /* no S on a session msg */
	assert_int_equal(pfcp_decode(b1, len, &m2, &e), -EPROTO);
	/* FO: two messages in one datagram */
	unhex("24 01 000c 000001 00 0060 0004 00000001 20 01 000c 000002 00 0060 0004 00000002", b1, &len);
	assert_int_equal(pfcp_decode(b1, len, &m2, &e), 16);
	assert_true(m2.h.fo);
	assert_int_equal(pfcp_decode(b1 + 16, len - 16, &m2, &e), 16);
	assert_int_equal(m2.h.seq, 2);
	assert_int_equal(m2.node.recovery, 2);
}

/* 7.6.1: unknown IEs, vendor-specific IEs (Enterprise ID) and IEs of a later
 * release are skipped; extra octets of a known IE are ignored (8.1.1) */
static void test_unknown_ies_skipped(void **state)
{
	struct pfcp_err e;
	size_t len;

	(void)state;
	unhex("20 01 0026 000001 00"
	      "270f 0002 abcd"             /* type 9999 */
	      "8001 0006 4e20 01020304"    /* vendor IE, Enterprise ID 20000 */
	      "0060 0006 e1234567 0000"    /* Recovery Time Stamp with 2 extra octets */
	      "0060 0004 00000009",        /* repeated: the first one counts */
	      b1, &len);
	assert_int_equal(pfcp_decode(b1, len, &m2, &e), (int)len);
	assert_int_equal(m2.node.recovery, 0xe1234567u);
	unhex("20 01 0009 000001 00 8001 0001 00", b1, &len);  /* vendor IE too short for its ID */
	assert_int_equal(pfcp_decode(b1, len, &m2, &e), -EBADMSG);
	/* 8.2.38: Node ID type 3 is not defined: Mandatory IE incorrect */
	unhex("20 09 0009 000001 00 003c 0001 03", b1, &len);
	assert_int_equal(pfcp_decode(b1, len, &m2, &e), -EINVAL);
	assert_int_equal(e.ie, PFCP_IE_NODE_ID);
}

/* Encoder: -ENOSPC at every buffer size short of the message, range checks */
static void test_encode_limits(void **state)
{
	int n;

	(void)state;
	pfcp_sample(PFCP_SESS_EST_REQ, &m1);
	n = pfcp_encode(&m1, b1, sizeof(b1));
	assert_true(n > 0);
	for (int cap = 0; cap < n; cap++)
		assert_int_equal(pfcp_encode(&m1, b2, (size_t)cap), -ENOSPC);
	m1.h.seq = PFCP_SEQ_MAX + 1;    /* 7.2.2.2: 24 bits */
	assert_int_equal(pfcp_encode(&m1, b1, sizeof(b1)), -ERANGE);
	m1.h.seq = 1;
	m1.est.qer[0].mbr.ul = 1ull << 40; /* 8.2.8: 5 octets */
	assert_int_equal(pfcp_encode(&m1, b1, sizeof(b1)), -ERANGE);
	pfcp_sample(PFCP_HEARTBEAT_REQ, &m1);
	m1.h.has_prio = true;           /* MP only on session messages */
	assert_int_equal(pfcp_encode(&m1, b1, sizeof(b1)), -ERANGE);
	m1.h.type = 99;
	assert_int_equal(pfcp_encode(&m1, b1, sizeof(b1)), -ENOMSG);
}

/* Allocation-free (the N4 hot path of TS 29.244 7.5.4 modifications): no malloc in
 * decode, encode or to_str (malloc is wrapped) */
static void test_no_allocation(void **state)
{
	int n;

	(void)state;
	pfcp_sample(PFCP_SESS_MOD_REQ, &m1);
	nomalloc_begin();
	n = pfcp_encode(&m1, b1, sizeof(b1));
	pfcp_decode(b1, (size_t)n, &m2, NULL);
	pfcp_msg_to_str(&m2, s1, sizeof(s1));
	assert_int_equal(nomalloc_end(), 0);
	assert_true(n > 0);
}

/* Names of TS 29.244 7.3 messages, 8.1.2 IEs, 8.2.1 causes; the text of a message */
static void test_names(void **state)
{
	(void)state;
	assert_string_equal(pfcp_msg_name(PFCP_SESS_REPORT_REQ), "Session Report Request");
	assert_string_equal(pfcp_ie_name(PFCP_IE_F_TEID), "F-TEID");
	assert_string_equal(pfcp_cause_name(PFCP_CAUSE_INVALID_LENGTH), "Invalid length");
	assert_string_equal(pfcp_msg_name(200), "?");
	est_req_hand(&m1);
	pfcp_msg_to_str(&m1, s1, sizeof(s1));
	assert_non_null(strstr(s1, "Session Establishment Request seq=2 seid=0x0 prio=5:"));
	assert_non_null(strstr(s1, "F-TEID=CHOOSE v4 id=5"));
	assert_non_null(strstr(s1, "Node ID=ipv4:10.0.0.1"));
	/* truncated output stays terminated and reports the full length */
	int full = pfcp_msg_to_str(&m1, s1, sizeof(s1));
	assert_int_equal(pfcp_msg_to_str(&m1, s2, 10), full);
	assert_int_equal(strlen(s2), 9);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip_every_message),
		cmocka_unit_test(test_roundtrip_values),
		cmocka_unit_test(test_bytes_heartbeat),
		cmocka_unit_test(test_bytes_assoc_setup),
		cmocka_unit_test(test_bytes_sess_est),
		cmocka_unit_test(test_bytes_sess_report),
		cmocka_unit_test(test_bytes_sess_report_erir),
		cmocka_unit_test(test_bytes_sess_mod),
		cmocka_unit_test(test_rel16_sizes),
		cmocka_unit_test(test_rule_ids),
		cmocka_unit_test(test_bytes_sess_est_rsp),
		cmocka_unit_test(test_ue_ip_v6),
		cmocka_unit_test(test_truncated_every_byte),
		cmocka_unit_test(test_bad_lengths),
		cmocka_unit_test(test_missing_mandatory),
		cmocka_unit_test(test_grouped_too_deep),
		cmocka_unit_test(test_too_many_pdrs),
		cmocka_unit_test(test_header_errors),
		cmocka_unit_test(test_unknown_ies_skipped),
		cmocka_unit_test(test_encode_limits),
		cmocka_unit_test(test_no_allocation),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
