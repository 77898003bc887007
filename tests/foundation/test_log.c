/* SPDX-License-Identifier: AGPL-3.0-or-later */
/* Logging: line format, prefixes, levels, rate limiting, sink, files. */
#include <errno.h>
#include <regex.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/log.h"

#define MAXL 32
static char lines[MAXL][4096];
static enum log_level levels[MAXL];
static int nlines;

static void cap_sink(enum log_level level, const char *line, size_t len, void *arg)
{
	assert_ptr_equal(arg, &nlines);
	assert_int_equal(strlen(line), len);
	assert_true(nlines < MAXL);
	levels[nlines] = level;
	memcpy(lines[nlines++], line, len + 1);
}

static int setup(void **state)
{
	(void)state;
	nlines = 0;
	log_set_level(LOGL_INFO);
	log_set_sink(cap_sink, &nlines);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	log_set_sink(NULL, NULL);
	return 0;
}

/* The text after "<time> ". */
static const char *body(int i)
{
	const char *sp = strchr(lines[i], ' ');

	assert_non_null(sp);
	return sp + 1;
}

static void test_format(void **state)
{
	regex_t re;

	(void)state;
	log_info("amf", "hello %d", 5);
	log_msg(LOGL_WARN, "amf", "ue=42 gmm{REGISTERED}", "registered supi=%s", "imsi-001010000000001");
	log_error(NULL, "no module");
	assert_int_equal(nlines, 3);
	assert_int_equal(regcomp(&re, "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z ",
				 REG_EXTENDED | REG_NOSUB), 0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(regexec(&re, lines[i], 0, NULL, 0), 0);
	regfree(&re);
	assert_string_equal(body(0), "INFO amf: hello 5");
	assert_string_equal(body(1), "WARN amf ue=42 gmm{REGISTERED}: registered supi=imsi-001010000000001");
	assert_string_equal(body(2), "ERROR -: no module");
	assert_int_equal(levels[0], LOGL_INFO);
	assert_int_equal(levels[1], LOGL_WARN);
	assert_int_equal(levels[2], LOGL_ERROR);
}

static void test_newline_and_truncation(void **state)
{
	char big[5000];

	(void)state;
	log_info("m", "a\nb\rc");
	assert_string_equal(body(0), "INFO m: a b c");
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	log_info("m", "%s", big);
	assert_int_equal(nlines, 2);
	size_t len = strlen(lines[1]);
	assert_true(len > 1000 && len < 4096);
	assert_string_equal(lines[1] + len - 4, "x...");
}

static void test_levels(void **state)
{
	enum log_level l;

	(void)state;
	assert_int_equal(log_get_level(), LOGL_INFO);
	log_debug("amf", "hidden");
	assert_int_equal(nlines, 0);
	assert_false(log_enabled(LOGL_DEBUG, "amf"));
	assert_true(log_enabled(LOGL_INFO, "amf"));
	assert_int_equal(log_set_module_level("ngap", LOGL_DEBUG), 0);
	assert_int_equal(log_set_module_level("amf", LOGL_ERROR), 0);
	log_debug("ngap", "shown");
	log_debug("nas", "hidden");
	log_warn("amf", "hidden");
	log_error("amf", "shown");
	assert_int_equal(nlines, 2);
	assert_string_equal(body(0), "DEBUG ngap: shown");
	assert_string_equal(body(1), "ERROR amf: shown");
	/* Global level change does not override module levels. */
	log_set_level(LOGL_ERROR);
	log_info("nas", "hidden");
	log_info("ngap", "shown");
	assert_int_equal(nlines, 3);
	/* Override replaced in place, table limited. */
	assert_int_equal(log_set_module_level("ngap", LOGL_INFO), 0);
	assert_false(log_enabled(LOGL_DEBUG, "ngap"));
	assert_int_equal(log_set_module_level(NULL, LOGL_INFO), -EINVAL);
	int rc = 0;
	char name[16];
	for (int i = 0; i < 64 && rc == 0; i++) {
		snprintf(name, sizeof(name), "mod%d", i);
		rc = log_set_module_level(name, LOGL_INFO);
	}
	assert_int_equal(rc, -ENOSPC);
	log_set_level(LOGL_INFO);
	/* Parse / names. */
	assert_int_equal(log_level_parse("debug", &l), 0);
	assert_int_equal(l, LOGL_DEBUG);
	assert_int_equal(log_level_parse("WARN", &l), 0);
	assert_int_equal(l, LOGL_WARN);
	assert_int_equal(log_level_parse("verbose", &l), -EINVAL);
	assert_int_equal(log_level_parse(NULL, &l), -EINVAL);
	assert_string_equal(log_level_name(LOGL_ERROR), "ERROR");
	assert_string_equal(log_level_name((enum log_level)9), "?");
}

static void test_rate_limit(void **state)
{
	struct log_rl rl = { 0 };

	(void)state;
	for (int i = 0; i < 10; i++)
		log_msg_rl(&rl, 3, 60000, LOGL_WARN, "sctp", "gnb=7", "drop %d", i);
	assert_int_equal(nlines, 3);
	assert_string_equal(body(2), "WARN sctp gnb=7: drop 2");
	assert_int_equal(rl.suppressed, 7);
	/* End the window without waiting: move its start into the past. */
	rl.window_start_ns -= 60000ull * 1000000u;
	log_msg_rl(&rl, 3, 60000, LOGL_WARN, "sctp", "gnb=7", "drop %d", 10);
	assert_int_equal(nlines, 4);
	assert_string_equal(body(3), "WARN sctp gnb=7: drop 10 (7 similar lines suppressed)");
	log_msg_rl(&rl, 3, 60000, LOGL_WARN, "sctp", "gnb=7", "drop %d", 11);
	assert_string_equal(body(4), "WARN sctp gnb=7: drop 11");
	/* Disabled levels are neither printed nor counted. */
	log_msg_rl(&rl, 3, 60000, LOGL_DEBUG, "sctp", NULL, "x");
	assert_int_equal(rl.in_window, 2);
	/* The macro keeps one state per call site. */
	for (int i = 0; i < 20; i++)
		log_rl(LOGL_INFO, "m", NULL, "site %d", i);
	assert_int_equal(nlines, 5 + 10);
}

static void read_file(const char *path, char *out, size_t outsz)
{
	FILE *f = fopen(path, "r");
	size_t n;

	assert_non_null(f);
	n = fread(out, 1, outsz - 1, f);
	out[n] = 0;
	fclose(f);
}

static void test_file_and_reopen(void **state)
{
	char dir[] = "/tmp/soloc-log-XXXXXX";
	char path[256], rotated[256], buf[4096];

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/solocore.log", dir);
	snprintf(rotated, sizeof(rotated), "%s/solocore.log.1", dir);
	log_set_sink(NULL, NULL);
	assert_int_equal(log_open_file(path), 0);
	log_info("main", "first");
	assert_int_equal(rename(path, rotated), 0);
	assert_int_equal(log_reopen(), 0);
	log_info("main", "second");
	assert_int_equal(log_open_file(NULL), 0);
	assert_int_equal(log_reopen(), 0);       /* stderr: nothing to do */
	read_file(rotated, buf, sizeof(buf));
	assert_non_null(strstr(buf, " INFO main: first\n"));
	assert_null(strstr(buf, "second"));
	read_file(path, buf, sizeof(buf));
	assert_non_null(strstr(buf, " INFO main: second\n"));
	assert_null(strstr(buf, "first"));
	assert_int_equal(log_open_file("/nonexistent-dir/x.log"), -ENOENT);
	unlink(path);
	unlink(rotated);
	rmdir(dir);
}

static void test_hex(void **state)
{
	const uint8_t b[] = { 0xde, 0xad, 0xbe, 0xef, 0x01 };
	char out[32], small[9];

	(void)state;
	assert_string_equal(log_hex(out, sizeof(out), b, sizeof(b)), "deadbeef01");
	assert_string_equal(log_hex(out, sizeof(out), b, 0), "");
	/* 9 bytes of room: 2 whole bytes, then "...". */
	assert_string_equal(log_hex(small, sizeof(small), b, sizeof(b)), "dead...");
	assert_string_equal(log_hex(out, 11, b, sizeof(b)), "deadbeef01");
	assert_string_equal(log_hex(small, 3, b, sizeof(b)), "..");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_format, setup, teardown),
		cmocka_unit_test_setup_teardown(test_newline_and_truncation, setup, teardown),
		cmocka_unit_test_setup_teardown(test_levels, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rate_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_file_and_reopen, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hex, setup, teardown),
	};
	return cmocka_run_group_tests_name("log", tests, NULL, NULL);
}
