/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * toml - a small TOML 1.0 reader (no Debian package provides one for C).
 *
 * Covers what solocore's files use: comments, bare and quoted keys, dotted
 * keys, [tables], basic strings (with \b \t \n \f \r \" \\ \uXXXX \UXXXXXXXX)
 * and literal strings, integers (decimal, 0x hex, 0o octal, 0b binary, '_'
 * between digits), booleans, arrays (any element types, newlines and
 * comments inside, trailing comma) and inline tables.
 * Not supported, reported as an error: floats, dates/times, multi-line
 * strings, arrays of tables ([[x]]).
 *
 * The whole file becomes one document whose nodes and strings live in an
 * arena (a few large chunks, freed together): no allocation per value.
 * Tables with many keys get a hash index, so a file of 1,000,000 [imsi-...]
 * tables parses in linear time.
 *
 * Errors are written as "file:line: reason", e.g.
 *   sims.toml:12: duplicate key 'ki'
 * Nodes are owned by the document; they stay valid until toml_free().
 */
#ifndef SOLOCORE_COMMON_TOML_H
#define SOLOCORE_COMMON_TOML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum toml_type {
	TOML_TABLE = 0,
	TOML_ARRAY = 1,
	TOML_STRING = 2,
	TOML_INT = 3,
	TOML_BOOL = 4,
};

struct toml_doc;
struct toml_node;

/* Parse a file. 0 and *out set, or a negative errno with the message in err
 * (-EINVAL: syntax, "file:line: reason"; -ENOENT etc.: "file: strerror";
 * -ENOMEM). err may be NULL. */
int toml_parse_file(const char *path, struct toml_doc **out, char *err, size_t errsz);
/* Parse a buffer; name is used in error messages in place of the file name. */
int toml_parse_buf(const char *name, const char *buf, size_t len, struct toml_doc **out,
		   char *err, size_t errsz);
/* Accepts NULL. Wipes the decoded strings (SIM files hold keys). */
void toml_free(struct toml_doc *doc);

/* The root table. */
const struct toml_node *toml_root(const struct toml_doc *doc);
/* The name given to toml_parse_*, for messages. */
const char *toml_name(const struct toml_doc *doc);
/* Bytes held by the document (arena and indexes), for benchmarks. */
size_t toml_mem(const struct toml_doc *doc);

enum toml_type toml_type(const struct toml_node *n);
const char *toml_type_name(enum toml_type t);
/* Key of a table member (NUL-terminated; may contain any byte a quoted key
 * can hold), NULL for an array element. */
const char *toml_key(const struct toml_node *n);
/* Its length in bytes (a quoted key may hold "\u0000"); 0 for array elements. */
size_t toml_key_len(const struct toml_node *n);
/* Line where the value (or, for a table, its header/first key) appears. */
uint32_t toml_line(const struct toml_node *n);

/* Member of a table by key, or NULL (also when t is not a table). */
const struct toml_node *toml_get(const struct toml_node *t, const char *key);
/* First member of a table / element of an array (NULL if empty), in file order. */
const struct toml_node *toml_first(const struct toml_node *t);
const struct toml_node *toml_next(const struct toml_node *n);
/* Members of a table or elements of an array. */
size_t toml_count(const struct toml_node *t);

/* Values. The caller checks toml_type() first; these return ""/0/false on a
 * type mismatch. Strings are NUL-terminated; len (may be NULL) excludes it. */
const char *toml_str(const struct toml_node *n, size_t *len);
int64_t toml_int(const struct toml_node *n);
bool toml_bool(const struct toml_node *n);

#endif
