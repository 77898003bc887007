/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * cluster_pki_cli - `solocore cluster init --dir DIR [--name NAME]` and
 * `solocore cluster add-node --dir CA_DIR --out DIR [--name NAME]`
 * (issue 31 point 1): the cluster CA and node certificates of
 * db/cluster_pki.h, made offline. Paths and fingerprints are printed, never
 * key material.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "db/cluster_pki.h"
#include "db/dqlite_client.h"

#define EXIT_USAGE 2

static int usage(const char *why)
{
	if (why)
		fprintf(stderr, "solocore: cluster: %s\n", why);
	fputs("usage: solocore cluster init --dir DIR [--name NAME]\n"
	      "       solocore cluster add-node --dir CA_DIR --out DIR [--name NAME]\n"
	      "init makes the cluster CA and this node's certificate in DIR/tls (DIR is the\n"
	      "node's cluster.dir); add-node makes another node's certificate (and a copy of the\n"
	      "CA) in DIR/tls from the CA in CA_DIR/tls. NAME (the certificate's CN) defaults to\n"
	      "this host's name for init and to DIR's last component for add-node.\n", stderr);
	return EXIT_USAGE;
}

static void print_fp(const char *dir)
{
	uint8_t fp[32];

	if (cluster_pki_ca_fingerprint(dir, fp) < 0)
		return;
	printf("CA fingerprint (SHA-256):");
	for (int i = 0; i < 32; i++)
		printf("%c%02X", i ? ':' : ' ', fp[i]);
	printf("\n");
}

static const char *last_component(const char *p, char *buf, size_t size)
{
	size_t n = strlen(p);
	const char *s;

	while (n > 1 && p[n - 1] == '/')
		n--;
	s = memrchr(p, '/', n);
	s = s ? s + 1 : p;
	n -= (size_t)(s - p);
	if (n >= size)
		n = size - 1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	return buf;
}

int cluster_pki_client_init(const char *dir, const char *how)
{
	int rc = dqlc_tls_init(dir);

	if (rc == -ENOENT)
		fprintf(stderr, "solocore: the cluster link needs a client certificate of the cluster CA: "
			"%s/%s has no node.crt, node.key and ca.crt (%s). Give the cluster dir of a "
			"node, or make one with `solocore cluster add-node --dir CA_DIR --out DIR`\n",
			dir, CLUSTER_PKI_SUBDIR, how);
	else if (rc < 0)
		fprintf(stderr, "solocore: %s/%s: %s\n", dir, CLUSTER_PKI_SUBDIR,
			rc == -EBADMSG ? "unreadable certificate or key, or they do not match" : strerror(-rc));
	return rc;
}

int cluster_pki_cli(int argc, char **argv)
{
	const char *dir = NULL, *out = NULL, *name = NULL;
	char host[CLUSTER_PKI_NAME_MAX + 1] = "";
	bool add = argc > 0 && !strcmp(argv[0], "add-node");
	int rc;

	for (int i = 1; i < argc; i++) {
		const char **dst = !strcmp(argv[i], "--dir") ? &dir :
				   !strcmp(argv[i], "--name") ? &name :
				   add && !strcmp(argv[i], "--out") ? &out : NULL;
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(NULL);
			return 0;
		}
		if (!dst)
			return usage("unexpected argument");
		if (++i == argc)
			return usage("an option needs a value");
		*dst = argv[i];
	}
	if (!dir || (add && !out))
		return usage(add ? "add-node needs --dir CA_DIR and --out DIR" : "init needs --dir DIR");
	if (!name && add)
		name = last_component(out, host, sizeof(host));
	else if (!name)
		name = gethostname(host, sizeof(host) - 1) == 0 && host[0] ? host : "node";
	rc = add ? cluster_pki_add_node(dir, out, name) : cluster_pki_init(dir, name);
	if (rc == -EINVAL)
		return usage("NAME must be 1-64 printable characters without '/'");
	if (rc < 0) {
		fprintf(stderr, "solocore: cluster %s: %s\n", argv[0],
			rc == -EEXIST ? (add ? "the output dir already holds a node certificate" :
					 "DIR/tls/ca.crt exists already (a cluster CA is made once)") :
			rc == -ENOENT ? "CA_DIR/tls holds no ca.crt and ca.key (make them with `solocore cluster init`)" :
			rc == -EBADMSG ? "CA_DIR/tls/ca.crt and ca.key are unreadable or not a pair" :
			strerror(-rc));
		return 1;
	}
	printf("%s/%s: node certificate for '%s' (keys 0600)\n", add ? out : dir,
	       CLUSTER_PKI_SUBDIR, name);
	print_fp(add ? out : dir);
	return 0;
}
