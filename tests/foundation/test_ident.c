/* SPDX-License-Identifier: AGPL-3.0-or-later */
/* common/ident.h: length bounds, the allowed characters, NULL. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "common/ident.h"

static void test_ident(void **state)
{
	char long_name[66];

	(void)state;
	assert_true(ident_valid("alice", 64, "._@-"));
	assert_true(ident_valid("a.b_c-d@e", 64, "._@-"));
	assert_true(ident_valid("Z9", 2, ""));
	assert_false(ident_valid("a@b", 64, "._-"));
	assert_false(ident_valid("a b", 64, "._-"));
	assert_false(ident_valid("a/b", 64, "._-"));
	assert_false(ident_valid("\xc3\xa9", 64, "._-"));
	assert_false(ident_valid("", 64, "._-"));
	assert_false(ident_valid(NULL, 64, "._-"));
	memset(long_name, 'x', sizeof(long_name) - 1);
	long_name[65] = 0;
	assert_false(ident_valid(long_name, 64, "._-"));
	long_name[64] = 0;
	assert_true(ident_valid(long_name, 64, "._-"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ident),
	};
	return cmocka_run_group_tests_name("ident", tests, NULL, NULL);
}
