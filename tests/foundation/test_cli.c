/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * The solocore binary (path in argv[1], passed by meson): exit codes of every
 * command, config check/print round trip through files, and `run` stopping
 * with exit 0 on SIGTERM/SIGINT, reopening its log on SIGHUP, refusing a
 * config with an unknown key. Waits are for log lines, never for time.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

extern char **environ;

static const char *exe;
static char dir[] = "/tmp/solocore-cli-XXXXXX";
static char out[65536], err[65536];

static char *path_in_dir(const char *name)
{
	static char bufs[4][512];
	static int n;
	char *b = bufs[n++ % 4];

	snprintf(b, 512, "%s/%s", dir, name);
	return b;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void read_file(const char *path, char *buf, size_t bufsz)
{
	FILE *f = fopen(path, "r");
	size_t n = 0;

	buf[0] = 0;
	if (!f)
		return;
	n = fread(buf, 1, bufsz - 1, f);
	buf[n] = 0;
	fclose(f);
}

/* Run exe with args (NULL-terminated); stdout and stderr land in out / err. Returns the exit code. */
static int run(const char *arg, ...)
{
	char *argv[16];
	int argc = 0, status;
	posix_spawn_file_actions_t fa;
	const char *a;
	va_list ap;
	pid_t pid;

	argv[argc++] = (char *)exe;
	va_start(ap, arg);
	for (a = arg; a && argc < 15; a = va_arg(ap, const char *))
		argv[argc++] = (char *)a;
	va_end(ap);
	argv[argc] = NULL;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, path_in_dir("out"), O_WRONLY | O_CREAT | O_TRUNC, 0600);
	posix_spawn_file_actions_addopen(&fa, 2, path_in_dir("err"), O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_int_equal(posix_spawn(&pid, exe, &fa, NULL, argv, environ), 0);
	posix_spawn_file_actions_destroy(&fa);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	read_file(path_in_dir("out"), out, sizeof(out));
	read_file(path_in_dir("err"), err, sizeof(err));
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

static void test_version_help(void **state)
{
	(void)state;
	assert_int_equal(run("version", NULL), 0);
	assert_string_equal(out, "solocore " SOLOCORE_VERSION "\n");
	assert_int_equal(run("help", NULL), 0);
	assert_memory_equal(out, "usage: solocore", 15);
	assert_non_null(strstr(out, "config check"));
	assert_int_equal(run("--help", NULL), 0);
	assert_int_equal(run("config", "check", "--help", NULL), 0);
}

static void test_usage_errors(void **state)
{
	(void)state;
	assert_int_equal(run(NULL), 2);
	assert_memory_equal(err, "usage: solocore", 15);
	assert_int_equal(run("bogus", NULL), 2);
	assert_memory_equal(err, "solocore: unknown command bogus\n", 32);
	assert_int_equal(run("config", NULL), 2);
	assert_int_equal(run("config", "frob", NULL), 2);
	assert_memory_equal(err, "solocore: unknown config command frob\n", 38);
	assert_int_equal(run("config", "check", "-c", NULL), 2);
	assert_memory_equal(err, "solocore: -c needs a file name\n", 31);
	assert_int_equal(run("config", "check", "extra", NULL), 2);
	assert_int_equal(run("run", "-x", NULL), 2);
	assert_memory_equal(err, "solocore: unknown option -x\n", 28);
	assert_int_equal(run("config", "print", "--bogus", NULL), 2);
}

static void test_config_check_print(void **state)
{
	char printed[65536];

	(void)state;
	assert_int_equal(run("config", "check", NULL), 0);
	assert_string_equal(out, "built-in defaults: ok\n");
	/* print -> file -> check -> print: accepted and identical. */
	assert_int_equal(run("config", "print", NULL), 0);
	assert_non_null(strstr(out, "  port: 38412\n"));
	write_file(path_in_dir("printed.yaml"), out);
	strcpy(printed, out);
	assert_int_equal(run("config", "check", "-c", path_in_dir("printed.yaml"), NULL), 0);
	assert_int_equal(run("config", "print", "--config", path_in_dir("printed.yaml"), NULL), 0);
	assert_string_equal(out, printed);
	/* A missing file and an invalid one: exit 1 with the reason. */
	assert_int_equal(run("config", "check", "-c", path_in_dir("missing.yaml"), NULL), 1);
	assert_non_null(strstr(err, "missing.yaml: No such file or directory"));
	write_file(path_in_dir("bad.yaml"), "n2:\n  port: 38412\n  prot: 1\n");
	assert_int_equal(run("config", "check", "-c", path_in_dir("bad.yaml"), NULL), 1);
	char want[600];
	snprintf(want, sizeof(want), "solocore: %s:3:3: n2.prot: unknown key\n", path_in_dir("bad.yaml"));
	assert_string_equal(err, want);
	assert_int_equal(run("config", "print", "-c", path_in_dir("bad.yaml"), NULL), 1);
}

/* Acceptance: an unknown key makes `run -c` exit 1 with file:line and the key. */
static void test_run_unknown_key(void **state)
{
	char want[600];

	(void)state;
	write_file(path_in_dir("bad2.yaml"), "amf:\n  region_id: 2\n  regoin_id: 3\n");
	assert_int_equal(run("run", "-c", path_in_dir("bad2.yaml"), NULL), 1);
	snprintf(want, sizeof(want), "%s:3:3: amf.regoin_id: unknown key", path_in_dir("bad2.yaml"));
	assert_non_null(strstr(err, want));
}

/* Start `run`, stderr into a pipe; returns the pipe's read end. */
static int spawn_run(pid_t *pid, const char *conf)
{
	char *argv[] = { (char *)exe, "run", conf ? "-c" : NULL, (char *)conf, NULL };
	posix_spawn_file_actions_t fa;
	int p[2];

	assert_int_equal(pipe(p), 0);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, p[1], 2);
	posix_spawn_file_actions_addclose(&fa, p[0]);
	assert_int_equal(posix_spawn(pid, exe, &fa, NULL, argv, environ), 0);
	posix_spawn_file_actions_destroy(&fa);
	close(p[1]);
	return p[0];
}

/* Read from fd into err until needle shows up (true) or EOF (false). */
static size_t err_len;
static bool read_until(int fd, const char *needle)
{
	while (!strstr(err, needle)) {
		ssize_t n = read(fd, err + err_len, sizeof(err) - 1 - err_len);

		if (n <= 0)
			return false;
		err_len += (size_t)n;
		err[err_len] = 0;
	}
	return true;
}

static void stop_with(int sig, const char *conf)
{
	pid_t pid;
	int fd, status;

	err_len = 0;
	err[0] = 0;
	fd = spawn_run(&pid, conf);
	assert_true(read_until(fd, " INFO main: running\n"));
	assert_int_equal(kill(pid, sig), 0);
	assert_true(read_until(fd, " INFO main: stopped\n"));
	read_until(fd, "\x01");   /* drain to EOF */
	close(fd);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_non_null(strstr(err, sig == SIGINT ? "SIGINT: stopping" : "SIGTERM: stopping"));
}

/* Acceptance: `run` with no file starts, logs its configuration, exits 0 on SIGTERM. */
static void test_run_sigterm(void **state)
{
	(void)state;
	stop_with(SIGTERM, NULL);
	assert_non_null(strstr(err, " INFO main: effective configuration:\n"));
	assert_non_null(strstr(err, "port: 38412\n"));
	stop_with(SIGINT, NULL);
}

/* Secrets stay out of the log; SIGHUP reopens the log file. */
static void test_run_redact_and_sighup(void **state)
{
	char conf[1024], log1[65536], log2[65536];
	pid_t pid;
	int fd, status;

	(void)state;
	snprintf(conf, sizeof(conf),
		 /* Global level error, main at info: the lines waited for prove the override. */
		 "log: {file: \"%s\", level: error, modules: [{name: main, level: info}]}\n"
		 "suci:\n  keys:\n    - id: 1\n      scheme: A\n"
		 "      private_key: c53c22208b61860b06c62e5406a7b330c2b577aa5558981510d128247d38bd1d\n",
		 path_in_dir("s.log"));
	write_file(path_in_dir("s.yaml"), conf);
	err_len = 0;
	err[0] = 0;
	fd = spawn_run(&pid, path_in_dir("s.yaml"));
	/* Poll the file for the start line: the process writes there, not to the pipe. */
	for (;;) {
		read_file(path_in_dir("s.log"), log1, sizeof(log1));
		if (strstr(log1, " INFO main: running\n"))
			break;
		usleep(10000);
	}
	assert_int_equal(rename(path_in_dir("s.log"), path_in_dir("s.log.1")), 0);
	assert_int_equal(kill(pid, SIGHUP), 0);
	for (;;) {
		read_file(path_in_dir("s.log"), log2, sizeof(log2));
		if (strstr(log2, "SIGHUP: log file reopened\n"))
			break;
		usleep(10000);
	}
	assert_int_equal(kill(pid, SIGTERM), 0);
	read_until(fd, "\x01");
	close(fd);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	read_file(path_in_dir("s.log.1"), log1, sizeof(log1));
	read_file(path_in_dir("s.log"), log2, sizeof(log2));
	assert_non_null(strstr(log1, "private_key: \"<redacted>\""));
	assert_null(strstr(log1, "c53c2220"));
	assert_null(strstr(log1, "reopened"));
	assert_non_null(strstr(log2, " INFO main: stopped\n"));
	assert_string_equal(err, "");     /* everything went to the file */
}

static void test_sims_dispatch(void **state)
{
	(void)state;
	/* db/ owns the verbs; the CLI only routes to it (usage error here). */
	assert_int_equal(run("sims", NULL), 2);
	assert_int_equal(run("sims", "-c", NULL), 2);
	assert_int_equal(run("sims", "generate", "-c", path_in_dir("missing.yaml"), NULL), 1);
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	static const char *const names[] = { "out", "err", "printed.yaml", "bad.yaml", "bad2.yaml",
					     "s.yaml", "s.log", "s.log.1" };

	(void)state;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		unlink(path_in_dir(names[i]));
	rmdir(dir);
	return 0;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_version_help),
		cmocka_unit_test(test_usage_errors),
		cmocka_unit_test(test_config_check_print),
		cmocka_unit_test(test_run_unknown_key),
		cmocka_unit_test(test_run_sigterm),
		cmocka_unit_test(test_run_redact_and_sighup),
		cmocka_unit_test(test_sims_dispatch),
	};

	if (argc < 2) {
		fprintf(stderr, "usage: test_cli PATH-TO-SOLOCORE\n");
		return 1;
	}
	exe = argv[1];
	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests_name("cli", tests, setup, teardown);
}
