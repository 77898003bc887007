/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * cluster_cli - `solocore cluster status|add ID ADDRESS|remove ID [-c FILE]`.
 * The nodes are found through the configuration's cluster.address and
 * cluster.peers (the first that answers tells where the leader is).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "db/cluster.h"
#include "db/cluster_join.h"
#include "db/cluster_pki.h"

#define EXIT_USAGE 2
#define CLI_TIMEOUT_MS 3000     /* per request; ADD/ASSIGN wait for a commit */
#define CLI_ADDRS_MAX (1 + CONF_MAX_CLUSTER_PEERS)

static int usage(const char *why)
{
	if (why)
		fprintf(stderr, "solocore: cluster: %s\n", why);
	fputs("usage: solocore cluster status [-c FILE]\n"
	      "       solocore cluster add ID ADDRESS [-c FILE]\n"
	      "       solocore cluster remove ID [-c FILE]\n"
	      "       solocore cluster token (-c FILE | --dir DIR --address HOST:PORT) [--ttl 1h]\n"
	      "       solocore cluster join (-c FILE | --dir DIR) [--token TOKEN | --token -]\n"
	      "       solocore cluster init --dir DIR [--name NAME]\n"
	      "       solocore cluster add-node --dir CA_DIR --out DIR [--name NAME]\n"
	      "The nodes are reached through cluster.address and cluster.peers of FILE.\n", stderr);
	return EXIT_USAGE;
}

static int parse_id(const char *s, uint64_t *id)
{
	char *end;
	unsigned long long v;

	if (!s[0] || s[0] == '-' || s[0] == '+')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (*end || errno || v == 0 || v > INT64_MAX)
		return -EINVAL;
	*id = v;
	return 0;
}

/* Why no member list: the two cases cluster_status tells apart, then the rest. */
static void no_leader(const char **addrs, unsigned n, int rc)
{
	fprintf(stderr, "solocore: cluster: ");
	if (rc == -EHOSTUNREACH) {
		fprintf(stderr, "no node answered (tried");
		for (unsigned i = 0; i < n; i++)
			fprintf(stderr, " %s", addrs[i]);
		fprintf(stderr, ")\n");
	} else if (rc == -ENOTCONN) {
		fprintf(stderr, "no leader: the nodes that answer know none (is a majority of the voters up?)\n");
	} else {
		fprintf(stderr, "%s\n", strerror(-rc));
	}
}

static int do_status(const char **addrs, unsigned n)
{
	struct cluster_member m[DQLC_NODES_MAX];
	int k = cluster_status(addrs, n, CLI_TIMEOUT_MS, m, DQLC_NODES_MAX);

	if (k < 0) {
		no_leader(addrs, n, k);
		return 1;
	}
	for (int i = 0; i < k; i++)
		printf("%llu %s %s%s%s\n", (unsigned long long)m[i].id, m[i].addr, dqlc_role_name(m[i].role),
		       m[i].leader ? " leader" : "", m[i].reachable ? "" : " unreachable");
	return 0;
}

int cluster_cli(int argc, char **argv)
{
	const char *path = NULL, *pos[3], *addrs[CLI_ADDRS_MAX];
	unsigned npos = 0, n;
	uint64_t id = 0;
	char err[512];
	struct conf c;
	int rc;

	/* Certificates (issue 31): made offline, no node to reach. */
	if (argc > 1 && (!strcmp(argv[1], "init") || !strcmp(argv[1], "add-node")))
		return cluster_pki_cli(argc - 1, argv + 1);
	/* Join tokens and enrollment (issue 31, db/cluster_join.h). */
	if (argc > 1 && (!strcmp(argv[1], "token") || !strcmp(argv[1], "join")))
		return cluster_join_cli(argc - 1, argv + 1);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-c") || !strcmp(argv[i], "--config")) {
			if (++i == argc)
				return usage("-c needs a file name");
			path = argv[i];
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(NULL);
			return 0;
		} else if (argv[i][0] == '-' || npos == 3) {
			return usage("unexpected argument");
		} else {
			pos[npos++] = argv[i];
		}
	}
	if (!npos)
		return usage("needs status, add or remove");
	if (!strcmp(pos[0], "status") ? npos != 1 :
	    !strcmp(pos[0], "add") ? npos != 3 :
	    !strcmp(pos[0], "remove") ? npos != 2 : 1)
		return usage("unknown command or wrong number of arguments");
	if (npos > 1 && parse_id(pos[1], &id) < 0)
		return usage("ID must be 1..2^63-1");
	if (!path)
		rc = conf_defaults(&c);
	else if ((rc = conf_load(&c, path, err, sizeof(err))) < 0)
		fprintf(stderr, "solocore: %s\n", err);
	if (rc < 0)
		return 1;
	n = cluster_conf_addrs(&c, addrs, CLI_ADDRS_MAX);
	if (!n) {
		fprintf(stderr, "solocore: cluster: %s has no cluster section (cluster.node_id is 0)\n",
			path ? path : "the built-in configuration");
		conf_free(&c);
		return 1;
	}
	/* Issue 31: the nodes answer only over TLS with the node's own certificate. */
	if (cluster_pki_client_init(c.cluster.dir, "cluster.dir of the configuration") < 0) {
		conf_free(&c);
		return 1;
	}
	if (!strcmp(pos[0], "status")) {
		rc = do_status(addrs, n);
	} else if (!strcmp(pos[0], "add")) {
		rc = cluster_add(addrs, n, CLI_TIMEOUT_MS, id, pos[2]);
		if (rc < 0)
			fprintf(stderr, "solocore: cluster: add %llu %s: %s\n", (unsigned long long)id, pos[2],
				rc == -EADDRINUSE ? "that id or address belongs to another member" :
				rc == -EHOSTDOWN ? "the node does not answer: start it first" :
				rc == -DQLC_EFAILURE ? "refused by the leader (above)" : strerror(-rc));
		else
			printf("node %llu at %s is a voter\n", (unsigned long long)id, pos[2]);
		rc = rc < 0;
	} else {
		rc = cluster_remove(addrs, n, CLI_TIMEOUT_MS, id);
		if (rc < 0)
			fprintf(stderr, "solocore: cluster: remove %llu: %s\n", (unsigned long long)id,
				rc == -ENOENT ? "not a member" :
				rc == -DQLC_EFAILURE ? "refused by the leader (above)" : strerror(-rc));
		else
			printf("node %llu removed\n", (unsigned long long)id);
		rc = rc < 0;
	}
	conf_free(&c);
	return rc;
}
