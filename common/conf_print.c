/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * conf_print - YAML output of struct conf (conf_print, conf_print_redacted)
 * and field-by-field comparison, both walking the schema of conf_schema.c.
 * Output rules: strings double-quoted (so "001" stays a string), scalar
 * lists in flow style, lists of mappings in block style, unset optional
 * values as "# key: (not set)" comments (left out inside list entries).
 */
#include "common/conf.h"
#include "common/conf_int.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

/* ---- printing ---- */

static void print_str(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		const unsigned char *u = (const unsigned char *)s;

		if (ch == '"' || ch == '\\')
			fprintf(out, "\\%c", ch);
		else if (ch < 0x20 || ch == 0x7f)
			fprintf(out, "\\x%02x", ch);
		else if (ch == 0xc2 && u[1] >= 0x80 && u[1] <= 0x9f) {
			/* C1 controls (U+0080..U+009F) are not printable YAML and
			 * U+0085 is a line break: escape the code point. */
			fprintf(out, "\\x%02x", u[1]);
			s++;
		} else if (ch == 0xe2 && u[1] == 0x80 && (u[2] == 0xa8 || u[2] == 0xa9)) {
			/* U+2028 / U+2029 are YAML line breaks too. */
			fputs(u[2] == 0xa8 ? "\\L" : "\\P", out);
			s += 2;
		} else if (ch == 0xef && u[1] == 0xbb && u[2] == 0xbf) {
			fputs("\\uFEFF", out); /* a BOM inside a scalar is not allowed raw */
			s += 2;
		} else
			fputc(ch, out);
	}
	fputc('"', out);
}

static void print_scalar(FILE *out, const struct conf_item *it, const void *ptr, bool redact);

/* A list of scalars (or of such lists: amf.registration_areas) in flow style; base is
 * the struct the list's offsets are relative to. */
static void print_flow(FILE *out, const struct conf_item *it, const void *base, bool redact)
{
	const char *ptr = (const char *)base + it->off;
	unsigned n = *(const unsigned *)((const char *)base + it->cnt_off);

	fputc('[', out);
	for (unsigned i = 0; i < n; i++) {
		if (i)
			fputs(", ", out);
		print_scalar(out, it->sub, ptr + it->size * i, redact);
	}
	fputc(']', out);
}

static void print_scalar(FILE *out, const struct conf_item *it, const void *ptr, bool redact)
{
	switch (it->kind) {
	case CK_LIST:
		print_flow(out, it, ptr, redact);   /* a list element: ptr is its base */
		break;
	case CK_BOOL:
		fputs(*(const bool *)ptr ? "true" : "false", out);
		break;
	case CK_INT:
		fprintf(out, "%" PRIu64, conf_get_uint(ptr, it->size));
		break;
	case CK_STR:
		print_str(out, ptr);
		break;
	case CK_ENUM:
		fputs(it->names[*(const uint8_t *)ptr], out);
		break;
	case CK_HEXINT:
		fprintf(out, "\"%0*" PRIx32 "\"", (int)it->size, *(const uint32_t *)ptr);
		break;
	case CK_HEX:
		if (redact) {
			fputs("\"<redacted>\"", out);
			break;
		}
		fputc('"', out);
		for (size_t i = 0; i < it->size; i++)
			fprintf(out, "%02x", ((const uint8_t *)ptr)[i]);
		fputc('"', out);
		break;
	default:
		break;
	}
}

/* A value is "unset" when it is an optional empty string or an absent CF_HAS value. */
static bool is_unset(const struct conf_item *it, const void *base)
{
	if ((it->flags & CF_OPTIONAL) && it->kind == CK_STR)
		return !*((const char *)base + it->off);
	if (it->flags & CF_HAS)
		return !*((const bool *)base + it->has_off);
	return false;
}

static void print_map(FILE *out, const struct conf_item *items, const void *base, int indent,
		      bool list_entry, bool redact);

static void print_item(FILE *out, const struct conf_item *it, const void *base, int indent,
		       const char *lead, bool in_list, bool redact)
{
	const void *ptr = (const char *)base + it->off;

	if (is_unset(it, base)) {
		/* A comment line as the first line of a list entry would make it empty. */
		if (!in_list)
			fprintf(out, "%s# %s: (not set)\n", lead, it->key);
		return;
	}
	fprintf(out, "%s%s:", lead, it->key);
	if (it->kind == CK_MAP) {
		fputc('\n', out);
		print_map(out, it->sub, base, indent + 2, false, redact);
	} else if (it->kind == CK_LIST) {
		unsigned n = *(const unsigned *)((const char *)base + it->cnt_off);

		if (it->sub->kind == CK_MAP && n) {
			fputc('\n', out);
			for (unsigned i = 0; i < n; i++)
				print_map(out, it->sub->sub, (const char *)ptr + it->size * i, indent + 4,
					  true, redact);
		} else {
			fputc(' ', out);
			print_flow(out, it, base, redact);
			fputc('\n', out);
		}
	} else {
		fputc(' ', out);
		print_scalar(out, it, ptr, redact && (it->flags & CF_SECRET));
		fputc('\n', out);
	}
}

static void print_map(FILE *out, const struct conf_item *items, const void *base, int indent,
		      bool list_entry, bool redact)
{
	char lead[64];
	bool first = true;

	for (const struct conf_item *c = items; c->key; c++) {
		if (conf_schema_print_skip(c, base))
			continue;
		if (list_entry && first && !is_unset(c, base))
			snprintf(lead, sizeof(lead), "%*s- ", indent - 2, "");
		else
			snprintf(lead, sizeof(lead), "%*s", indent, "");
		print_item(out, c, base, indent, lead, list_entry, redact);
		if (!is_unset(c, base))
			first = false;
	}
}

static int print_all(const struct conf *c, FILE *out, bool redact)
{
	fputs("# solocore configuration (solocore config print): every key with its value.\n", out);
	if (!redact)
		fputs("# Private keys given in hex are printed in hex: treat this output as secret.\n", out);
	print_map(out, conf_schema, c, 0, false, redact);
	return fflush(out) == 0 && !ferror(out) ? 0 : -EIO;
}

int conf_print(const struct conf *c, FILE *out)
{
	return print_all(c, out, false);
}

int conf_print_redacted(const struct conf *c, FILE *out)
{
	return print_all(c, out, true);
}

/* ---- comparison ---- */

static bool equal_items(const struct conf_item *items, const void *a, const void *b);
static bool equal_value(const struct conf_item *it, const void *pa, const void *pb);

/* List c of the structs a and b: the counts, then entry by entry. */
static bool equal_list(const struct conf_item *c, const void *a, const void *b)
{
	const char *pa = (const char *)a + c->off, *pb = (const char *)b + c->off;
	unsigned na = *(const unsigned *)((const char *)a + c->cnt_off);
	unsigned nb = *(const unsigned *)((const char *)b + c->cnt_off);

	if (na != nb)
		return false;
	for (unsigned i = 0; i < na; i++)
		if (!equal_value(c->sub, pa + c->size * i, pb + c->size * i))
			return false;
	return true;
}

static bool equal_value(const struct conf_item *it, const void *pa, const void *pb)
{
	switch (it->kind) {
	case CK_MAP:
		return equal_items(it->sub, pa, pb);   /* list entries: pa/pb are their base */
	case CK_BOOL:
		return *(const bool *)pa == *(const bool *)pb;
	case CK_INT:
		return conf_get_uint(pa, it->size) == conf_get_uint(pb, it->size);
	case CK_STR:
		return !strcmp(pa, pb);
	case CK_ENUM:
		return *(const uint8_t *)pa == *(const uint8_t *)pb;
	case CK_HEXINT:
		return *(const uint32_t *)pa == *(const uint32_t *)pb;
	case CK_HEX:
		return !memcmp(pa, pb, it->size);
	case CK_LIST:
		return equal_list(it, pa, pb);   /* a list element: pa/pb are its base */
	}
	return false;
}

static bool equal_items(const struct conf_item *items, const void *a, const void *b)
{
	for (const struct conf_item *c = items; c->key; c++) {
		const char *pa = (const char *)a + c->off, *pb = (const char *)b + c->off;

		if (c->flags & CF_HAS) {
			bool ha = *((const bool *)a + c->has_off), hb = *((const bool *)b + c->has_off);

			if (ha != hb)
				return false;
			if (!ha)
				continue;
		}
		if (c->kind == CK_MAP) {
			if (!equal_items(c->sub, a, b))
				return false;
		} else if (c->kind == CK_LIST) {
			if (!equal_list(c, a, b))
				return false;
		} else if (!equal_value(c, pa, pb)) {
			return false;
		}
	}
	return true;
}

bool conf_equal(const struct conf *a, const struct conf *b)
{
	return equal_items(conf_schema, a, b);
}
