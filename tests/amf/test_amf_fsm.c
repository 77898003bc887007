/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * The 5GMM table (amf/gmm_fsm.c): amf/README.md shows it as amf_gmm_table_print() prints
 * it (the block between the "gmm-table" markers must be byte for byte the printout), every
 * sub-state is reachable from DEREGISTERED, and every sub-state but DEREGISTERED and
 * REGISTERED has a timer or an N2 loss that leads out of it (no procedure can wait for
 * ever). `test_amf_fsm --print` / `--dot` prints the table (text / Graphviz).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "amf/amf_int.h"

static char tbl[32768];

static void test_readme_shows_table(void **state)
{
	static char readme[65536];
	const char *begin = "<!-- gmm-table begin -->\n```\n", *end = "```\n<!-- gmm-table end -->";
	char *a, *b;
	FILE *f = fopen(SOLOCORE_SOURCE_ROOT "/amf/README.md", "r");
	size_t n;
	int len;

	(void)state;
	assert_non_null(f);
	n = fread(readme, 1, sizeof(readme) - 1, f);
	fclose(f);
	readme[n] = '\0';
	len = amf_gmm_table_print(tbl, sizeof(tbl), false);
	assert_true(len > 0);
	a = strstr(readme, begin);
	assert_non_null(a);
	a += strlen(begin);
	b = strstr(a, end);
	assert_non_null(b);
	if ((size_t)(b - a) != (size_t)len || memcmp(a, tbl, (size_t)len) != 0)
		fail_msg("amf/README.md: the table differs from amf_gmm_table_print(); regenerate with "
			 "build/tests/amf/test_amf_fsm --print");
	/* too small a buffer is an error, not a truncated table */
	assert_int_equal(amf_gmm_table_print(tbl, 64, false), -ENOSPC);
	assert_true(amf_gmm_table_print(tbl, sizeof(tbl), true) > len);
	assert_non_null(strstr(tbl, "\"AUTH\" -> \"SMC\" [label=\"AUTH_RSP\"]"));
}

/* Parse the text form back: "FROM EVENT -> A|B". */
static unsigned sub_of(const char *name)
{
	for (unsigned s = 0; s < AMF_GS_COUNT; s++)
		if (strcmp(name, amf_gmm_sub_name((enum amf_gmm_sub)s)) == 0)
			return s;
	fail_msg("unknown state %s", name);
	return 0;
}

static void test_reachable_and_no_dead_ends(void **state)
{
	unsigned edge[AMF_GS_COUNT] = { 0 }, exits[AMF_GS_COUNT] = { 0 };
	unsigned seen = 1u << AMF_GS_DEREGISTERED, s;
	char *line, *save = NULL;
	bool grew = true;

	(void)state;
	assert_true(amf_gmm_table_print(tbl, sizeof(tbl), false) > 0);
	for (line = strtok_r(tbl, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char from[32], ev[32], to[256], *t, *sv = NULL;

		assert_int_equal(sscanf(line, "%31s %31s -> %255s", from, ev, to), 3);
		s = sub_of(from);
		for (t = strtok_r(to, "|", &sv); t; t = strtok_r(NULL, "|", &sv)) {
			unsigned n = sub_of(t);

			edge[s] |= 1u << n;
			if (n != s && (strncmp(ev, "T35", 3) == 0 || strcmp(ev, "AN_REL") == 0))
				exits[s] |= 1u << n;
		}
	}
	while (grew) {
		grew = false;
		for (s = 0; s < AMF_GS_COUNT; s++)
			if ((seen & (1u << s)) && (seen | edge[s]) != seen) {
				seen |= edge[s];
				grew = true;
			}
	}
	assert_int_equal(seen, (1u << AMF_GS_COUNT) - 1);
	for (s = 0; s < AMF_GS_COUNT; s++)
		if (s != AMF_GS_DEREGISTERED && s != AMF_GS_REGISTERED && !exits[s])
			fail_msg("%s has no timer or N2 loss leading out", amf_gmm_sub_name((enum amf_gmm_sub)s));
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_readme_shows_table),
		cmocka_unit_test(test_reachable_and_no_dead_ends),
	};

	if (argc > 1 && (strcmp(argv[1], "--print") == 0 || strcmp(argv[1], "--dot") == 0)) {
		if (amf_gmm_table_print(tbl, sizeof(tbl), strcmp(argv[1], "--dot") == 0) < 0)
			return 1;
		fputs(tbl, stdout);
		return 0;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
