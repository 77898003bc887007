/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * pfcp internals: the IE description tables (pfcp_tab.c) walked by the one
 * generic TLV walker (pfcp_frame.c), and the value codecs of the IEs
 * (pfcp_ie.c). Only common/pfcp and its own tests include this file.
 */
#ifndef SOLOCORE_COMMON_PFCP_PFCP_INT_H
#define SOLOCORE_COMMON_PFCP_PFCP_INT_H

#include "common/pfcp/pfcp.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>

/* How an IE's value maps to its struct field */
enum pfcp_kind {
	PFCP_K_U8,      /* uint8_t; desc.arg = mask of the value bits (spare bits dropped) */
	PFCP_K_U16,     /* uint16_t */
	PFCP_K_U32,     /* uint32_t */
	PFCP_K_FLAGS,   /* uint32_t bit string, octet 5 in bits 0-7; desc.arg = octets encoded and read */
	PFCP_K_BUF,     /* struct pfcp_buf; desc.arg = minimum length */
	PFCP_K_NODE_ID, /* struct pfcp_node_id */
	PFCP_K_FSEID,   /* struct pfcp_fseid */
	PFCP_K_FTEID,   /* struct pfcp_fteid */
	PFCP_K_UE_IP,   /* struct pfcp_ue_ip */
	PFCP_K_SDF,     /* struct pfcp_sdf */
	PFCP_K_OHC,     /* struct pfcp_ohc */
	PFCP_K_OHR,     /* struct pfcp_ohr */
	PFCP_K_VOLUME,  /* struct pfcp_volume, threshold / quota layout */
	PFCP_K_VOLMEAS, /* struct pfcp_volume, measurement layout (+ packet counts) */
	PFCP_K_BITRATE, /* struct pfcp_bitrate */
	PFCP_K_RULE_ID, /* struct pfcp_rule_id, 8.2.80 */
	PFCP_K_GROUP,   /* grouped IE: desc.grp describes its contents */
	PFCP_K_COUNT
};

struct pfcp_grp;

/* One IE of a message or grouped IE (TS 29.244 7.4 / 7.5 tables) */
struct pfcp_ie_desc {
	uint16_t type;          /* IE type, 8.1.2 */
	uint8_t kind;           /* enum pfcp_kind */
	uint8_t mand;           /* presence M: decode fails with -ENOENT without it */
	uint8_t max;            /* 1: single IE at off; > 1: array at off, count at cnt_off */
	uint8_t arg;            /* kind parameter, see enum pfcp_kind */
	uint16_t off;           /* offset of the value (or the array) in the struct */
	uint16_t cnt_off;       /* arrays: offset of their uint8_t count */
	uint16_t esize;         /* size of one value */
	uint32_t bit;           /* the struct's `has` bit */
	const struct pfcp_grp *grp;
};

/* The contents of a grouped IE or of a message body; every struct it fills
 * starts with `uint32_t has`. */
struct pfcp_grp {
	uint16_t type;          /* the grouped IE's type; 0 for a message body */
	uint8_t n;
	const struct pfcp_ie_desc *ie;
};

/* A message: which body it fills and whether its header carries a SEID */
struct pfcp_msg_desc {
	uint8_t type;
	uint8_t session;        /* S = 1 (7.2.2.1) */
	const char *name;
	const struct pfcp_grp *body; /* never NULL: an empty table for no IEs */
	uint16_t size;          /* of the body struct: what a decode clears */
};

/* Value codec of one kind: dec returns 0 or -EBADMSG / -EINVAL with *why set;
 * enc returns the value length or -ENOSPC / -EINVAL / -ERANGE. */
struct pfcp_codec {
	int (*dec)(const uint8_t *p, size_t len, void *v, const struct pfcp_ie_desc *d, const char **why);
	int (*enc)(uint8_t *p, size_t cap, const void *v, const struct pfcp_ie_desc *d);
	int (*str)(char *out, size_t cap, const void *v, const struct pfcp_ie_desc *d);
};
extern const struct pfcp_codec pfcp_codecs[PFCP_K_COUNT];

/* pfcp_ie_rule.c: the values inside PDRs, FARs, QERs and URRs */
#define PFCP_CODEC_DECL(name)                                                                    \
	int pfcp_##name##_dec(const uint8_t *p, size_t len, void *v, const struct pfcp_ie_desc *d, \
			      const char **why);                                                 \
	int pfcp_##name##_enc(uint8_t *p, size_t cap, const void *v, const struct pfcp_ie_desc *d); \
	int pfcp_##name##_str(char *out, size_t cap, const void *v, const struct pfcp_ie_desc *d)
PFCP_CODEC_DECL(ue_ip);
PFCP_CODEC_DECL(sdf);
PFCP_CODEC_DECL(ohc);
PFCP_CODEC_DECL(ohr);
PFCP_CODEC_DECL(vol);
PFCP_CODEC_DECL(br);
PFCP_CODEC_DECL(rule_id);

/* pfcp_str.c: append to out[cap] at offset k like snprintf; returns the new
 * offset (which may pass cap: the text was truncated). */
int pfcp_catf(char *out, size_t cap, int k, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
int pfcp_cathex(char *out, size_t cap, int k, const uint8_t *p, size_t len);
/* " v4=a.b.c.d" when v4, " v6=<hex>" when v6 */
int pfcp_cataddr(char *out, size_t cap, int k, const uint8_t *v4, const uint8_t *v6);

/* pfcp_tab.c */
const struct pfcp_msg_desc *pfcp_msg_desc(uint8_t type);
/* Every message description, for the tests and to_str. */
extern const struct pfcp_msg_desc pfcp_msgs[];
extern const size_t pfcp_n_msgs;

/* pfcp_frame.c: the walker over one table */
int pfcp_grp_dec(const struct pfcp_grp *g, const uint8_t *p, size_t len, void *out, int depth,
		 size_t base, struct pfcp_err *e);
int pfcp_grp_enc(const struct pfcp_grp *g, const void *in, uint8_t *out, size_t cap, int depth);

/* Address of value i of entry d in struct s */
static inline void *pfcp_val(void *s, const struct pfcp_ie_desc *d, unsigned i)
{
	return (uint8_t *)s + d->off + (size_t)i * d->esize;
}

static inline const void *pfcp_cval(const void *s, const struct pfcp_ie_desc *d, unsigned i)
{
	return (const uint8_t *)s + d->off + (size_t)i * d->esize;
}

/* Number of values of entry d set in struct s (0 or 1 for a single IE) */
static inline unsigned pfcp_count(const void *s, const struct pfcp_ie_desc *d)
{
	if (d->max > 1)
		return *((const uint8_t *)s + d->cnt_off);
	return (*(const uint32_t *)s & d->bit) ? 1 : 0;
}

/* Big-endian field helpers for the IE codecs */
static inline uint32_t pfcp_get(const uint8_t *p, unsigned n)
{
	uint32_t v = 0;

	for (unsigned i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

static inline void pfcp_put(uint8_t *p, uint64_t v, unsigned n)
{
	for (unsigned i = n; i-- > 0; v >>= 8)
		p[i] = (uint8_t)v;
}

static inline uint64_t pfcp_get64(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

/* The IPv4 then IPv6 address fields that flags select (F-SEID, F-TEID, UE IP
 * address, outer header creation); the caller has checked the length. */
static inline const uint8_t *pfcp_get_addrs(const uint8_t *p, bool v4, bool v6, uint8_t *ipv4, uint8_t *ipv6)
{
	if (v4) {
		memcpy(ipv4, p, 4);
		p += 4;
	}
	if (v6) {
		memcpy(ipv6, p, 16);
		p += 16;
	}
	return p;
}

static inline uint8_t *pfcp_put_addrs(uint8_t *p, bool v4, bool v6, const uint8_t *ipv4, const uint8_t *ipv6)
{
	if (v4) {
		memcpy(p, ipv4, 4);
		p += 4;
	}
	if (v6) {
		memcpy(p, ipv6, 16);
		p += 16;
	}
	return p;
}

#endif
