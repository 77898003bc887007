/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * nas internals: the message description tables walked by the generic codec
 * (nas_codec.c). Only common/nas and its own tests include this file.
 */
#ifndef SOLOCORE_COMMON_NAS_NAS_INT_H
#define SOLOCORE_COMMON_NAS_NAS_INT_H

#include "common/nas/nas.h"

#include <errno.h>

/* IE format, TS 24.007 11.2.1.1 / TS 24.501 9.2 */
enum nas_fmt {
	NAS_F_V4,   /* mandatory half octet: first in a pair = bits 1-4, second = bits 5-8 */
	NAS_F_V,    /* mandatory fixed length value */
	NAS_F_LV,   /* mandatory, 1-octet length */
	NAS_F_LVE,  /* mandatory, 2-octet length */
	NAS_F_TV1,  /* optional type 1: IEI bits 8-5, value bits 4-1 */
	NAS_F_TV,   /* optional IEI + fixed value */
	NAS_F_TLV,  /* optional IEI + 1-octet length */
	NAS_F_TLVE, /* optional IEI + 2-octet length */
};

/* How the value of an IE maps to its struct field */
enum nas_codec {
	NAS_C_SPARE4,   /* spare half octet: no field */
	NAS_C_U4,       /* uint8_t, 4-bit value */
	NAS_C_U8,       /* uint8_t, one value octet */
	NAS_C_BUF,      /* struct nas_buf */
	NAS_C_MOBID,    /* struct nas_mobile_id */
	NAS_C_SNSSAI,   /* struct nas_snssai */
	NAS_C_NSSAI,    /* struct nas_nssai */
	NAS_C_UESEC,    /* struct nas_ue_sec_cap */
	NAS_C_TAIL,     /* struct nas_tai_list */
	NAS_C_PSIMAP,   /* uint16_t */
	NAS_C_AMBR,     /* struct nas_session_ambr */
	NAS_C_PDUADDR,  /* struct nas_pdu_address */
	NAS_C_NETNAME,  /* struct nas_network_name */
};

/* How to_str renders a value (beyond its codec's own to_str) */
enum nas_str {
	NAS_S_DEF,      /* codec default (hex for buffers, decimal/hex for numbers) */
	NAS_S_SECRET,   /* length only: RES*, AUTS, EAP payloads */
	NAS_S_DNN,
	NAS_S_TIMER2,
	NAS_S_TIMER3,
	NAS_S_MMCAUSE,
	NAS_S_SMCAUSE,
	NAS_S_NESTED,   /* a NAS message inside (payload / NAS message container) */
	NAS_S_DEC,      /* decimal number (PDU session identity) */
	NAS_S_TZ,       /* time zone octet */
};

struct nas_ie_desc {
	uint8_t iei;        /* optional IEs: IEI (TV1: the bits 8-5 value, e.g. 0x8 for "8-") */
	uint8_t fmt;        /* enum nas_fmt */
	uint8_t codec;      /* enum nas_codec */
	uint8_t str;        /* enum nas_str */
	uint16_t min, max;  /* value length bounds in octets (without IEI and length) */
	uint16_t off;       /* offsetof(struct nas_msg, value field) */
	int16_t has;        /* offsetof(struct nas_msg, has_ flag), -1 for mandatory */
	const char *name;   /* field name used by to_str */
	const char *ref;    /* TS 24.501 clause of the IE */
};

struct nas_msg_desc {
	uint8_t type;
	uint8_t epd;
	const char *name;
	const char *ref;    /* TS 24.501 clause of the message */
	const struct nas_ie_desc *ies;
	uint8_t n_ies;
	uint16_t clear;     /* bytes of struct nas_msg this message uses (zeroed by decode) */
};

/* Description of a message type, or NULL. */
const struct nas_msg_desc *nas_msg_desc_get(uint8_t type);
/* The optional IE of message md that the IEI octet t starts, or NULL. */
const struct nas_ie_desc *nas_ie_lookup(const struct nas_msg_desc *md, uint8_t t);

/* Record a decode error; returns code. */
static inline int nas_fail(struct nas_err *e, size_t off, int code, const char *reason)
{
	if (e) {
		e->off = off;
		e->reason = reason;
	}
	return code;
}

/* Append to a to_str buffer (snprintf semantics on the running length). */
int nas_sappend(char *buf, size_t sz, int *pos, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Hex dump of n bytes. */
void nas_shex(char *buf, size_t sz, int *pos, const uint8_t *p, size_t n);

#endif
