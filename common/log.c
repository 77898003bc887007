/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * log - line formatting, levels, rate limiting and the default sink.
 *
 * A line is formatted into a stack buffer (no allocation) and handed to the
 * sink in one piece. The default sink writes it with a single write(2) to
 * stderr or to the log file, so lines from several threads do not interleave.
 * log_reopen() opens the file again and dup2()s it over the descriptor in
 * use, so a concurrent writer sees either the old or the new file, never a
 * closed descriptor.
 *
 * Configuration (levels, sink) is meant to be set by the control thread at
 * start-up; a custom sink must itself be thread-safe if other threads log.
 */
#include "common/log.h"
#include "common/hex.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#define LOG_LINE_MAX 2048
#define LOG_MODULES_MAX 32
#define LOG_MODULE_NAME_MAX 24
#define LOG_PATH_MAX 4096

struct log_module_level {
	char name[LOG_MODULE_NAME_MAX];
	enum log_level level;
};

static enum log_level g_level = LOGL_INFO;
static struct log_module_level g_modules[LOG_MODULES_MAX];
static unsigned g_nmodules;

static log_sink_fn g_sink;
static void *g_sink_arg;
static int g_fd = -1;     /* log file, -1: stderr */
static char g_path[LOG_PATH_MAX];

static const char *const level_names[] = {
	[LOGL_ERROR] = "ERROR", [LOGL_WARN] = "WARN", [LOGL_INFO] = "INFO", [LOGL_DEBUG] = "DEBUG",
};

void log_set_level(enum log_level level)
{
	g_level = level;
}

enum log_level log_get_level(void)
{
	return g_level;
}

int log_set_module_level(const char *module, enum log_level level)
{
	if (!module || strlen(module) >= LOG_MODULE_NAME_MAX)
		return -EINVAL;
	for (unsigned i = 0; i < g_nmodules; i++) {
		if (!strcmp(g_modules[i].name, module)) {
			g_modules[i].level = level;
			return 0;
		}
	}
	if (g_nmodules == LOG_MODULES_MAX)
		return -ENOSPC;
	strcpy(g_modules[g_nmodules].name, module);
	g_modules[g_nmodules].level = level;
	g_nmodules++;
	return 0;
}

bool log_enabled(enum log_level level, const char *module)
{
	if (module) {
		for (unsigned i = 0; i < g_nmodules; i++)
			if (!strcmp(g_modules[i].name, module))
				return level <= g_modules[i].level;
	}
	return level <= g_level;
}

int log_level_parse(const char *s, enum log_level *out)
{
	static const char *const names[] = { "error", "warn", "info", "debug" };

	if (!s)
		return -EINVAL;
	for (unsigned i = 0; i < 4; i++) {
		if (!strcasecmp(s, names[i])) {
			*out = (enum log_level)i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *log_level_name(enum log_level level)
{
	if ((unsigned)level > LOGL_DEBUG)
		return "?";
	return level_names[level];
}

/* ---- sinks ---- */

static void write_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return;       /* nowhere to report a failing log */
		}
		p += n;
		len -= (size_t)n;
	}
}

/* The caller leaves room for the newline at line[len]. */
static void default_sink(char *line, size_t len)
{
	line[len] = '\n';
	write_all(g_fd >= 0 ? g_fd : STDERR_FILENO, line, len + 1);
}

void log_set_sink(log_sink_fn fn, void *arg)
{
	g_sink_arg = arg;
	g_sink = fn;
}

static int open_log(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0640);

	return fd < 0 ? -errno : fd;
}

int log_open_file(const char *path)
{
	int fd;

	if (!path) {
		if (g_fd >= 0)
			close(g_fd);
		g_fd = -1;
		g_path[0] = 0;
		return 0;
	}
	if (strlen(path) >= sizeof(g_path))
		return -ENAMETOOLONG;
	fd = open_log(path);
	if (fd < 0)
		return fd;
	if (g_fd >= 0) {
		/* Keep the descriptor number stable for concurrent writers. */
		if (dup2(fd, g_fd) < 0) {
			int rc = -errno;

			close(fd);
			return rc;
		}
		close(fd);
	} else {
		g_fd = fd;
	}
	strcpy(g_path, path);
	return 0;
}

int log_reopen(void)
{
	char path[LOG_PATH_MAX];

	if (g_fd < 0)
		return 0;     /* stderr: nothing to reopen */
	strcpy(path, g_path);
	return log_open_file(path);
}

/* ---- formatting ---- */

/* "2026-11-29T10:00:00.123Z": the date part is cached per thread and second. */
static size_t fmt_time(char *out, size_t outsz)
{
	static __thread time_t cached_sec = -1;
	static __thread char cached[24];
	struct timespec ts;
	int n;

	clock_gettime(CLOCK_REALTIME, &ts);
	if (ts.tv_sec != cached_sec) {
		struct tm tm;

		gmtime_r(&ts.tv_sec, &tm);
		strftime(cached, sizeof(cached), "%Y-%m-%dT%H:%M:%S", &tm);
		cached_sec = ts.tv_sec;
	}
	n = snprintf(out, outsz, "%s.%03ldZ", cached, ts.tv_nsec / 1000000);
	return n < 0 ? 0 : (size_t)n < outsz ? (size_t)n : outsz - 1;
}

/* Format and emit one line; suffix (may be NULL) is appended to the message. */
static void emit(enum log_level level, const char *module, const char *obj, const char *suffix,
		 const char *fmt, va_list ap)
{
	/* One spare byte for the default sink's newline. */
	char line[LOG_LINE_MAX + 1];
	const size_t cap = LOG_LINE_MAX;
	size_t len;
	int n;

	len = fmt_time(line, cap);
	n = snprintf(line + len, cap - len, " %s %s%s%s: ", log_level_name(level),
		     module ? module : "-", obj ? " " : "", obj ? obj : "");
	if (n > 0)
		len += (size_t)n;
	if (len < cap) {
		n = vsnprintf(line + len, cap - len, fmt, ap);
		if (n > 0)
			len += (size_t)n;
	}
	if (suffix && len < cap) {
		n = snprintf(line + len, cap - len, "%s", suffix);
		if (n > 0)
			len += (size_t)n;
	}
	if (len >= cap) {
		/* Truncated: say so rather than cut silently. */
		len = cap - 1;
		memcpy(line + len - 3, "...", 3);
	}
	/* A message must not forge extra lines. */
	for (size_t i = 0; i < len; i++)
		if (line[i] == '\n' || line[i] == '\r')
			line[i] = ' ';
	line[len] = 0;
	if (g_sink)
		g_sink(level, line, len, g_sink_arg);
	else
		default_sink(line, len);
}

void log_vmsg(enum log_level level, const char *module, const char *obj, const char *fmt, va_list ap)
{
	if (!log_enabled(level, module))
		return;
	emit(level, module, obj, NULL, fmt, ap);
}

void log_msg(enum log_level level, const char *module, const char *obj, const char *fmt, ...)
{
	va_list ap;

	if (!log_enabled(level, module))
		return;
	va_start(ap, fmt);
	emit(level, module, obj, NULL, fmt, ap);
	va_end(ap);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void log_msg_rl(struct log_rl *rl, uint32_t burst, uint32_t interval_ms, enum log_level level,
		const char *module, const char *obj, const char *fmt, ...)
{
	uint64_t now;
	char suffix[48];
	const char *sfx = NULL;
	va_list ap;

	if (!log_enabled(level, module))
		return;
	now = mono_ns();
	/* window_start_ns == 0 means "never logged": start the first window. */
	if (!rl->window_start_ns || now - rl->window_start_ns >= (uint64_t)interval_ms * 1000000u) {
		if (rl->suppressed) {
			snprintf(suffix, sizeof(suffix), " (%u similar lines suppressed)", rl->suppressed);
			sfx = suffix;
		}
		rl->window_start_ns = now ? now : 1;
		rl->in_window = 0;
		rl->suppressed = 0;
	}
	if (rl->in_window >= burst) {
		if (rl->suppressed < UINT32_MAX)
			rl->suppressed++;
		return;
	}
	rl->in_window++;
	va_start(ap, fmt);
	emit(level, module, obj, sfx, fmt, ap);
	va_end(ap);
}

const char *log_hex(char *out, size_t outsz, const uint8_t *buf, size_t len)
{
	size_t n = len, o;

	if (!outsz)
		return out;
	if (2 * len + 1 > outsz) {
		/* Does not fit: as many whole bytes as leave room for "...". */
		n = outsz > 4 ? (outsz - 4) / 2 : 0;
	}
	hex_encode(out, outsz, buf, n, false);
	o = 2 * n;
	if (n < len)
		while (o + 1 < outsz && o < 2 * n + 3)
			out[o++] = '.';
	out[o] = 0;
	return out;
}
