/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * Writes the seed corpus of fuzz_pfcp: every PFCP message type of the codec
 * encoded with every IE (tests/pfcp/pfcp_sample.c).
 * Usage: pfcp_fuzz_seeds OUTDIR STAMP  (creates OUTDIR/seeds with the seeds and
 * OUTDIR/corpus empty for new inputs; STAMP is touched at the end).
 */
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>

#include "common/pfcp/pfcp.h"
#include "pfcp_sample.h"

static struct pfcp_msg msg;
static uint8_t buf[PFCP_MSG_MAX_LEN];

static int mkdir_p(const char *path)
{
	return mkdir(path, 0755) && errno != EEXIST ? -1 : 0;
}

int main(int argc, char **argv)
{
	char path[1024];
	FILE *f;

	if (argc != 3)
		return 2;
	snprintf(path, sizeof(path), "%s/corpus", argv[1]);
	if (mkdir_p(argv[1]) || mkdir_p(path))
		return 1;
	snprintf(path, sizeof(path), "%s/seeds", argv[1]);
	if (mkdir_p(path))
		return 1;
	for (unsigned i = 0; i < pfcp_sample_ntypes; i++) {
		int n;

		pfcp_sample(pfcp_sample_types[i], &msg);
		n = pfcp_encode(&msg, buf, sizeof(buf));
		snprintf(path, sizeof(path), "%s/seeds/%02u_%s", argv[1], pfcp_sample_types[i], "all");
		f = n > 0 ? fopen(path, "wb") : NULL;
		if (!f || fwrite(buf, 1, (size_t)n, f) != (size_t)n || fclose(f)) {
			perror(path);
			return 1;
		}
	}
	f = fopen(argv[2], "w");
	return f && !fclose(f) ? 0 : 1;
}
