/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * Writes the seed corpora of the NGAP fuzzers: DIR/ngap/ gets every captured PDU of
 * tests/vectors/ngap_messages.txt and every sample message (optional IEs present and absent);
 * DIR/xfer<k>/ gets the samples of transfer kind k plus the transfers found inside the vectors.
 * Usage: ngap_fuzz_seeds DIR STAMP
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "common/ngap/ngap.h"
#include "ngap_samples.h"
#include "testlib.h"

static const char *dir;
static int nfiles;

static int put(const char *sub, const char *name, const uint8_t *p, size_t n)
{
	char path[1024];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, sub);
	if (mkdir(path, 0755) && errno != EEXIST)
		return -1;
	snprintf(path, sizeof(path), "%s/%s/%s", dir, sub, name);
	f = fopen(path, "wb");
	if (!f || fwrite(p, 1, n, f) != n) {
		if (f)
			fclose(f);
		return -1;
	}
	nfiles++;
	return fclose(f);
}

int main(int argc, char **argv)
{
	static struct ngap_msg m;
	static uint8_t buf[4096];
	char name[256];
	struct tv_file *f;
	FILE *stamp;
	int rc = 0;

	if (argc < 3)
		return 2;
	dir = argv[1];
	if (mkdir(dir, 0755) && errno != EEXIST)
		return 1;
	f = tv_open("ngap_messages.txt");
	if (!f)
		return 1;
	for (int i = 0; i < tv_sections(f); i++) {
		int n = tv_hex(f, i, "hex", buf, sizeof(buf));

		if (n <= 0)
			continue;
		rc |= put("ngap", tv_section_name(f, i), buf, (size_t)n);
		if (ngap_decode(buf, (size_t)n, &m, NULL) == 0 && m.type == NGAP_INITIATING &&
		    m.proc == NGAP_PROC_PDU_SESSION_RESOURCE_SETUP)
			for (int k = 0; k < m.u.pdu_session_resource_setup_request.n_sessions; k++) {
				const struct ngap_bytes *t = &m.u.pdu_session_resource_setup_request.sessions[k].transfer;

				snprintf(name, sizeof(name), "%s_%d", tv_section_name(f, i), k);
				rc |= put("xfer0", name, t->p, t->len);
			}
	}
	tv_close(f);
	for (int i = 0; i < ngap_sample_count(); i++)
		for (int full = 0; full < 2; full++) {
			int n;

			ngap_sample(i, full, &m);
			n = ngap_encode(&m, buf, sizeof(buf));
			snprintf(name, sizeof(name), "sample_%s_%s", ngap_msg_name(m.type, m.proc), full ? "full" : "min");
			if (n > 0)
				rc |= put("ngap", name, buf, (size_t)n);
		}
	for (int k = 0; k < NGAP_SAMPLE_XFERS; k++)
		for (int full = 0; full < 2; full++) {
			int n = ngap_sample_xfer(k, full, buf, sizeof(buf));
			char sub[16];

			snprintf(sub, sizeof(sub), "xfer%d", k);
			snprintf(name, sizeof(name), "sample_%s", full ? "full" : "min");
			if (n > 0)
				rc |= put(sub, name, buf, (size_t)n);
		}
	stamp = fopen(argv[2], "w");
	if (!stamp)
		return 1;
	fprintf(stamp, "%d seed files\n", nfiles);
	fclose(stamp);
	return rc ? 1 : 0;
}
