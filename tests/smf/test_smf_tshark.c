/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * What the SMF produces, read by an independent decoder: the 5GSM messages as
 * Wireshark exported PDUs ("nas-5gs"), and the SM transfers inside the NGAP
 * messages the AMF builds around them (PDU Session Resource Setup / Release
 * Command / Modify Request, with the 5GSM message in a DL NAS Transport as
 * their NAS-PDU) in IPv4/SCTP frames. tshark must find no malformed packet
 * and no error-level expert info, and must read back the key fields.
 * Without tshark it prints why and exits 77 (meson: SKIP).
 *
 * argv[1] = path of tshark, argv[2] = work dir.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "smf_fx.h"
#include "testlib.h"

static const char *tshark, *workdir;

/* The DL NAS Transport the AMF wraps a 5GSM message in (TS 24.501 8.2.11). */
static int dl_nas(const struct smf_out *o, uint8_t *buf, size_t cap)
{
	struct nas_msg m;

	memset(&m, 0, sizeof(m));
	m.type = NAS_DL_NAS_TRANSPORT;
	m.dl_nas.payload_type = NAS_PAYLOAD_N1_SM;
	m.dl_nas.payload = (struct nas_buf){ o->n1, (uint16_t)o->n1_len };
	m.dl_nas.has_psi = true;
	m.dl_nas.psi = o->psi;
	return nas_encode(&m, buf, cap, NULL);
}

/* The NGAP message of o->n2_proc around the transfer, as the AMF sends it. */
static int ngap_wrap(const struct smf_out *o, uint8_t *buf, size_t cap)
{
	static struct ngap_msg m;
	uint8_t nas[SMF_N1_MAX + 32];
	int n = dl_nas(o, nas, sizeof(nas));

	assert_true(n > 0);
	memset(&m, 0, sizeof(m));
	m.type = NGAP_INITIATING;
	switch (o->n2_proc) {
	case SMF_N2_SETUP: {
		struct ngap_pdu_session_resource_setup_request *r = &m.u.pdu_session_resource_setup_request;
		m.proc = NGAP_PROC_PDU_SESSION_RESOURCE_SETUP;
		r->amf_ue_id = 1;
		r->ran_ue_id = 2;
		r->n_sessions = 1;
		r->sessions[0].id = o->psi;
		r->sessions[0].nas = (struct ngap_bytes){ nas, (size_t)n };
		r->sessions[0].has_snssai = true;
		r->sessions[0].snssai = o->snssai;
		r->sessions[0].transfer = (struct ngap_bytes){ o->n2, o->n2_len };
		break;
	}
	case SMF_N2_RELEASE: {
		struct ngap_pdu_session_resource_release_command *r = &m.u.pdu_session_resource_release_command;
		m.proc = NGAP_PROC_PDU_SESSION_RESOURCE_RELEASE;
		r->amf_ue_id = 1;
		r->ran_ue_id = 2;
		r->nas = (struct ngap_bytes){ nas, (size_t)n };
		r->n_sessions = 1;
		r->sessions[0].id = o->psi;
		r->sessions[0].transfer = (struct ngap_bytes){ o->n2, o->n2_len };
		break;
	}
	case SMF_N2_MODIFY: {
		struct ngap_pdu_session_resource_modify_request *r = &m.u.pdu_session_resource_modify_request;
		m.proc = NGAP_PROC_PDU_SESSION_RESOURCE_MODIFY;
		r->amf_ue_id = 1;
		r->ran_ue_id = 2;
		r->n_sessions = 1;
		r->sessions[0].id = o->psi;
		r->sessions[0].nas = (struct ngap_bytes){ nas, (size_t)n };
		r->sessions[0].transfer = (struct ngap_bytes){ o->n2, o->n2_len };
		break;
	}
	default:
		fail();
	}
	return ngap_encode(&m, buf, cap);
}

struct frame {
	int sm_type, sm_cause;       /* -1: none expected */
	const char *ipv4, *dnn;      /* NAS accept only */
	long teid;                   /* NGAP setup: the UL TEID */
	const char *what;
};
struct capture {
	struct pcapw *w;
	char path[512];
	struct frame f[16];
	int n;
};

static struct frame *add_nas(struct capture *c, const struct smf_out *o, int type, int cause, const char *what)
{
	assert_true(c->n < 16);
	assert_int_equal(pcapw_upper(c->w, "nas-5gs", o->n1, o->n1_len), 0);
	c->f[c->n] = (struct frame){ type, cause, NULL, NULL, -1, what };
	return &c->f[c->n++];
}

static void add_ngap(struct capture *c, const struct smf_out *o, int type, int cause, long teid, const char *what)
{
	uint8_t buf[2048];
	int n = ngap_wrap(o, buf, sizeof(buf));

	assert_true(n > 0 && c->n < 16);
	assert_int_equal(pcapw_sctp(c->w, 0x0a000001, 0x0a000002, 38412, 38412, 1, 60, buf, (size_t)n), 0);
	c->f[c->n++] = (struct frame){ type, cause, NULL, NULL, teid, what };
}

/* The fields compared per frame, f[] order in row() */
static const char *const fields[] = {
	"nas_5gs.sm.message_type", "nas_5gs.sm.5gsm_cause", "nas_5gs.sm.pdu_addr_inf_ipv4", "nas_5gs.cmn.dnn",
	"ngap.gTP_TEID",
};

static int row(void *ctx, int fr, char **f)
{
	const struct frame *x = &((const struct capture *)ctx)->f[fr - 1];
	int bad = 0;

	/* the first 5GSM message type / cause in the frame */
	if (x->sm_type >= 0 && strtol(f[0], NULL, 0) != x->sm_type) {
		fprintf(stderr, "frame %d (%s): sm.message_type '%s', want 0x%x\n", fr, x->what, f[0], x->sm_type);
		bad++;
	}
	if (x->sm_cause >= 0 && strtol(f[1], NULL, 0) != x->sm_cause) {
		fprintf(stderr, "frame %d (%s): 5gsm_cause '%s', want %d\n", fr, x->what, f[1], x->sm_cause);
		bad++;
	}
	if (x->ipv4 && strcmp(f[2], x->ipv4)) {
		fprintf(stderr, "frame %d (%s): ipv4 '%s', want %s\n", fr, x->what, f[2], x->ipv4);
		bad++;
	}
	if (x->dnn && strcmp(f[3], x->dnn)) {
		fprintf(stderr, "frame %d (%s): dnn '%s', want %s\n", fr, x->what, f[3], x->dnn);
		bad++;
	}
	if (x->teid >= 0) {
		char want[24];
		snprintf(want, sizeof(want), "%08lx", x->teid);
		if (!strstr(f[4], want)) {
			fprintf(stderr, "frame %d (%s): gTP_TEID '%s', want %s\n", fr, x->what, f[4], want);
			bad++;
		}
	}
	return bad;
}

static const char *frame_what(void *ctx, int fr)
{
	return ((const struct capture *)ctx)->f[fr - 1].what;
}

/* Problems tshark_fields() found in c's pcap: 0 when every frame is as written. */
static int run_tshark(struct capture *c)
{
	const struct tshark_fields q = {
		.fields = fields, .nfields = (int)(sizeof(fields) / sizeof(fields[0])),
		.nframes = c->n, .row = row, .name = frame_what, .ctx = c,
	};

	return tshark_fields(tshark, c->path, &q);
}

static void test_tshark(void **state)
{
	static struct capture cn, cg;
	struct fx *f = fx_new(64, 0);
	struct smf_sess_info info;
	struct smf_out acc;
	uint8_t acc_n1[SMF_N1_MAX], acc_n2[SMF_N2_MAX];
	char ipv4[20];
	struct frame *fr;

	(void)state;
	snprintf(cn.path, sizeof(cn.path), "%s/smf_nas.pcap", workdir);
	snprintf(cg.path, sizeof(cg.path), "%s/smf_ngap.pcap", workdir);
	cn.w = pcapw_open(cn.path, PCAPW_EXPORTED_PDU);
	cg.w = pcapw_open(cg.path, PCAPW_SCTP_IPV4);
	assert_non_null(cn.w);
	assert_non_null(cg.w);

	/* 5GSM messages alone */
	assert_int_equal(fx_est(f, f->ue1, &(struct est_opt){ .psi = 5, .pti = 9 }), 0);
	assert_int_equal(smf_sess_info(f->smf, f->ue1, 5, &info), 0);
	const uint8_t *a = (const uint8_t *)&info.ue_addr;
	snprintf(ipv4, sizeof(ipv4), "%u.%u.%u.%u", a[0], a[1], a[2], a[3]);
	fr = add_nas(&cn, &f->out, NAS_PDU_SESSION_ESTABLISHMENT_ACCEPT, -1, "accept");
	fr->ipv4 = ipv4;
	fr->dnn = "internet";
	acc = f->out;
	memcpy(acc_n1, f->out.n1, f->out.n1_len);
	memcpy(acc_n2, f->out.n2, f->out.n2_len);
	acc.n1 = acc_n1;
	acc.n2 = acc_n2;
	assert_int_equal(fx_est(f, f->ue1, &(struct est_opt){ .psi = 4, .pti = 2, .type = NAS_PDU_IPV4V6 }), 0);
	add_nas(&cn, &f->out, NAS_PDU_SESSION_ESTABLISHMENT_ACCEPT, 50, "accept #50");
	assert_int_equal(fx_est(f, f->ue1, &(struct est_opt){ .psi = 6, .pti = 1, .dnn = "nosuch" }), 0);
	add_nas(&cn, &f->out, NAS_PDU_SESSION_ESTABLISHMENT_REJECT, 27, "reject #27");
	assert_int_equal(fx_est(f, f->ue1, &(struct est_opt){ .psi = 6, .pti = 1, .ssc = 2 }), 0);
	add_nas(&cn, &f->out, NAS_PDU_SESSION_ESTABLISHMENT_REJECT, 68, "reject #68");
	assert_int_equal(fx_gsm(f, f->ue1, NAS_PDU_SESSION_RELEASE_COMMAND, 5, 1, 36), 0);
	add_nas(&cn, &f->out, NAS_5GSM_STATUS, 97, "status #97");
	assert_int_equal(fx_gsm(f, f->ue1, NAS_PDU_SESSION_RELEASE_REQUEST, 7, 1, 0), 0);
	add_nas(&cn, &f->out, NAS_PDU_SESSION_RELEASE_REJECT, 43, "release reject #43");
	assert_int_equal(pcapw_close(cn.w), 0);

	/* NGAP around the transfers: setup request (the accept above), modify, release */
	add_ngap(&cg, &acc, NAS_PDU_SESSION_ESTABLISHMENT_ACCEPT, -1, info.ul_teid, "setup request");
	assert_int_equal(fx_setup_rsp(f, f->ue1, 5, 0x1234), 0);
	assert_int_equal(smf_modify_ambr(f->smf, f->ue1, 5, 5000000, 9000000), 0);
	struct smf_out mo = { .n1 = f->s_n1, .n1_len = f->s_n1_len, .n2 = f->s_n2, .n2_len = f->s_n2_len,
			      .n2_proc = f->s_proc, .psi = f->s_psi };
	add_ngap(&cg, &mo, NAS_PDU_SESSION_MODIFICATION_COMMAND, -1, -1, "modify request");
	assert_int_equal(fx_gsm(f, f->ue1, NAS_PDU_SESSION_MODIFICATION_COMPLETE, 5, 0, 0), 0);
	assert_int_equal(fx_gsm(f, f->ue1, NAS_PDU_SESSION_RELEASE_REQUEST, 5, 3, 0), 0);
	add_ngap(&cg, &f->out, NAS_PDU_SESSION_RELEASE_COMMAND, 36, -1, "release command");
	assert_int_equal(pcapw_close(cg.w), 0);

	assert_int_equal(run_tshark(&cn), 0);
	assert_int_equal(run_tshark(&cg), 0);
	fx_free(f);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tshark),
	};

	if (tshark_require(argc < 3 ? NULL : argv[1], "check what the SMF sends"))
		return 77;
	tshark = argv[1];
	workdir = argv[2];
	return cmocka_run_group_tests(tests, NULL, NULL);
}
