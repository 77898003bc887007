/* SPDX-License-Identifier: AGPL-3.0-or-later */
/* common/toml: every syntax element we support and every error, with its exact text. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/toml/toml.h"

static struct toml_doc *parse_ok(const char *text)
{
	struct toml_doc *d = NULL;
	char err[256];
	int r = toml_parse_buf("t.toml", text, strlen(text), &d, err, sizeof(err));
	if (r != 0)
		fail_msg("unexpected error: %s", err);
	return d;
}

static const struct toml_node *path(const struct toml_doc *d, const char *p)
{
	char buf[128];
	snprintf(buf, sizeof(buf), "%s", p);
	const struct toml_node *n = toml_root(d);
	for (char *s = strtok(buf, "/"); s; s = strtok(NULL, "/")) {
		n = toml_get(n, s);
		if (!n)
			fail_msg("missing %s in %s", s, p);
	}
	return n;
}

static void expect_str(const struct toml_doc *d, const char *p, const char *want, size_t wlen)
{
	const struct toml_node *n = path(d, p);
	assert_int_equal(toml_type(n), TOML_STRING);
	size_t len;
	const char *s = toml_str(n, &len);
	assert_int_equal(len, wlen);
	assert_memory_equal(s, want, wlen);
}

static void expect_int(const struct toml_doc *d, const char *p, int64_t want)
{
	const struct toml_node *n = path(d, p);
	assert_int_equal(toml_type(n), TOML_INT);
	assert_true(toml_int(n) == want);
}

static void test_syntax(void **state)
{
	(void)state;
	const char *text =
		"\xef\xbb\xbf# leading comment\n"
		"title = \"solocore\"   # trailing comment\n"
		"bare_key-1 = 1\n"
		"\"quoted key\" = 2\n"
		"'literal key' = 3\n"
		"site.name . \"x y\" = \"dotted\"\n"
		"site.id = 7\n"
		"esc = \"tab\\t nl\\n cr\\r bs\\b ff\\f q\\\" bsl\\\\ e\\u00e9 smile\\U0001F600\"\n"
		"lit = 'C:\\path\\no\\escapes'\n"
		"empty = \"\"\n"
		"dec = -1_000_000\n"
		"plus = +42\n"
		"zero = 0\n"
		"hex = 0xDEAD_beef\n"
		"oct = 0o755\n"
		"bin = 0b1010\n"
		"max = 9223372036854775807\n"
		"min = -9223372036854775808\n"
		"yes = true\n"
		"no = false\n"
		"strs = [ \"a\", 'b' ]\n"
		"ints = [\n"
		"  1, # one\n"
		"  2,\n"
		"  3,   # trailing comma allowed\n"
		"]\n"
		"nested = [[1, 2], [\"x\"]]\n"
		"slices = [ { sst = 1, sd = \"010203\" }, { sst = 2 } ]\n"
		"inline = { a = 1, b.c = \"deep\", \"q k\" = true }\n"
		"empty_inline = {}\n"
		"empty_arr = []\n"
		"\r\n"
		"[imsi-001010000000001]\r\n"
		"ki = \"465B5CE8B199B49FAA5F0A2EE238A6BC\"\r\n"
		"[ a . b . c ]\n"
		"x = 1\n"
		"[a]\n"          /* implicit table defined later: allowed */
		"y = 2\n"
		"[a.b.d]\n"
		"z = 3\n"
		"\"dot.ted\" = 5\n";   /* one key with a dot in it, not a path */
	struct toml_doc *d = parse_ok(text);
	expect_str(d, "title", "solocore", 8);
	expect_int(d, "bare_key-1", 1);
	expect_int(d, "quoted key", 2);
	expect_int(d, "literal key", 3);
	expect_str(d, "site/name/x y", "dotted", 6);
	expect_int(d, "site/id", 7);
	const char esc[] = "tab\t nl\n cr\r bs\b ff\f q\" bsl\\ e\xc3\xa9 smile\xf0\x9f\x98\x80";
	expect_str(d, "esc", esc, sizeof(esc) - 1);
	expect_str(d, "lit", "C:\\path\\no\\escapes", 18);
	expect_str(d, "empty", "", 0);
	expect_int(d, "dec", -1000000);
	expect_int(d, "plus", 42);
	expect_int(d, "zero", 0);
	expect_int(d, "hex", 0xdeadbeef);
	expect_int(d, "oct", 0755);
	expect_int(d, "bin", 10);
	expect_int(d, "max", INT64_MAX);
	expect_int(d, "min", INT64_MIN);
	assert_int_equal(toml_type(path(d, "yes")), TOML_BOOL);
	assert_true(toml_bool(path(d, "yes")));
	assert_false(toml_bool(path(d, "no")));

	const struct toml_node *a = path(d, "strs");
	assert_int_equal(toml_type(a), TOML_ARRAY);
	assert_int_equal(toml_count(a), 2);
	assert_string_equal(toml_str(toml_first(a), NULL), "a");
	assert_string_equal(toml_str(toml_next(toml_first(a)), NULL), "b");
	assert_null(toml_key(toml_first(a)));

	a = path(d, "ints");
	assert_int_equal(toml_count(a), 3);
	int64_t want = 1;
	for (const struct toml_node *e = toml_first(a); e; e = toml_next(e))
		assert_true(toml_int(e) == want++);
	assert_int_equal(toml_line(toml_next(toml_first(a))), 24);

	a = path(d, "nested");
	assert_int_equal(toml_count(a), 2);
	assert_int_equal(toml_type(toml_first(a)), TOML_ARRAY);
	assert_int_equal(toml_count(toml_first(a)), 2);

	a = path(d, "slices");
	const struct toml_node *s0 = toml_first(a);
	assert_int_equal(toml_type(s0), TOML_TABLE);
	assert_true(toml_int(toml_get(s0, "sst")) == 1);
	assert_string_equal(toml_str(toml_get(s0, "sd"), NULL), "010203");
	assert_null(toml_get(toml_next(s0), "sd"));

	expect_int(d, "inline/a", 1);
	expect_str(d, "inline/b/c", "deep", 4);
	assert_true(toml_bool(path(d, "inline/q k")));
	assert_int_equal(toml_count(path(d, "empty_inline")), 0);
	assert_int_equal(toml_count(path(d, "empty_arr")), 0);

	const struct toml_node *sim = path(d, "imsi-001010000000001");
	assert_int_equal(toml_type(sim), TOML_TABLE);
	assert_int_equal(toml_line(sim), 33);   /* CRLF lines counted once */
	expect_str(d, "imsi-001010000000001/ki", "465B5CE8B199B49FAA5F0A2EE238A6BC", 32);
	assert_int_equal(toml_line(path(d, "imsi-001010000000001/ki")), 34);
	expect_int(d, "a/b/c/x", 1);
	expect_int(d, "a/y", 2);
	expect_int(d, "a/b/d/z", 3);
	expect_int(d, "a/b/d/dot.ted", 5);
	assert_null(toml_get(path(d, "a/b/d"), "dot"));

	/* File order is kept. */
	assert_string_equal(toml_key(toml_first(toml_root(d))), "title");
	assert_null(toml_get(toml_root(d), "nope"));
	assert_null(toml_get(path(d, "title"), "x"));   /* not a table */
	toml_free(d);
}

struct err_case {
	const char *text;
	const char *want;
};

static const struct err_case err_cases[] = {
	{ "a = 1\na = 2\n", "t.toml:2: duplicate key 'a'" },
	{ "[x]\nk = 1\n\n[x]\n", "t.toml:4: duplicate table [x]" },
	{ "[imsi-001010000000001]\n[imsi-001010000000001]\n",
	  "t.toml:2: duplicate table [imsi-001010000000001]" },
	{ "[a]\nb.c = 1\n[a.b]\n", "t.toml:3: duplicate table [a.b]" },
	{ "[a.b]\n[a]\nb.c = 1\n", "t.toml:3: duplicate key 'b'" },
	{ "a.b = 1\na = 2\n", "t.toml:2: duplicate key 'a'" },
	{ "a = 1\na.b = 2\n", "t.toml:2: duplicate key 'a'" },
	{ "a = { x = 1 }\n[a]\n", "t.toml:2: duplicate key 'a'" },
	{ "a = { x = 1 }\na.y = 2\n", "t.toml:2: duplicate key 'a'" },
	{ "a = { x = 1, x = 2 }\n", "t.toml:1: duplicate key 'x'" },
	{ "# c\n\na = \"abc\n", "t.toml:3: unterminated string" },
	{ "a = 'abc\n", "t.toml:1: unterminated string" },
	{ "a = \"abc", "t.toml:1: unterminated string" },
	{ "a = \"\\q\"\n", "t.toml:1: bad escape '\\q' in string" },
	{ "a = \"\\u12\"\n", "t.toml:1: bad unicode escape in string" },
	{ "a = \"\\uD800\"\n", "t.toml:1: bad unicode escape in string" },
	{ "a = \"x\x01y\"\n", "t.toml:1: control character in string" },
	{ "a = \"\"\"x\"\"\"\n", "t.toml:1: multi-line strings are not supported" },
	{ "x = 1\na = [1,\n2\n", "t.toml:2: unterminated array" },
	{ "a = [1 2]\n", "t.toml:1: expected ',' or ']' in array" },
	{ "a = { x = 1\n", "t.toml:1: unterminated inline table" },
	{ "a = { x = 1 y = 2 }\n", "t.toml:1: expected ',' or '}' in inline table" },
	{ "a = 1.5\n", "t.toml:1: floats are not supported" },
	{ "a = 1e3\n", "t.toml:1: floats are not supported" },
	{ "a = inf\n", "t.toml:1: floats are not supported" },
	{ "a = 1979-05-27\n", "t.toml:1: dates and times are not supported" },
	{ "a = 0123\n", "t.toml:1: leading zeros are not allowed" },
	{ "a = 1__2\n", "t.toml:1: invalid integer" },
	{ "a = 12_\n", "t.toml:1: invalid integer" },
	{ "a = 0x\n", "t.toml:1: invalid integer" },
	{ "a = -0x10\n", "t.toml:1: invalid integer" },
	{ "a = 12ab\n", "t.toml:1: invalid integer" },
	{ "a = 9223372036854775808\n", "t.toml:1: integer out of range" },
	{ "a = 0xffffffffffffffffff\n", "t.toml:1: integer out of range" },
	{ "a = tru\n", "t.toml:1: invalid value" },
	{ "a = \n", "t.toml:1: missing value" },
	{ "a = # c\n", "t.toml:1: missing value" },
	{ "a 1\n", "t.toml:1: expected '=' after key" },
	{ "= 1\n", "t.toml:1: invalid key" },
	{ "a = 1 b = 2\n", "t.toml:1: expected newline after value" },
	{ "[a] x = 1\n", "t.toml:1: expected newline after table header" },
	{ "[a\n", "t.toml:1: expected ']' after table name" },
	{ "[[a]]\n", "t.toml:1: arrays of tables are not supported" },
};

static void test_errors(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(err_cases) / sizeof(err_cases[0]); i++) {
		const struct err_case *c = &err_cases[i];
		struct toml_doc *d = NULL;
		char err[256] = "unset";
		int r = toml_parse_buf("t.toml", c->text, strlen(c->text), &d, err, sizeof(err));
		if (r != -22 || strcmp(err, c->want))
			fail_msg("case %zu: got %d \"%s\", want \"%s\"", i, r, err, c->want);
		assert_null(d);
	}
}

static void test_nesting_limit(void **state)
{
	(void)state;
	char buf[400];
	size_t n = (size_t)snprintf(buf, sizeof(buf), "a = ");
	for (int i = 0; i < 100; i++)
		buf[n++] = '[';
	buf[n] = 0;
	struct toml_doc *d = NULL;
	char err[128];
	assert_int_equal(toml_parse_buf("t.toml", buf, n, &d, err, sizeof(err)), -22);
	assert_string_equal(err, "t.toml:1: values nested too deeply");
}

/* Many tables: the hash index path, lookups by name, file order kept. */
static void test_many_tables(void **state)
{
	(void)state;
	enum { N = 5000 };
	size_t cap = (size_t)N * 64, n = 0;
	char *buf = malloc(cap);
	assert_non_null(buf);
	for (int i = 0; i < N; i++)
		n += (size_t)snprintf(buf + n, cap - n, "[imsi-00101%010d]\nsqn = %d\n", i, i);
	struct toml_doc *d = parse_ok(buf);
	assert_int_equal(toml_count(toml_root(d)), N);
	for (int i = 0; i < N; i += 7) {
		char key[32];
		snprintf(key, sizeof(key), "imsi-00101%010d", i);
		const struct toml_node *t = toml_get(toml_root(d), key);
		assert_non_null(t);
		assert_int_equal(toml_line(t), 2 * i + 1);
		assert_true(toml_int(toml_get(t, "sqn")) == i);
	}
	int i = 0;
	for (const struct toml_node *t = toml_first(toml_root(d)); t; t = toml_next(t), i++)
		assert_true(toml_int(toml_get(t, "sqn")) == i);
	assert_int_equal(i, N);
	assert_true(toml_mem(d) > 0);
	toml_free(d);

	/* A duplicate far down is still found through the index. */
	n += (size_t)snprintf(buf + n, cap - n, "[imsi-00101%010d]\n", 4321);
	char err[128];
	d = NULL;
	assert_int_equal(toml_parse_buf("big.toml", buf, n, &d, err, sizeof(err)), -22);
	char want[128];
	snprintf(want, sizeof(want), "big.toml:%d: duplicate table [imsi-001010000004321]",
		 2 * N + 1);
	assert_string_equal(err, want);
	free(buf);
}

static void test_file(void **state)
{
	(void)state;
	char path[] = "/tmp/test_toml_XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	const char text[] = "[imsi-001010000000001]\nki = \"00\"\nki = \"11\"\n";
	assert_int_equal(write(fd, text, sizeof(text) - 1), sizeof(text) - 1);
	close(fd);
	struct toml_doc *d = NULL;
	char err[256], want[256];
	assert_int_equal(toml_parse_file(path, &d, err, sizeof(err)), -22);
	snprintf(want, sizeof(want), "%s:3: duplicate key 'ki'", path);
	assert_string_equal(err, want);
	unlink(path);
	assert_int_equal(toml_parse_file(path, &d, err, sizeof(err)), -2);
	snprintf(want, sizeof(want), "%s: No such file or directory", path);
	assert_string_equal(err, want);
	toml_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_syntax),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_nesting_limit),
		cmocka_unit_test(test_many_tables),
		cmocka_unit_test(test_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
