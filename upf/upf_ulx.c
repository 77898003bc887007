/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * upf_ulx.c - uplink rules of TEIDs outside 1..max_teid (issue 32): a PFCP CP that allocates
 * its F-TEIDs itself (TS 29.244 5.5.3.1) may pick any 32-bit value. The direct array ul_rules
 * stays the path of the TEIDs we choose; a TEID past max_teid is found through the BPF hash map
 * ul_teids (TEID -> index) in the entries of ul_rules after max_teid (upf/upf_bpf.h), which the
 * program looks up only for a TEID past max_teid. Those entries come from a free list sized by
 * upf_params.max_cp_teids; the hash is written through the bpf() syscall on the control thread
 * (one insert at create, one delete at remove), the rule through the mmap as
 * every other rule.
 */
#include <errno.h>
#include <stdlib.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "upf/upf_int.h"
#include "upf/upf.skel.h"

#define UPF_ULX_DEFAULT_MAX 65536u

int upf_ulx_setup(struct upf *u)
{
	int rc;

	if (!u->p.max_cp_teids)
		u->p.max_cp_teids = u->p.max_sessions < UPF_ULX_DEFAULT_MAX ? u->p.max_sessions : UPF_ULX_DEFAULT_MAX;
	if (u->p.max_cp_teids > u->p.max_sessions)
		u->p.max_cp_teids = u->p.max_sessions;
	u->ulx_n = u->p.max_cp_teids;
	u->ulx_next = calloc(u->ulx_n, sizeof(*u->ulx_next));
	if (!u->ulx_next)
		return -ENOMEM;
	for (uint32_t i = 0; i < u->ulx_n; i++)
		u->ulx_next[i] = i + 1 < u->ulx_n ? i + 1 : UPF_NONE;
	u->ulx_free = 0;
	u->teids_fd = -1;
	/* Forwarding TEIDs are UPF_FWD_TEID(0..max_sessions-1); other TEIDs with bit 31 are uplink. */
	u->skel->rodata->cfg_fwd_n = u->p.max_sessions;
	u->skel->rodata->cfg_max_teid = (uint32_t)u->ul_n - 1;
	/* ul_rules: 0..max_teid by TEID, then the ulx_n entries ul_teids points at. */
	if ((rc = bpf_map__set_max_entries(u->skel->maps.ul_teids, (uint32_t)u->ulx_n)) ||
	    (rc = bpf_map__set_max_entries(u->skel->maps.ul_rules, (uint32_t)(u->ul_n + u->ulx_n))))
		return rc < 0 ? rc : -EINVAL;
	return 0;
}

int upf_ulx_mapped(struct upf *u)
{
	u->teids_fd = bpf_map__fd(u->skel->maps.ul_teids);
	u->ulx = u->ul + u->ul_n;   /* mapped with ul_rules (upf.c load_program) */
	return 0;
}

void upf_ulx_free(struct upf *u)
{
	u->ulx = NULL;
	free(u->ulx_next);
	u->ulx_next = NULL;
}

bool upf_teid_fwd(const struct upf *u, uint32_t teid)
{
	return (teid & UPF_FWD_TEID_BIT) && (teid & ~UPF_FWD_TEID_BIT) < u->p.max_sessions;
}

int upf_ulx_find(const struct upf *u, uint32_t teid, uint32_t *x)
{
	uint32_t v;

	if (teid < u->ul_n || u->teids_fd < 0)
		return -ENOENT;
	if (bpf_map_lookup_elem(u->teids_fd, &teid, &v))
		return -ENOENT;
	if (v < u->ul_n || v - u->ul_n >= u->ulx_n)
		return -ENOENT;
	*x = (uint32_t)(v - u->ul_n);
	return 0;
}

struct upf_ul_rule *upf_ul_entry(struct upf *u, uint32_t teid, uint32_t x1)
{
	if (!teid)
		return NULL;
	if (teid < u->ul_n)
		return &u->ul[teid];
	return x1 && x1 <= u->ulx_n ? &u->ulx[x1 - 1] : NULL;
}

int upf_ulx_take(struct upf *u, uint32_t *x1)
{
	uint32_t i = u->ulx_free;

	if (i == UPF_NONE)
		return -ENOSPC;
	u->ulx_free = u->ulx_next[i];
	*x1 = i + 1;
	return 0;
}

int upf_ulx_link(struct upf *u, uint32_t teid, uint32_t x1)
{
	uint32_t v = (uint32_t)u->ul_n + x1 - 1;   /* its index in ul_rules */

	/* BPF_NOEXIST: rule_check found no owner; one now would be ours to refuse, not replace. */
	if (bpf_map_update_elem(u->teids_fd, &teid, &v, BPF_NOEXIST))
		return -errno;
	return 0;
}

void upf_ulx_unlink(struct upf *u, uint32_t teid)
{
	if (teid >= u->ul_n && u->teids_fd >= 0)
		bpf_map_delete_elem(u->teids_fd, &teid);
}

void upf_ulx_put(struct upf *u, uint32_t x1)
{
	if (!x1 || x1 > u->ulx_n)
		return;
	u->ulx_next[x1 - 1] = u->ulx_free;
	u->ulx_free = x1 - 1;
}

bool upf_teid_taken(const struct upf *u, uint32_t teid, uint32_t id)
{
	const struct upf_ul_rule *e;
	uint32_t x;

	if (u->remote)
		return false;
	if (!teid || upf_teid_fwd(u, teid))
		return true;
	if (teid < u->ul_n)
		e = &u->ul[teid];
	else if (!upf_ulx_find(u, teid, &x))
		e = &u->ulx[x];
	else
		return false;
	const struct upf_ul_slot *s = upf_ul_cur(e);

	return (s->flags & UPF_RULE_VALID) && s->sess_id != id;
}
