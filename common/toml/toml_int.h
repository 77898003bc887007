/* SPDX-License-Identifier: AGPL-3.0-or-later */
/* toml internals shared by toml.c (parser) and toml_doc.c (document, accessors). */
#ifndef SOLOCORE_COMMON_TOML_TOML_INT_H
#define SOLOCORE_COMMON_TOML_TOML_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/toml/toml.h"

#define TOML_CHUNK (1u << 20)      /* largest arena chunk */
#define TOML_INDEX_MIN 8           /* members before a table gets a hash index */
#define TOML_MAX_DEPTH 64          /* nesting of arrays/inline tables */

enum {
	TF_IMPLICIT = 1,  /* intermediate of a header path: may still get its own header */
	TF_DOTTED = 2,    /* created by dotted keys: extendable by dotted keys only */
	TF_SEALED = 4,    /* inline table or defined by a header: no more headers */
	TF_INLINE = 8,    /* inline table: nothing may extend it */
};

struct toml_index {
	struct toml_index *next_alloc;
	uint32_t cap;      /* power of two */
	uint32_t used;
	struct toml_node **slot;
};

struct toml_node {
	struct toml_node *next;
	const char *key;
	union {
		struct {
			struct toml_node *first, *last;
			struct toml_index *idx;
		} kids;
		const char *s;
		int64_t i;
		bool b;
	} u;
	uint32_t len;     /* string length or member count */
	uint32_t keylen;
	uint32_t line;
	uint8_t type;
	uint8_t flags;
};

struct toml_chunk {
	struct toml_chunk *next;
	size_t used, cap;
	char mem[];
};

struct toml_doc {
	struct toml_chunk *chunks;
	struct toml_index *indexes;
	size_t mem;
	size_t chunk;   /* size of the next chunk: small first, doubling to TOML_CHUNK */
	struct toml_node root;
	char *name;
};

#endif
