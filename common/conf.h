/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * conf - the configuration: one YAML file, every key with a default.
 *
 * Modules read the typed fields of struct conf directly (conf->plmn.mcc,
 * conf->n2.port, conf->dnns[i].pool ...). The keys, types, defaults, ranges
 * and printing are driven by one schema table in common/conf_schema.c; the
 * commented reference is dist/solocore.yaml.
 *
 * Errors are reported as "file:line:column: key.path: reason", e.g.
 *   solocore.yaml:4:3: n2.prot: unknown key
 *   solocore.yaml:7:11: dnns[0].mtu: 100 is out of range 576..9216
 *
 * Strings are NUL-terminated in fixed buffers; an optional string that is
 * not set is "". Lists are fixed arrays with a count (the CONF_MAX_* limits).
 *
 * Secrets: suci.keys[].private_key (from hex, or read by conf_load from
 * private_key_file: PEM X25519 / P-256, 64 hex digits or 32 raw bytes). `solocore config print` prints a key
 * given as hex in hex (its output must load again into an identical
 * configuration, so that output is then secret too) and a key read from
 * private_key_file as the path only. conf_print_redacted() prints
 * "<redacted>" instead of hex keys (for logs); conf_load() rejects that text.
 */
#ifndef SOLOCORE_COMMON_CONF_H
#define SOLOCORE_COMMON_CONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define CONF_MAX_TACS 64          /* TS 24.501 9.11.3.9: at most 16 TAIs per list; several lists */
#define CONF_MAX_SLICES 8         /* TS 24.501 9.11.3.37: at most 8 S-NSSAIs in an NSSAI */
#define CONF_MAX_DNNS 16
#define CONF_MAX_DNS 4
#define CONF_MAX_SUCI_KEYS 16
#define CONF_MAX_ALGS 4           /* NIA0..NIA3, NEA0..NEA3 */
#define CONF_STR 256              /* paths, addresses, names */
#define CONF_DNN_NAME 64          /* TS 23.003 9.1: a DNN label is at most 63 octets */
#define CONF_AMF_NAME 151         /* TS 38.413 9.3.3.21: AMF Name, PrintableString 1..150 */
#define CONF_SUCI_KEY_LEN 32      /* X25519 (profile A) and P-256 (profile B) private keys */
#define CONF_MAX_RAS 16           /* amf.registration_areas */
#define CONF_RA_TACS 16           /* TS 24.501 9.11.3.9: a TAI list holds at most 16 TAIs */

enum conf_sctp { CONF_SCTP_AUTO = 0, CONF_SCTP_KERNEL = 1, CONF_SCTP_USRSCTP = 2 };
enum conf_encaps { CONF_ENCAPS_RAW = 0, CONF_ENCAPS_UDP = 1 };
enum conf_xdp_mode { CONF_XDP_AUTO = 0, CONF_XDP_NATIVE = 1, CONF_XDP_GENERIC = 2 };
/* upf.mode: the UPF in this process (function calls), or UPFs driven over PFCP (N4). */
enum conf_upf_mode { CONF_UPF_BUILTIN = 0, CONF_UPF_PFCP = 1 };
#define CONF_MAX_UPF_PEERS 16     /* = UPF_N4C_PEER_MAX */
#define CONF_MAX_N4_PEERS 16      /* upf.n4_peers */
#define CONF_MAX_CLUSTER_PEERS 8  /* = CLUSTER_PEERS_MAX */
#define CONF_MAX_ALLOWED_GNBS 64  /* n2.allowed_gnbs */
#define CONF_GNB_RULE_LEN 96

/* TS 33.501 Annex C.3: protection scheme identifiers 1 (profile A) and 2 (profile B). */
enum conf_suci_scheme { CONF_SUCI_A = 0, CONF_SUCI_B = 1 };

struct conf_slice {
	uint8_t sst;
	bool has_sd;              /* false: no SD (TS 23.003 28.4.2: "no SD value") */
	uint32_t sd;              /* 24 bits */
};

struct conf_dnn {
	char name[CONF_DNN_NAME];
	char pool[64];            /* IPv4 CIDR, e.g. "10.45.0.0/16" */
	/* IPv6 prefix of the sessions' /64s (one per session, TS 23.501 5.8.2.2), length
	 * 44..64, e.g. "2001:db8:45::/48"; "" = no IPv6 on this DNN (IPv6 asked: #50). */
	char pool6[64];
	/* Source NAT of its sessions' IPv4 to upf.nat_address on N6 (issue 19; the XDP UPF,
	 * upf.mode builtin). Off by default: the DN routes the pool back to the core. */
	bool nat;
	char dns[CONF_MAX_DNS][64];
	unsigned n_dns;
	uint32_t mtu;
};

/* upf.peers[]: a UPF the SMF drives over PFCP (TS 29.244), and what it serves. */
struct conf_upf_peer {
	char name[32];
	char address[64];         /* its N4 IPv4 (PFCP, port 8805) */
	char n3_address[64];      /* its N3 IPv4: the uplink F-TEID address given to gNBs */
	char dnns[CONF_MAX_DNNS][CONF_DNN_NAME];   /* [] = every DNN */
	unsigned n_dnns;
	struct conf_slice slices[CONF_MAX_SLICES]; /* [] = every slice */
	unsigned n_slices;
};

/* A registration area (TS 23.501 5.3.2.3, TS 24.501 5.3.4): the TACs of one TAI list. */
struct conf_ra {
	uint32_t tac[CONF_RA_TACS];
	unsigned n_tac;
};

struct conf_suci_key {
	uint8_t id;               /* home network public key identifier, TS 23.003 2.2B */
	uint8_t scheme;           /* enum conf_suci_scheme */
	bool has_key;             /* private_key holds the key (from hex or from the file) */
	uint8_t private_key[CONF_SUCI_KEY_LEN];
	char private_key_file[CONF_STR];   /* "" when given as hex */
};

#define CONF_MAX_LOG_MODULES 16

/* A per-module log level override (log_set_module_level). */
struct conf_log_module {
	char name[24];
	uint8_t level;            /* enum log_level */
};

struct conf {
	struct {
		uint8_t level;    /* enum log_level: 0 error .. 3 debug */
		char file[CONF_STR];       /* "": stderr */
		struct conf_log_module modules[CONF_MAX_LOG_MODULES];
		unsigned n_modules;
	} log;
	struct {
		char mcc[4];      /* 3 digits */
		char mnc[4];      /* 2 or 3 digits */
	} plmn;
	struct {
		char name[CONF_AMF_NAME];
		uint8_t region_id;         /* TS 23.003 2.10.1: 8 bits */
		uint16_t set_id;           /* 10 bits */
		uint8_t pointer;           /* 6 bits */
		uint8_t relative_capacity; /* TS 38.413 9.3.1.32 */
		struct {
			/* Priority order; values 0..3 = NIA0..NIA3 / NEA0..NEA3. */
			uint8_t integrity[CONF_MAX_ALGS];
			unsigned n_integrity;
			uint8_t ciphering[CONF_MAX_ALGS];
			unsigned n_ciphering;
		} security;
		struct {
			char full[CONF_STR];   /* "" = not sent */
			char short_name[CONF_STR];  /* key "short" */
		} network_name;
		char timezone[8];          /* "" or "+HH:MM" / "-HH:MM", quarter hours */
		/* Subscribed UE-AMBR, bit/s, for subscribers whose subscription and policy set
		 * none (TS 23.501 5.7.2.6; NGAP BitRate range, TS 38.413 9.3.1.4). */
		uint64_t ue_ambr_ul, ue_ambr_dl;
		/* Served TACs grouped into registration areas: a UE is given the area of the
		 * TA it registers in as its TAI list, and does a mobility registration when it
		 * leaves it (TS 24.501 5.5.1.3.2 a). Empty (the default): one area of every
		 * served TAC. A served TAC in no area is an area of its own. */
		struct conf_ra registration_areas[CONF_MAX_RAS];
		unsigned n_registration_areas;
	} amf;
	uint32_t tac[CONF_MAX_TACS];       /* 24 bits each */
	unsigned n_tac;
	struct conf_slice slices[CONF_MAX_SLICES];
	unsigned n_slices;
	struct conf_dnn dnns[CONF_MAX_DNNS];
	unsigned n_dnns;
	struct {
		char address[CONF_STR];
		uint16_t port;
		uint8_t sctp;              /* enum conf_sctp */
		uint8_t usrsctp_encaps;    /* enum conf_encaps */
		uint16_t udp_port;         /* RFC 6951 encapsulation port */
		uint32_t busy_poll_us;     /* control loop spins this long before sleeping; 0 = off */
		/* Which gNBs may set up (issue 31): entries of conf_gnb_rule_parse(); a gNB
		 * matching none gets NG SETUP FAILURE. None (the default): any gNB. */
		char allowed_gnbs[CONF_MAX_ALLOWED_GNBS][CONF_GNB_RULE_LEN];
		unsigned n_allowed_gnbs;
	} n2;
	/* Seconds. TS 24.501 table 10.2.2 (5GMM, network side), 10.3.2 (5GSM). */
	struct {
		uint32_t t3512;            /* periodic registration, sent to the UE (default 54 min) */
		uint32_t t3502;            /* sent to the UE (default 12 min) */
		uint32_t t3513;            /* paging */
		uint32_t t3522;            /* deregistration request */
		uint32_t t3550;            /* registration accept */
		uint32_t t3555;            /* configuration update command */
		uint32_t t3560;            /* authentication request / security mode command */
		uint32_t t3570;            /* identity request */
		uint32_t t3591;            /* PDU session modification command */
		uint32_t t3592;            /* PDU session release command */
		/* TS 24.501 5.3.7: longer than T3512; by default 4 minutes greater.
		 * Not given in the file: t3512 + 240. */
		uint32_t mobile_reachable;
		/* TS 24.501 5.3.7: started when the mobile reachable timer expires;
		 * its value is network dependent. Default 4 minutes, so a silent UE is
		 * implicitly deregistered t3512 + 8 min after leaving CM-CONNECTED. */
		uint32_t implicit_dereg;
	} timers;
	struct {
		struct conf_suci_key keys[CONF_MAX_SUCI_KEYS];
		unsigned n_keys;
	} suci;
	struct {
		char path[CONF_STR];
	} db;
	struct {
		char listen[CONF_STR];
		uint16_t port;
		struct {
			char cert[CONF_STR];   /* both or neither */
			char key[CONF_STR];
		} tls;
	} web;
	struct {
		char n3_interface[64];     /* "" = not set */
		char n6_interface[64];
		char n3_address[64];       /* "" = the first IPv4 of n3_interface */
		/* IPv6 on N3 (TS 38.414 5.1, issue 19): "" = none. With it the UL tunnel given
		 * to gNBs carries both (160 bits) and a gNB on IPv6 gets outer IPv6. */
		char n3_address6[64];
		/* `solocore upf`: the PFCP (N4) address, bound on port 8805 and our
		 * Node ID (TS 29.244 4.2.2); "" = the N3 address */
		char n4_address[64];
		uint8_t xdp_mode;          /* enum conf_xdp_mode */
		uint32_t max_sessions;
		/* NAT for the DNNs with nat: the N6 source address ("" = the first IPv4 of
		 * n6_interface, or of n3_interface without one), the port range, the table size */
		char nat_address[64];
		uint32_t nat_port_lo, nat_port_hi;
		uint32_t nat_table_size;
		uint32_t nat_conns_per_session;   /* RFC 6888 REQ-4; 0: no limit */
		uint32_t nat_conns_per_remote;    /* toward one remote endpoint; 0: no limit */
		/* `solocore run` with mode pfcp: no UPF in the process; the SMF's PFCP client
		 * on n4_address drives the peers (each at most max_sessions TEIDs: give the
		 * standalone UPFs at least as many sessions). Milliseconds. */
		uint8_t mode;              /* enum conf_upf_mode */
		uint32_t heartbeat_interval;
		uint32_t pfcp_t1;
		uint32_t pfcp_n1;
		struct conf_upf_peer peers[CONF_MAX_UPF_PEERS];
		unsigned n_peers;
		/* `solocore upf` (issue 31): PFCP only from these addresses / prefixes
		 * (IPv4 or IPv6, "a.b.c.d" or "a.b.c.d/len"); none: from anyone. The heartbeat
		 * period and T1 / N1 above apply to its own heartbeats too. */
		char n4_peers[CONF_MAX_N4_PEERS][64];
		unsigned n_n4_peers;
		uint32_t n4_release_timer;      /* ms an unreachable CP keeps its association */
		uint32_t n4_sessions_per_peer;  /* PFCP sessions one association may hold; 0: max_sessions / 2 */
		uint32_t n4_path_release_timer; /* ms the SMF keeps an unreachable UPF's sessions */
		uint32_t no_upf_backoff;        /* s: T3396 with #26 when no UPF is ready; 0: none */
	} upf;
	struct {
		uint32_t max_ues;
		uint32_t max_gnbs;
	} limits;
	/* This node in a replicated dqlite cluster (issue 20, db/cluster.h). node_id 0 (the
	 * default, no cluster: section) = a single node, nothing replicated. */
	struct {
		uint64_t node_id;          /* 1..2^63-1; node 1 bootstraps a new cluster */
		char address[64];          /* IPv4:port of its dqlite node (Raft + clients) */
		char peers[CONF_MAX_CLUSTER_PEERS][64];   /* other nodes, to join through */
		unsigned n_peers;
		char dir[CONF_STR];        /* data dir; not given: db.path + ".dqlite" */
		/* A one-time token from `solocore cluster token` on a member (issue 31,
		 * db/cluster_join.h): used once, at the first start without dir/tls/node.crt.
		 * A secret: never printed, never logged. */
		char join_token[128];
	} cluster;
};

/* Fill every field with its default. 0, or -EINVAL if the built-in defaults
 * are broken (a bug, reported on stderr). */
int conf_defaults(struct conf *c);

/* Defaults, then the file on top. 0, or a negative errno with a message in
 * err: -ENOENT etc. when the file cannot be read ("path: reason"), -EINVAL
 * for any content error ("file:line:column: key.path: reason"). On error
 * *c holds defaults plus whatever was read before the error. */
int conf_load(struct conf *c, const char *path, char *err, size_t errsz);

/* Same, from text in memory; name is used in messages in place of a file name. */
int conf_load_string(struct conf *c, const char *name, const char *text, size_t len,
		     char *err, size_t errsz);

/* Apply a document on top of *c instead of the defaults: keys given replace
 * c's values (a list given replaces the whole list), keys not given keep
 * them; every check of conf_load applies. All or nothing: on error *c is
 * unchanged. JSON is accepted too (a YAML flow mapping; the web API stores
 * its network settings that way). name is used in messages like
 * conf_load_string; NULL: no position, err is "key.path: reason" (e.g.
 * "dnns[0].pool: prefix length /4 is out of range 8..30"). 0, -EINVAL
 * (message in err), -ENOMEM. */
int conf_overlay_string(struct conf *c, const char *name, const char *text, size_t len,
			char *err, size_t errsz);

/* An IPv4 prefix "a.b.c.d/len" -> network (network order, host bits cleared) and length.
 * 0 or -EINVAL. */
int conf_pool_parse(const char *cidr, uint32_t *net, uint8_t *plen);
/* One n2.allowed_gnbs entry (issue 31):
 *   "PLMN:GNBID/BITS"        a Global gNB ID (TS 38.413 9.3.1.6): PLMN as MCC+MNC digits
 *                            ("00101"), the gNB ID in hex ("0x100") or decimal, its
 *                            length 22..32 bits (as the web API's plmn / gnb_id /
 *                            gnb_id_bits and the AMF's NG Setup log line "gnb=...")
 *   "ADDR/LEN" or "ADDR"     a source prefix, IPv4 or IPv6 (a single address: /32, /128)
 *   "PLMN:GNBID/BITS@PREFIX" that gNB ID from that prefix only
 * 0 or -EINVAL (why, when not NULL, says what is wrong). */
struct conf_gnb_rule {
	bool has_id, has_prefix;
	uint8_t plmn[3];           /* as on the wire (TS 24.008 10.5.1.13) */
	uint32_t gnb_id;
	uint8_t gnb_id_bits;
	int family;                /* AF_INET / AF_INET6 */
	uint8_t addr[16];          /* network address, host bits cleared */
	uint8_t plen;
};
int conf_gnb_rule_parse(const char *s, struct conf_gnb_rule *out, char *why, size_t whylen);

/* An IPv6 prefix "x::/len" -> network (host bits cleared) and length. 0 or -EINVAL. */
int conf_pool6_parse(const char *cidr, uint8_t net[16], uint8_t *plen);
/* The smallest IPv6 prefix covering every DNN's pool6 (the UPF's IPv6 UE prefix): 0, or
 * -ENOENT when no DNN has one, -EINVAL when one is not a prefix. */
int conf_ue_supernet6(const struct conf *c, uint8_t net[16], uint8_t *plen);
/* The smallest IPv4 prefix covering every DNN pool (the UPF has one UE prefix):
 * *addr in network order. 0, or -EINVAL when a pool is not a prefix. */
int conf_ue_supernet(const struct conf *c, uint32_t *addr, uint8_t *plen);

/* Write the whole configuration as YAML that conf_load() accepts and that
 * loads into an identical struct (see the note on secrets above). 0 or -EIO. */
int conf_print(const struct conf *c, FILE *out);
/* The same with hex private keys printed as "<redacted>" (not loadable). */
int conf_print_redacted(const struct conf *c, FILE *out);

/* Wipes the secrets; the struct owns no memory. Accepts NULL. */
void conf_free(struct conf *c);

/* Field-by-field equality, for tests and reload decisions. */
bool conf_equal(const struct conf *a, const struct conf *b);

/* Names used in the YAML: "NIA2", "NEA0", "auto", "kernel", "A" ... */
const char *conf_sctp_name(enum conf_sctp v);
const char *conf_xdp_mode_name(enum conf_xdp_mode v);

#endif
