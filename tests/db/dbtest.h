/* SPDX-License-Identifier: AGPL-3.0-or-later */
/* Helpers for the db tests: a temp dir per test, files written from strings. */
#ifndef SOLOCORE_TESTS_DB_DBTEST_H
#define SOLOCORE_TESTS_DB_DBTEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct dbt {
	char dir[64];
	char db[96];
	char file[96];
};

static inline void dbt_init(struct dbt *t)
{
	snprintf(t->dir, sizeof(t->dir), "/tmp/solocore-dbtest-XXXXXX");
	if (!mkdtemp(t->dir)) {
		perror("mkdtemp");
		abort();
	}
	snprintf(t->db, sizeof(t->db), "%s/s.db", t->dir);
	snprintf(t->file, sizeof(t->file), "%s/sims.toml", t->dir);
}

static inline void dbt_write(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
		perror(path);
		abort();
	}
}

static inline void dbt_cleanup(struct dbt *t)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", t->dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cleanup of %s failed\n", t->dir);
}

#endif
