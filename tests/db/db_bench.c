/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * db-bench: start-up cost with N subscribers (default 1,000,000).
 *   db-bench [N [DIR]]
 * Generates N SIMs with `sims generate --random-keys`, parses the file with
 * the TOML reader, imports it into a fresh SQLite file, loads every row back
 * with db_load_subscribers (copying each into an array, as the UDM does),
 * then pushes one SQN update per subscriber through the writer and flushes.
 * Prints the figures; asserts only that the counts are right.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "common/toml/toml.h"
#include "db/db.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* CPU seconds of this process (and of its children with who = RUSAGE_CHILDREN):
 * on a loaded machine wall time says little, CPU time still compares. */
static double cpu_s(int who)
{
	struct rusage ru;
	getrusage(who, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

static long long fsize(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 ? (long long)st.st_size : -1;
}

struct store {
	struct db_subscriber *v;
	size_t n, cap;
};

static int keep(const struct db_subscriber *s, void *arg)
{
	struct store *st = arg;
	if (st->n == st->cap)
		return -ENOSPC;
	st->v[st->n++] = *s;
	return 0;
}

static int count_only(const struct db_subscriber *s, void *arg)
{
	(void)s;
	(*(long *)arg)++;
	return 0;
}

int main(int argc, char **argv)
{
	long count = argc > 1 ? atol(argv[1]) : 1000000;
	char dir[256];
	if (argc > 2)
		snprintf(dir, sizeof(dir), "%s", argv[2]);
	else
		snprintf(dir, sizeof(dir), "/tmp/solocore-db-bench-XXXXXX");
	if (count <= 0 || (argc <= 2 && !mkdtemp(dir))) {
		fprintf(stderr, "usage: db-bench [N [DIR]]\n");
		return 2;
	}
	log_set_level(LOGL_WARN);
	char toml[300], dbp[300], cnt[32];
	snprintf(toml, sizeof(toml), "%s/sims.toml", dir);
	snprintf(dbp, sizeof(dbp), "%s/bench.db", dir);
	snprintf(cnt, sizeof(cnt), "%ld", count);
	printf("db-bench: %ld subscribers in %s\n", count, dir);

	/* 1. generate */
	double t0 = now_s();
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		int fd = open(toml, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd < 0 || dup2(fd, 1) < 0)
			_exit(99);
		char *a[] = { "sims", "generate", "--count", cnt, "--random-keys", NULL };
		int rc = db_cli_sims(5, a);
		fflush(stdout);
		_exit(rc);
	}
	int wst;
	if (pid < 0 || waitpid(pid, &wst, 0) != pid || !WIFEXITED(wst) || WEXITSTATUS(wst)) {
		fprintf(stderr, "generate failed\n");
		return 1;
	}
	double t_gen = now_s() - t0;
	printf("generate:        %8.3f s  cpu %6.3f s  (%lld bytes of TOML)\n", t_gen,
	       cpu_s(RUSAGE_CHILDREN), fsize(toml));

	/* 2. TOML parse alone */
	t0 = now_s();
	double c0 = cpu_s(RUSAGE_SELF);
	struct toml_doc *doc;
	char err[512];
	if (toml_parse_file(toml, &doc, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	double t_parse = now_s() - t0;
	size_t tables = toml_count(toml_root(doc));
	printf("toml parse:      %8.3f s  cpu %6.3f s  (%zu tables, %.1f MB arena+index)\n", t_parse,
	       cpu_s(RUSAGE_SELF) - c0, tables,
	       (double)toml_mem(doc) / 1e6);
	toml_free(doc);
	if ((long)tables != count)
		return 1;

	/* 3. import (parse + validate + insert, one transaction) */
	unlink(dbp);
	struct db *db;
	if (db_open(dbp, &db) < 0)
		return 1;
	t0 = now_s();
	c0 = cpu_s(RUSAGE_SELF);
	int n = db_import_toml(db, toml, err, sizeof(err));
	double t_imp = now_s() - t0, c_imp = cpu_s(RUSAGE_SELF) - c0;
	if (n != count) {
		fprintf(stderr, "import: %d %s\n", n, err);
		return 1;
	}
	printf("import:          %8.3f s  cpu %6.3f s  (%.0f rows/s)\n", t_imp, c_imp,
	       (double)n / t_imp);
	db_close(db);
	printf("database file:   %lld bytes\n", fsize(dbp));

	/* 4a. start-up load, db side only: open + stream every row */
	long rows = 0;
	t0 = now_s();
	c0 = cpu_s(RUSAGE_SELF);
	if (db_open(dbp, &db) < 0)
		return 1;
	n = db_load_subscribers(db, count_only, &rows);
	double t_scan = now_s() - t0;
	db_close(db);
	if (n != count || rows != count)
		return 1;
	printf("open + load:     %8.3f s  cpu %6.3f s  (%.0f rows/s, callback only counts)\n",
	       t_scan, cpu_s(RUSAGE_SELF) - c0, (double)n / t_scan);

	/* 4b. the same, copying every row into an array as a store would */
	struct store st = { .cap = (size_t)count };
	st.v = malloc(st.cap * sizeof(*st.v));
	if (!st.v)
		return 1;
	t0 = now_s();
	c0 = cpu_s(RUSAGE_SELF);
	if (db_open(dbp, &db) < 0)
		return 1;
	n = db_load_subscribers(db, keep, &st);
	double t_load = now_s() - t0, c_load = cpu_s(RUSAGE_SELF) - c0;
	if (n != count)
		return 1;
	printf("open + load+copy:%8.3f s  cpu %6.3f s  (%.0f rows/s, %zu bytes per struct "
	       "db_subscriber)\n", t_load, c_load, (double)n / t_load, sizeof(struct db_subscriber));

	/* 5. writer: one SQN update per subscriber from this thread, then flush */
	struct db_writer *w;
	struct db_writer_opts o = { .queue_cap = (uint32_t)count };
	if (db_writer_start(db, &o, &w) < 0)
		return 1;
	t0 = now_s();
	c0 = cpu_s(RUSAGE_SELF);
	for (size_t i = 0; i < st.n; i++)
		db_writer_sqn(w, st.v[i].supi, 32 + i);
	double t_enq = now_s() - t0;
	if (db_writer_flush(w) < 0)
		return 1;
	double t_all = now_s() - t0, c_all = cpu_s(RUSAGE_SELF) - c0;
	struct db_writer_stats ws;
	db_writer_get_stats(w, &ws);
	db_writer_stop(w);
	printf("writer enqueue:  %8.3f s  (%.0f ns per db_writer_sqn)\n", t_enq, t_enq * 1e9 / (double)n);
	printf("writer to disk:  %8.3f s  cpu %6.3f s  (both threads; written %llu in %llu "
	       "transactions, dropped %llu, coalesced %llu)\n", t_all, c_all,
	       (unsigned long long)ws.written,
	       (unsigned long long)ws.batches, (unsigned long long)ws.dropped,
	       (unsigned long long)ws.coalesced);
	explicit_bzero(st.v, st.n * sizeof(*st.v));
	free(st.v);
	db_close(db);
	if (argc <= 2) {
		char cmd[300];
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			fprintf(stderr, "cleanup of %s failed\n", dir);
	}
	return 0;
}
