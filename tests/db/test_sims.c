/* SPDX-License-Identifier: AGPL-3.0-or-later */
/* SIM file import: every field, every validation error (exact text), all-or-nothing,
 * duplicate IMSIs, and the `sims generate` -> `sims import` round trip through the CLI. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/wait.h>
#include <fcntl.h>

#include <cmocka.h>

#include "db/db.h"
#include "dbtest.h"

#define KI  "465B5CE8B199B49FAA5F0A2EE238A6BC"
#define OPC "E8ED289DEBA952E4283B54E88E6183CA"

static const uint8_t ki_bin[16] = { 0x46, 0x5b, 0x5c, 0xe8, 0xb1, 0x99, 0xb4, 0x9f,
				    0xaa, 0x5f, 0x0a, 0x2e, 0xe2, 0x38, 0xa6, 0xbc };
static const uint8_t opc_bin[16] = { 0xe8, 0xed, 0x28, 0x9d, 0xeb, 0xa9, 0x52, 0xe4,
				     0x28, 0x3b, 0x54, 0xe8, 0x8e, 0x61, 0x83, 0xca };

static void test_import_full(void **state)
{
	(void)state;
	struct dbt t;
	dbt_init(&t);
	dbt_write(t.file,
		  "# QCore sim-cred format, as is\n"
		  "[imsi-001010000000001]\n"
		  "ki = \"" KI "\"\n"
		  "opc = \"" OPC "\"\n"
		  "\n"
		  "# every extension\n"
		  "[imsi-001010000000002]\n"
		  "ki = \"" KI "\"\n"
		  "op = \"" OPC "\"\n"
		  "amf = \"9001\"\n"
		  "sqn = \"0000000000FF\"\n"
		  "slices = [ \"1:010203\", { sst = 2, sd = \"ABCDEF\" }, \"3\", { sst = 4 } ]\n"
		  "dnns = [ \"internet\", \"ims.mnc001.mcc001.gprs\" ]\n"
		  "ambr_ul = \"1.5 Gbps\"\n"
		  "ambr_dl = 200000000\n"
		  "ue_ambr_ul = \"300 Mbps\"\n"
		  "ue_ambr_dl = 4000000000000\n"
		  "default_5qi = 9\n"
		  "arp = 15\n"
		  "\n"
		  "[imsi-12345]\n"
		  "ki = \"" KI "\"\n"
		  "opc = \"" OPC "\"\n"
		  "sqn = 4096\n"
		  "ambr_ul = \"64 kbps\"\n"
		  "ambr_dl = \"10 MBPS\"\n");
	struct db *db;
	assert_int_equal(dbt_open(&t, &db), 0);
	char err[256] = "";
	assert_int_equal(db_import_toml(db, t.file, err, sizeof(err)), 3);
	assert_string_equal(err, "");
	assert_int_equal(db_subscriber_count(db), 3);

	struct db_subscriber s;
	assert_int_equal(db_subscriber_get(db, "imsi-001010000000001", &s), 0);
	assert_memory_equal(s.k, ki_bin, 16);
	assert_memory_equal(s.opc, opc_bin, 16);
	assert_true(s.op_is_opc);
	assert_int_equal(s.amf, 0x8000);
	assert_true(s.sqn == 0);
	assert_int_equal(s.n_slices, 0);
	assert_int_equal(s.n_dnns, 0);
	assert_true(s.ambr_ul == 0 && s.ambr_dl == 0);
	assert_true(s.ue_ambr_ul == 0 && s.ue_ambr_dl == 0);
	assert_int_equal(s.default_5qi, 0);
	assert_int_equal(s.arp, 0);
	assert_true(s.created > 0 && s.updated == s.created);

	assert_int_equal(db_subscriber_get(db, "imsi-001010000000002", &s), 0);
	assert_false(s.op_is_opc);
	assert_memory_equal(s.opc, opc_bin, 16);
	assert_int_equal(s.amf, 0x9001);
	assert_true(s.sqn == 0xff);
	assert_int_equal(s.n_slices, 4);
	assert_int_equal(s.slices[0].sst, 1);
	assert_int_equal(s.slices[0].sd, 0x010203);
	assert_int_equal(s.slices[1].sst, 2);
	assert_int_equal(s.slices[1].sd, 0xabcdef);
	assert_int_equal(s.slices[2].sst, 3);
	assert_int_equal(s.slices[2].sd, DB_SD_NONE);
	assert_int_equal(s.slices[3].sst, 4);
	assert_int_equal(s.slices[3].sd, DB_SD_NONE);
	assert_int_equal(s.n_dnns, 2);
	assert_string_equal(s.dnns[0], "internet");
	assert_string_equal(s.dnns[1], "ims.mnc001.mcc001.gprs");
	assert_true(s.ambr_ul == 1500000000ull);
	assert_true(s.ambr_dl == 200000000ull);
	assert_true(s.ue_ambr_ul == 300000000ull);   /* UE-AMBR apart from the session-AMBR */
	assert_true(s.ue_ambr_dl == 4000000000000ull);
	assert_int_equal(s.default_5qi, 9);
	assert_int_equal(s.arp, 15);

	assert_int_equal(db_subscriber_get(db, "imsi-12345", &s), 0);
	assert_true(s.sqn == 4096);
	assert_true(s.ambr_ul == 64000);
	assert_true(s.ambr_dl == 10000000);
	db_close(db);
	dbt_cleanup(&t);
}

struct bad {
	const char *body;   /* lines after "[imsi-001010000000001]\n" */
	const char *want;   /* expected text after "<file>:" */
};

#define GOOD_KEYS "ki = \"" KI "\"\nopc = \"" OPC "\"\n"

static const struct bad bad_cases[] = {
	{ "ki = \"465B\"\nopc = \"" OPC "\"\n",
	  "2: [imsi-001010000000001] ki must be a string of 32 hex digits" },
	{ "ki = \"" KI "\"\nopc = \"" OPC "XX\"\n",
	  "3: [imsi-001010000000001] opc must be a string of 32 hex digits" },
	{ "ki = \"465B5CE8B199B49FAA5F0A2EE238A6BG\"\nopc = \"" OPC "\"\n",
	  "2: [imsi-001010000000001] ki must be a string of 32 hex digits" },
	{ "ki = 5\nopc = \"" OPC "\"\n",
	  "2: [imsi-001010000000001] ki must be a string of 32 hex digits" },
	{ "opc = \"" OPC "\"\n", "1: [imsi-001010000000001] missing ki" },
	{ "ki = \"" KI "\"\n", "1: [imsi-001010000000001] missing opc (or op)" },
	{ GOOD_KEYS "op = \"" OPC "\"\n",
	  "4: [imsi-001010000000001] give either opc or op, not both" },
	{ GOOD_KEYS "amf = \"800\"\n",
	  "4: [imsi-001010000000001] amf must be a string of 4 hex digits" },
	{ GOOD_KEYS "sqn = \"0000000000001\"\n",
	  "4: [imsi-001010000000001] sqn must be 12 hex digits or an integer" },
	{ GOOD_KEYS "sqn = 281474976710656\n",
	  "4: [imsi-001010000000001] sqn out of range (0..2^48-1)" },
	{ GOOD_KEYS "sqn = -1\n", "4: [imsi-001010000000001] sqn out of range (0..2^48-1)" },
	{ GOOD_KEYS "slices = \"1\"\n", "4: [imsi-001010000000001] slices must be an array" },
	{ GOOD_KEYS "slices = [\"256:010203\"]\n",
	  "4: [imsi-001010000000001] slice \"256:010203\": expected \"SST\" or \"SST:SD\" "
	  "(SST 0..255, SD 6 hex digits)" },
	{ GOOD_KEYS "slices = [\"1:01020\"]\n",
	  "4: [imsi-001010000000001] slice \"1:01020\": expected \"SST\" or \"SST:SD\" "
	  "(SST 0..255, SD 6 hex digits)" },
	{ GOOD_KEYS "slices = [\n  \"1\",\n  { sst = 300 },\n]\n",
	  "6: [imsi-001010000000001] sst must be an integer 0..255" },
	{ GOOD_KEYS "slices = [{ sd = \"010203\" }]\n",
	  "4: [imsi-001010000000001] slice without sst" },
	{ GOOD_KEYS "slices = [{ sst = 1, foo = 2 }]\n",
	  "4: [imsi-001010000000001] unknown slice key 'foo'" },
	{ GOOD_KEYS "slices = [\"1:010203\", { sst = 1, sd = \"010203\" }]\n",
	  "4: [imsi-001010000000001] duplicate slice" },
	{ GOOD_KEYS "slices = [1]\n",
	  "4: [imsi-001010000000001] slices: each slice is \"SST:SD\" or { sst = N, sd = \"HEX\" }" },
	{ GOOD_KEYS "slices = [\"1\",\"2\",\"3\",\"4\",\"5\",\"6\",\"7\",\"8\",\"9\"]\n",
	  "4: [imsi-001010000000001] at most 8 slices" },
	{ GOOD_KEYS "dnns = [\"in ternet\"]\n",
	  "4: [imsi-001010000000001] invalid dnn (letters, digits, '-' and '.', at most 100 "
	  "characters)" },
	{ GOOD_KEYS "dnns = [\"internet\", \"internet\"]\n",
	  "4: [imsi-001010000000001] duplicate dnn \"internet\"" },
	{ GOOD_KEYS "dnns = \"internet\"\n",
	  "4: [imsi-001010000000001] dnns must be an array of strings" },
	{ GOOD_KEYS "ambr_ul = \"5 Xbps\"\n",
	  "4: [imsi-001010000000001] ambr_ul must be bits/s or a string like \"100 Mbps\"" },
	{ GOOD_KEYS "ambr_dl = 0\n",
	  "4: [imsi-001010000000001] ambr_dl must be a positive bit rate" },
	{ GOOD_KEYS "ambr_dl = \"99999999999 Tbps\"\n",
	  "4: [imsi-001010000000001] ambr_dl must be bits/s or a string like \"100 Mbps\"" },
	{ GOOD_KEYS "default_5qi = 0\n",
	  "4: [imsi-001010000000001] default_5qi must be an integer 1..255" },
	{ GOOD_KEYS "arp = 16\n", "4: [imsi-001010000000001] arp must be an integer 1..15" },
	{ GOOD_KEYS "ue_ambr_ul = \"4.1 Tbps\"\n",
	  "4: [imsi-001010000000001] ue_ambr_ul exceeds 4000000000000 bit/s (4 Tbps)" },
	{ GOOD_KEYS "ue_ambr_dl = 0\n",
	  "4: [imsi-001010000000001] ue_ambr_dl must be a positive bit rate" },
	/* TS 23.501 5.7.2.7: the default QoS flow is non-GBR */
	{ GOOD_KEYS "default_5qi = 1\n", "4: [imsi-001010000000001] " DB_GBR_5QI_WHY },
	{ GOOD_KEYS "default_5qi = 84\n", "4: [imsi-001010000000001] " DB_GBR_5QI_WHY },
	{ GOOD_KEYS "colour = \"red\"\n", "4: [imsi-001010000000001] unknown key 'colour'" },
	/* TOML errors come through with the same form. */
	{ GOOD_KEYS "ki = \"" KI "\"\n", "4: duplicate key 'ki'" },
};

static int import_text(struct dbt *t, const char *text, char *err, size_t errsz)
{
	dbt_write(t->file, text);
	struct db *db;
	assert_int_equal(dbt_open(t, &db), 0);
	int r = db_import_toml(db, t->file, err, errsz);
	db_close(db);
	return r;
}

static void expect_error(struct dbt *t, const char *text, const char *want_tail)
{
	char err[512], want[512];
	snprintf(want, sizeof(want), "%s:%s", t->file, want_tail);
	int r = import_text(t, text, err, sizeof(err));
	if (r != -22 || strcmp(err, want))
		fail_msg("got %d \"%s\"\nwant \"%s\"", r, err, want);
}

static void test_validation_errors(void **state)
{
	(void)state;
	struct dbt t;
	dbt_init(&t);
	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		char text[1024];
		snprintf(text, sizeof(text), "[imsi-001010000000001]\n%s", bad_cases[i].body);
		expect_error(&t, text, bad_cases[i].want);
	}
	/* Table names that are not imsi- + 5..15 digits. */
	static const char *const names[] = { "imsi-0010", "imsi-0010100000000001",
					     "imsi-00101000000000a", "sim-001010000000001" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char text[256], want[256];
		snprintf(text, sizeof(text), "[%s]\n" GOOD_KEYS, names[i]);
		snprintf(want, sizeof(want), "1: [%s]: table name must be imsi- followed by 5 to 15 "
			 "digits (MCC, MNC, MSIN)", names[i]);
		expect_error(&t, text, want);
	}
	expect_error(&t, "version = 1\n",
		     "1: unexpected top-level key 'version' (expected [imsi-...] tables)");
	struct db *db;
	assert_int_equal(dbt_open(&t, &db), 0);
	assert_int_equal(db_subscriber_count(db), 0);
	db_close(db);
	dbt_cleanup(&t);
}

static void test_all_or_nothing(void **state)
{
	(void)state;
	struct dbt t;
	dbt_init(&t);
	char err[512];
	/* An existing subscriber must survive a failed import unchanged. */
	assert_int_equal(import_text(&t, "[imsi-001019999999999]\n" GOOD_KEYS "sqn = 77\n", err,
				     sizeof(err)), 1);
	char text[8192];
	size_t n = 0;
	for (int i = 1; i <= 50; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n,
				      "[imsi-0010100000%05d]\n" GOOD_KEYS, i);
	/* The bad entry is the last one: 50 good rows were inserted before it. */
	n += (size_t)snprintf(text + n, sizeof(text) - n, "[imsi-001010000099999]\nki = \"00\"\n");
	dbt_write(t.file, text);
	struct db *db;
	assert_int_equal(dbt_open(&t, &db), 0);
	assert_int_equal(db_import_toml(db, t.file, err, sizeof(err)), -22);
	char want[256];
	snprintf(want, sizeof(want), "%s:152: [imsi-001010000099999] ki must be a string of 32 "
		 "hex digits", t.file);
	assert_string_equal(err, want);
	assert_int_equal(db_subscriber_count(db), 1);
	struct db_subscriber s;
	assert_int_equal(db_subscriber_get(db, "imsi-001010000000001", &s), -2);
	assert_int_equal(db_subscriber_get(db, "imsi-001019999999999", &s), 0);
	assert_true(s.sqn == 77);
	db_close(db);
	dbt_cleanup(&t);
}

static void test_duplicate_imsi(void **state)
{
	(void)state;
	struct dbt t;
	dbt_init(&t);
	char err[512];
	/* In the file: the TOML reader refuses the second table. */
	expect_error(&t, "[imsi-001010000000001]\n" GOOD_KEYS "\n[imsi-001010000000001]\n" GOOD_KEYS,
		     "5: duplicate table [imsi-001010000000001]");
	/* In the database: the second import names the line and imports nothing. */
	assert_int_equal(import_text(&t, "[imsi-001010000000001]\n" GOOD_KEYS, err, sizeof(err)), 1);
	expect_error(&t, "[imsi-001010000000002]\n" GOOD_KEYS "[imsi-001010000000001]\n" GOOD_KEYS,
		     "4: [imsi-001010000000001] IMSI already in the database");
	struct db *db;
	assert_int_equal(dbt_open(&t, &db), 0);
	assert_int_equal(db_subscriber_count(db), 1);
	db_close(db);
	dbt_cleanup(&t);
}

/* Run db_cli_sims (or db_cli_sims_db when conf_db is set) in a child with
 * stdout to `out`; returns the exit code. */
static int run_cli_db(const char *out, int argc, char **argv, const char *conf_db)
{
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (out) {
			int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
			if (fd < 0 || dup2(fd, 1) < 0)
				_exit(99);
			close(fd);
		}
		int rc = conf_db ? db_cli_sims_db(argc, argv, conf_db) : db_cli_sims(argc, argv);
		fflush(stdout);
		_exit(rc);
	}
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	return WEXITSTATUS(st);
}

static int run_cli(const char *out, int argc, char **argv)
{
	return run_cli_db(out, argc, argv, NULL);
}

static int count_cb(const struct db_subscriber *s, void *arg)
{
	struct db_subscriber *prev = arg;
	/* Random keys: each differs from the previous subscriber's. */
	assert_memory_not_equal(s->k, prev->k, 16);
	assert_memory_not_equal(s->opc, prev->opc, 16);
	*prev = *s;
	return 0;
}

static void test_generate_import(void **state)
{
	(void)state;
	DBT_FILE_ONLY("`solocore sims import --db PATH` opens a SQLite file (the CLI has no dqlite option)");
	struct dbt t;
	dbt_init(&t);
	char *gen[] = { "sims", "generate", "--count", "1000", "--imsi-start", "001010000000995",
			"--ki", KI, "--opc", OPC, NULL };
	assert_int_equal(run_cli(t.file, 10, gen), 0);
	char *imp[] = { "sims", "import", t.file, "--db", t.db, NULL };
	assert_int_equal(run_cli(NULL, 5, imp), 0);
	struct db *db;
	assert_int_equal(db_open(t.db, &db), 0);
	assert_int_equal(db_subscriber_count(db), 1000);
	struct db_subscriber s;
	assert_int_equal(db_subscriber_get(db, "imsi-001010000000995", &s), 0);
	assert_memory_equal(s.k, ki_bin, 16);
	assert_memory_equal(s.opc, opc_bin, 16);
	assert_int_equal(db_subscriber_get(db, "imsi-001010000001994", &s), 0);
	assert_memory_equal(s.opc, opc_bin, 16);
	assert_int_equal(db_subscriber_get(db, "imsi-001010000001995", &s), -2);
	db_close(db);

	/* Importing the same file again fails as a whole (exit 1). */
	assert_int_equal(run_cli(NULL, 5, imp), 1);

	/* Random keys, into a second database. */
	char db2[128];
	snprintf(db2, sizeof(db2), "%s/r.db", t.dir);
	char *genr[] = { "sims", "generate", "--count", "100", "--random-keys", NULL };
	assert_int_equal(run_cli(t.file, 5, genr), 0);
	char *imp2[] = { "sims", "import", t.file, "--db", db2, NULL };
	assert_int_equal(run_cli(NULL, 5, imp2), 0);
	assert_int_equal(db_open(db2, &db), 0);
	struct db_subscriber prev;
	memset(&prev, 0, sizeof(prev));
	assert_int_equal(db_load_subscribers(db, count_cb, &prev), 100);
	assert_string_equal(prev.supi, "imsi-001010000000100");
	db_close(db);

	/* The config's database path (db_cli_sims_db): -c CONFIG is skipped,
	 * --db still wins. */
	char db3[128];
	snprintf(db3, sizeof(db3), "%s/conf.db", t.dir);
	char *imp3[] = { "sims", "import", "-c", "solocore.yaml", t.file, NULL };
	assert_int_equal(run_cli_db(NULL, 5, imp3, db3), 0);
	assert_int_equal(db_open(db3, &db), 0);
	assert_int_equal(db_subscriber_count(db), 100);
	db_close(db);
	char db4[128];
	snprintf(db4, sizeof(db4), "%s/explicit.db", t.dir);
	char *imp4[] = { "sims", "import", "--config", "x.yaml", t.file, "--db", db4, NULL };
	assert_int_equal(run_cli_db(NULL, 7, imp4, db3), 0);
	assert_int_equal(db_open(db4, &db), 0);
	assert_int_equal(db_subscriber_count(db), 100);
	db_close(db);
	dbt_cleanup(&t);
}

static void test_cli_usage(void **state)
{
	(void)state;
	DBT_FILE_ONLY("usage errors touch no database: backend-independent, run by the sqlite run");
	char *a1[] = { "sims", NULL };
	assert_int_equal(run_cli("/dev/null", 1, a1), 2);
	char *a2[] = { "sims", "generate", NULL };
	assert_int_equal(run_cli("/dev/null", 2, a2), 2);
	char *a3[] = { "sims", "generate", "--count", "5", "--ki", KI, NULL };
	assert_int_equal(run_cli("/dev/null", 6, a3), 2);
	char *a4[] = { "sims", "generate", "--count", "5", "--ki", "12", "--opc", OPC, NULL };
	assert_int_equal(run_cli("/dev/null", 8, a4), 2);
	char *a5[] = { "sims", "generate", "--count", "0", NULL };
	assert_int_equal(run_cli("/dev/null", 4, a5), 2);
	char *a6[] = { "sims", "generate", "--count", "3", "--imsi-start", "12a45", NULL };
	assert_int_equal(run_cli("/dev/null", 6, a6), 2);
	/* 99998, 99999, then the range would need a sixth digit: refused
	 * before anything is written. */
	char *a7[] = { "sims", "generate", "--count", "3", "--imsi-start", "99998", NULL };
	char out[64];
	snprintf(out, sizeof(out), "/tmp/solocore-gen-%d.toml", (int)getpid());
	assert_int_equal(run_cli(out, 6, a7), 2);
	FILE *f = fopen(out, "r");
	assert_non_null(f);
	assert_int_equal(fgetc(f), EOF);
	fclose(f);
	unlink(out);
	char *a7b[] = { "sims", "generate", "--count", "2", "--imsi-start", "99998", NULL };
	assert_int_equal(run_cli("/dev/null", 6, a7b), 0);
	char *a8[] = { "sims", "import", NULL };
	assert_int_equal(run_cli(NULL, 2, a8), 2);
	char *a9[] = { "sims", "import", "x.toml", "-c", "solocore.yaml", NULL };
	assert_int_equal(run_cli(NULL, 5, a9), 2);
	char *a10[] = { "sims", "import", "/nonexistent/x.toml", "--db", "/tmp/solocore-x-none.db",
			NULL };
	assert_int_equal(run_cli(NULL, 5, a10), 1);
	unlink("/tmp/solocore-x-none.db");
	unlink("/tmp/solocore-x-none.db-wal");
	unlink("/tmp/solocore-x-none.db-shm");
	char *a11[] = { "sims", "frobnicate", NULL };
	assert_int_equal(run_cli(NULL, 2, a11), 2);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_import_full),
		cmocka_unit_test(test_validation_errors),
		cmocka_unit_test(test_all_or_nothing),
		cmocka_unit_test(test_duplicate_imsi),
		cmocka_unit_test(test_generate_import),
		cmocka_unit_test(test_cli_usage),
	};
	if (dbt_backend_init(argc, argv) < 0)
		return 1;
	int r = cmocka_run_group_tests(tests, NULL, NULL);
	dbt_backend_fini();
	return r;
}
