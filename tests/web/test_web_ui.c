/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * The embedded UI's script, run by node (tests/web/ui_node.js) against a
 * live server: list, add with a bad and a good K, duplicate, TOML import
 * good and bad, search, delete, export. Without node: skipped (77).
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
	argv[1] = SOLOCORE_SOURCE_ROOT "/tests/web/ui_node.js";
	argv[2] = SOLOCORE_SOURCE_ROOT "/web/ui.html";
	argv[3] = port;
	argv[4] = TOK_OP;
	argv[5] = NULL;
	printf("node %s %s %s\n", argv[1], argv[2], argv[3]);
	assert_int_equal(posix_spawnp(&pid, "node", NULL, NULL, argv, environ), 0);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	/* What the page did is in the database and the UDM. */
	assert_int_equal(db_subscriber_count(s.db), 3);
	assert_int_equal(udm_count(s.udm), 3);
	assert_null(udm_get(s.udm, "imsi-001010000000003"));
	assert_non_null(udm_get(s.udm, "imsi-001010000000001"));
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
