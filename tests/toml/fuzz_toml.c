/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * libFuzzer target: the TOML reader. Beyond "no crash, no leak": a parsed
 * document is walked completely, every table member is found again by its
 * key through toml_get (hash index or list), counts match the iteration,
 * and a failed parse leaves a "name:line: reason" message and no document.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/toml/toml.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void walk(const struct toml_node *n, int depth)
{
	if (depth > 200)
		abort();
	enum toml_type t = toml_type(n);
	if (t == TOML_STRING) {
		size_t len;
		const char *s = toml_str(n, &len);
		if (s[len] != 0)
			abort();
	}
	if (t != TOML_TABLE && t != TOML_ARRAY)
		return;
	size_t count = 0;
	for (const struct toml_node *c = toml_first(n); c; c = toml_next(c)) {
		count++;
		const char *k = toml_key(c);
		if ((t == TOML_TABLE) != (k != NULL))
			abort();
		/* A key holding a NUL cannot be looked up by a C string. */
		if (k && strlen(k) == toml_key_len(c) && toml_get(n, k) != c)
			abort();
		walk(c, depth + 1);
	}
	if (count != toml_count(n))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct toml_doc *d = NULL;
	char err[256];
	int r = toml_parse_buf("f.toml", (const char *)data, size, &d, err, sizeof(err));
	if (r == 0) {
		walk(toml_root(d), 0);
		toml_free(d);
	} else if (d || (r == -22 && strncmp(err, "f.toml:", 7) != 0)) {
		abort();
	}
	return 0;
}
