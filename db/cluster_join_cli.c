/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * cluster_join_cli - `solocore cluster token` and `solocore cluster join`
 * (issue 31 point 1, db/cluster_join.h).
 *
 *   cluster token (-c FILE | --dir DIR --address HOST:PORT) [--ttl 1h]
 *     on a member (offline: no quorum needed): a one-time token on stdout;
 *     its id and expiry on stderr.
 *   cluster join (-c FILE | --dir DIR) [--token TOKEN | --token -] [--name NAME]
 *     on the new node: enroll only (certificates into dir/tls); `solocore run` then
 *     joins. The token comes from --token ("-": one line of stdin) or from
 *     FILE's cluster.join_token. It is never printed.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "common/conf.h"
#include "db/cluster_join.h"
#include "db/cluster_pki.h"

#define EXIT_USAGE 2

static int usage(const char *why)
{
	if (why)
		fprintf(stderr, "solocore: cluster: %s\n", why);
	fputs("usage: solocore cluster token (-c FILE | --dir DIR --address HOST:PORT) [--ttl DURATION]\n"
	      "       solocore cluster join (-c FILE | --dir DIR) [--token TOKEN | --token -] [--name NAME]\n"
	      "token (on a member): a one-time join token, valid DURATION (30m, 1h, 2d; default 1h,\n"
	      "at most 7d), on stdout. join (on the new node): enroll with it (certificates in\n"
	      "DIR/tls); `solocore run` with the node's cluster: section then joins. Give the token\n"
	      "as cluster.join_token in the new node's config (0600), or --token - on stdin.\n", stderr);
	return EXIT_USAGE;
}

/* "90s", "30m", "1h", "2d", or plain seconds. -EINVAL or seconds. */
static long parse_ttl(const char *s)
{
	char *end;
	long v, mul = 1;

	errno = 0;
	v = strtol(s, &end, 10);
	if (end == s || errno || v <= 0)
		return -EINVAL;
	if (*end && end[1])
		return -EINVAL;
	switch (*end) {
	case '\0': case 's': break;
	case 'm': mul = 60; break;
	case 'h': mul = 3600; break;
	case 'd': mul = 86400; break;
	default: return -EINVAL;
	}
	if (v > CLUSTER_JOIN_TTL_MAX / mul)
		return -EINVAL;
	return v * mul;
}

struct opts {
	const char *conf, *dir, *addr, *ttl, *token, *name;
};

static int parse(int argc, char **argv, bool join, struct opts *o)
{
	for (int i = 1; i < argc; i++) {
		const char **dst = !strcmp(argv[i], "-c") || !strcmp(argv[i], "--config") ? &o->conf :
				   !strcmp(argv[i], "--dir") ? &o->dir :
				   !join && !strcmp(argv[i], "--address") ? &o->addr :
				   !join && !strcmp(argv[i], "--ttl") ? &o->ttl :
				   join && !strcmp(argv[i], "--token") ? &o->token :
				   join && !strcmp(argv[i], "--name") ? &o->name : NULL;

		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return usage(NULL), -1;
		if (!dst)
			return usage("unexpected argument");
		if (++i == argc)
			return usage("an option needs a value");
		*dst = argv[i];
	}
	if (!o->conf == !o->dir)
		return usage("give -c FILE or --dir DIR");
	if (!join && o->dir && !o->addr)
		return usage("token --dir DIR needs --address HOST:PORT (this node's cluster.address)");
	return 0;
}

static int do_token(const struct opts *o, const struct conf *c)
{
	const char *dir = c ? c->cluster.dir : o->dir, *addr = o->addr ? o->addr : c->cluster.address;
	long ttl = o->ttl ? parse_ttl(o->ttl) : CLUSTER_JOIN_TTL_DEFAULT;
	char tok[CLUSTER_JOIN_TOKEN_MAX], id[CLUSTER_JOIN_ID_LEN + 1], when[32];
	time_t exp;
	int rc;

	if (ttl < 0)
		return usage("--ttl: a duration like 30m, 1h or 2d, at most 7d");
	rc = cluster_join_token_new(dir, addr, (unsigned)ttl, tok, sizeof(tok), id);
	if (rc < 0) {
		fprintf(stderr, "solocore: cluster token: %s\n",
			rc == -ENOENT ? "no cluster CA in DIR/tls (is DIR a member's cluster.dir?)" :
			rc == -EINVAL ? "the address is not IPv4:port" :
			rc == -ENOSPC ? "too many unused tokens: let some expire" : strerror(-rc));
		return 1;
	}
	exp = time(NULL) + ttl;
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime(&exp));
	cluster_join_audit(true, "token issued:", "token %s for %s, expires %s", id, addr, when);
	printf("%s\n", tok);
	fprintf(stderr, "join token %s: single use, valid until %s. On the new node put it in its config "
		"as cluster.join_token (file mode 0600) and start it; the node enrolls with %s.\n", id, when,
		addr);
	OPENSSL_cleanse(tok, sizeof(tok));
	return 0;
}

static int do_join(const struct opts *o, const struct conf *c)
{
	const char *dir = c ? c->cluster.dir : o->dir;
	char tok[sizeof(c->cluster.join_token) + 2] = "", host[CLUSTER_PKI_NAME_MAX + 1] = "node", err[256];
	const char *name = o->name;
	int rc;

	if (o->token && !strcmp(o->token, "-")) {
		if (!fgets(tok, sizeof(tok), stdin))
			return usage("--token -: no token on stdin");
		tok[strcspn(tok, "\r\n")] = '\0';
	} else if (o->token) {
		snprintf(tok, sizeof(tok), "%s", o->token);
	} else if (c && c->cluster.join_token[0]) {
		snprintf(tok, sizeof(tok), "%s", c->cluster.join_token);
	} else {
		return usage("join needs a token (--token, or cluster.join_token in FILE)");
	}
	if (!name)
		name = gethostname(host, sizeof(host) - 1) == 0 && host[0] ? host : "node";
	/* The server may close first; the write then fails with EPIPE instead of killing us. */
	signal(SIGPIPE, SIG_IGN);
	rc = cluster_join_enroll(dir, tok, name, c ? c->cluster.node_id : 0,
				 c ? c->cluster.address : "?", 0, err, sizeof(err));
	OPENSSL_cleanse(tok, sizeof(tok));
	if (rc < 0) {
		fprintf(stderr, "solocore: cluster join: %s\n", err[0] ? err : strerror(-rc));
		return 1;
	}
	printf("%s/%s: enrolled as '%s' (node certificate and the cluster CA; keys 0600)\n", dir,
	       CLUSTER_PKI_SUBDIR, name);
	return 0;
}

int cluster_join_cli(int argc, char **argv)
{
	bool join = argc > 0 && !strcmp(argv[0], "join");
	struct opts o = { 0 };
	struct conf c;
	char err[512];
	int rc = parse(argc, argv, join, &o);

	if (rc)
		return rc < 0 ? 0 : rc;
	if (!o.conf)
		return join ? do_join(&o, NULL) : do_token(&o, NULL);
	if (conf_load(&c, o.conf, err, sizeof(err)) < 0) {
		fprintf(stderr, "solocore: %s\n", err);
		return 1;
	}
	if (!c.cluster.node_id) {
		fprintf(stderr, "solocore: cluster: %s has no cluster section (cluster.node_id is 0)\n", o.conf);
		rc = 1;
	} else {
		rc = join ? do_join(&o, &c) : do_token(&o, &c);
	}
	OPENSSL_cleanse(c.cluster.join_token, sizeof(c.cluster.join_token));
	conf_free(&c);
	return rc;
}
