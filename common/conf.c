/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * conf - the schema engine: YAML (libyaml document API) -> struct conf,
 * defaults, printing and comparison, all driven by the table in
 * conf_schema.c. The table's defaults are YAML text parsed by the same code
 * as a file, so a default can never be something the file syntax could not
 * express, and `config print` output loads back into an identical struct.
 */
#include "common/conf.h"
#include "common/conf_int.h"
#include "common/hex.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

#define CONF_FILE_MAX (1u << 20)   /* a config larger than 1 MiB is a mistake */

struct pctx {
	yaml_document_t *doc;
	const char *name;
	char *err;
	size_t errsz;
	char path[256];
	size_t plen;
};

static const struct conf_item root_item = {
	.key = "", .kind = CK_MAP, .sub = conf_schema,
};

/* ---- small helpers ---- */

static void fail(struct pctx *p, const yaml_mark_t *m, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void fail(struct pctx *p, const yaml_mark_t *m, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!p->errsz)
		return;
	/* No name (conf_overlay_string): "key.path: reason", no position. */
	if (p->name)
		n = snprintf(p->err, p->errsz, "%s:%zu:%zu: %s%s", p->name, m ? m->line + 1 : 1,
			     m ? m->column + 1 : 1, p->path, p->plen ? ": " : "");
	else
		n = snprintf(p->err, p->errsz, "%s%s", p->path, p->plen ? ": " : "");
	if (n < 0 || (size_t)n >= p->errsz)
		return;
	va_start(ap, fmt);
	vsnprintf(p->err + n, p->errsz - (size_t)n, fmt, ap);
	va_end(ap);
}

static size_t path_push(struct pctx *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static size_t path_push(struct pctx *p, const char *fmt, ...)
{
	size_t old = p->plen;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(p->path + p->plen, sizeof(p->path) - p->plen, fmt, ap);
	va_end(ap);
	if (n > 0)
		p->plen += (size_t)n;
	if (p->plen >= sizeof(p->path))
		p->plen = sizeof(p->path) - 1;
	return old;
}

static void path_pop(struct pctx *p, size_t old)
{
	p->plen = old;
	p->path[old] = 0;
}

/* "a mapping", "a list" or the scalar quoted, for "expected X, got Y". */
static const char *got(const yaml_node_t *n, char *buf, size_t bufsz)
{
	if (n->type == YAML_MAPPING_NODE)
		return "a mapping";
	if (n->type == YAML_SEQUENCE_NODE)
		return "a list";
	snprintf(buf, bufsz, "\"%.*s\"", n->data.scalar.length > 40 ? 40 : (int)n->data.scalar.length,
		 (const char *)n->data.scalar.value);
	return buf;
}

static void set_uint(void *ptr, size_t size, uint64_t v)
{
	switch (size) {
	case 1: *(uint8_t *)ptr = (uint8_t)v; break;
	case 2: *(uint16_t *)ptr = (uint16_t)v; break;
	case 4: *(uint32_t *)ptr = (uint32_t)v; break;
	default: *(uint64_t *)ptr = v; break;
	}
}

static const char *expected_what(const struct conf_item *it, char *buf, size_t bufsz)
{
	size_t o = 0;

	switch (it->kind) {
	case CK_MAP: return "a mapping";
	case CK_LIST: return "a list";
	case CK_BOOL: return "true or false";
	case CK_INT: return "an integer";
	case CK_STR: return "a string";
	case CK_HEXINT:
		snprintf(buf, bufsz, "%zu hex digits", it->size);
		return buf;
	case CK_HEX:
		snprintf(buf, bufsz, "%zu hex digits", it->size * 2);
		return buf;
	case CK_ENUM:
		o = (size_t)snprintf(buf, bufsz, "one of ");
		for (unsigned i = 0; it->names[i] && o < bufsz; i++)
			o += (size_t)snprintf(buf + o, bufsz - o, "%s%s", i ? ", " : "", it->names[i]);
		return buf;
	}
	return "?";
}

/* ---- parsing ---- */

static int apply(struct pctx *p, const struct conf_item *it, yaml_node_t *n, void *ptr);

static int run_check(struct pctx *p, const struct conf_item *it, yaml_node_t *n, void *ptr)
{
	char buf[256];
	const char *why;

	if (!it->check)
		return 0;
	why = it->check(ptr, buf, sizeof(buf));
	if (why) {
		fail(p, &n->start_mark, "%s", why);
		return -EINVAL;
	}
	return 0;
}

/* The scalar parsers, one per kind: 0 with ptr set, -EDOM when s is not of the kind
 * (apply_scalar says what was expected), or -EINVAL after a message of their own. */

static int scalar_bool(const char *s, void *ptr)
{
	if (!strcasecmp(s, "true") || !strcasecmp(s, "yes") || !strcasecmp(s, "on"))
		*(bool *)ptr = true;
	else if (!strcasecmp(s, "false") || !strcasecmp(s, "no") || !strcasecmp(s, "off"))
		*(bool *)ptr = false;
	else
		return -EDOM;
	return 0;
}

static int scalar_int(struct pctx *p, const struct conf_item *it, yaml_node_t *n, const char *s, size_t len,
		      void *ptr)
{
	char *end;
	long long v;

	if (!len || !(isdigit((unsigned char)s[0]) || s[0] == '-'))
		return -EDOM;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (*end)
		return -EDOM;
	if (errno == ERANGE || v < it->min || v > it->max) {
		fail(p, &n->start_mark, "%s is out of range %" PRId64 "..%" PRId64, s, it->min, it->max);
		return -EINVAL;
	}
	set_uint(ptr, it->size, (uint64_t)v);
	return 0;
}

static int scalar_str(struct pctx *p, const struct conf_item *it, yaml_node_t *n, const char *s, size_t len,
		      void *ptr)
{
	if (len >= it->size) {
		fail(p, &n->start_mark, "longer than %zu characters", it->size - 1);
		return -EINVAL;
	}
	if (!len && (it->flags & CF_NONEMPTY)) {
		fail(p, &n->start_mark, "must not be empty");
		return -EINVAL;
	}
	memset(ptr, 0, it->size);
	memcpy(ptr, s, len);
	return 0;
}

static int scalar_enum(struct pctx *p, const struct conf_item *it, yaml_node_t *n, const char *s, void *ptr)
{
	char b[160];

	for (unsigned i = 0; it->names[i]; i++) {
		if (!strcmp(s, it->names[i])) {
			*(uint8_t *)ptr = (uint8_t)i;
			return 0;
		}
	}
	fail(p, &n->start_mark, "\"%s\" is not %s", s, expected_what(it, b, sizeof(b)));
	return -EINVAL;
}

/* CK_HEXINT: exactly it->size hex digits into a uint32_t. */
static int scalar_hexint(const struct conf_item *it, const char *s, size_t len, void *ptr)
{
	uint32_t v = 0;

	if (len != it->size)
		return -EDOM;
	for (size_t i = 0; i < len; i++) {
		int h = hex_digit((unsigned char)s[i]);

		if (h < 0)
			return -EDOM;
		v = v << 4 | (uint32_t)h;
	}
	*(uint32_t *)ptr = v;
	return 0;
}

/* CK_HEX: exactly 2 * it->size hex digits into it->size bytes (keys). */
static int scalar_hex(struct pctx *p, const struct conf_item *it, yaml_node_t *n, const char *s, size_t len,
		      void *ptr)
{
	if (!strcmp(s, "<redacted>")) {
		fail(p, &n->start_mark, "a redacted key cannot be loaded: give the key or a key file");
		return -EINVAL;
	}
	if (hex_decode_exact(ptr, it->size, s, len) < 0)
		return -EDOM;
	return 0;
}

static int parse_scalar(struct pctx *p, const struct conf_item *it, yaml_node_t *n, const char *s, size_t len,
			void *ptr)
{
	switch (it->kind) {
	case CK_BOOL: return scalar_bool(s, ptr);
	case CK_INT: return scalar_int(p, it, n, s, len, ptr);
	case CK_STR: return scalar_str(p, it, n, s, len, ptr);
	case CK_ENUM: return scalar_enum(p, it, n, s, ptr);
	case CK_HEXINT: return scalar_hexint(it, s, len, ptr);
	case CK_HEX: return scalar_hex(p, it, n, s, len, ptr);
	default: return -EDOM;
	}
}

static int apply_scalar(struct pctx *p, const struct conf_item *it, yaml_node_t *n, void *ptr)
{
	char b1[160], b2[64];
	const char *s;
	size_t len;
	int r;

	if (n->type != YAML_SCALAR_NODE) {
		fail(p, &n->start_mark, "expected %s, got %s", expected_what(it, b1, sizeof(b1)),
		     got(n, b2, sizeof(b2)));
		return -EINVAL;
	}
	s = (const char *)n->data.scalar.value;
	len = n->data.scalar.length;
	if (strlen(s) != len) {
		fail(p, &n->start_mark, "NUL character in value");
		return -EINVAL;
	}
	r = parse_scalar(p, it, n, s, len, ptr);
	if (r == -EDOM) {
		/* Never echo a would-be secret. */
		fail(p, &n->start_mark, "expected %s, got %s", expected_what(it, b1, sizeof(b1)),
		     (it->flags & CF_SECRET) ? "something else" : got(n, b2, sizeof(b2)));
		return -EINVAL;
	}
	return r < 0 ? r : run_check(p, it, n, ptr);
}

static const struct conf_item *find_child(const struct conf_item *items, const char *key)
{
	for (const struct conf_item *c = items; c->key; c++)
		if (!strcmp(c->key, key))
			return c;
	return NULL;
}

static void apply_defaults(struct pctx *p, const struct conf_item *items, void *base);

/* Nested mappings group keys of one struct: children's offsets are relative
 * to the same base (struct conf, or a list entry's struct). */
static int apply_map(struct pctx *p, const struct conf_item *it, yaml_node_t *n, void *base)
{
	void *ptr = (char *)base + it->off;
	yaml_node_pair_t *a, *b;
	char b2[64];

	if (n->type != YAML_MAPPING_NODE) {
		/* An empty value ("key:") stands for an empty mapping. */
		if (n->type == YAML_SCALAR_NODE && !n->data.scalar.length &&
		    n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE) {
			/* ...which still lacks whatever it requires (a bare "-" in dnns). */
			for (const struct conf_item *c = it->sub; c->key; c++)
				if (c->flags & CF_REQUIRED) {
					fail(p, &n->start_mark, "missing key %s", c->key);
					return -EINVAL;
				}
			return run_check(p, it, n, ptr);
		}
		fail(p, &n->start_mark, "expected a mapping, got %s", got(n, b2, sizeof(b2)));
		return -EINVAL;
	}
	for (a = n->data.mapping.pairs.start; a < n->data.mapping.pairs.top; a++) {
		yaml_node_t *k = yaml_document_get_node(p->doc, a->key);
		yaml_node_t *v = yaml_document_get_node(p->doc, a->value);
		const struct conf_item *c;
		const char *key;
		size_t old;
		int rc;

		if (k->type != YAML_SCALAR_NODE) {
			fail(p, &k->start_mark, "a key must be a plain name");
			return -EINVAL;
		}
		key = (const char *)k->data.scalar.value;
		old = path_push(p, "%s%s", p->plen ? "." : "", key);
		for (b = n->data.mapping.pairs.start; b < a; b++) {
			yaml_node_t *k2 = yaml_document_get_node(p->doc, b->key);

			if (k2->type == YAML_SCALAR_NODE && !strcmp((const char *)k2->data.scalar.value, key)) {
				fail(p, &k->start_mark, "duplicate key");
				return -EINVAL;
			}
		}
		c = find_child(it->sub, key);
		if (!c) {
			fail(p, &k->start_mark, "unknown key");
			return -EINVAL;
		}
		rc = apply(p, c, v, base);
		if (rc < 0)
			return rc;
		if (c->flags & CF_HAS)
			*((bool *)base + c->has_off) = true;
		path_pop(p, old);
	}
	for (const struct conf_item *c = it->sub; c->key; c++) {
		bool seen = false;

		if (!(c->flags & CF_REQUIRED))
			continue;
		for (a = n->data.mapping.pairs.start; a < n->data.mapping.pairs.top && !seen; a++) {
			yaml_node_t *k = yaml_document_get_node(p->doc, a->key);

			seen = !strcmp((const char *)k->data.scalar.value, c->key);
		}
		if (!seen) {
			fail(p, &n->start_mark, "missing key %s", c->key);
			return -EINVAL;
		}
	}
	return run_check(p, it, n, ptr);
}

static int apply_list(struct pctx *p, const struct conf_item *it, yaml_node_t *n, void *base)
{
	const struct conf_item *el = it->sub;
	void *ptr = (char *)base + it->off;
	unsigned *cnt = (unsigned *)((char *)base + it->cnt_off);
	yaml_node_item_t *i;
	unsigned count = 0;
	char b2[64], buf[256];
	int64_t len;

	if (n->type != YAML_SEQUENCE_NODE) {
		fail(p, &n->start_mark, "expected a list, got %s", got(n, b2, sizeof(b2)));
		return -EINVAL;
	}
	len = n->data.sequence.items.top - n->data.sequence.items.start;
	if (len > it->max) {
		fail(p, &n->start_mark, "more than %" PRId64 " entries", it->max);
		return -EINVAL;
	}
	if (len < it->min) {
		fail(p, &n->start_mark, "needs at least %" PRId64 " %s", it->min,
		     it->min == 1 ? "entry" : "entries");
		return -EINVAL;
	}
	memset(ptr, 0, it->size * (size_t)it->max);
	*cnt = 0;
	for (i = n->data.sequence.items.start; i < n->data.sequence.items.top; i++, count++) {
		yaml_node_t *v = yaml_document_get_node(p->doc, *i);
		void *eptr = (char *)ptr + it->size * count;
		size_t old = path_push(p, "[%u]", count);
		int rc;

		if (el->kind == CK_MAP)
			apply_defaults(p, el->sub, eptr);
		rc = apply(p, el, v, eptr);
		if (rc < 0)
			return rc;
		if ((it->flags & CF_UNIQUE) && el->kind != CK_MAP) {
			for (unsigned j = 0; j < count; j++) {
				if (!memcmp((char *)ptr + it->size * j, eptr, it->size)) {
					fail(p, &v->start_mark, "duplicate value");
					return -EINVAL;
				}
			}
		}
		path_pop(p, old);
	}
	*cnt = count;
	if (it->check_list) {
		unsigned bad = 0;
		const char *why = it->check_list(ptr, count, &bad, buf, sizeof(buf));

		if (why) {
			yaml_node_t *v = yaml_document_get_node(p->doc, n->data.sequence.items.start[bad]);
			size_t old = path_push(p, "[%u]", bad);

			fail(p, &v->start_mark, "%s", why);
			path_pop(p, old);
			return -EINVAL;
		}
	}
	return 0;
}

/* base: the struct the item's offset is relative to. */
static int apply(struct pctx *p, const struct conf_item *it, yaml_node_t *n, void *base)
{
	switch (it->kind) {
	case CK_MAP:
		return apply_map(p, it, n, base);
	case CK_LIST:
		return apply_list(p, it, n, base);
	default:
		return apply_scalar(p, it, n, (char *)base + it->off);
	}
}

/* Parse text into doc; on a syntax error fill p->err and return -EINVAL. */
static int load_doc(struct pctx *p, const char *text, size_t len, yaml_document_t *doc)
{
	yaml_parser_t parser;
	yaml_document_t extra;
	int rc = 0;

	if (!yaml_parser_initialize(&parser))
		return -ENOMEM;
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, doc)) {
		p->plen = 0;
		p->path[0] = 0;
		fail(p, &parser.problem_mark, "syntax error: %s%s%s%s", parser.problem ? parser.problem : "?",
		     parser.context ? " (" : "", parser.context ? parser.context : "", parser.context ? ")" : "");
		yaml_parser_delete(&parser);
		return -EINVAL;
	}
	/* A second document ("---") would be silently ignored: refuse it. */
	if (!yaml_parser_load(&parser, &extra)) {
		fail(p, &parser.problem_mark, "syntax error: %s", parser.problem ? parser.problem : "?");
		rc = -EINVAL;
	} else {
		yaml_node_t *r = yaml_document_get_root_node(&extra);

		if (r) {
			fail(p, &r->start_mark, "only one YAML document is allowed");
			rc = -EINVAL;
		}
		yaml_document_delete(&extra);
	}
	yaml_parser_delete(&parser);
	if (rc < 0)
		yaml_document_delete(doc);
	return rc;
}

/* A default is YAML text for one value; parse and apply it like file content. */
static void apply_defaults(struct pctx *p, const struct conf_item *items, void *base)
{
	for (const struct conf_item *c = items; c->key; c++) {
		if (c->def) {
			struct pctx dp = { .name = "<default>", .err = p->err, .errsz = p->errsz };
			yaml_document_t doc;
			yaml_node_t *r;

			path_push(&dp, "%s", c->key);
			if (load_doc(&dp, c->def, strlen(c->def), &doc) == 0) {
				dp.doc = &doc;
				r = yaml_document_get_root_node(&doc);
				if (r && apply(&dp, c, r, base) == 0 && (c->flags & CF_HAS))
					*((bool *)base + c->has_off) = true;
				yaml_document_delete(&doc);
			}
		} else if (c->kind == CK_MAP) {
			apply_defaults(p, c->sub, base);
		}
	}
}

/* The key of mapping n called key[0, len), or NULL. */
static yaml_node_t *map_get(yaml_document_t *doc, yaml_node_t *n, const char *key, size_t len)
{
	if (n->type != YAML_MAPPING_NODE)
		return NULL;
	for (yaml_node_pair_t *a = n->data.mapping.pairs.start; a < n->data.mapping.pairs.top; a++) {
		yaml_node_t *k = yaml_document_get_node(doc, a->key);

		if (k->type == YAML_SCALAR_NODE && k->data.scalar.length == len &&
		    !memcmp(k->data.scalar.value, key, len))
			return yaml_document_get_node(doc, a->value);
	}
	return NULL;
}

/* The node "key.path[i][j]" (path[0, len)) names in the document, or NULL when the
 * document does not hold it (a default, or an overlay that left the key out). */
static yaml_node_t *node_at(yaml_document_t *doc, const char *path, size_t len)
{
	yaml_node_t *n = yaml_document_get_root_node(doc);
	size_t i = 0;

	while (n && i < len) {
		if (path[i] == '[') {
			char *end;
			unsigned long k = strtoul(path + i + 1, &end, 10);

			if (n->type != YAML_SEQUENCE_NODE || *end != ']' ||
			    k >= (unsigned long)(n->data.sequence.items.top - n->data.sequence.items.start))
				return NULL;
			n = yaml_document_get_node(doc, n->data.sequence.items.start[k]);
			i = (size_t)(end + 1 - path);
			continue;
		}
		size_t j = i += path[i] == '.';

		while (j < len && path[j] != '.' && path[j] != '[')
			j++;
		n = map_get(doc, n, path + i, j - i);
		i = j;
	}
	return n;
}

static int finish(struct pctx *p, struct conf *c, const yaml_mark_t *m)
{
	char buf[256];
	const char *why = conf_schema_finish(c, buf, sizeof(buf));
	const char *colon;
	yaml_node_t *at = NULL;

	if (why) {
		p->plen = 0;
		p->path[0] = 0;
		/* A cross-key reason starts with the key it is about: point at that key's value
		 * when the document gave it (file:line:column like every other error). */
		colon = strstr(why, ": ");
		if (p->doc && colon)
			at = node_at(p->doc, why, (size_t)(colon - why));
		fail(p, at ? &at->start_mark : m, "%s", why);
		return -EINVAL;
	}
	return 0;
}

/* The schema defaults before conf_schema_finish(): computed once (about 70
 * small YAML documents) and copied for every load. */
static struct conf g_defaults;
static char g_defaults_err[512];
static pthread_once_t g_defaults_once = PTHREAD_ONCE_INIT;

static void build_defaults(void)
{
	struct pctx p = { .name = "<default>", .err = g_defaults_err, .errsz = sizeof(g_defaults_err) };

	apply_defaults(&p, conf_schema, &g_defaults);
}

/* Copy the raw defaults into c; -EINVAL (message in err) if they are broken. */
static int raw_defaults(struct conf *c, char *err, size_t errsz)
{
	pthread_once(&g_defaults_once, build_defaults);
	memcpy(c, &g_defaults, sizeof(*c));
	if (g_defaults_err[0]) {
		snprintf(err, errsz, "%s", g_defaults_err);
		return -EINVAL;
	}
	return 0;
}

int conf_defaults(struct conf *c)
{
	char err[512] = "";
	struct pctx p = { .name = "<default>", .err = err, .errsz = sizeof(err) };

	if (raw_defaults(c, err, sizeof(err)) == 0)
		finish(&p, c, NULL);
	if (err[0]) {
		fprintf(stderr, "solocore: built-in configuration defaults are broken: %s\n", err);
		return -EINVAL;
	}
	return 0;
}

/* Parse text and apply it on top of *c (whatever it holds), then the cross-key checks. */
static int load_onto(struct pctx *p, struct conf *c, const char *text, size_t len)
{
	yaml_document_t doc;
	yaml_node_t *root;
	int rc = load_doc(p, text, len, &doc);

	if (rc < 0)
		return rc;
	p->doc = &doc;
	root = yaml_document_get_root_node(&doc);
	/* An empty file (or only comments) means all defaults. */
	if (root && !(root->type == YAML_SCALAR_NODE && !root->data.scalar.length))
		rc = apply(p, &root_item, root, c);
	if (rc == 0)
		rc = finish(p, c, root ? &root->start_mark : NULL);
	yaml_document_delete(&doc);
	return rc;
}

int conf_load_string(struct conf *c, const char *name, const char *text, size_t len,
		     char *err, size_t errsz)
{
	struct pctx p = { .name = name, .err = err, .errsz = errsz };
	int rc;

	if (errsz)
		err[0] = 0;
	rc = raw_defaults(c, err, errsz);
	if (rc < 0)
		return rc;
	return load_onto(&p, c, text, len);
}

int conf_overlay_string(struct conf *c, const char *name, const char *text, size_t len,
			char *err, size_t errsz)
{
	struct pctx p = { .name = name, .err = err, .errsz = errsz };
	struct conf *tmp;
	int rc;

	if (errsz)
		err[0] = 0;
	tmp = malloc(sizeof(*tmp));
	if (!tmp) {
		if (errsz)
			snprintf(err, errsz, "out of memory");
		return -ENOMEM;
	}
	memcpy(tmp, c, sizeof(*tmp));
	rc = load_onto(&p, tmp, text, len);
	/* All or nothing: c changes only when the whole document applied. */
	if (rc == 0)
		memcpy(c, tmp, sizeof(*tmp));
	explicit_bzero(tmp, sizeof(*tmp));
	free(tmp);
	return rc;
}

int conf_pool_parse(const char *cidr, uint32_t *net, uint8_t *plen)
{
	char buf[64], *slash, *end;
	struct in_addr in;
	unsigned long len;

	snprintf(buf, sizeof(buf), "%s", cidr);
	slash = strchr(buf, '/');
	if (!slash)
		return -EINVAL;
	*slash = 0;
	len = strtoul(slash + 1, &end, 10);
	if (inet_pton(AF_INET, buf, &in) != 1 || *end || !slash[1] || len > 32)
		return -EINVAL;
	*plen = (uint8_t)len;
	*net = in.s_addr & htonl(len ? UINT32_MAX << (32 - len) : 0);
	return 0;
}

int conf_pool6_parse(const char *cidr, uint8_t net[16], uint8_t *plen)
{
	char buf[64], *slash, *end;
	unsigned long len;

	snprintf(buf, sizeof(buf), "%s", cidr);
	slash = strchr(buf, '/');
	if (!slash)
		return -EINVAL;
	*slash = 0;
	len = strtoul(slash + 1, &end, 10);
	if (inet_pton(AF_INET6, buf, net) != 1 || *end || !slash[1] || len > 128)
		return -EINVAL;
	*plen = (uint8_t)len;
	for (unsigned b = (unsigned)len; b < 128; b++)
		net[b / 8] &= (uint8_t)~(0x80u >> (b % 8));
	return 0;
}

int conf_ue_supernet6(const struct conf *c, uint8_t net[16], uint8_t *plen)
{
	uint8_t first[16], a[16], l;
	bool any = false;
	unsigned common = 128;

	for (unsigned i = 0; i < c->n_dnns && i < CONF_MAX_DNNS; i++) {
		if (!c->dnns[i].pool6[0])
			continue;
		if (conf_pool6_parse(c->dnns[i].pool6, a, &l) < 0)
			return -EINVAL;
		if (!any) {
			memcpy(first, a, 16);
			common = l;
			any = true;
			continue;
		}
		/* the common leading bits of the prefixes, at most the shorter length */
		unsigned k = 0;

		while (k < common && k < l && !((first[k / 8] ^ a[k / 8]) & (0x80u >> (k % 8))))
			k++;
		common = k;
	}
	if (!any)
		return -ENOENT;
	for (unsigned b = common; b < 128; b++)
		first[b / 8] &= (uint8_t)~(0x80u >> (b % 8));
	memcpy(net, first, 16);
	*plen = (uint8_t)common;
	return 0;
}

int conf_ue_supernet(const struct conf *c, uint32_t *addr, uint8_t *plen)
{
	uint32_t lo = UINT32_MAX, hi = 0;
	uint8_t l = 32;

	for (unsigned i = 0; i < c->n_dnns && i < CONF_MAX_DNNS; i++) {
		uint32_t net;
		uint8_t len;

		if (conf_pool_parse(c->dnns[i].pool, &net, &len) < 0)
			return -EINVAL;
		uint32_t first = ntohl(net);
		uint32_t last = first | (len >= 32 ? 0 : (UINT32_MAX >> len));
		if (first < lo)
			lo = first;
		if (last > hi)
			hi = last;
	}
	if (lo > hi)
		return -EINVAL;
	while (l > 0 && ((lo >> (32 - l)) != (hi >> (32 - l))))
		l--;
	*plen = l;
	*addr = htonl(l ? lo & (UINT32_MAX << (32 - l)) : 0);
	return 0;
}

int conf_load(struct conf *c, const char *path, char *err, size_t errsz)
{
	struct stat st;
	char *text;
	ssize_t n;
	size_t len = 0;
	int fd, rc;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		rc = -errno;
		snprintf(err, errsz, "%s: %s", path, strerror(-rc));
		if (fd >= 0)
			close(fd);
		conf_defaults(c);
		return rc;
	}
	if (!S_ISREG(st.st_mode) || (size_t)st.st_size > CONF_FILE_MAX) {
		snprintf(err, errsz, "%s: %s", path, S_ISREG(st.st_mode) ? "larger than 1 MiB" : "not a regular file");
		close(fd);
		conf_defaults(c);
		return -EINVAL;
	}
	text = malloc((size_t)st.st_size + 1);
	if (!text) {
		close(fd);
		snprintf(err, errsz, "%s: out of memory", path);
		return -ENOMEM;
	}
	while (len < (size_t)st.st_size && (n = read(fd, text + len, (size_t)st.st_size - len)) > 0)
		len += (size_t)n;
	close(fd);
	text[len] = 0;
	rc = conf_load_string(c, path, text, len, err, errsz);
	free(text);
	return rc;
}

void conf_free(struct conf *c)
{
	if (!c)
		return;
	explicit_bzero(&c->suci, sizeof(c->suci));
}
