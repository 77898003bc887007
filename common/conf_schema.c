/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * conf_schema - every configuration key: type, default, range, checks.
 * Add a key here and in struct conf (common/conf.h) and dist/solocore.yaml;
 * parsing, defaults, `config print` and conf_equal() follow from the table.
 */
#include "common/conf.h"
#include "common/conf_int.h"
#include "common/hex.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#define F(type, field) offsetof(type, field)
#define SZ(type, field) sizeof(((type *)0)->field)

/* ---- enum names ---- */
static const char *const log_levels[] = { "error", "warn", "info", "debug", NULL };
static const char *const sctp_names[] = { "auto", "kernel", "usrsctp", NULL };
static const char *const encaps_names[] = { "raw", "udp", NULL };
static const char *const xdp_names[] = { "auto", "native", "generic", NULL };
static const char *const nia_names[] = { "NIA0", "NIA1", "NIA2", "NIA3", NULL };
static const char *const nea_names[] = { "NEA0", "NEA1", "NEA2", "NEA3", NULL };
static const char *const scheme_names[] = { "A", "B", NULL };

const char *conf_sctp_name(enum conf_sctp v)
{
	return (unsigned)v < 3 ? sctp_names[v] : "?";
}

const char *conf_xdp_mode_name(enum conf_xdp_mode v)
{
	return (unsigned)v < 3 ? xdp_names[v] : "?";
}

/* ---- scalar checks ---- */

static bool all_digits(const char *s, size_t lo, size_t hi)
{
	size_t n = strlen(s);

	if (n < lo || n > hi)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return false;
	return true;
}

/* TS 23.003 2.2: MCC is 3 digits, MNC 2 or 3. */
static const char *chk_mcc(void *v, char *buf, size_t n)
{
	(void)buf;
	(void)n;
	return all_digits(v, 3, 3) ? NULL : "must be 3 digits";
}

static const char *chk_mnc(void *v, char *buf, size_t n)
{
	(void)buf;
	(void)n;
	return all_digits(v, 2, 3) ? NULL : "must be 2 or 3 digits";
}

static const char *chk_ip(void *v, char *buf, size_t n)
{
	unsigned char a[16];

	if (inet_pton(AF_INET, v, a) == 1 || inet_pton(AF_INET6, v, a) == 1)
		return NULL;
	snprintf(buf, n, "\"%s\" is not an IPv4 or IPv6 address", (const char *)v);
	return buf;
}

static const char *chk_ipv4(void *v, char *buf, size_t n)
{
	unsigned char a[4];

	if (inet_pton(AF_INET, v, a) == 1)
		return NULL;
	snprintf(buf, n, "\"%s\" is not an IPv4 address", (const char *)v);
	return buf;
}

/* Our N3 IPv6 (TS 38.414 5.1): a unicast address a gNB can send to from another link. Not ::,
 * not multicast (ff00::/8), not link-local (fe80::/10: a TransportLayerAddress has no zone),
 * not loopback, not IPv4-mapped (that is the IPv4 N3 address, upf.n3_address). */
static const char *chk_ipv6_n3(void *v, char *buf, size_t n)
{
	static const uint8_t mapped[12] = { [10] = 0xff, [11] = 0xff };
	struct in6_addr a;
	const char *why = NULL;

	if (inet_pton(AF_INET6, v, &a) != 1)
		why = "is not an IPv6 address";
	else if (IN6_IS_ADDR_UNSPECIFIED(&a))
		why = "is the unspecified address";
	else if (IN6_IS_ADDR_LOOPBACK(&a))
		why = "is the loopback address";
	else if (IN6_IS_ADDR_MULTICAST(&a))
		why = "is multicast";
	else if (IN6_IS_ADDR_LINKLOCAL(&a))
		why = "is link-local (fe80::/10): gNBs need a global or unique-local address";
	else if (!memcmp(a.s6_addr, mapped, sizeof(mapped)))
		why = "is IPv4-mapped: set the IPv4 in upf.n3_address";
	if (!why)
		return NULL;
	snprintf(buf, n, "\"%s\" %s", (const char *)v, why);
	return buf;
}

/* An IPv4 prefix for UE addresses: a.b.c.d/len, 8 <= len <= 30, no host bits. */
static const char *chk_pool(void *v, char *buf, size_t n)
{
	const char *s = v, *slash = strchr(s, '/');
	char addr[32];
	struct in_addr in;
	char *end;
	long len;
	uint32_t a, mask;

	if (!slash || (size_t)(slash - s) >= sizeof(addr))
		goto bad;
	memcpy(addr, s, (size_t)(slash - s));
	addr[slash - s] = 0;
	if (inet_pton(AF_INET, addr, &in) != 1 || !isdigit((unsigned char)slash[1]))
		goto bad;
	len = strtol(slash + 1, &end, 10);
	if (*end)
		goto bad;
	if (len < 8 || len > 30) {
		snprintf(buf, n, "prefix length /%ld is out of range 8..30", len);
		return buf;
	}
	a = ntohl(in.s_addr);
	mask = ~0u << (32 - len);
	if (a & ~mask) {
		in.s_addr = htonl(a & mask);
		snprintf(buf, n, "\"%s\" has host bits set (did you mean %s/%ld?)", s,
			 inet_ntop(AF_INET, &in, addr, sizeof(addr)), len);
		return buf;
	}
	return NULL;
bad:
	snprintf(buf, n, "\"%s\" is not an IPv4 prefix like 10.45.0.0/16", s);
	return buf;
}

/* TS 23.003 9.1: DNN labels of letters, digits and '-', separated by '.'. */
static const char *chk_dnn(void *v, char *buf, size_t n)
{
	const char *s = v;
	size_t label = 0;

	for (; *s; s++) {
		if (*s == '.') {
			if (!label)
				goto bad;
			label = 0;
		} else if (isalnum((unsigned char)*s) || *s == '-') {
			label++;
		} else {
			goto bad;
		}
	}
	if (label)
		return NULL;
bad:
	snprintf(buf, n, "\"%s\" is not a DNN (letters, digits, '-' in '.'-separated labels)",
		 (const char *)v);
	return buf;
}

/* TS 38.413 9.3.3.21: AMF Name is a PrintableString. */
static const char *chk_printable(void *v, char *buf, size_t n)
{
	static const char extra[] = " '()+,-./:=?";

	(void)buf;
	(void)n;
	for (const char *s = v; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr(extra, *s))
			return "must use PrintableString characters (letters, digits, space, '()+,-./:=?)";
	return NULL;
}

/* TS 24.501 9.11.3.52: local time zone in quarter hours, we take "+HH:MM". */
static const char *chk_tz(void *v, char *buf, size_t n)
{
	const char *s = v;
	int hh, mm;

	(void)buf;
	(void)n;
	if (!*s)
		return NULL;
	if (strlen(s) != 6 || (s[0] != '+' && s[0] != '-') || s[3] != ':' ||
	    !isdigit((unsigned char)s[1]) || !isdigit((unsigned char)s[2]) ||
	    !isdigit((unsigned char)s[4]) || !isdigit((unsigned char)s[5]))
		return "must look like +01:00 or -05:30";
	hh = (s[1] - '0') * 10 + s[2] - '0';
	mm = (s[4] - '0') * 10 + s[5] - '0';
	if (mm % 15 || mm > 45 || hh * 60 + mm > 14 * 60)
		return "must be a multiple of 15 minutes between -14:00 and +14:00";
	return NULL;
}

static const char *chk_ifname(void *v, char *buf, size_t n)
{
	(void)buf;
	(void)n;
	return strlen(v) > 15 ? "an interface name has at most 15 characters" : NULL;
}

/* ---- mapping checks ---- */

static const char *chk_tls(void *v, char *buf, size_t n)
{
	const char *cert = v, *key = cert + (F(struct conf, web.tls.key) - F(struct conf, web.tls.cert));

	(void)buf;
	(void)n;
	if (!*cert != !*key)
		return "give both cert and key, or neither";
	return NULL;
}

/* The key file's hex digits, with the whitespace (line breaks) between them dropped:
 * exactly CONF_SUCI_KEY_LEN bytes or -EINVAL. */
static int unhex_text(const char *s, size_t len, uint8_t out[CONF_SUCI_KEY_LEN])
{
	char d[2 * CONF_SUCI_KEY_LEN];
	size_t m = 0;
	int r = -EINVAL;

	for (size_t i = 0; i < len; i++) {
		if (isspace((unsigned char)s[i]))
			continue;
		if (m == sizeof(d))
			goto out;
		d[m++] = s[i];
	}
	r = hex_decode_exact(out, CONF_SUCI_KEY_LEN, d, m);
out:
	explicit_bzero(d, sizeof(d));
	return r;
}

/* A PEM private key (PKCS#8 or SEC1 "EC PRIVATE KEY", as written by
 * `openssl genpkey`): X25519 for profile A, P-256 for profile B (TS 33.501
 * C.3.4.1, C.3.4.2). Returns NULL or a reason in buf. */
static const char *pem_key(struct conf_suci_key *k, const char *text, size_t len, char *buf, size_t n)
{
	BIO *bio = BIO_new_mem_buf(text, (int)len);
	EVP_PKEY *pk = bio ? PEM_read_bio_PrivateKey(bio, NULL, NULL, NULL) : NULL;
	const char *why = NULL;
	char group[32] = "";
	size_t klen = CONF_SUCI_KEY_LEN;
	BIGNUM *bn = NULL;

	BIO_free(bio);
	if (!pk) {
		why = "not a PEM private key";
	} else if (k->scheme == CONF_SUCI_A) {
		if (!EVP_PKEY_is_a(pk, "X25519"))
			why = "scheme A needs an X25519 key";
		else if (EVP_PKEY_get_raw_private_key(pk, k->private_key, &klen) != 1 ||
			 klen != CONF_SUCI_KEY_LEN)
			why = "cannot read the X25519 key";
	} else {
		if (!EVP_PKEY_is_a(pk, "EC") ||
		    EVP_PKEY_get_utf8_string_param(pk, OSSL_PKEY_PARAM_GROUP_NAME, group, sizeof(group), NULL) != 1 ||
		    strcmp(group, "prime256v1"))
			why = "scheme B needs a P-256 (prime256v1) key";
		else if (EVP_PKEY_get_bn_param(pk, OSSL_PKEY_PARAM_PRIV_KEY, &bn) != 1 ||
			 BN_bn2binpad(bn, k->private_key, CONF_SUCI_KEY_LEN) != CONF_SUCI_KEY_LEN)
			why = "cannot read the P-256 key";
	}
	BN_clear_free(bn);
	EVP_PKEY_free(pk);
	if (why) {
		snprintf(buf, n, "private_key_file \"%s\": %s", k->private_key_file, why);
		return buf;
	}
	return NULL;
}

/* The key file holds a PEM private key, 64 hex digits (whitespace ignored)
 * or the 32 raw bytes. */
static const char *read_key_file(struct conf_suci_key *k, char *buf, size_t n)
{
	char text[4096];
	const char *why = NULL;
	ssize_t len;
	int fd = open(k->private_key_file, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		snprintf(buf, n, "private_key_file \"%s\": %s", k->private_key_file, strerror(errno));
		return buf;
	}
	len = read(fd, text, sizeof(text));
	close(fd);
	if (len >= 10 && !memcmp(text, "-----BEGIN", 10)) {
		why = pem_key(k, text, (size_t)len, buf, n);
	} else if (len == CONF_SUCI_KEY_LEN) {
		memcpy(k->private_key, text, CONF_SUCI_KEY_LEN);
	} else if (len < 0 || unhex_text(text, (size_t)len, k->private_key) < 0) {
		snprintf(buf, n, "private_key_file \"%s\": expected a PEM key, 64 hex digits or 32 raw bytes",
			 k->private_key_file);
		why = buf;
	}
	explicit_bzero(text, sizeof(text));
	if (why) {
		explicit_bzero(k->private_key, sizeof(k->private_key));
		return why;
	}
	k->has_key = true;
	return NULL;
}

static const char *chk_suci_key(void *v, char *buf, size_t n)
{
	struct conf_suci_key *k = v;

	if (k->private_key_file[0]) {
		if (k->has_key)
			return "give private_key or private_key_file, not both";
		return read_key_file(k, buf, n);
	}
	if (!k->has_key)
		return "missing key private_key or private_key_file";
	return NULL;
}

/* ---- list checks ---- */

static const char *chk_slices(const void *first, unsigned cnt, unsigned *bad, char *buf, size_t n)
{
	const struct conf_slice *s = first;

	(void)buf;
	(void)n;
	for (unsigned i = 1; i < cnt; i++) {
		for (unsigned j = 0; j < i; j++) {
			if (s[i].sst == s[j].sst && s[i].has_sd == s[j].has_sd &&
			    (!s[i].has_sd || s[i].sd == s[j].sd)) {
				*bad = i;
				return "duplicate slice";
			}
		}
	}
	return NULL;
}

static const char *chk_pool6_overlap(const struct conf_dnn *d, unsigned cnt, unsigned *bad, char *buf, size_t n);

static const char *chk_dnns(const void *first, unsigned cnt, unsigned *bad, char *buf, size_t n)
{
	const struct conf_dnn *d = first;

	/* TS 23.003 9.1: DNNs compare case-insensitively. */
	for (unsigned i = 1; i < cnt; i++) {
		for (unsigned j = 0; j < i; j++) {
			if (!strcasecmp(d[i].name, d[j].name)) {
				*bad = i;
				snprintf(buf, n, "duplicate DNN \"%s\"", d[i].name);
				return buf;
			}
		}
	}
	/* Two pools that overlap would hand one UE address to two sessions
	 * (the SMF allocates per DNN). Pool syntax is checked per element. */
	for (unsigned i = 1; i < cnt; i++) {
		uint32_t ni, nj;
		uint8_t li, lj;

		if (conf_pool_parse(d[i].pool, &ni, &li) < 0)
			continue;
		for (unsigned j = 0; j < i; j++) {
			if (conf_pool_parse(d[j].pool, &nj, &lj) < 0)
				continue;
			uint8_t l = li < lj ? li : lj;
			uint32_t m = l ? htonl(UINT32_MAX << (32 - l)) : 0;
			if ((ni & m) == (nj & m)) {
				*bad = i;
				snprintf(buf, n, "pool %s of DNN \"%s\" overlaps pool %s of DNN \"%s\"",
					 d[i].pool, d[i].name, d[j].pool, d[j].name);
				return buf;
			}
		}
	}
	return chk_pool6_overlap(d, cnt, bad, buf, n);
}

/* Two pool6s that overlap would give one /64 to two sessions. */
static const char *chk_pool6_overlap(const struct conf_dnn *d, unsigned cnt, unsigned *bad, char *buf, size_t n)
{
	for (unsigned i = 1; i < cnt; i++) {
		uint8_t ni[16], nj[16], li, lj;

		if (!d[i].pool6[0] || conf_pool6_parse(d[i].pool6, ni, &li) < 0)
			continue;
		for (unsigned j = 0; j < i; j++) {
			unsigned l, k = 0;

			if (!d[j].pool6[0] || conf_pool6_parse(d[j].pool6, nj, &lj) < 0)
				continue;
			l = li < lj ? li : lj;
			while (k < l && !((ni[k / 8] ^ nj[k / 8]) & (0x80u >> (k % 8))))
				k++;
			if (k == l) {
				*bad = i;
				snprintf(buf, n, "pool6 %s of DNN \"%s\" overlaps pool6 %s of DNN \"%s\"",
					 d[i].pool6, d[i].name, d[j].pool6, d[j].name);
				return buf;
			}
		}
	}
	return NULL;
}

static const char *chk_suci_keys(const void *first, unsigned cnt, unsigned *bad, char *buf, size_t n)
{
	const struct conf_suci_key *k = first;

	for (unsigned i = 1; i < cnt; i++) {
		for (unsigned j = 0; j < i; j++) {
			if (k[i].id == k[j].id) {
				*bad = i;
				snprintf(buf, n, "duplicate key id %u", k[i].id);
				return buf;
			}
		}
	}
	return NULL;
}

/* ---- the table ---- */

#define STR(key_, type, field, flags_, def_, check_, doc_) \
	{ .key = key_, .kind = CK_STR, .flags = (flags_), .off = F(type, field), \
	  .size = SZ(type, field), .def = def_, .check = check_, .doc = doc_ }
#define INT(key_, type, field, lo, hi, def_, doc_) \
	{ .key = key_, .kind = CK_INT, .off = F(type, field), .size = SZ(type, field), \
	  .min = lo, .max = hi, .def = def_, .doc = doc_ }
#define ENUM(key_, type, field, names_, def_, doc_) \
	{ .key = key_, .kind = CK_ENUM, .off = F(type, field), .size = 1, .names = names_, \
	  .def = def_, .doc = doc_ }
#define MAP(key_, type, field, sub_) \
	{ .key = key_, .kind = CK_MAP, .off = F(type, field), .sub = sub_ }
#define LIST(key_, type, field, cnt, lo, flags_, elem, chk, def_, doc_) \
	{ .key = key_, .kind = CK_LIST, .flags = (flags_), .off = F(type, field), \
	  .size = sizeof(((type *)0)->field[0]), .cnt_off = F(type, cnt), .min = lo, \
	  .max = sizeof(((type *)0)->field) / sizeof(((type *)0)->field[0]), \
	  .sub = elem, .check_list = chk, .def = def_, .doc = doc_ }
#define END { .key = NULL }

static const char *chk_log_modules(const void *first, unsigned cnt, unsigned *bad, char *buf, size_t n)
{
	const struct conf_log_module *m = first;

	for (unsigned i = 1; i < cnt; i++) {
		for (unsigned j = 0; j < i; j++) {
			if (!strcmp(m[i].name, m[j].name)) {
				*bad = i;
				snprintf(buf, n, "duplicate module \"%s\"", m[i].name);
				return buf;
			}
		}
	}
	return NULL;
}

static const struct conf_item log_module_items[] = {
	STR("name", struct conf_log_module, name, CF_REQUIRED | CF_NONEMPTY, NULL, NULL, NULL),
	{ .key = "level", .kind = CK_ENUM, .flags = CF_REQUIRED, .off = F(struct conf_log_module, level),
	  .size = 1, .names = log_levels },
	END
};
static const struct conf_item log_module_elem[] = {
	{ .key = "", .kind = CK_MAP, .sub = log_module_items },
};

static const struct conf_item log_items[] = {
	ENUM("level", struct conf, log.level, log_levels, "info", "error, warn, info or debug"),
	STR("file", struct conf, log.file, CF_OPTIONAL, NULL, NULL, "log file; not set: stderr"),
	LIST("modules", struct conf, log.modules, log.n_modules, 0, 0, log_module_elem, chk_log_modules,
	     "[]", NULL),
	END
};

static const struct conf_item plmn_items[] = {
	STR("mcc", struct conf, plmn.mcc, 0, "\"001\"", chk_mcc, NULL),
	STR("mnc", struct conf, plmn.mnc, 0, "\"01\"", chk_mnc, NULL),
	END
};

static const struct conf_item nia_elem[] = {
	{ .key = "", .kind = CK_ENUM, .size = 1, .names = nia_names },
};
static const struct conf_item nea_elem[] = {
	{ .key = "", .kind = CK_ENUM, .size = 1, .names = nea_names },
};

static const struct conf_item security_items[] = {
	LIST("integrity", struct conf, amf.security.integrity, amf.security.n_integrity, 1,
	     CF_UNIQUE, nia_elem, NULL, "[NIA2, NIA1, NIA3, NIA0]", "priority order"),
	LIST("ciphering", struct conf, amf.security.ciphering, amf.security.n_ciphering, 1,
	     CF_UNIQUE, nea_elem, NULL, "[NEA2, NEA1, NEA3, NEA0]", "priority order"),
	END
};

static const struct conf_item netname_items[] = {
	STR("full", struct conf, amf.network_name.full, CF_OPTIONAL, NULL, NULL, NULL),
	STR("short", struct conf, amf.network_name.short_name, CF_OPTIONAL, NULL, NULL, NULL),
	END
};

static const struct conf_item tac_elem[] = {
	{ .key = "", .kind = CK_INT, .size = 4, .min = 0, .max = 16777215 },
};

/* TS 23.501 5.3.2.3: the areas partition the TAs they name; a TAC in two would make the
 * TAI list given in it depend on which area was looked at first. */
static const char *chk_ras(const void *first, unsigned cnt, unsigned *bad, char *buf, size_t n)
{
	const struct conf_ra *ra = first;

	for (unsigned i = 1; i < cnt; i++)
		for (unsigned t = 0; t < ra[i].n_tac; t++)
			for (unsigned j = 0; j < i; j++)
				for (unsigned u = 0; u < ra[j].n_tac; u++)
					if (ra[i].tac[t] == ra[j].tac[u]) {
						*bad = i;
						snprintf(buf, n, "TAC %u is already in registration_areas[%u]",
							 ra[i].tac[t], j);
						return buf;
					}
	return NULL;
}

/* One area: a flow list of 1..16 TACs (TS 24.501 9.11.3.9), none twice. */
static const struct conf_item ra_elem[] = {
	{ .key = "", .kind = CK_LIST, .flags = CF_UNIQUE, .off = F(struct conf_ra, tac),
	  .size = sizeof(uint32_t), .cnt_off = F(struct conf_ra, n_tac), .min = 1, .max = CONF_RA_TACS,
	  .sub = tac_elem },
};

static const struct conf_item amf_items[] = {
	STR("name", struct conf, amf.name, CF_NONEMPTY, "solocore", chk_printable, NULL),
	INT("region_id", struct conf, amf.region_id, 0, 255, "1", NULL),
	INT("set_id", struct conf, amf.set_id, 0, 1023, "1", NULL),
	INT("pointer", struct conf, amf.pointer, 0, 63, "0", NULL),
	INT("relative_capacity", struct conf, amf.relative_capacity, 0, 255, "255", NULL),
	MAP("security", struct conf, amf.security, security_items),
	MAP("network_name", struct conf, amf.network_name, netname_items),
	STR("timezone", struct conf, amf.timezone, CF_OPTIONAL, NULL, chk_tz, NULL),
	INT("ue_ambr_ul", struct conf, amf.ue_ambr_ul, 1, 4000000000000, "1000000000", NULL),
	INT("ue_ambr_dl", struct conf, amf.ue_ambr_dl, 1, 4000000000000, "1000000000", NULL),
	LIST("registration_areas", struct conf, amf.registration_areas, amf.n_registration_areas, 0, 0,
	     ra_elem, chk_ras, "[]", "served TACs grouped into TAI lists; [] = one area of all"),
	END
};

static const struct conf_item slice_items[] = {
	INT("sst", struct conf_slice, sst, 0, 255, NULL, NULL),
	{ .key = "sd", .kind = CK_HEXINT, .flags = CF_HAS, .off = F(struct conf_slice, sd), .size = 6,
	  .has_off = F(struct conf_slice, has_sd) },
	END
};
static const struct conf_item slice_elem[] = {
	{ .key = "", .kind = CK_MAP, .sub = slice_items },
};

/* TS 23.501 5.8.2.2.1: one /64 per session, so the pool is a prefix of at most 64 bits; at
 * least 44, so the UPF's map of /64s stays within 1,048,576 entries (128 MiB). */
static const char *chk_pool6(void *v, char *buf, size_t n)
{
	const char *s = v;
	uint8_t net[16], want[16], plen;
	char txt[64];

	if (!s[0])
		return NULL;
	if (conf_pool6_parse(s, net, &plen) < 0) {
		snprintf(buf, n, "\"%s\" is not an IPv6 prefix like 2001:db8:45::/48", s);
		return buf;
	}
	if (plen < 44 || plen > 64) {
		snprintf(buf, n, "prefix length /%u is out of range 44..64 (one /64 per session)", plen);
		return buf;
	}
	snprintf(txt, sizeof(txt), "%s", s);
	*strchr(txt, '/') = 0;
	inet_pton(AF_INET6, txt, want);
	if (memcmp(want, net, 16)) {
		snprintf(buf, n, "\"%s\" has bits set past /%u (did you mean %s/%u?)", s, plen,
			 inet_ntop(AF_INET6, net, txt, sizeof(txt)), plen);
		return buf;
	}
	return NULL;
}

static const struct conf_item dns_elem[] = {
	{ .key = "", .kind = CK_STR, .size = 64, .check = chk_ip },
};

static const struct conf_item dnn_items[] = {
	STR("name", struct conf_dnn, name, CF_REQUIRED | CF_NONEMPTY, NULL, chk_dnn, NULL),
	STR("pool", struct conf_dnn, pool, CF_REQUIRED, NULL, chk_pool, NULL),
	STR("pool6", struct conf_dnn, pool6, CF_OPTIONAL, NULL, chk_pool6, "IPv6 /64s for IPv6 / IPv4v6 sessions"),
	{ .key = "nat", .kind = CK_BOOL, .off = F(struct conf_dnn, nat), .size = sizeof(bool), .def = "false",
	  .doc = "source NAT of the sessions' IPv4 to upf.nat_address" },
	LIST("dns", struct conf_dnn, dns, n_dns, 0, CF_UNIQUE, dns_elem, NULL, "[\"8.8.8.8\"]", NULL),
	INT("mtu", struct conf_dnn, mtu, 576, 9216, "1400", NULL),
	END
};
static const struct conf_item dnn_elem[] = {
	{ .key = "", .kind = CK_MAP, .sub = dnn_items },
};

/* ---- n2.allowed_gnbs (issue 31, conf.h conf_gnb_rule_parse) ---- */

static int gnb_prefix_parse(const char *s, struct conf_gnb_rule *r, char *why, size_t n)
{
	char buf[64], *slash, *end;
	unsigned long len, max;

	if (snprintf(buf, sizeof(buf), "%s", s) >= (int)sizeof(buf))
		goto bad;
	slash = strchr(buf, '/');
	if (slash)
		*slash = 0;
	if (inet_pton(AF_INET, buf, r->addr) == 1) {
		r->family = AF_INET;
		max = 32;
	} else if (inet_pton(AF_INET6, buf, r->addr) == 1) {
		r->family = AF_INET6;
		max = 128;
	} else {
		goto bad;
	}
	len = max;
	if (slash) {
		len = strtoul(slash + 1, &end, 10);
		if (!isdigit((unsigned char)slash[1]) || *end || len > max)
			goto bad;
	}
	for (unsigned b = (unsigned)len; b < max; b++)
		if (r->addr[b / 8] & (0x80u >> (b % 8))) {
			snprintf(why, n, "\"%s\" has bits set past /%lu", s, len);
			return -EINVAL;
		}
	r->plen = (uint8_t)len;
	r->has_prefix = true;
	return 0;
bad:
	snprintf(why, n, "\"%s\" is not an address or prefix like 192.0.2.0/24 or 2001:db8::/32", s);
	return -EINVAL;
}

/* "PLMN:GNBID/BITS": TS 38.413 9.3.1.6 gNB ID, BIT STRING (SIZE(22..32)). */
static int gnb_id_parse(const char *s, struct conf_gnb_rule *r, char *why, size_t n)
{
	const char *colon = strchr(s, ':'), *slash = strchr(s, '/');
	unsigned long long id;
	unsigned long bits;
	char *end;
	size_t pl = colon ? (size_t)(colon - s) : 0;

	if (!colon || !slash || slash < colon || (pl != 5 && pl != 6))
		goto bad;
	for (size_t i = 0; i < pl; i++)
		if (!isdigit((unsigned char)s[i]))
			goto bad;
	if (!isdigit((unsigned char)colon[1]))
		goto bad;
	id = strtoull(colon + 1, &end, 0);
	if (end != slash || !isdigit((unsigned char)slash[1]))
		goto bad;
	bits = strtoul(slash + 1, &end, 10);
	if (*end)
		goto bad;
	if (bits < 22 || bits > 32) {
		snprintf(why, n, "\"%s\": a gNB ID is 22..32 bits long, not %lu", s, bits);
		return -EINVAL;
	}
	if (bits < 32 && id >> bits) {
		snprintf(why, n, "\"%s\": gNB ID 0x%llx does not fit in %lu bits", s, id, bits);
		return -EINVAL;
	}
	if (id > UINT32_MAX)
		goto bad;
	/* TS 24.008 10.5.1.13: MCC digits 1,2 | MCC 3, MNC 3 (F when 2 digits) | MNC 1,2 */
	r->plmn[0] = (uint8_t)((s[1] - '0') << 4 | (s[0] - '0'));
	r->plmn[1] = (uint8_t)((pl == 6 ? s[5] - '0' : 0xf) << 4 | (s[2] - '0'));
	r->plmn[2] = (uint8_t)((s[4] - '0') << 4 | (s[3] - '0'));
	r->gnb_id = (uint32_t)id;
	r->gnb_id_bits = (uint8_t)bits;
	r->has_id = true;
	return 0;
bad:
	snprintf(why, n, "\"%s\" is not a Global gNB ID like 00101:0x100/22 (MCC MNC : gNB ID / bits), "
		 "an address or prefix, or ID@PREFIX", s);
	return -EINVAL;
}

int conf_gnb_rule_parse(const char *s, struct conf_gnb_rule *out, char *why, size_t whylen)
{
	char tmp[128], idpart[CONF_GNB_RULE_LEN];
	const char *at = strchr(s, '@');
	int rc;

	if (!why) {
		why = tmp;
		whylen = sizeof(tmp);
	}
	memset(out, 0, sizeof(*out));
	if (at) {
		if ((size_t)(at - s) >= sizeof(idpart)) {
			snprintf(why, whylen, "\"%s\" is too long", s);
			return -EINVAL;
		}
		memcpy(idpart, s, (size_t)(at - s));
		idpart[at - s] = 0;
		rc = gnb_id_parse(idpart, out, why, whylen);
		return rc < 0 ? rc : gnb_prefix_parse(at + 1, out, why, whylen);
	}
	/* A Global gNB ID has a 5- or 6-digit PLMN before its ':' (no IPv6 address does). */
	if (strchr(s, '/') && strchr(s, ':') && strchr(s, ':') - s >= 5 && strchr(s, ':') - s <= 6 &&
	    strspn(s, "0123456789") == (size_t)(strchr(s, ':') - s))
		return gnb_id_parse(s, out, why, whylen);
	return gnb_prefix_parse(s, out, why, whylen);
}

static const char *chk_gnb_rule(void *v, char *buf, size_t n)
{
	struct conf_gnb_rule r;

	return conf_gnb_rule_parse(v, &r, buf, n) < 0 ? buf : NULL;
}

static const struct conf_item gnb_rule_elem[] = {
	{ .key = "", .kind = CK_STR, .size = CONF_GNB_RULE_LEN, .check = chk_gnb_rule },
};

static const struct conf_item n2_items[] = {
	STR("address", struct conf, n2.address, CF_NONEMPTY, "\"0.0.0.0\"", chk_ip, NULL),
	INT("port", struct conf, n2.port, 1, 65535, "38412", NULL),
	ENUM("sctp", struct conf, n2.sctp, sctp_names, "auto", NULL),
	ENUM("usrsctp_encaps", struct conf, n2.usrsctp_encaps, encaps_names, "raw", NULL),
	INT("udp_port", struct conf, n2.udp_port, 1, 65535, "9899", NULL),
	INT("busy_poll_us", struct conf, n2.busy_poll_us, 0, 1000, "0", NULL),
	LIST("allowed_gnbs", struct conf, n2.allowed_gnbs, n2.n_allowed_gnbs, 0, CF_UNIQUE, gnb_rule_elem, NULL, "[]",
	     "gNBs that may set up: PLMN:GNBID/BITS, ADDR[/LEN], or ID@PREFIX; [] = any"),
	END
};

#define TIMER(key_, field, def_) INT(key_, struct conf, timers.field, 1, 31 * 24 * 3600, def_, NULL)
static const struct conf_item timer_items[] = {
	TIMER("t3512", t3512, "3240"),
	TIMER("t3502", t3502, "720"),
	TIMER("t3513", t3513, "2"),
	TIMER("t3522", t3522, "6"),
	TIMER("t3550", t3550, "6"),
	TIMER("t3555", t3555, "6"),
	TIMER("t3560", t3560, "6"),
	TIMER("t3570", t3570, "6"),
	TIMER("t3591", t3591, "16"),
	TIMER("t3592", t3592, "16"),
	TIMER("mobile_reachable", mobile_reachable, NULL),   /* t3512 + 240: conf_schema_finish */
	TIMER("implicit_dereg", implicit_dereg, "240"),
	END
};

static const struct conf_item suci_key_items[] = {
	INT("id", struct conf_suci_key, id, 1, 255, NULL, NULL),
	ENUM("scheme", struct conf_suci_key, scheme, scheme_names, NULL, NULL),
	{ .key = "private_key", .kind = CK_HEX, .flags = CF_HAS | CF_SECRET,
	  .off = F(struct conf_suci_key, private_key), .size = CONF_SUCI_KEY_LEN,
	  .has_off = F(struct conf_suci_key, has_key) },
	STR("private_key_file", struct conf_suci_key, private_key_file, CF_OPTIONAL, NULL, NULL, NULL),
	END
};
static const struct conf_item suci_key_elem[] = {
	{ .key = "", .kind = CK_MAP, .sub = suci_key_items, .check = chk_suci_key },
};
static const struct conf_item suci_items[] = {
	LIST("keys", struct conf, suci.keys, suci.n_keys, 0, 0, suci_key_elem, chk_suci_keys, "[]", NULL),
	END
};

static const struct conf_item db_items[] = {
	STR("path", struct conf, db.path, CF_NONEMPTY, "./solocore.db", NULL, NULL),
	END
};

static const struct conf_item tls_items[] = {
	STR("cert", struct conf, web.tls.cert, CF_OPTIONAL, NULL, NULL, NULL),
	STR("key", struct conf, web.tls.key, CF_OPTIONAL, NULL, NULL, NULL),
	END
};

static const struct conf_item web_items[] = {
	STR("listen", struct conf, web.listen, CF_NONEMPTY, "\"0.0.0.0\"", chk_ip, NULL),
	INT("port", struct conf, web.port, 1, 65535, "5000", NULL),
	{ .key = "tls", .kind = CK_MAP, .off = F(struct conf, web.tls), .sub = tls_items, .check = chk_tls },
	END
};

static const char *const upf_mode_names[] = { "builtin", "pfcp", NULL };

static const struct conf_item peer_dnn_elem[] = {
	{ .key = "", .kind = CK_STR, .size = CONF_DNN_NAME, .check = chk_dnn },
};

static const struct conf_item peer_items[] = {
	STR("name", struct conf_upf_peer, name, CF_REQUIRED | CF_NONEMPTY, NULL, chk_printable, NULL),
	STR("address", struct conf_upf_peer, address, CF_REQUIRED, NULL, chk_ipv4, NULL),
	STR("n3_address", struct conf_upf_peer, n3_address, CF_REQUIRED, NULL, chk_ipv4, NULL),
	LIST("dnns", struct conf_upf_peer, dnns, n_dnns, 0, CF_UNIQUE, peer_dnn_elem, NULL, "[]", NULL),
	LIST("slices", struct conf_upf_peer, slices, n_slices, 0, 0, slice_elem, chk_slices, "[]", NULL),
	END
};
static const struct conf_item peer_elem[] = {
	{ .key = "", .kind = CK_MAP, .sub = peer_items },
};

/* Two peers with one name or one N4 address would be one UPF twice. */
static const char *chk_peers(const void *first, unsigned cnt, unsigned *bad, char *buf, size_t n)
{
	const struct conf_upf_peer *p = first;

	for (unsigned i = 1; i < cnt; i++)
		for (unsigned j = 0; j < i; j++)
			if (!strcmp(p[i].name, p[j].name) || !strcmp(p[i].address, p[j].address)) {
				*bad = i;
				snprintf(buf, n, "peer \"%s\" (%s) repeats peers[%u]", p[i].name, p[i].address, j);
				return buf;
			}
	return NULL;
}

/* upf.n4_peers: an IPv4 / IPv6 address, or a prefix of one ("10.0.4.0/24", "fd00::/64"). */
static const char *chk_n4_peer(void *v, char *buf, size_t n)
{
	const char *s = v, *slash = strchr(s, '/');
	unsigned char a[16];
	char addr[64];
	char *end;
	long len;
	int fam;

	if (strlen(s) >= sizeof(addr))
		goto bad;
	memcpy(addr, s, strlen(s) + 1);
	if (slash)
		addr[slash - s] = 0;
	fam = inet_pton(AF_INET, addr, a) == 1 ? 32 : inet_pton(AF_INET6, addr, a) == 1 ? 128 : 0;
	if (!fam)
		goto bad;
	if (!slash)
		return NULL;
	if (!isdigit((unsigned char)slash[1]))
		goto bad;
	len = strtol(slash + 1, &end, 10);
	if (*end || len < 0 || len > fam) {
		snprintf(buf, n, "\"%s\": prefix length out of range 0..%d", s, fam);
		return buf;
	}
	return NULL;
bad:
	snprintf(buf, n, "\"%s\" is not an IPv4 / IPv6 address or prefix like 10.0.4.0/24", s);
	return buf;
}

static const struct conf_item n4_peer_elem[] = {
	{ .key = "", .kind = CK_STR, .size = 64, .check = chk_n4_peer },
};

static const struct conf_item upf_items[] = {
	STR("n3_interface", struct conf, upf.n3_interface, CF_OPTIONAL, NULL, chk_ifname, NULL),
	STR("n6_interface", struct conf, upf.n6_interface, CF_OPTIONAL, NULL, chk_ifname, NULL),
	STR("n3_address", struct conf, upf.n3_address, CF_OPTIONAL, NULL, chk_ipv4, NULL),
	STR("n3_address6", struct conf, upf.n3_address6, CF_OPTIONAL, NULL, chk_ipv6_n3,
	    "IPv6 on N3 for gNBs on IPv6 (TS 38.414 5.1); \"\": IPv4 only"),
	STR("n4_address", struct conf, upf.n4_address, CF_OPTIONAL, NULL, chk_ipv4, NULL),
	ENUM("xdp_mode", struct conf, upf.xdp_mode, xdp_names, "auto", NULL),
	INT("max_sessions", struct conf, upf.max_sessions, 1, 16777216, "1048576", NULL),
	STR("nat_address", struct conf, upf.nat_address, CF_OPTIONAL, NULL, chk_ipv4, NULL),
	INT("nat_port_lo", struct conf, upf.nat_port_lo, 1024, 65535, "1024", NULL),
	INT("nat_port_hi", struct conf, upf.nat_port_hi, 1024, 65535, "65535", NULL),
	INT("nat_table_size", struct conf, upf.nat_table_size, 1024, 16777216, "65536", "NAT connections tracked"),
	/* Issue 31 point 5: limits by default, so that one UE cannot take the table or a remote's
	 * ports from the others; 0 turns one off (an operator's explicit choice). */
	INT("nat_conns_per_session", struct conf, upf.nat_conns_per_session, 0, 16777216, "1024",
	    "NAT connections one PDU session may hold, 0: no limit (RFC 6888 REQ-4)"),
	INT("nat_conns_per_remote", struct conf, upf.nat_conns_per_remote, 0, 65535, "256",
	    "NAT connections one PDU session may hold toward one remote address:port, 0: no limit"),
	ENUM("mode", struct conf, upf.mode, upf_mode_names, "builtin",
	     "builtin: the UPF in this process; pfcp: the peers below over N4"),
	INT("heartbeat_interval", struct conf, upf.heartbeat_interval, 100, 600000, "5000", "ms, TS 29.244 6.2.2"),
	INT("pfcp_t1", struct conf, upf.pfcp_t1, 50, 60000, "3000", "ms before a request is sent again (6.4)"),
	INT("pfcp_n1", struct conf, upf.pfcp_n1, 1, 10, "3", "retransmissions before giving up (6.4)"),
	LIST("peers", struct conf, upf.peers, upf.n_peers, 0, 0, peer_elem, chk_peers, "[]", NULL),
	LIST("n4_peers", struct conf, upf.n4_peers, upf.n_n4_peers, 0, CF_UNIQUE, n4_peer_elem, NULL, "[]",
	     "solocore upf: PFCP only from these addresses / prefixes; []: from anyone (TS 29.244 6.2.6)"),
	INT("n4_release_timer", struct conf, upf.n4_release_timer, 0, 86400000, "60000",
	    "ms a CP that stopped answering heartbeats keeps its association and sessions"),
	INT("n4_sessions_per_peer", struct conf, upf.n4_sessions_per_peer, 0, 16777216, "0",
	    "PFCP sessions one association may hold; 0: half of max_sessions"),
	/* issue 32: a path failure is not a restart (TS 29.244 6.2.2, TS 23.007 19A) */
	INT("n4_path_release_timer", struct conf, upf.n4_path_release_timer, 1, 86400000, "60000",
	    "ms the SMF keeps the sessions of a UPF that stopped answering heartbeats"),
	INT("no_upf_backoff", struct conf, upf.no_upf_backoff, 0, 9920, "30",
	    "s of T3396 sent with #26 when no ready UPF serves a session (TS 24.501 6.4.1.4.2); 0: none"),
	END
};

static const struct conf_item limits_items[] = {
	INT("max_ues", struct conf, limits.max_ues, 1, 16777216, "1048576", NULL),
	INT("max_gnbs", struct conf, limits.max_gnbs, 1, 65536, "1024", NULL),
	END
};

/* ---- cluster (issue 20, db/cluster.h) ---- */

/* A dqlite node's address, IPv4:port: raft 0.15's transport takes the host up to the
 * first ':' (no IPv6), and the address is given to the other nodes (not 0.0.0.0). */
static const char *chk_cluster_addr(void *v, char *buf, size_t n)
{
	const char *s = v, *colon = strrchr(s, ':');
	char host[32], *end;
	struct in_addr a;
	long port;

	if (!colon || colon == s || (size_t)(colon - s) >= sizeof(host))
		goto bad;
	memcpy(host, s, (size_t)(colon - s));
	host[colon - s] = 0;
	if (inet_pton(AF_INET, host, &a) != 1 || !isdigit((unsigned char)colon[1]))
		goto bad;
	port = strtol(colon + 1, &end, 10);
	if (*end || port < 1 || port > 65535)
		goto bad;
	if (a.s_addr == htonl(INADDR_ANY)) {
		snprintf(buf, n, "\"%s\": the other nodes connect to this address: give this node's own IPv4, "
			 "not 0.0.0.0", s);
		return buf;
	}
	return NULL;
bad:
	snprintf(buf, n, "\"%s\" is not IPv4:port like 10.0.0.1:9001", s);
	return buf;
}

/* cluster.join_token: "scj1." and 95 base64url characters (db/cluster_join.h). Never echoed. */
static const char *chk_join_token(void *v, char *buf, size_t n)
{
	const char *s = v;

	if (!s[0] || (!strncmp(s, "scj1.", 5) && strlen(s) == 100 &&
		      strspn(s + 5, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") == 95))
		return NULL;
	snprintf(buf, n, "not a join token (\"scj1.\" and 95 characters, from `solocore cluster token`)");
	return buf;
}

static const struct conf_item cluster_peer_elem[] = {
	{ .key = "", .kind = CK_STR, .size = SZ(struct conf, cluster.peers[0]), .check = chk_cluster_addr },
};

static const struct conf_item cluster_items[] = {
	/* At most 32: node n issues SQNs with IND n - 1 (udm.h, TS 33.102 C.1.2, 5 IND bits) */
	INT("node_id", struct conf, cluster.node_id, 0, 32, "0",
	    "1..32, unique in the cluster, 1 bootstraps; 0: no cluster"),
	STR("address", struct conf, cluster.address, CF_OPTIONAL, NULL, chk_cluster_addr,
	    "IPv4:port this node's dqlite node binds (Raft and clients)"),
	LIST("peers", struct conf, cluster.peers, cluster.n_peers, 0, CF_UNIQUE, cluster_peer_elem, NULL, "[]",
	     "other nodes' addresses, to join through"),
	STR("dir", struct conf, cluster.dir, CF_OPTIONAL, NULL, NULL, "data dir; not set: db.path + \".dqlite\""),
	STR("join_token", struct conf, cluster.join_token, CF_OPTIONAL | CF_SECRET, NULL, chk_join_token,
	    "one-time token from `solocore cluster token` on a member; used at the first start (never printed)"),
	END
};
#define CLUSTER_ITEM_JOIN_TOKEN (&cluster_items[4])

const struct conf_item conf_schema[] = {
	MAP("log", struct conf, log, log_items),
	MAP("plmn", struct conf, plmn, plmn_items),
	MAP("amf", struct conf, amf, amf_items),
	LIST("tac", struct conf, tac, n_tac, 1, CF_UNIQUE, tac_elem, NULL, "[1]", NULL),
	LIST("slices", struct conf, slices, n_slices, 1, 0, slice_elem, chk_slices,
	     "[{sst: 1, sd: \"010203\"}]", NULL),
	LIST("dnns", struct conf, dnns, n_dnns, 1, 0, dnn_elem, chk_dnns,
	     "[{name: internet, pool: 10.45.0.0/16}]", NULL),
	MAP("n2", struct conf, n2, n2_items),
	MAP("timers", struct conf, timers, timer_items),
	MAP("suci", struct conf, suci, suci_items),
	MAP("db", struct conf, db, db_items),
	MAP("web", struct conf, web, web_items),
	MAP("upf", struct conf, upf, upf_items),
	MAP("limits", struct conf, limits, limits_items),
	MAP("cluster", struct conf, cluster, cluster_items),
	END
};

/* A key read from private_key_file is printed as that path only. */
bool conf_schema_print_skip(const struct conf_item *it, const void *base)
{
	const struct conf_suci_key *k = base;

	/* cluster.join_token: a secret, and spent once used: never printed (issue 31). */
	if (it == CLUSTER_ITEM_JOIN_TOKEN)
		return true;
	return it == &suci_key_items[2] && k->private_key_file[0];
}

/* Each TAC of amf.registration_areas must be one of tac (an area is a set of served TAs,
 * TS 23.501 5.3.2.3). The reason names the entry; conf.c points at it in the file. */
static const char *chk_ras_served(const struct conf *c, char *buf, size_t n)
{
	for (unsigned i = 0; i < c->amf.n_registration_areas; i++) {
		const struct conf_ra *ra = &c->amf.registration_areas[i];

		for (unsigned t = 0; t < ra->n_tac; t++) {
			unsigned k = 0;

			while (k < c->n_tac && c->tac[k] != ra->tac[t])
				k++;
			if (k == c->n_tac) {
				snprintf(buf, n, "amf.registration_areas[%u][%u]: TAC %u is not served (not in tac)",
					 i, t, ra->tac[t]);
				return buf;
			}
		}
	}
	return NULL;
}

/* upf.mode pfcp needs a peer; a peer's DNNs and slices are among those served. */
static const char *chk_upf_peers(const struct conf *c, char *buf, size_t n)
{
	if (c->upf.nat_port_lo > c->upf.nat_port_hi) {
		snprintf(buf, n, "upf.nat_port_lo: %u is above upf.nat_port_hi (%u)", c->upf.nat_port_lo, c->upf.nat_port_hi);
		return buf;
	}
	/* dnns[].pool6 with pfcp: the N4 client sends the /64 in the UE IP Address (TS 29.244
	 * 8.2.62), the UPF installs it (upf/upf_n4c_sess.c, upf_n4_rule.c): allowed. */
	if (c->upf.mode == CONF_UPF_PFCP && c->upf.n3_address6[0]) {
		/* N3 is the UPF box's: solocore run with pfcp has none of its own, and the address the
		 * SMF gives gNBs is the peer's (upf.peers[].n3_address); accepting it here would do
		 * nothing. `solocore upf` reads upf.n3_address6 from its own file (upf_alone.c). */
		snprintf(buf, n, "upf.n3_address6: with upf.mode pfcp N3 is the UPF's: set upf.n3_address6 in the "
			 "UPF's own configuration (solocore upf -c FILE)");
		return buf;
	}
	for (unsigned i = 0; c->upf.mode == CONF_UPF_PFCP && i < c->n_dnns; i++)
		if (c->dnns[i].nat) {
			/* Kept an error on the SMF side: PFCP has no IE that asks a UPF for NAT, and the
			 * N6 address is the UPF's. The UPF decides by the DNN (Network Instance, TS 29.244
			 * 8.2.4, or the UE address's pool) from its own dnns[].nat (upf/upf_n4_rule.c), so
			 * a flag here would be silently ignored: say where it goes. */
			snprintf(buf, n, "dnns[%u].nat: with upf.mode pfcp NAT is the UPF's: set nat: true on this DNN "
				 "(and upf.nat_address) in the UPF's own configuration (solocore upf -c FILE)", i);
			return buf;
		}
	if (c->upf.mode == CONF_UPF_PFCP && !c->upf.n_peers) {
		snprintf(buf, n, "upf.mode: pfcp needs at least one entry in upf.peers");
		return buf;
	}
	for (unsigned i = 0; i < c->upf.n_peers; i++) {
		const struct conf_upf_peer *p = &c->upf.peers[i];

		for (unsigned d = 0; d < p->n_dnns; d++) {
			unsigned k = 0;

			while (k < c->n_dnns && strcasecmp(c->dnns[k].name, p->dnns[d]))
				k++;
			if (k == c->n_dnns) {
				snprintf(buf, n, "upf.peers[%u].dnns[%u]: DNN \"%s\" is not in dnns", i, d, p->dnns[d]);
				return buf;
			}
		}
		for (unsigned q = 0; q < p->n_slices; q++) {
			const struct conf_slice *a = &p->slices[q];
			unsigned k = 0;

			while (k < c->n_slices && (c->slices[k].sst != a->sst || c->slices[k].has_sd != a->has_sd ||
						  (a->has_sd && c->slices[k].sd != a->sd)))
				k++;
			if (k == c->n_slices) {
				snprintf(buf, n, "upf.peers[%u].slices[%u]: slice is not in slices", i, q);
				return buf;
			}
		}
	}
	return NULL;
}

/* cluster: node_id 0 is a single node, and then nothing else of the section counts; a member
 * needs its address, and peers unless it is node 1 (libdqlite bootstraps id 1 only). */
static const char *chk_cluster(struct conf *c, char *buf, size_t n)
{
	if (!c->cluster.node_id) {
		if (c->cluster.address[0] || c->cluster.n_peers || c->cluster.dir[0] || c->cluster.join_token[0]) {
			snprintf(buf, n, "cluster.node_id: needed (1..32) with cluster.address, peers or dir");
			return buf;
		}
		return NULL;
	}
	if (!c->cluster.address[0]) {
		snprintf(buf, n, "cluster.node_id: needs cluster.address (this node's IPv4:port)");
		return buf;
	}
	if (c->cluster.node_id != 1 && !c->cluster.n_peers) {
		snprintf(buf, n, "cluster.node_id: node %llu needs cluster.peers to join through (only node 1 "
			 "bootstraps a cluster)", (unsigned long long)c->cluster.node_id);
		return buf;
	}
	for (unsigned i = 0; i < c->cluster.n_peers; i++)
		if (!strcmp(c->cluster.peers[i], c->cluster.address)) {
			snprintf(buf, n, "cluster.peers[%u]: %s is this node's own address", i, c->cluster.address);
			return buf;
		}
	if (!c->cluster.dir[0] &&
	    snprintf(c->cluster.dir, sizeof(c->cluster.dir), "%s.dqlite", c->db.path) >= (int)sizeof(c->cluster.dir)) {
		c->cluster.dir[0] = 0;
		snprintf(buf, n, "cluster.dir: db.path + \".dqlite\" is too long: give cluster.dir");
		return buf;
	}
	return NULL;
}

const char *conf_schema_finish(struct conf *c, char *buf, size_t n)
{
	const char *why = chk_ras_served(c, buf, n);

	if (!why)
		why = chk_upf_peers(c, buf, n);
	if (!why)
		why = chk_cluster(c, buf, n);
	if (why)
		return why;
	/* TS 24.501 5.3.7: the mobile reachable timer is longer than T3512,
	 * by default 4 minutes. 0 = not given (the file's minimum is 1). */
	if (!c->timers.mobile_reachable)
		c->timers.mobile_reachable = c->timers.t3512 + 240;
	if (c->timers.mobile_reachable <= c->timers.t3512) {
		snprintf(buf, n, "timers.mobile_reachable: %u must be greater than timers.t3512 (%u)",
			 c->timers.mobile_reachable, c->timers.t3512);
		return buf;
	}
	return NULL;
}
