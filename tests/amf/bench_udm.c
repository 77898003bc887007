/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * bench_udm [N] [--db M]: figures for the UDM subscriber store.
 *   - N subscribers added to the in-memory store (default 1,000,000): time, RSS growth
 *   - N lookups by SUPI, 100,000 AV generations (Milenage + KDFs)
 *   - with --db M: M subscribers imported into a fresh SQLite file from TOML (db/),
 *     then the start-up path udm_load_db() timed.
 * Prints its figures; not run by meson test (suite 'bench').
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "db/db.h"
#include "udm/udm.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static long rss_kb(void)
{
	long pages = 0, rss = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (f) {
		if (fscanf(f, "%ld %ld", &pages, &rss) != 2)
			rss = 0;
		fclose(f);
	}
	return rss * (sysconf(_SC_PAGESIZE) / 1024);
}

static void supi_of(char *out, size_t sz, uint32_t i)
{
	snprintf(out, sz, "imsi-00101%010u", i);
}

static int bench_db(uint32_t m)
{
	char dir[] = "/tmp/solocore-bench-XXXXXX", toml[256], dbp[256], err[256];
	struct udm_sub_data defs;
	struct db *db = NULL;
	struct udm *udm;
	double t0, t1;
	FILE *f;
	uint32_t i;
	int rc, e = 0;

	if (!mkdtemp(dir))
		return -errno;
	snprintf(toml, sizeof(toml), "%s/sims.toml", dir);
	snprintf(dbp, sizeof(dbp), "%s/solocore.db", dir);
	f = fopen(toml, "w");
	if (!f)
		return -errno;
	for (i = 0; i < m; i++)
		fprintf(f, "[imsi-00101%010u]\nki = \"465b5ce8b199b49faa5f0a2ee238a6bc\"\n"
			   "opc = \"cd63cb71954a9f4e48a5994e37a02baf\"\n\n", i);
	fclose(f);
	if ((rc = db_open(dbp, &db)) < 0)
		return rc;
	t0 = now_s();
	rc = db_import_toml(db, toml, err, sizeof(err));
	t1 = now_s();
	if (rc < 0) {
		fprintf(stderr, "import failed: %s\n", err);
		return rc;
	}
	printf("db import (TOML -> SQLite, one transaction): %u subscribers in %.2f s\n", m, t1 - t0);
	db_close(db);
	unlink(toml);
	/* Start-up path: open, load into the store. */
	t0 = now_s();
	if ((rc = db_open(dbp, &db)) < 0)
		return rc;
	udm = udm_new(m, &e);
	memset(&defs, 0, sizeof(defs));
	defs.n_slices = 1;
	defs.slices[0].sst = 1;
	defs.slices[0].sd = 0x010203;
	defs.n_dnns = 1;
	defs.dnns[0] = "internet";
	udm_set_defaults(udm, &defs);
	rc = udm_load_db(udm, db);
	t1 = now_s();
	printf("start-up load (db_open + udm_load_db): %d subscribers in %.2f s (%.0f /s)\n", rc, t1 - t0,
	       rc > 0 ? rc / (t1 - t0) : 0.0);
	udm_free(udm);
	db_close(db);
	unlink(dbp);
	snprintf(toml, sizeof(toml), "%s/solocore.db-wal", dir);
	unlink(toml);
	snprintf(toml, sizeof(toml), "%s/solocore.db-shm", dir);
	unlink(toml);
	rmdir(dir);
	return 0;
}

int main(int argc, char **argv)
{
	uint32_t n = 1000000, m = 0, i, found = 0;
	static const char *const dnn = "internet";
	struct udm_sub_in in;
	struct udm_av av;
	struct udm *udm;
	char supi[32];
	double t0, t1;
	long rss0;
	int e = 0, a;

	for (a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "--db") && a + 1 < argc)
			m = (uint32_t)strtoul(argv[++a], NULL, 10);
		else
			n = (uint32_t)strtoul(argv[a], NULL, 10);
	}
	log_set_level(LOGL_WARN);
	rss0 = rss_kb();
	t0 = now_s();
	udm = udm_new(n, &e);
	if (!udm)
		return 1;
	memset(&in, 0, sizeof(in));
	in.data.n_slices = 1;
	in.data.slices[0].sst = 1;
	in.data.slices[0].sd = 0x010203;
	in.data.n_dnns = 1;
	in.data.dnns[0] = dnn;
	in.op_is_opc = true;
	in.amf[0] = 0x80;
	for (i = 0; i < n; i++) {
		supi_of(in.data.supi, sizeof(in.data.supi), i);
		in.k[0] = (uint8_t)i;
		if (udm_add(udm, &in) < 0)
			return 1;
	}
	t1 = now_s();
	printf("udm store: %u subscribers added in %.3f s (%.0f /s), RSS +%ld MB (%.0f bytes/subscriber)\n",
	       n, t1 - t0, n / (t1 - t0), (rss_kb() - rss0) / 1024,
	       (double)(rss_kb() - rss0) * 1024.0 / n);
	t0 = now_s();
	for (i = 0; i < n; i++) {
		supi_of(supi, sizeof(supi), (i * 2654435761u) % n);
		found += udm_get(udm, supi) != NULL;
	}
	t1 = now_s();
	printf("udm lookup by SUPI: %u in %.3f s (%.0f ns each), found %u\n", n, t1 - t0,
	       (t1 - t0) * 1e9 / n, found);
	t0 = now_s();
	for (i = 0; i < 100000; i++) {
		supi_of(supi, sizeof(supi), i % n);
		if (udm_generate_av(udm, supi, "5G:mnc001.mcc001.3gppnetwork.org", &av) < 0)
			return 1;
	}
	t1 = now_s();
	printf("ARPF 5G HE AV generation: 100000 in %.3f s (%.1f us each)\n", t1 - t0, (t1 - t0) * 1e6 / 100000);
	udm_free(udm);
	if (m && bench_db(m) < 0)
		return 1;
	return 0;
}
