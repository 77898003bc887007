/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * bench-nas: ns per decode and per encode of each NAS message of the
 * registration and PDU session flows. Captured messages from
 * tests/vectors where they exist (the inner plain message for protected
 * ones), the codec's own all-IE samples otherwise. Prints a table; never
 * part of a pass/fail test (run: meson test -C BUILD --benchmark bench-nas,
 * or the binary directly).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/nas/nas.h"
#include "nas_sample.h"
#include "testlib.h"

/* Thread CPU time, and the best of several rounds: the figures then show the
 * codec's cost rather than how busy the machine was. */
static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static volatile int sink;

#define ROUNDS 9
#define ITERS 20000

static void bench(const char *name, const uint8_t *p, size_t n)
{
	static uint8_t out[8192];
	struct nas_msg m;
	struct nas_err e;
	double dec = 1e18, enc = 1e18;

	if (nas_decode(p, n, &m, &e) < 0) {
		printf("%-52s decode failed: %s\n", name, e.reason);
		return;
	}
	for (int r = 0; r < ROUNDS; r++) {
		double t0 = now_ns(), t;
		for (int i = 0; i < ITERS; i++)
			sink += nas_decode(p, n, &m, &e);
		t = (now_ns() - t0) / ITERS;
		dec = t < dec ? t : dec;
		t0 = now_ns();
		for (int i = 0; i < ITERS; i++)
			sink += nas_encode(&m, out, sizeof(out), &e);
		t = (now_ns() - t0) / ITERS;
		enc = t < enc ? t : enc;
	}
	printf("%-52s %5zu octets  decode %7.1f ns  encode %7.1f ns\n", name, n, dec, enc);
}

static void from_vector(struct tv_file *f, const char *sec, const char *name)
{
	uint8_t buf[1024];
	struct nas_sec_hdr h;
	int n = tv_hex(f, tv_find(f, sec), "hex", buf, sizeof(buf));

	if (n <= 0)
		return;
	if (nas_sec_decode(buf, (size_t)n, &h, NULL) == 0) {
		uint8_t inner[1024];
		memcpy(inner, h.msg.p, h.msg.len);
		bench(name, inner, h.msg.len);
		return;
	}
	bench(name, buf, (size_t)n);
}

static void from_sample(uint8_t type, int all)
{
	static uint8_t buf[8192];
	struct nas_msg m;
	char name[96];

	nas_sample_fill(&m, type, all);
	int n = nas_encode(&m, buf, sizeof(buf), NULL);
	snprintf(name, sizeof(name), "%s (%s)", nas_msg_name(type), all ? "all IEs" : "mandatory IEs");
	if (n > 0)
		bench(name, buf, (size_t)n);
}

int main(void)
{
	struct tv_file *f = tv_open("nas5gs_messages.txt");
	static const uint8_t reg_flow[] = {
		NAS_REGISTRATION_REJECT, NAS_AUTHENTICATION_FAILURE, NAS_AUTHENTICATION_REJECT,
		NAS_IDENTITY_REQUEST, NAS_IDENTITY_RESPONSE, NAS_SECURITY_MODE_REJECT,
		NAS_CONFIGURATION_UPDATE_COMMAND, NAS_CONFIGURATION_UPDATE_COMPLETE, NAS_SERVICE_REQUEST,
		NAS_SERVICE_ACCEPT, NAS_DEREGISTRATION_ACCEPT_UE_ORIG, NAS_DEREGISTRATION_REQUEST_UE_TERM,
		NAS_5GMM_STATUS,
	};
	static const uint8_t pdu_flow[] = {
		NAS_PDU_SESSION_ESTABLISHMENT_REQUEST, NAS_PDU_SESSION_ESTABLISHMENT_ACCEPT,
		NAS_PDU_SESSION_ESTABLISHMENT_REJECT, NAS_PDU_SESSION_MODIFICATION_REQUEST,
		NAS_PDU_SESSION_MODIFICATION_COMMAND, NAS_PDU_SESSION_MODIFICATION_COMPLETE,
		NAS_PDU_SESSION_RELEASE_REQUEST, NAS_PDU_SESSION_RELEASE_COMMAND, NAS_PDU_SESSION_RELEASE_COMPLETE,
		NAS_5GSM_STATUS,
	};

	if (!f)
		return 1;
	printf("== registration flow (captured messages, tests/vectors/nas5gs_messages.txt) ==\n");
	from_vector(f, "nas5gs_registration_request_suci", "Registration request (SUCI profile B)");
	from_vector(f, "nas5gs_registration_request_guti", "Registration request (5G-GUTI)");
	from_vector(f, "nas5gs_authentication_request", "Authentication request");
	from_vector(f, "nas5gs_authentication_response", "Authentication response");
	from_vector(f, "nas5gs_security_mode_command", "Security mode command (inner)");
	from_vector(f, "nas5gs_security_mode_complete", "Security mode complete (inner, with NAS container)");
	from_vector(f, "nas5gs_registration_accept", "Registration accept (inner)");
	from_vector(f, "nas5gs_registration_complete", "Registration complete (inner)");
	from_vector(f, "nas5gs_ul_nas_transport_pdu_session_establishment_request", "UL NAS transport (inner)");
	from_vector(f, "nas5gs_dl_nas_transport_pdu_session_establishment_accept", "DL NAS transport (inner)");
	from_vector(f, "nas5gs_deregistration_request", "Deregistration request UE orig (inner)");
	tv_close(f);
	printf("== registration flow (codec samples) ==\n");
	from_sample(NAS_REGISTRATION_ACCEPT, 0);
	for (size_t i = 0; i < sizeof(reg_flow); i++)
		from_sample(reg_flow[i], 1);
	printf("== PDU session flow (codec samples) ==\n");
	for (size_t i = 0; i < sizeof(pdu_flow); i++) {
		from_sample(pdu_flow[i], 0);
		from_sample(pdu_flow[i], 1);
	}
	return sink == 42 ? 1 : 0;
}
