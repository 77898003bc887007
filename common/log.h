/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * log - one logging function for the whole binary.
 *
 * A line is:  <time> <LEVEL> <module>[ <object prefix>]: <message>
 * e.g.        2026-11-29T10:00:00.123Z INFO amf ue=42 gmm{REGISTERED}: registered supi=imsi-001010000000001
 * Messages carry key=value fields in their text. Repeated lines from one call
 * site are rate limited (LOG_RL_* macros). The sink is replaceable so tests
 * can capture lines. Never pass K, OPc or private keys to a log call.
 */
#ifndef SOLOCORE_COMMON_LOG_H
#define SOLOCORE_COMMON_LOG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Not LOG_INFO etc.: those are syslog.h macros. */
enum log_level { LOGL_ERROR = 0, LOGL_WARN = 1, LOGL_INFO = 2, LOGL_DEBUG = 3 };

/* Sink: receives one complete line without the trailing newline. */
typedef void (*log_sink_fn)(enum log_level level, const char *line, size_t len, void *arg);

/* Global level (default INFO). */
void log_set_level(enum log_level level);
enum log_level log_get_level(void);
/* Per-module override, e.g. log_set_module_level("ngap", LOGL_DEBUG). 0 or -ENOSPC. */
int log_set_module_level(const char *module, enum log_level level);
bool log_enabled(enum log_level level, const char *module);
/* Parse "error|warn|info|debug"; -EINVAL otherwise. */
int log_level_parse(const char *s, enum log_level *out);
const char *log_level_name(enum log_level level);

/* Replace the sink; NULL restores the default (stderr, or the file of log_open_file). */
void log_set_sink(log_sink_fn fn, void *arg);
/* Send the default sink's output to a file (appending); NULL = stderr. 0 or -errno. */
int log_open_file(const char *path);
/* Reopen the file given to log_open_file (SIGHUP, log rotation). 0 or -errno. */
int log_reopen(void);

/* obj may be NULL (no per-object prefix). */
void log_msg(enum log_level level, const char *module, const char *obj, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void log_vmsg(enum log_level level, const char *module, const char *obj, const char *fmt, va_list ap);

/* Rate limiting state of one call site. */
struct log_rl {
	uint64_t window_start_ns;
	uint32_t in_window;
	uint32_t suppressed;
};
/* At most `burst` lines per `interval_ms` from this call site; when a window
 * ends with suppressed lines, the next line says how many were dropped. */
void log_msg_rl(struct log_rl *rl, uint32_t burst, uint32_t interval_ms, enum log_level level,
		const char *module, const char *obj, const char *fmt, ...)
	__attribute__((format(printf, 7, 8)));

#define log_error(mod, ...) log_msg(LOGL_ERROR, mod, NULL, __VA_ARGS__)
#define log_warn(mod, ...)  log_msg(LOGL_WARN, mod, NULL, __VA_ARGS__)
#define log_info(mod, ...)  log_msg(LOGL_INFO, mod, NULL, __VA_ARGS__)
#define log_debug(mod, ...) \
	do { if (log_enabled(LOGL_DEBUG, mod)) log_msg(LOGL_DEBUG, mod, NULL, __VA_ARGS__); } while (0)

/* Rate limited at 10 lines/s per call site. */
#define log_rl(level, mod, obj, ...) \
	do { static struct log_rl rl__; log_msg_rl(&rl__, 10, 1000, level, mod, obj, __VA_ARGS__); } while (0)

/* Hex of a buffer for logs, into out (truncated with "..."); returns out. Never for keys. */
const char *log_hex(char *out, size_t outsz, const uint8_t *buf, size_t len);

#endif
