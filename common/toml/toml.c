/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * toml - the reader. One pass over the buffer with a cursor; nodes and
 * strings are carved from an arena; tables with more than TOML_INDEX_MIN
 * members get an open-addressing hash index so member lookup stays O(1)
 * (the root of a SIM file has one member per subscriber).
 *
 * Table definition rules (TOML 1.0 "Table"): a table may be defined once,
 * either by a [header], by dotted keys, or as an inline table. Tables
 * created as intermediates of a header path ([a.b] creates a) may later be
 * defined by their own header. Inline tables are sealed. Dotted keys only
 * extend tables that dotted keys created.
 */
#include "common/hash.h"
#include "common/hex.h"
#include "common/toml/toml_int.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct parser {
	struct toml_doc *doc;
	const char *p, *end;
	uint32_t line;
	int depth;
	char *err;
	size_t errsz;
};

/* ---- arena ---- */

/* align: 8 for nodes, 1 for string bytes (a SIM file is mostly strings). */
static void *arena_alloc_align(struct toml_doc *d, size_t n, size_t align)
{
	struct toml_chunk *c = d->chunks;
	if (c) {
		size_t u = (c->used + align - 1) & ~(align - 1);
		c->used = u < c->cap ? u : c->cap;
	}
	if (!c || c->cap - c->used < n) {
		size_t cap = n > d->chunk ? n : d->chunk;
		if (d->chunk < TOML_CHUNK)
			d->chunk *= 2;
		c = malloc(sizeof(*c) + cap);
		if (!c)
			return NULL;
		c->cap = cap;
		c->used = 0;
		c->next = d->chunks;
		d->chunks = c;
		d->mem += sizeof(*c) + cap;
	}
	void *r = c->mem + c->used;
	c->used += n;
	return r;
}

static void *arena_alloc(struct toml_doc *d, size_t n)
{
	return arena_alloc_align(d, n, 8);
}

/* ---- errors ---- */

__attribute__((format(printf, 3, 4)))
static int perr(struct parser *ps, uint32_t line, const char *fmt, ...)
{
	if (ps->err && ps->errsz) {
		int n = snprintf(ps->err, ps->errsz, "%s:%u: ", ps->doc->name, line);
		if (n >= 0 && (size_t)n < ps->errsz) {
			va_list ap;
			va_start(ap, fmt);
			vsnprintf(ps->err + n, ps->errsz - (size_t)n, fmt, ap);
			va_end(ap);
		}
	}
	return -EINVAL;
}

/* ---- tables ---- */


static int index_put(struct toml_index *ix, struct toml_node *n)
{
	uint32_t m = ix->cap - 1;
	for (uint32_t h = hash_fnv1a(n->key, n->keylen) & m;; h = (h + 1) & m) {
		if (!ix->slot[h]) {
			ix->slot[h] = n;
			ix->used++;
			return 0;
		}
	}
}

static int index_grow(struct toml_doc *d, struct toml_node *t)
{
	struct toml_index *ix = t->u.kids.idx;
	if (ix && (ix->used + 1) * 2 <= ix->cap)
		return 0;
	uint32_t cap = ix ? ix->cap * 2 : 64;
	struct toml_node **slot = calloc(cap, sizeof(*slot));
	if (!slot)
		return -ENOMEM;
	if (!ix) {
		ix = arena_alloc(d, sizeof(*ix));
		if (!ix) {
			free(slot);
			return -ENOMEM;
		}
		ix->next_alloc = d->indexes;
		d->indexes = ix;
		t->u.kids.idx = ix;
	} else {
		free(ix->slot);
		d->mem -= (size_t)ix->cap * sizeof(*slot);
	}
	d->mem += (size_t)cap * sizeof(*slot);
	ix->cap = cap;
	ix->used = 0;
	ix->slot = slot;
	for (struct toml_node *k = t->u.kids.first; k; k = k->next)
		index_put(ix, k);
	return 0;
}

static struct toml_node *find(const struct toml_node *t, const char *key, size_t len)
{
	const struct toml_index *ix = t->u.kids.idx;
	if (ix) {
		uint32_t m = ix->cap - 1;
		for (uint32_t h = hash_fnv1a(key, len) & m; ix->slot[h]; h = (h + 1) & m) {
			struct toml_node *n = ix->slot[h];
			if (n->keylen == len && memcmp(n->key, key, len) == 0)
				return n;
		}
		return NULL;
	}
	for (struct toml_node *n = t->u.kids.first; n; n = n->next)
		if (n->keylen == len && memcmp(n->key, key, len) == 0)
			return n;
	return NULL;
}

const struct toml_node *toml_get(const struct toml_node *t, const char *key)
{
	if (!t || t->type != TOML_TABLE)
		return NULL;
	return find(t, key, strlen(key));
}

static struct toml_node *new_node(struct parser *ps, uint8_t type, uint32_t line)
{
	struct toml_node *n = arena_alloc(ps->doc, sizeof(*n));
	if (n) {
		memset(n, 0, sizeof(*n));
		n->type = type;
		n->line = line;
	}
	return n;
}

/* Append child (its key already set) to table or array t. */
static int append(struct toml_doc *d, struct toml_node *t, struct toml_node *n)
{
	if (t->type == TOML_TABLE && t->len >= TOML_INDEX_MIN) {
		int r = index_grow(d, t);
		if (r < 0)
			return r;
		index_put(t->u.kids.idx, n);
	}
	if (t->u.kids.last)
		t->u.kids.last->next = n;
	else
		t->u.kids.first = n;
	t->u.kids.last = n;
	t->len++;
	return 0;
}

/* ---- lexing ---- */

static bool is_bare(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '-';
}

static void skip_ws(struct parser *ps)
{
	while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t'))
		ps->p++;
}

static void skip_comment(struct parser *ps)
{
	if (ps->p < ps->end && *ps->p == '#')
		while (ps->p < ps->end && *ps->p != '\n')
			ps->p++;
}

/* At a newline (or EOF): consume it. Returns false if something else is here. */
static bool eat_newline(struct parser *ps)
{
	if (ps->p >= ps->end)
		return true;
	if (*ps->p == '\n') {
		ps->p++;
		ps->line++;
		return true;
	}
	if (*ps->p == '\r' && ps->p + 1 < ps->end && ps->p[1] == '\n') {
		ps->p += 2;
		ps->line++;
		return true;
	}
	return false;
}

/* Whitespace, comments and newlines (inside arrays). */
static void skip_ws_nl(struct parser *ps)
{
	for (;;) {
		skip_ws(ps);
		skip_comment(ps);
		if (ps->p >= ps->end || !eat_newline(ps) || ps->p >= ps->end)
			return;
	}
}

static int utf8_put(char *o, uint32_t cp)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xc0 | (cp >> 6));
		o[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xe0 | (cp >> 12));
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | (cp >> 18));
	o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	o[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* A basic ("...") or literal ('...') single-line string at ps->p. The
 * decoded text goes to the arena; out and outlen receive it. */
static int parse_string(struct parser *ps, const char **out, uint32_t *outlen)
{
	char q = *ps->p;
	const char *s = ps->p + 1;
	if (ps->end - ps->p >= 3 && ps->p[1] == q && ps->p[2] == q)
		return perr(ps, ps->line, "multi-line strings are not supported");
	/* Find the closing quote first: the decoded text is never longer. */
	const char *e = s;
	while (e < ps->end && *e != q && *e != '\n') {
		if (q == '"' && *e == '\\' && e + 1 < ps->end && e[1] != '\n')
			e++;
		e++;
	}
	if (e >= ps->end || *e != q)
		return perr(ps, ps->line, "unterminated string");
	char *o = arena_alloc_align(ps->doc, (size_t)(e - s) + 1, 1);
	if (!o)
		return -ENOMEM;
	size_t n = 0;
	for (const char *c = s; c < e; c++) {
		unsigned char ch = (unsigned char)*c;
		if ((ch < 0x20 && ch != '\t') || ch == 0x7f)
			return perr(ps, ps->line, "control character in string");
		if (q == '\'' || ch != '\\') {
			o[n++] = (char)ch;
			continue;
		}
		c++;
		switch (*c) {
		case 'b': o[n++] = '\b'; break;
		case 't': o[n++] = '\t'; break;
		case 'n': o[n++] = '\n'; break;
		case 'f': o[n++] = '\f'; break;
		case 'r': o[n++] = '\r'; break;
		case '"': o[n++] = '"'; break;
		case '\\': o[n++] = '\\'; break;
		case 'u':
		case 'U': {
			int digits = *c == 'u' ? 4 : 8;
			uint32_t cp = 0;
			if (e - c - 1 < digits)
				return perr(ps, ps->line, "bad unicode escape in string");
			for (int i = 1; i <= digits; i++) {
				int v = hex_digit((unsigned char)c[i]);
				if (v < 0)
					return perr(ps, ps->line, "bad unicode escape in string");
				cp = cp << 4 | (uint32_t)v;
			}
			if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
				return perr(ps, ps->line, "bad unicode escape in string");
			n += (size_t)utf8_put(o + n, cp);
			c += digits;
			break;
		}
		default:
			return perr(ps, ps->line, "bad escape '\\%c' in string", *c);
		}
	}
	o[n] = 0;
	*out = o;
	*outlen = (uint32_t)n;
	ps->p = e + 1;
	return 0;
}

/* One key part: bare, "basic" or 'literal'. */
static int parse_key_part(struct parser *ps, const char **key, uint32_t *len)
{
	if (ps->p < ps->end && (*ps->p == '"' || *ps->p == '\''))
		return parse_string(ps, key, len);
	const char *s = ps->p;
	while (ps->p < ps->end && is_bare(*ps->p))
		ps->p++;
	if (ps->p == s)
		return perr(ps, ps->line, "invalid key");
	char *k = arena_alloc_align(ps->doc, (size_t)(ps->p - s) + 1, 1);
	if (!k)
		return -ENOMEM;
	memcpy(k, s, (size_t)(ps->p - s));
	k[ps->p - s] = 0;
	*key = k;
	*len = (uint32_t)(ps->p - s);
	return 0;
}

#define MAX_KEY_PARTS 16

struct dotted {
	const char *part[MAX_KEY_PARTS];
	uint32_t len[MAX_KEY_PARTS];
	int n;
};

static int parse_dotted(struct parser *ps, struct dotted *k)
{
	k->n = 0;
	for (;;) {
		skip_ws(ps);
		if (k->n == MAX_KEY_PARTS)
			return perr(ps, ps->line, "key has too many parts");
		int r = parse_key_part(ps, &k->part[k->n], &k->len[k->n]);
		if (r < 0)
			return r;
		k->n++;
		skip_ws(ps);
		if (ps->p >= ps->end || *ps->p != '.')
			return 0;
		ps->p++;
	}
}

/* ---- values ---- */

static int parse_value(struct parser *ps, struct toml_node *n);

static int digit_in_base(char c, int base)
{
	int v = hex_digit((unsigned char)c);
	return v >= 0 && v < base ? v : -1;
}

static int parse_number(struct parser *ps, struct toml_node *n)
{
	const char *s = ps->p;
	bool neg = false;
	int base = 10;
	if (ps->p < ps->end && (*ps->p == '+' || *ps->p == '-')) {
		neg = *ps->p == '-';
		ps->p++;
	}
	const char *w = ps->p;
	while (w < ps->end && (is_bare(*w) || *w == '.' || *w == ':' || *w == '+'))
		w++;
	size_t wl = (size_t)(w - ps->p);
	if ((wl == 3 && (!memcmp(ps->p, "inf", 3) || !memcmp(ps->p, "nan", 3))))
		return perr(ps, ps->line, "floats are not supported");
	if (wl == 0 || ps->p[0] < '0' || ps->p[0] > '9')
		return perr(ps, ps->line, "invalid value");
	if (wl >= 2 && ps->p[0] == '0' && (ps->p[1] == 'x' || ps->p[1] == 'o' || ps->p[1] == 'b')) {
		if (ps->p != s)
			return perr(ps, ps->line, "invalid integer");
		base = ps->p[1] == 'x' ? 16 : ps->p[1] == 'o' ? 8 : 2;
		ps->p += 2;
	}
	uint64_t v = 0;
	int ndig = 0;
	bool prev_digit = false;
	const char *first = ps->p;
	for (; ps->p < w; ps->p++) {
		char c = *ps->p;
		if (c == '_') {
			if (!prev_digit || ps->p + 1 >= w || digit_in_base(ps->p[1], base) < 0)
				return perr(ps, ps->line, "invalid integer");
			prev_digit = false;
			continue;
		}
		int d = digit_in_base(c, base);
		if (d < 0) {
			if (base == 10 && (c == '.' || c == 'e' || c == 'E'))
				return perr(ps, ps->line, "floats are not supported");
			if (base == 10 && (c == '-' || c == ':'))
				return perr(ps, ps->line, "dates and times are not supported");
			return perr(ps, ps->line, "invalid integer");
		}
		if (v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
			return perr(ps, ps->line, "integer out of range");
		v = v * (uint64_t)base + (uint64_t)d;
		ndig++;
		prev_digit = true;
	}
	if (!ndig)
		return perr(ps, ps->line, base != 10 || first != s ? "invalid integer" : "invalid value");
	if (base == 10 && *first == '0' && ndig > 1)
		return perr(ps, ps->line, "leading zeros are not allowed");
	if (v > (uint64_t)INT64_MAX + (neg ? 1u : 0u))
		return perr(ps, ps->line, "integer out of range");
	n->type = TOML_INT;
	n->u.i = neg ? (int64_t)(0 - v) : (int64_t)v;
	return 0;
}

static int parse_array(struct parser *ps, struct toml_node *a)
{
	uint32_t start = ps->line;
	a->type = TOML_ARRAY;
	a->flags = TF_INLINE;
	ps->p++;
	for (;;) {
		skip_ws_nl(ps);
		if (ps->p >= ps->end)
			return perr(ps, start, "unterminated array");
		if (*ps->p == ']') {
			ps->p++;
			return 0;
		}
		struct toml_node *e = new_node(ps, TOML_INT, ps->line);
		if (!e)
			return -ENOMEM;
		int r = parse_value(ps, e);
		if (r < 0)
			return r;
		append(ps->doc, a, e);
		skip_ws_nl(ps);
		if (ps->p >= ps->end)
			return perr(ps, start, "unterminated array");
		if (*ps->p == ',') {
			ps->p++;
			continue;
		}
		if (*ps->p != ']')
			return perr(ps, ps->line, "expected ',' or ']' in array");
	}
}

static int assign(struct parser *ps, struct toml_node *table);

static int parse_inline_table(struct parser *ps, struct toml_node *t)
{
	uint32_t start = ps->line;
	t->type = TOML_TABLE;
	ps->p++;
	skip_ws(ps);
	if (ps->p < ps->end && *ps->p == '}') {
		ps->p++;
		t->flags = TF_INLINE | TF_SEALED;
		return 0;
	}
	for (;;) {
		int r = assign(ps, t);
		if (r < 0)
			return r;
		skip_ws(ps);
		if (ps->p >= ps->end || *ps->p == '\n' || *ps->p == '\r')
			return perr(ps, start, "unterminated inline table");
		if (*ps->p == '}') {
			ps->p++;
			break;
		}
		if (*ps->p != ',')
			return perr(ps, ps->line, "expected ',' or '}' in inline table");
		ps->p++;
	}
	/* Sealed: neither headers nor dotted keys outside the braces may add
	 * to it (TOML 1.0 "Inline Table"). Its dotted sub-tables cannot be
	 * reached from outside once it is sealed. */
	t->flags = TF_INLINE | TF_SEALED;
	return 0;
}

static int parse_value(struct parser *ps, struct toml_node *n)
{
	if (ps->p >= ps->end || *ps->p == '\n' || *ps->p == '\r' || *ps->p == '#')
		return perr(ps, ps->line, "missing value");
	if (++ps->depth > TOML_MAX_DEPTH)
		return perr(ps, ps->line, "values nested too deeply");
	int r;
	char c = *ps->p;
	if (c == '"' || c == '\'') {
		n->type = TOML_STRING;
		r = parse_string(ps, &n->u.s, &n->len);
	} else if (c == '[') {
		r = parse_array(ps, n);
	} else if (c == '{') {
		r = parse_inline_table(ps, n);
	} else if (ps->end - ps->p >= 4 && !memcmp(ps->p, "true", 4) &&
		   (ps->end - ps->p == 4 || !is_bare(ps->p[4]))) {
		n->type = TOML_BOOL;
		n->u.b = true;
		ps->p += 4;
		r = 0;
	} else if (ps->end - ps->p >= 5 && !memcmp(ps->p, "false", 5) &&
		   (ps->end - ps->p == 5 || !is_bare(ps->p[5]))) {
		n->type = TOML_BOOL;
		n->u.b = false;
		ps->p += 5;
		r = 0;
	} else if ((c >= '0' && c <= '9') || c == '+' || c == '-' || c == 'i' || c == 'n') {
		r = parse_number(ps, n);
	} else {
		r = perr(ps, ps->line, "invalid value");
	}
	ps->depth--;
	return r;
}

/* key = value, into table (a [header] table, the root or an inline table). */
static int assign(struct parser *ps, struct toml_node *table)
{
	struct dotted k;
	uint32_t line = ps->line;
	int r = parse_dotted(ps, &k);
	if (r < 0)
		return r;
	if (ps->p >= ps->end || *ps->p != '=')
		return perr(ps, line, "expected '=' after key");
	ps->p++;
	skip_ws(ps);
	struct toml_node *t = table;
	for (int i = 0; i < k.n - 1; i++) {
		struct toml_node *c = find(t, k.part[i], k.len[i]);
		if (!c) {
			c = new_node(ps, TOML_TABLE, line);
			if (!c)
				return -ENOMEM;
			c->key = k.part[i];
			c->keylen = k.len[i];
			c->flags = TF_DOTTED;
			if ((r = append(ps->doc, t, c)) < 0)
				return r;
		} else if (c->type != TOML_TABLE || !(c->flags & TF_DOTTED)) {
			return perr(ps, line, "duplicate key '%s'", k.part[i]);
		}
		t = c;
	}
	const char *last = k.part[k.n - 1];
	if (find(t, last, k.len[k.n - 1]))
		return perr(ps, line, "duplicate key '%s'", last);
	struct toml_node *v = new_node(ps, TOML_INT, line);
	if (!v)
		return -ENOMEM;
	v->key = last;
	v->keylen = k.len[k.n - 1];
	if ((r = parse_value(ps, v)) < 0)
		return r;
	return append(ps->doc, t, v);
}

/* "a.b.c" for messages (quoted parts are shown bare). */
static const char *dotted_name(const struct dotted *k, char *out, size_t outsz)
{
	size_t n = 0;
	out[0] = 0;
	for (int i = 0; i < k->n && n < outsz; i++)
		n += (size_t)snprintf(out + n, outsz - n, "%s%s", i ? "." : "", k->part[i]);
	return out;
}

/* [a.b.c] header: returns the table that following keys go to. */
static int header(struct parser *ps, struct toml_node **cur)
{
	uint32_t line = ps->line;
	ps->p++;
	if (ps->p < ps->end && *ps->p == '[')
		return perr(ps, line, "arrays of tables are not supported");
	struct dotted k;
	int r = parse_dotted(ps, &k);
	if (r < 0)
		return r;
	if (ps->p >= ps->end || *ps->p != ']')
		return perr(ps, line, "expected ']' after table name");
	ps->p++;
	struct toml_node *t = &ps->doc->root;
	char name[256];
	for (int i = 0; i < k.n; i++) {
		struct toml_node *c = find(t, k.part[i], k.len[i]);
		bool last = i == k.n - 1;
		if (!c) {
			c = new_node(ps, TOML_TABLE, line);
			if (!c)
				return -ENOMEM;
			c->key = k.part[i];
			c->keylen = k.len[i];
			c->flags = last ? TF_SEALED : TF_IMPLICIT;
			if ((r = append(ps->doc, t, c)) < 0)
				return r;
		} else if (c->type != TOML_TABLE || (c->flags & TF_INLINE)) {
			return perr(ps, line, "duplicate key '%s'", k.part[i]);
		} else if (last) {
			if (!(c->flags & TF_IMPLICIT))
				return perr(ps, line, "duplicate table [%s]", dotted_name(&k, name,
											sizeof(name)));
			c->flags = TF_SEALED;
			c->line = line;
		}
		t = c;
	}
	*cur = t;
	return 0;
}

static int parse(struct parser *ps)
{
	struct toml_node *cur = &ps->doc->root;
	/* A UTF-8 byte order mark is allowed at the start. */
	if (ps->end - ps->p >= 3 && !memcmp(ps->p, "\xef\xbb\xbf", 3))
		ps->p += 3;
	while (ps->p < ps->end) {
		skip_ws(ps);
		skip_comment(ps);
		if (eat_newline(ps))
			continue;
		bool is_header = *ps->p == '[';
		int r = is_header ? header(ps, &cur) : assign(ps, cur);
		if (r < 0)
			return r;
		skip_ws(ps);
		skip_comment(ps);
		if (!eat_newline(ps))
			return perr(ps, ps->line, "expected newline after %s",
				    is_header ? "table header" : "value");
	}
	return 0;
}

int toml_parse_buf(const char *name, const char *buf, size_t len, struct toml_doc **out,
		   char *err, size_t errsz)
{
	if (err && errsz)
		err[0] = 0;
	struct toml_doc *d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	/* A short config needs a few KB, a SIM file ~300 bytes per entry. */
	d->chunk = len < TOML_CHUNK / 4 ? 4096 : TOML_CHUNK;
	d->root.type = TOML_TABLE;
	d->root.flags = TF_SEALED;
	d->root.line = 1;
	d->name = strdup(name ? name : "<buffer>");
	if (!d->name) {
		free(d);
		return -ENOMEM;
	}
	if (len > UINT32_MAX) {
		toml_free(d);
		return -EFBIG;
	}
	struct parser ps = { .doc = d, .p = buf, .end = buf + len, .line = 1, .err = err,
			     .errsz = errsz };
	int r = parse(&ps);
	if (r < 0) {
		if (r == -ENOMEM && err && errsz)
			snprintf(err, errsz, "%s: out of memory", d->name);
		toml_free(d);
		return r;
	}
	*out = d;
	return 0;
}
