/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * The embedded UI's helpers, run by node (tests/web/browser/ui_unit.js):
 * slices / rates / DNN lines / settings diff / chart rates, and the form
 * bodies they make sent to a live server: accepted, and every error the API
 * answers (400 per field, 409 duplicate IMSI) lands in an error slot of the
 * form it came from. The pages themselves run in Chromium (web-browser).
 * Without node: skipped (77).
 */
#include <stdarg.h>
#include <setjmp.h>
#include <stddef.h>
#include <cmocka.h>

#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "db/db.h"
#include "udm/udm.h"
#include "webcli.h"

extern char **environ;

static void test_ui_in_node(void **state)
{
	struct srv s;
	char port[8];
	char *argv[6];
	pid_t pid;
	int st;

	(void)state;
	srv_start(&s, NULL);
	snprintf(port, sizeof(port), "%u", s.port);
	argv[0] = "node";
	argv[1] = SOLOCORE_SOURCE_ROOT "/tests/web/browser/ui_unit.js";
	argv[2] = SOLOCORE_SOURCE_ROOT "/web/ui.html";
	argv[3] = port;
	argv[4] = TOK_ADMIN;
	argv[5] = NULL;
	printf("node %s %s %s\n", argv[1], argv[2], argv[3]);
	assert_int_equal(posix_spawnp(&pid, "node", NULL, NULL, argv, environ), 0);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	/* What the form bodies did is in the database and the UDM: the one
	 * good subscriber, none of the refused ones. */
	assert_int_equal(db_subscriber_count(s.db), 1);
	assert_int_equal(udm_count(s.udm), 1);
	assert_non_null(udm_get(s.udm, "imsi-001010000000001"));
	assert_null(udm_get(s.udm, "imsi-001010000000002"));
	srv_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_ui_in_node) };

	if (system("command -v node >/dev/null 2>&1") != 0) {
		printf("node not installed: the UI script cannot be run, test skipped\n");
		return 77;
	}
	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
