/* SPDX-License-Identifier: AGPL-3.0-or-later */
/* `solocore users ...`: web users in the database (db.h db_cli_users). */
#include "db/db_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/rand.h>

#define EXIT_USAGE DB_EXIT_USAGE

static void usage(void)
{
	fputs("usage: solocore users create NAME --role admin|operator|read [--password-stdin] [--db PATH]\n"
	      "       solocore users passwd NAME [--password-stdin] [--db PATH]\n"
	      "       solocore users delete NAME [--db PATH]\n"
	      "       solocore users list [--db PATH]\n"
	      "       (--cluster HOST:PORT,... [--cluster-dir DIR] instead of --db: a cluster's replicated\n"
	      "       database, over mutual TLS with the certificate in DIR/tls, default ./solocore.db.dqlite)\n"
	      "Without --password-stdin a random password is printed once.\n", stderr);
}

/* 18 random bytes as 24 URL-safe characters. */
static int random_password(char out[25])
{
	static const char a[] = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789-_";
	uint8_t b[24];

	if (RAND_bytes(b, sizeof(b)) != 1)
		return -EIO;
	for (int i = 0; i < 24; i++)
		out[i] = a[b[i] % (sizeof(a) - 1)];
	out[24] = 0;
	explicit_bzero(b, sizeof(b));
	return 0;
}

static int read_password(char *pw, size_t sz)
{
	if (!fgets(pw, (int)sz, stdin))
		return -EINVAL;
	pw[strcspn(pw, "\r\n")] = 0;
	return 0;
}

static int print_user(const struct db_user *u, void *arg)
{
	(void)arg;
	printf("%-24s %s\n", u->name, db_role_name(u->role));
	return 0;
}

/* A `users` command line, checked. */
struct users_cmd {
	const char *verb, *name, *dbpath;
	char locbuf[512];       /* dbpath of --cluster */
	int role;               /* create: the role asked for */
	bool from_stdin;        /* --password-stdin */
};

/* argv into c: 0, or EXIT_USAGE after saying what is wrong. */
static int users_parse(int argc, char **argv, const char *conf_db, struct users_cmd *c)
{
	const char *role_s = NULL;

	c->verb = argc > 1 ? argv[1] : NULL;
	if (!c->verb) {
		usage();
		return EXIT_USAGE;
	}
	for (int i = 2; i < argc; i++) {
		int a = db_cli_location_arg(argc, argv, &i, &c->dbpath, c->locbuf, sizeof(c->locbuf));
		if (a == EXIT_USAGE)
			return a;
		if (a)
			;
		else if (!strcmp(argv[i], "--role") && i + 1 < argc)
			role_s = argv[++i];
		else if (!strcmp(argv[i], "--password-stdin"))
			c->from_stdin = true;
		else if ((!strcmp(argv[i], "-c") || !strcmp(argv[i], "--config")) && i + 1 < argc && conf_db)
			i++;
		else if (argv[i][0] == '-' || c->name) {
			usage();
			return EXIT_USAGE;
		} else
			c->name = argv[i];
	}
	bool needs_name = strcmp(c->verb, "list") != 0;
	if ((needs_name && !c->name) || (!needs_name && c->name) ||
	    (strcmp(c->verb, "create") && strcmp(c->verb, "passwd") && strcmp(c->verb, "delete") &&
	     strcmp(c->verb, "list"))) {
		usage();
		return EXIT_USAGE;
	}
	if (!strcmp(c->verb, "create") && (c->role = db_role_parse(role_s)) < 0) {
		fputs("users create: --role admin, operator or read is required\n", stderr);
		return EXIT_USAGE;
	}
	if (c->name && !db_name_valid(c->name)) {
		fputs("users: NAME is 1..64 of A-Z a-z 0-9 . _ @ -\n", stderr);
		return EXIT_USAGE;
	}
	return 0;
}

/* The verb on the open database (audited when it changed something): 0 or
 * -errno (-EPERM: the last admin may not be deleted). */
static int users_apply(struct db *db, const struct users_cmd *c, const char *pw)
{
	int r;

	if (!strcmp(c->verb, "list")) {
		r = db_user_list(db, print_user, NULL);
	} else if (!strcmp(c->verb, "create")) {
		r = db_user_create(db, c->name, c->role, pw);
		if (r == 0)
			db_audit_add(db, "cli", "users create", c->name);
	} else if (!strcmp(c->verb, "passwd")) {
		r = db_user_update(db, c->name, 0, pw);
		if (r == 0)
			db_audit_add(db, "cli", "users passwd", c->name);
	} else {
		struct db_user u;
		r = db_user_get(db, c->name, &u);
		if (r == 0 && u.role == DB_ROLE_ADMIN && db_user_count_role(db, DB_ROLE_ADMIN) == 1)
			r = -EPERM;
		if (r == 0 && (r = db_user_delete(db, c->name)) == 0) {
			db_token_delete_owner(db, c->name);
			db_audit_add(db, "cli", "users delete", c->name);
		}
	}
	return r;
}

int db_cli_users(int argc, char **argv, const char *conf_db)
{
	struct users_cmd c = { 0 };
	char pw[DB_PASSWORD_MAX + 2] = "";
	const char *dbpath;
	struct db *db;
	int r, rc = 1;

	r = users_parse(argc, argv, conf_db, &c);
	if (r)
		return r;
	if (!strcmp(c.verb, "create") || !strcmp(c.verb, "passwd")) {
		r = c.from_stdin ? read_password(pw, sizeof(pw)) : random_password(pw);
		if (r < 0 || strlen(pw) < DB_PASSWORD_MIN || strlen(pw) > DB_PASSWORD_MAX) {
			fprintf(stderr, "users: a password of %d..%d characters is needed\n",
				DB_PASSWORD_MIN, DB_PASSWORD_MAX);
			explicit_bzero(pw, sizeof(pw));
			return EXIT_USAGE;
		}
	}
	dbpath = c.dbpath ? c.dbpath : conf_db ? conf_db : "./solocore.db";
	if ((r = db_open_location(dbpath, &db)) < 0) {
		db_cli_open_error(dbpath, r);
		explicit_bzero(pw, sizeof(pw));
		return 1;
	}
	r = users_apply(db, &c, pw);
	if (r >= 0) {
		rc = 0;
		if (!c.from_stdin && pw[0])
			printf("%s\n", pw);   /* the only time it is shown */
	} else if (r == -EEXIST) {
		fprintf(stderr, "users: %s exists\n", c.name);
	} else if (r == -ENOENT) {
		fprintf(stderr, "users: no user %s\n", c.name);
	} else if (r == -EPERM) {
		fprintf(stderr, "users: %s is the last admin\n", c.name);
	} else {
		fprintf(stderr, "users %s: %s\n", c.verb, strerror(-r));
	}
	explicit_bzero(pw, sizeof(pw));
	db_close(db);
	return rc;
}
