/* SPDX-License-Identifier: AGPL-3.0-or-later */
/* toml - reading a file, freeing a document, and the accessors. */
#include "common/toml/toml_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int toml_parse_file(const char *path, struct toml_doc **out, char *err, size_t errsz)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0) {
		int e = errno;
		if (err && errsz)
			snprintf(err, errsz, "%s: %s", path, strerror(e));
		if (fd >= 0)
			close(fd);
		return -e;
	}
	size_t sz = (size_t)st.st_size;
	char *buf = malloc(sz ? sz : 1);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	size_t got = 0;
	while (got < sz) {
		ssize_t n = read(fd, buf + got, sz - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int e = n < 0 ? errno : EIO;
			if (err && errsz)
				snprintf(err, errsz, "%s: %s", path, strerror(e));
			free(buf);
			close(fd);
			return -e;
		}
		got += (size_t)n;
	}
	close(fd);
	int r = toml_parse_buf(path, buf, sz, out, err, errsz);
	free(buf);
	return r;
}

void toml_free(struct toml_doc *d)
{
	if (!d)
		return;
	for (struct toml_index *ix = d->indexes; ix; ix = ix->next_alloc)
		free(ix->slot);
	struct toml_chunk *c = d->chunks;
	while (c) {
		struct toml_chunk *n = c->next;
		/* SIM files carry K and OPc: wipe the decoded strings. */
		explicit_bzero(c->mem, c->used);
		free(c);
		c = n;
	}
	free(d->name);
	free(d);
}

/* ---- accessors ---- */

const struct toml_node *toml_root(const struct toml_doc *d) { return &d->root; }
const char *toml_name(const struct toml_doc *d) { return d->name; }
size_t toml_mem(const struct toml_doc *d) { return d->mem; }
enum toml_type toml_type(const struct toml_node *n) { return (enum toml_type)n->type; }
const char *toml_key(const struct toml_node *n) { return n->key; }
size_t toml_key_len(const struct toml_node *n) { return n->keylen; }
uint32_t toml_line(const struct toml_node *n) { return n->line; }
const struct toml_node *toml_next(const struct toml_node *n) { return n->next; }

const char *toml_type_name(enum toml_type t)
{
	switch (t) {
	case TOML_TABLE: return "table";
	case TOML_ARRAY: return "array";
	case TOML_STRING: return "string";
	case TOML_INT: return "integer";
	case TOML_BOOL: return "boolean";
	}
	return "?";
}

const struct toml_node *toml_first(const struct toml_node *t)
{
	if (!t || (t->type != TOML_TABLE && t->type != TOML_ARRAY))
		return NULL;
	return t->u.kids.first;
}

size_t toml_count(const struct toml_node *t)
{
	return t && (t->type == TOML_TABLE || t->type == TOML_ARRAY) ? t->len : 0;
}

const char *toml_str(const struct toml_node *n, size_t *len)
{
	if (n->type != TOML_STRING) {
		if (len)
			*len = 0;
		return "";
	}
	if (len)
		*len = n->len;
	return n->u.s;
}

int64_t toml_int(const struct toml_node *n) { return n->type == TOML_INT ? n->u.i : 0; }
bool toml_bool(const struct toml_node *n) { return n->type == TOML_BOOL && n->u.b; }
