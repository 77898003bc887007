/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * solocore - the command line: run, config check, config print, sims,
 * version, help. Exit codes: 0 success, 2 usage error, 1 runtime failure.
 *
 * `upf` is the same with the UPF alone (upf_alone.c: XDP + PFCP server).
 * `run` loads the configuration (defaults when no file), logs it with
 * secrets redacted, starts the modules in table order on one event loop,
 * and stops them in reverse order on SIGINT/SIGTERM. SIGHUP reopens the log
 * file. Signals arrive through a signalfd on the loop, so handlers never run
 * in the middle of module code.
 */
#include <errno.h>
#include <getopt.h>
#include <malloc.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "common/conf.h"
#include "common/ev.h"
#include "common/log.h"
#include "core.h"
#include "db/cluster.h"
#include "db/cluster_pki.h"
#include "db/db.h"
#include "common/crypto/crypto.h"

#ifndef SOLOCORE_VERSION
#define SOLOCORE_VERSION "unknown"
#endif

#define EXIT_USAGE 2
/* A graceful stop that takes longer than this is cut short (exit 1). */
#define STOP_DEADLINE_S 2

/* The modules and their order live in core.c (core_modules). */

static const char usage_text[] =
	"usage: solocore <command> [options]\n"
	"\n"
	"commands:\n"
	"  run [-c FILE]             start the core (built-in defaults without -c)\n"
	"  upf -c FILE               the UPF alone: XDP data path + PFCP (N4) server on upf.n4_address\n"
	"  config check [-c FILE]    validate the configuration, exit 0 if valid\n"
	"  config print [-c FILE]    print the effective configuration as YAML\n"
	"  sims import FILE.toml [--db PATH | --cluster HOST:PORT,... [--cluster-dir DIR] | -c FILE]\n"
	"  sims generate --count N [--imsi-start IMSI] [--ki HEX --opc HEX | --random-keys]\n"
	"  users create NAME --role admin|operator|read [--password-stdin] [--db PATH | -c FILE]\n"
	"  users passwd NAME [--password-stdin] [--db PATH | -c FILE]\n"
	"  users delete NAME [--db PATH | -c FILE]\n"
	"  users list [--db PATH | -c FILE]\n"
	"  cluster status [-c FILE]  the dqlite cluster's nodes: id, address, role, leader\n"
	"  cluster add ID ADDRESS [-c FILE]\n"
	"  cluster remove ID [-c FILE]\n"
	"  cluster token (-c FILE | --dir DIR --address HOST:PORT) [--ttl 1h]  a one-time join token\n"
	"  cluster join (-c FILE | --dir DIR) [--token TOKEN | --token -]  enroll a new node with one\n"
	"  cluster init --dir DIR [--name NAME]  the cluster CA and this node's certificate in DIR/tls\n"
	"  cluster add-node --dir CA_DIR --out DIR [--name NAME]  another node's certificate\n"
	"  version                   print the version\n"
	"  help                      this text\n"
	"\n"
	"--cluster (sims, users) talks mutual TLS with the certificate in DIR/tls of\n"
	"--cluster-dir DIR (default " CLUSTER_PKI_CLI_DIR_DEFAULT "); -c FILE uses its cluster.dir.\n"
	"\n"
	"exit codes: 0 success, 1 failure, 2 usage error\n";

static int usage_error(const char *fmt, const char *arg)
{
	fputs("solocore: ", stderr);
	fprintf(stderr, fmt, arg);
	fputs("\n(solocore help: usage)\n", stderr);
	return EXIT_USAGE;
}

/* Parse "[-c FILE]" after a command. Returns 0, or EXIT_USAGE (printed). */
static int parse_conf_opt(int argc, char **argv, const char **path)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int ch;

	*path = NULL;
	optind = 1;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":c:h", opts, NULL)) != -1) {
		switch (ch) {
		case 'c':
			*path = optarg;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return -1;
		case ':':
			return usage_error("%s needs a file name", argv[optind - 1]);
		default:
			return usage_error("unknown option %s", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return usage_error("unexpected argument %s", argv[optind]);
	return 0;
}

/* Defaults, or the file. Prints the error; returns 0 or 1. */
static int load_conf(struct conf *c, const char *path)
{
	char err[512];

	if (!path)
		return conf_defaults(c) == 0 ? 0 : 1;
	if (conf_load(c, path, err, sizeof(err)) < 0) {
		fprintf(stderr, "solocore: %s\n", err);
		return 1;
	}
	return 0;
}

/* ---- config ---- */

static int cmd_config(int argc, char **argv)
{
	struct conf c;
	const char *path;
	int rc;

	if (argc < 2)
		return usage_error("%s", "config needs check or print");
	if (strcmp(argv[1], "check") && strcmp(argv[1], "print"))
		return usage_error("unknown config command %s", argv[1]);
	rc = parse_conf_opt(argc - 1, argv + 1, &path);
	if (rc)
		return rc < 0 ? 0 : rc;
	if (load_conf(&c, path)) {
		conf_free(&c);
		return 1;
	}
	if (!strcmp(argv[1], "check")) {
		printf("%s: ok\n", path ? path : "built-in defaults");
		rc = 0;
	} else {
		rc = conf_print(&c, stdout) == 0 ? 0 : 1;
	}
	conf_free(&c);
	return rc;
}

/* ---- run ---- */

struct runner {
	const struct core_module *mods;   /* core_modules or upf_alone_modules */
	struct ev_loop *loop;
	int sigfd;
	int started;          /* modules[0..started) are running */
	int stop_signal;
};

static void alarm_handler(int sig)
{
	static const char msg[] = "solocore: graceful stop took too long, exiting\n";

	(void)sig;
	(void)!write(STDERR_FILENO, msg, sizeof(msg) - 1);
	_exit(1);
}

static void stop_modules(struct runner *r)
{
	while (r->started > 0) {
		const struct core_module *m = &r->mods[--r->started];

		log_info("main", "stopping %s", m->name);
		if (m->stop)
			m->stop();
	}
}

static void on_signal(struct ev_loop *loop, int fd, uint32_t events, void *arg)
{
	struct runner *r = arg;
	struct signalfd_siginfo si;

	(void)events;
	while (read(fd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if (si.ssi_signo == SIGHUP) {
			int rc = log_reopen();

			if (rc < 0)
				log_error("main", "SIGHUP: reopening the log file failed: %s", strerror(-rc));
			else
				log_info("main", "SIGHUP: log file reopened");
			continue;
		}
		if (r->stop_signal)
			continue;     /* already stopping */
		r->stop_signal = (int)si.ssi_signo;
		log_info("main", "%s: stopping", si.ssi_signo == SIGINT ? "SIGINT" : "SIGTERM");
		/* The stop must finish in bounded time even if a module hangs. */
		signal(SIGALRM, alarm_handler);
		alarm(STOP_DEADLINE_S);
		stop_modules(r);
		ev_stop(loop);
	}
}

static void log_config(const struct conf *c)
{
	char *buf = NULL, *line, *save = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (!m)
		return;
	conf_print_redacted(c, m);
	fclose(m);
	log_info("main", "effective configuration:");
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (line[0] != '#')
			log_info("main", "  %s", line);
	free(buf);
}

static int setup_logging(const struct conf *c)
{
	int rc;

	log_set_level((enum log_level)c->log.level);
	for (unsigned i = 0; i < c->log.n_modules; i++)
		log_set_module_level(c->log.modules[i].name, (enum log_level)c->log.modules[i].level);
	if (c->log.file[0]) {
		rc = log_open_file(c->log.file);
		if (rc < 0) {
			fprintf(stderr, "solocore: log.file %s: %s\n", c->log.file, strerror(-rc));
			return 1;
		}
	}
	return 0;
}

/* run and upf: load the configuration, start mods in order on one loop, stop
 * them in reverse on SIGINT / SIGTERM. */
static int run_modules(int argc, char **argv, const struct core_module *mods, const char *what)
{
	struct runner r = { .sigfd = -1, .mods = mods };
	struct conf c;
	const char *path;
	sigset_t mask;
	int rc, err = 0, status = 1;

	rc = parse_conf_opt(argc, argv, &path);
	if (rc)
		return rc < 0 ? 0 : rc;
	/* Blocked first, before any thread exists: every thread inherits the
	 * mask, only the signalfd sees these signals, and a SIGTERM that comes
	 * during start-up waits for the loop instead of killing the process. */
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (load_conf(&c, path) || setup_logging(&c)) {
		conf_free(&c);
		return 1;
	}
	/* OpenSSL's error strings (an LHASH of ~2,000 entries on the heap, and the
	 * pages of their tables) are only ever printed by the web server's TLS
	 * paths. Without TLS they are never loaded; first call wins (RUN_ONCE). */
	if (!c.web.tls.cert[0])
		OPENSSL_init_crypto(OPENSSL_INIT_NO_LOAD_CRYPTO_STRINGS, NULL);
	log_info("main", "solocore %s %s starting pid=%d config=%s", SOLOCORE_VERSION, what, (int)getpid(),
		 path ? path : "built-in defaults");
	log_config(&c);

	r.loop = ev_loop_new(&err);
	if (!r.loop) {
		log_error("main", "event loop: %s", strerror(-err));
		goto out;
	}
	if (c.n2.busy_poll_us) {
		/* Off by default: it keeps a CPU busy for up to that long after every batch. */
		ev_set_busy_poll(r.loop, c.n2.busy_poll_us);
		log_warn("main", "n2.busy_poll_us=%u: the control loop spins before sleeping "
			 "(lower latency, one CPU kept busy)", c.n2.busy_poll_us);
	}
	r.sigfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	if (r.sigfd < 0 || ev_fd_add(r.loop, r.sigfd, EV_READ, on_signal, &r) < 0) {
		log_error("main", "signalfd: %s", strerror(errno));
		goto out;
	}
	for (const struct core_module *m = mods; m->name; m++) {
		rc = m->start ? m->start(r.loop, &c) : 0;
		if (rc < 0) {
			log_error("main", "starting %s failed: %s", m->name, strerror(-rc));
			stop_modules(&r);
			goto out;
		}
		r.started++;
	}
	log_info("main", "running");
	rc = ev_run(r.loop);
	if (rc < 0) {
		log_error("main", "event loop failed: %s", strerror(-rc));
		stop_modules(&r);
		goto out;
	}
	log_info("main", "stopped");
	status = 0;
out:
	alarm(0);
	if (r.sigfd >= 0)
		close(r.sigfd);
	ev_loop_free(r.loop);
	conf_free(&c);
	crypto_thread_cleanup();
	return status;
}

static int cmd_run(int argc, char **argv)
{
	return run_modules(argc, argv, core_modules, "run");
}

/* The UPF alone behind its PFCP server (upf_alone.c); same file format as run */
static int cmd_upf(int argc, char **argv)
{
	return run_modules(argc, argv, upf_alone_modules, "upf");
}

/* ---- sims, users ---- */

/* sims and users: db/ owns the verbs; -c gives it the configured database. */
static int cmd_db_verb(int argc, char **argv, int (*plain)(int, char **),
		       int (*with_db)(int, char **, const char *))
{
	const char *path = NULL, *cdir = NULL;
	bool on_cluster = false, db_arg = false;
	struct conf c;
	int rc, kept = 1;

	/* --cluster-dir DIR (issue 31): the client certificate for --cluster; db/ never sees it. */
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--cluster-dir")) {
			if (i + 1 >= argc)
				return usage_error("%s needs a directory", argv[i]);
			cdir = argv[++i];
			continue;
		}
		/* Without a value, or with --db too, db/ says what is wrong (exit 2). */
		on_cluster |= !strcmp(argv[i], "--cluster") && i + 1 < argc;
		db_arg |= !strcmp(argv[i], "--db");
		argv[kept++] = argv[i];
	}
	argc = kept;
	argv[argc] = NULL;
	if (cdir && !on_cluster)
		return usage_error("%s goes with --cluster HOST:PORT (-c uses cluster.dir)", "--cluster-dir");
	if (on_cluster && !db_arg && cluster_pki_client_init(cdir ? cdir : CLUSTER_PKI_CLI_DIR_DEFAULT,
						  cdir ? "--cluster-dir" :
						  "the default; give --cluster-dir DIR") < 0)
		return 1;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-c") || !strcmp(argv[i], "--config")) {
			if (i + 1 >= argc)
				return usage_error("%s needs a file name", argv[i]);
			path = argv[i + 1];
		}
	}
	if (!path)
		return plain(argc, argv);
	if (load_conf(&c, path))
		return 1;
	/* A cluster node's config: the replicated database, through any of its nodes. */
	char loc[512] = "";
	const char *addrs[CLUSTER_PEERS_MAX + 1];
	unsigned n = cluster_conf_addrs(&c, addrs, CLUSTER_PEERS_MAX + 1);
	size_t k = n ? (size_t)snprintf(loc, sizeof(loc), "%s", DB_LOC_DQLITE) : 0;
	for (unsigned i = 0; i < n && k < sizeof(loc); i++)
		k += (size_t)snprintf(loc + k, sizeof(loc) - k, "%s%s", i ? "," : "", addrs[i]);
	if (k >= sizeof(loc)) {
		conf_free(&c);
		return usage_error("%s: too many cluster addresses", path);
	}
	if (n && cluster_pki_client_init(c.cluster.dir, "cluster.dir of the configuration") < 0) {
		conf_free(&c);
		return 1;
	}
	rc = with_db(argc, argv, n ? loc : c.db.path);
	conf_free(&c);
	return rc;
}

static int cli_users_plain(int argc, char **argv)
{
	return db_cli_users(argc, argv, NULL);
}

static int cmd_sims(int argc, char **argv)
{
	return cmd_db_verb(argc, argv, db_cli_sims, db_cli_sims_db);
}

static int cmd_users(int argc, char **argv)
{
	return cmd_db_verb(argc, argv, cli_users_plain, db_cli_users);
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : NULL;

	/* One malloc arena for the whole process. The threads besides the control
	 * thread (db writer, login KDF, usrsctp's iterator) allocate little and
	 * rarely; an arena each would reserve 64 MB of address space and keep
	 * its own free pages resident. Set before any thread exists. */
	mallopt(M_ARENA_MAX, 1);
	if (!cmd) {
		fputs(usage_text, stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(cmd, "run"))
		return cmd_run(argc - 1, argv + 1);
	if (!strcmp(cmd, "upf"))
		return cmd_upf(argc - 1, argv + 1);
	if (!strcmp(cmd, "config"))
		return cmd_config(argc - 1, argv + 1);
	if (!strcmp(cmd, "sims"))
		return cmd_sims(argc - 1, argv + 1);
	if (!strcmp(cmd, "users"))
		return cmd_users(argc - 1, argv + 1);
	if (!strcmp(cmd, "cluster"))
		return cluster_cli(argc - 1, argv + 1);
	if (!strcmp(cmd, "version") || !strcmp(cmd, "--version")) {
		printf("solocore %s\n", SOLOCORE_VERSION);
		return 0;
	}
	if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
		fputs(usage_text, stdout);
		return 0;
	}
	return usage_error("unknown command %s", cmd);
}
