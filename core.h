/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * core - the modules `solocore run` starts, in order, and stops in reverse:
 * cluster (the dqlite node, only with a cluster: section; db/cluster.h),
 * db (SQLite + write-behind writer), udm + ausf, smf, upf (only when
 * upf.n3_interface is set), amf (gNBs are accepted only once
 * everything behind the AMF is up), web (REST API, UI, /metrics).
 */
#ifndef SOLOCORE_CORE_H
#define SOLOCORE_CORE_H

#include <stdint.h>

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

/* The UPF's N3 IPv4 (network order): upf.n3_address, else the first IPv4 of
 * upf.n3_interface, else the N2 address when it is a real one, else loopback. */
uint32_t core_n3_address(const struct conf *c);
/* First IPv4 address of an interface, network order; 0 if none. */
uint32_t core_if_ipv4(const char *ifname);

/* `solocore upf` (upf_alone.c): the UPF alone behind its PFCP server. */
extern const struct core_module upf_alone_modules[];

#endif
