/* SPDX-License-Identifier: AGPL-3.0-or-later */
/* cli - `solocore sims import|generate`. */
#include "db/db_int.h"
#include "common/hex.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#define EXIT_USAGE DB_EXIT_USAGE

int db_open_location(const char *loc, struct db **out)
{
	size_t pl = strlen(DB_LOC_DQLITE);

	if (!loc || !out)
		return -EINVAL;
	if (strncmp(loc, DB_LOC_DQLITE, pl))
		return db_open(loc, out);
	char addrs[512];
	int r = -EINVAL;
	if (strlen(loc + pl) >= sizeof(addrs))
		return -EINVAL;
	strcpy(addrs, loc + pl);
	for (char *save = NULL, *a = strtok_r(addrs, ",", &save); a; a = strtok_r(NULL, ",", &save)) {
		r = db_open_dqlite(a, DB_CLUSTER_NAME, out);
		if (r == 0 || r == -EPROTO || r == -ENOMEM)
			break;
	}
	return r;
}

/* --db PATH or --cluster ADDRS into *loc (buf holds the "dqlite:" form). 1 when argv[*i] was
 * one of them (i moved past its value), 0 when not, EXIT_USAGE after a message. */
int db_cli_location_arg(int argc, char **argv, int *i, const char **loc, char *buf, size_t bufsz)
{
	bool db = !strcmp(argv[*i], "--db"), cl = !strcmp(argv[*i], "--cluster");

	if (!db && !cl)
		return 0;
	if (*i + 1 >= argc) {
		fprintf(stderr, "%s needs a value\n", argv[*i]);
		return EXIT_USAGE;
	}
	if (*loc) {
		fputs("--db and --cluster name the database once: give one of them\n", stderr);
		return EXIT_USAGE;
	}
	const char *v = argv[++*i];
	if (db) {
		*loc = v;
		return 1;
	}
	if (!*v || (size_t)snprintf(buf, bufsz, "%s%s", DB_LOC_DQLITE, v) >= bufsz) {
		fputs("--cluster needs HOST:PORT[,HOST:PORT...]\n", stderr);
		return EXIT_USAGE;
	}
	*loc = buf;
	return 1;
}

void db_cli_open_error(const char *loc, int r)
{
	if (!strncmp(loc, DB_LOC_DQLITE, strlen(DB_LOC_DQLITE)))
		fprintf(stderr, "cluster %s: %s\n", loc + strlen(DB_LOC_DQLITE),
			r == -EHOSTUNREACH || r == -ECONNREFUSED || r == -ENOTCONN
			? "no node answered with a leader (is a majority of the nodes running?)" : strerror(-r));
	else
		fprintf(stderr, "%s: cannot open database: %s\n", loc, strerror(-r));
}

static void usage(void)
{
	fputs("usage: solocore sims import FILE.toml [--db PATH | --cluster HOST:PORT,... [--cluster-dir DIR] | -c CONFIG]\n"
	      "       solocore sims generate --count N [--imsi-start IMSI]\n"
	      "                              [--ki HEX --opc HEX | --random-keys]\n"
	      "--cluster talks mutual TLS with the certificate in DIR/tls (default ./solocore.db.dqlite).\n"
	      "The SIM file format is described in db/SIMS.md.\n", stderr);
}

static int cmd_import(int argc, char **argv, const char *conf_db)
{
	const char *file = NULL, *dbpath = NULL;
	char locbuf[512];
	for (int i = 0; i < argc; i++) {
		int a = db_cli_location_arg(argc, argv, &i, &dbpath, locbuf, sizeof(locbuf));
		if (a == EXIT_USAGE)
			return a;
		if (a) {
			;
		} else if ((!strcmp(argv[i], "-c") || !strcmp(argv[i], "--config")) && i + 1 < argc) {
			if (!conf_db) {
				fputs("sims import: -c must be resolved by the caller; use --db PATH\n",
				      stderr);
				return EXIT_USAGE;
			}
			i++;
		} else if (argv[i][0] == '-' || file) {
			usage();
			return EXIT_USAGE;
		} else {
			file = argv[i];
		}
	}
	if (!file) {
		usage();
		return EXIT_USAGE;
	}
	if (!dbpath)
		dbpath = conf_db ? conf_db : "./solocore.db";
	struct db *db;
	int r = db_open_location(dbpath, &db);
	if (r < 0) {
		db_cli_open_error(dbpath, r);
		return 1;
	}
	char err[512];
	r = db_import_toml(db, file, err, sizeof(err));
	db_close(db);
	if (r < 0) {
		fprintf(stderr, "%s\n", err[0] ? err : strerror(-r));
		fprintf(stderr, "%s: nothing imported\n", file);
		return 1;
	}
	fprintf(stderr, "%s: imported %d subscribers into %s\n", file, r, dbpath);
	return 0;
}

static int random_bytes(uint8_t *b, size_t n)
{
	while (n) {
		ssize_t got = getrandom(b, n, 0);
		if (got < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		b += got;
		n -= (size_t)got;
	}
	return 0;
}

/* Add 1 to a decimal string in place (leading zeros kept). */
static void imsi_inc(char *d, size_t len)
{
	for (size_t i = len; i-- > 0;) {
		if (d[i] != '9') {
			d[i]++;
			return;
		}
		d[i] = '0';
	}
}

/* `sims generate` as parsed and checked. */
struct gen_opts {
	unsigned long long count;
	char imsi[DB_IMSI_MAX_DIGITS + 1];   /* the first IMSI */
	size_t ilen;
	bool random_keys;                    /* else every SIM gets ki / opc */
	uint8_t ki[16], opc[16];
};

/* The arguments into o, or a message on stderr and EXIT_USAGE. The whole IMSI range is
 * checked to fit its length here, before anything is printed. */
static int gen_parse(int argc, char **argv, struct gen_opts *o)
{
	const char *count_s = NULL, *start = "001010000000001", *ki_s = NULL, *opc_s = NULL;
	bool random_keys = false;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--random-keys")) {
			random_keys = true;
			continue;
		}
		if (!v) {
			usage();
			return EXIT_USAGE;
		}
		if (!strcmp(a, "--count"))
			count_s = v;
		else if (!strcmp(a, "--imsi-start"))
			start = v;
		else if (!strcmp(a, "--ki"))
			ki_s = v;
		else if (!strcmp(a, "--opc"))
			opc_s = v;
		else {
			usage();
			return EXIT_USAGE;
		}
		i++;
	}
	char *e;
	o->count = count_s ? strtoull(count_s, &e, 10) : 0;
	if (!count_s || *e || count_s[0] == '-' || o->count == 0 || o->count > 100000000ull) {
		fputs("sims generate: --count must be 1..100000000\n", stderr);
		return EXIT_USAGE;
	}
	o->ilen = strlen(start);
	if (!db_imsi_valid(start, o->ilen)) {
		fprintf(stderr, "sims generate: --imsi-start must be %d to %d digits\n",
			DB_IMSI_MIN_DIGITS, DB_IMSI_MAX_DIGITS);
		return EXIT_USAGE;
	}
	uint64_t first = strtoull(start, NULL, 10), limit = 1;
	for (size_t i = 0; i < o->ilen; i++)
		limit *= 10;
	if (o->count > limit - first) {
		fprintf(stderr, "sims generate: %llu IMSIs from %s do not fit in %zu digits\n", o->count,
			start, o->ilen);
		return EXIT_USAGE;
	}
	memcpy(o->imsi, start, o->ilen + 1);
	if ((ki_s || opc_s) && (random_keys || !ki_s || !opc_s)) {
		fputs("sims generate: give --ki and --opc together, or --random-keys\n", stderr);
		return EXIT_USAGE;
	}
	if (ki_s && (hex_decode_exact(o->ki, 16, ki_s, strlen(ki_s)) < 0 ||
		     hex_decode_exact(o->opc, 16, opc_s, strlen(opc_s)) < 0)) {
		fputs("sims generate: --ki and --opc take 32 hex digits\n", stderr);
		return EXIT_USAGE;
	}
	/* Without --ki/--opc every SIM gets its own random keys. */
	o->random_keys = !ki_s;
	return 0;
}

/* The SIM file on stdout (db/SIMS.md): 0, or 1 after a message on stderr. */
static int gen_write(struct gen_opts *o)
{
	char kh[33], oh[33];
	int rc = 0;

	if (!o->random_keys) {
		hex_encode(kh, sizeof(kh), o->ki, 16, true);
		hex_encode(oh, sizeof(oh), o->opc, 16, true);
	}
	printf("# solocore SIM file (db/SIMS.md), %llu entries\n", o->count);
	for (unsigned long long n = 0; n < o->count; n++) {
		if (n)
			imsi_inc(o->imsi, o->ilen);   /* cannot overflow: range checked by gen_parse */
		if (o->random_keys) {
			uint8_t b[32];
			if (random_bytes(b, sizeof(b)) < 0) {
				fprintf(stderr, "sims generate: getrandom: %s\n", strerror(errno));
				rc = 1;
				break;
			}
			hex_encode(kh, sizeof(kh), b, 16, true);
			hex_encode(oh, sizeof(oh), b + 16, 16, true);
			explicit_bzero(b, sizeof(b));
		}
		printf("\n[imsi-%s]\nki = \"%s\"\nopc = \"%s\"\n", o->imsi, kh, oh);
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "sims generate: write error: %s\n", strerror(errno));
		rc = 1;
	}
	explicit_bzero(kh, sizeof(kh));
	explicit_bzero(oh, sizeof(oh));
	return rc;
}

static int cmd_generate(int argc, char **argv)
{
	struct gen_opts o = { 0 };
	int rc = gen_parse(argc, argv, &o);

	if (rc == 0)
		rc = gen_write(&o);
	explicit_bzero(&o, sizeof(o));
	return rc;
}

int db_cli_sims_db(int argc, char **argv, const char *conf_db)
{
	if (argc < 2) {
		usage();
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "import"))
		return cmd_import(argc - 2, argv + 2, conf_db);
	if (!strcmp(argv[1], "generate"))
		return cmd_generate(argc - 2, argv + 2);
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage();
		return 0;
	}
	usage();
	return EXIT_USAGE;
}

int db_cli_sims(int argc, char **argv)
{
	return db_cli_sims_db(argc, argv, NULL);
}
