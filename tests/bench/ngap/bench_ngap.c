/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * bench-ngap: ns per decode and per encode of each NGAP message of the registration and PDU session
 * flows (captured vectors where we have them, the test samples with all optional IEs otherwise) and
 * of the SM transfers the SMF builds and reads. Prints a table; no thresholds (figures only).
 * Usage: bench_ngap [min_seconds_per_figure]   (default 0.2)
 *        bench_ngap -n N   exactly N calls per figure (for callgrind: deterministic instruction counts)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/ngap/ngap.h"
#include "ngap_samples.h"
#include "testlib.h"

static double min_s = 0.2;
static long fixed_iters; /* -n N: run exactly N calls per figure */
static volatile int sink;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts); /* CPU time: figures hold on a busy machine */
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static struct ngap_msg m;
static uint8_t buf[4096], out[4096];

/* Runs fn in growing batches until min_s has passed; returns ns per call. */
static double measure(int (*fn)(const uint8_t *, size_t), const uint8_t *p, size_t n)
{
	long iters = fixed_iters ? fixed_iters : 1000, done = 0;
	double t0 = now(), t;

	for (;;) {
		for (long i = 0; i < iters; i++)
			sink += fn(p, n);
		done += iters;
		t = now() - t0;
		if (fixed_iters || t >= min_s)
			break;
		iters *= 2;
	}
	return t * 1e9 / (double)done;
}

static int do_dec(const uint8_t *p, size_t n)
{
	return ngap_decode(p, n, &m, NULL);
}

static int do_enc(const uint8_t *p, size_t n)
{
	(void)p, (void)n;
	return ngap_encode(&m, out, sizeof(out));
}

static int xkind;
static union {
	struct ngap_setup_request_transfer a;
	struct ngap_setup_response_transfer b;
	struct ngap_modify_request_transfer c;
} xs;

static int do_xdec(const uint8_t *p, size_t n)
{
	return ngap_sample_xfer_decode(xkind, p, n, &xs, NULL);
}

static int do_xenc(const uint8_t *p, size_t n)
{
	(void)p, (void)n;
	switch (xkind) {
	case 0: return ngap_enc_setup_request_transfer(&xs.a, out, sizeof(out));
	case 1: return ngap_enc_setup_response_transfer(&xs.b, out, sizeof(out));
	default: return ngap_enc_release_command_transfer((void *)&xs, out, sizeof(out));
	}
}

static void row(const char *flow, const char *name, const char *src, const uint8_t *p, size_t n)
{
	double d, e;

	if (ngap_decode(p, n, &m, NULL) != 0) {
		printf("%-8s %-40s decode failed\n", flow, name);
		return;
	}
	d = measure(do_dec, p, n);
	ngap_decode(p, n, &m, NULL); /* m is what the encoder measures */
	e = measure(do_enc, p, n);
	printf("%-8s %-40s %-7s %5zu %9.1f %9.1f\n", flow, name, src, n, d, e);
}

static void vec_row(struct tv_file *f, const char *flow, const char *name, const char *section)
{
	int i = tv_find(f, section), n;

	if (i < 0 || (n = tv_hex(f, i, "hex", buf, sizeof(buf))) <= 0) {
		printf("%-8s %-40s vector %s missing\n", flow, name, section);
		return;
	}
	row(flow, name, "capture", buf, (size_t)n);
}

static void sample_row(const char *flow, uint8_t type, uint8_t proc)
{
	for (int i = 0; i < ngap_sample_count(); i++) {
		ngap_sample(i, true, &m);
		if (m.type == type && m.proc == proc) {
			int n = ngap_encode(&m, buf, sizeof(buf));

			row(flow, ngap_msg_name(type, proc), "sample", buf, (size_t)n);
			return;
		}
	}
}

static void xfer_row(int kind)
{
	int n = ngap_sample_xfer(kind, true, buf, sizeof(buf));
	double d, e;

	xkind = kind;
	d = measure(do_xdec, buf, (size_t)n);
	do_xdec(buf, (size_t)n);
	e = measure(do_xenc, buf, (size_t)n);
	printf("%-8s %-40s %-7s %5d %9.1f %9.1f\n", "pdu-sess", ngap_sample_xfer_name(kind), "sample", n, d, e);
}

int main(int argc, char **argv)
{
	struct tv_file *f;

	if (argc > 2 && strcmp(argv[1], "-n") == 0)
		fixed_iters = atol(argv[2]);
	else if (argc > 1)
		min_s = atof(argv[1]);
	f = tv_open("ngap_messages.txt");
	if (!f)
		return 1;
	printf("%-8s %-40s %-7s %5s %9s %9s\n", "flow", "message", "source", "bytes", "dec ns", "enc ns");
	vec_row(f, "setup", "NGSetupRequest", "ngap_ng_setup_request");
	vec_row(f, "setup", "NGSetupResponse", "ngap_ng_setup_response");
	vec_row(f, "reg", "InitialUEMessage (Registration Request)", "ngap_initial_ue_message_registration_request");
	vec_row(f, "reg", "DownlinkNASTransport (Auth Request)", "ngap_downlink_nas_transport_authentication_request");
	vec_row(f, "reg", "UplinkNASTransport (Auth Response)", "ngap_uplink_nas_transport_authentication_response");
	vec_row(f, "reg", "InitialContextSetupRequest", "ngap_initial_context_setup_request");
	sample_row("reg", NGAP_SUCCESSFUL, NGAP_PROC_INITIAL_CONTEXT_SETUP);
	sample_row("reg", NGAP_INITIATING, NGAP_PROC_UE_RADIO_CAPABILITY_INFO_INDICATION);
	vec_row(f, "reg", "UEContextReleaseCommand", "ngap_ue_context_release_command");
	vec_row(f, "reg", "UEContextReleaseComplete", "ngap_ue_context_release_complete");
	sample_row("reg", NGAP_INITIATING, NGAP_PROC_UE_CONTEXT_RELEASE_REQUEST);
	vec_row(f, "pdu-sess", "PDUSessionResourceSetupRequest", "ngap_pdu_session_resource_setup_request");
	sample_row("pdu-sess", NGAP_SUCCESSFUL, NGAP_PROC_PDU_SESSION_RESOURCE_SETUP);
	sample_row("pdu-sess", NGAP_INITIATING, NGAP_PROC_PDU_SESSION_RESOURCE_RELEASE);
	sample_row("pdu-sess", NGAP_SUCCESSFUL, NGAP_PROC_PDU_SESSION_RESOURCE_RELEASE);
	xfer_row(0);
	xfer_row(1);
	xfer_row(3);
	tv_close(f);
	return 0;
}
