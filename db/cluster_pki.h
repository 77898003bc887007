/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * cluster_pki - the cluster's certificates (issue 31 point 1): one CA per
 * cluster, one certificate per node (and per CLI that talks to the cluster),
 * all kept in <cluster dir>/tls:
 *
 *   ca.crt    the cluster CA (EC P-256, self-signed, 10 years)
 *   ca.key    its private key (0600): members hold a copy, so that any
 *             member can issue a certificate to a joining node, as LXD's
 *             cluster certificate is shared by its members
 *   node.crt  this node's certificate, signed by the CA (CN = node name;
 *             extendedKeyUsage serverAuth + clientAuth: a node is both)
 *   node.key  its private key (0600)
 *
 * The directory is 0700. Nothing here logs key material; errors name the
 * file and the reason only. Every function returns 0 (or a length) on
 * success and a negative errno on failure.
 */
#ifndef SOLOCORE_DB_CLUSTER_PKI_H
#define SOLOCORE_DB_CLUSTER_PKI_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* File names inside <dir>/tls. */
#define CLUSTER_PKI_SUBDIR "tls"
#define CLUSTER_PKI_CA_CRT "ca.crt"
#define CLUSTER_PKI_CA_KEY "ca.key"
#define CLUSTER_PKI_NODE_CRT "node.crt"
#define CLUSTER_PKI_NODE_KEY "node.key"
/* Longest node name (the certificate's CN); printable ASCII without '/'. */
#define CLUSTER_PKI_NAME_MAX 64
/* Room for one PEM certificate as this module writes them. */
#define CLUSTER_PKI_PEM_MAX 4096

/* Make a new cluster CA (EC P-256, self-signed, 10 years) and this node's
 * certificate signed by it, in dir/tls (0700; keys 0600). node_name goes in
 * the CN. -EEXIST if dir/tls/ca.crt exists. */
int cluster_pki_init(const char *dir, const char *node_name);

/* Offline provisioning: a certificate for another node from the CA in
 * ca_dir/tls, written with a copy of ca.crt and ca.key into out_dir/tls (so
 * that node can issue too, as LXD's cluster certificate is shared by
 * members). -EEXIST if out_dir/tls/node.crt exists; -ENOENT if ca_dir has no
 * CA. */
int cluster_pki_add_node(const char *ca_dir, const char *out_dir, const char *node_name);

/* Sign a PEM CSR with the CA in dir/tls: the PEM certificate into out
 * (NUL-terminated); its length or -errno (-EBADMSG for a bad CSR: not PEM,
 * a signature that does not verify, a key that is not EC P-256, or no
 * usable CN; -ENOSPC when out is too small). The certificate carries the
 * CSR's CN only (no extension of the CSR is copied) and is valid 10 years. */
int cluster_pki_sign_csr(const char *dir, const char *csr_pem, size_t csr_len, char *out,
			 size_t out_size);

/* SHA-256 of the CA certificate's DER in dir/tls. 0 or -errno. */
int cluster_pki_ca_fingerprint(const char *dir, uint8_t out[32]);

/* Write PEM data to dir/tls/name with mode (0600 for keys), creating dir/tls
 * 0700. The file is written to a temporary name and renamed, so a reader
 * never sees half a key. 0 or -errno. */
int cluster_pki_write(const char *dir, const char *name, const char *pem, size_t len,
		      mode_t mode);

/* dir/tls/name into out (out_size bytes). 0, -ENAMETOOLONG. */
int cluster_pki_path(const char *dir, const char *name, char *out, size_t out_size);

/* 1 when dir/tls/node.crt, node.key and ca.crt are all there, 0 when not. */
int cluster_pki_present(const char *dir);

/* Where `--cluster HOST:PORT` (sims, users) finds its client certificate
 * without --cluster-dir: the cluster dir of a node run from the working
 * directory with the default db.path (cluster.dir = db.path + ".dqlite"). */
#define CLUSTER_PKI_CLI_DIR_DEFAULT "./solocore.db.dqlite"

/* A CLI's dqlite clients (dqlc_tls_init) on dir/tls; on failure a line on
 * stderr saying what is missing and which command makes it. 0 or -errno. */
int cluster_pki_client_init(const char *dir, const char *how);

/* `solocore cluster init|add-node ...` (db/cluster_pki_cli.c); argv[0] is the
 * subcommand. Returns the exit code: 0, 1 failure, 2 usage. */
int cluster_pki_cli(int argc, char **argv);

#endif /* SOLOCORE_DB_CLUSTER_PKI_H */
