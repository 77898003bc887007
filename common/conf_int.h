/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * conf internals: the schema item that drives parsing, defaults, printing
 * and comparison (common/conf.c), and the table itself (common/conf_schema.c).
 * Nothing outside common/conf*.c includes this.
 */
#ifndef SOLOCORE_COMMON_CONF_INT_H
#define SOLOCORE_COMMON_CONF_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct conf;

enum conf_kind {
	CK_MAP,     /* nested mapping: sub = children, terminated by an item with key NULL */
	CK_BOOL,    /* bool */
	CK_INT,     /* unsigned integer of `size` bytes (1, 2, 4), range min..max */
	CK_STR,     /* char[size], NUL-terminated */
	CK_ENUM,    /* uint8_t index into names[] (NULL-terminated) */
	CK_HEXINT,  /* uint32_t from exactly `size` hex digits ("010203") */
	CK_HEX,     /* uint8_t[size] from exactly 2*size hex digits */
	CK_LIST,    /* array of elements described by sub[0] (its off is 0), size = element
		     * size, count in an unsigned at cnt_off, min..max entries */
};

#define CF_REQUIRED 0x01u  /* inside a list element: the key must be given */
#define CF_NONEMPTY 0x02u  /* CK_STR: "" is rejected */
#define CF_HAS      0x04u  /* a bool at has_off records presence (CK_HEX, CK_HEXINT) */
#define CF_SECRET   0x08u  /* printed as "<redacted>" by conf_print_redacted */
#define CF_UNIQUE   0x10u  /* CK_LIST of scalars: no value twice */
#define CF_OPTIONAL 0x20u  /* CK_STR: "" means not set; printed as a comment when unset */

struct conf_item {
	const char *key;
	enum conf_kind kind;
	unsigned flags;
	size_t off;              /* in the parent struct */
	size_t size;
	size_t cnt_off;          /* CK_LIST */
	size_t has_off;          /* CF_HAS */
	int64_t min, max;        /* CK_INT value range; CK_LIST entry count range */
	const char *const *names;        /* CK_ENUM */
	const struct conf_item *sub;     /* CK_MAP children; CK_LIST element (one item) */
	const char *def;         /* default as YAML text; NULL: zero / children's defaults */
	/* Extra validation after the value (scalar or whole mapping) is set; may
	 * complete the value (e.g. read a key file). Returns NULL or a reason,
	 * possibly formatted into buf. */
	const char *(*check)(void *val, char *buf, size_t bufsz);
	/* CK_LIST: validation across entries; sets *bad to the offending index. */
	const char *(*check_list)(const void *first, unsigned n, unsigned *bad, char *buf, size_t bufsz);
	const char *doc;         /* one-line comment for conf_print */
};

/* Read an unsigned field of 1, 2, 4 or 8 bytes. */
static inline uint64_t conf_get_uint(const void *ptr, size_t size)
{
	switch (size) {
	case 1: return *(const uint8_t *)ptr;
	case 2: return *(const uint16_t *)ptr;
	case 4: return *(const uint32_t *)ptr;
	default: return *(const uint64_t *)ptr;
	}
}

/* The top-level mapping of struct conf. */
extern const struct conf_item conf_schema[];
/* Cross-section rules and derived defaults, run on the whole struct after
 * defaults and after a file. NULL or a reason ("key.path: reason"). */
const char *conf_schema_finish(struct conf *c, char *buf, size_t bufsz);

/* True for a value print must leave out because another key stands for it
 * (a SUCI key read from private_key_file is printed as the path). */
bool conf_schema_print_skip(const struct conf_item *it, const void *base);

#endif
