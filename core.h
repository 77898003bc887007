/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * core - the modules `solocore run` starts, in order, and stops in reverse:
 * db (SQLite + write-behind writer), udm + ausf, smf, upf (only when
 * upf.n3_interface is set), amf (gNBs are accepted only once
 * everything behind the AMF is up), web (REST API, UI, /metrics).
 */
#ifndef SOLOCORE_CORE_H
#define SOLOCORE_CORE_H

struct ev_loop;
struct conf;

struct core_module {
	const char *name;
	/* 0 or -errno (logs why). */
	int (*start)(struct ev_loop *loop, const struct conf *c);
	/* Stop accepting, close sockets, flush; must be quick (the whole stop has 2 s). */
	void (*stop)(void);
};

/* Terminated by an entry with name == NULL. */
extern const struct core_module core_modules[];

#endif
