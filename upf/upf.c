/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * upf.c - load the XDP program, size and mmap its maps, attach to N3/N6 (all
 * or nothing), and the session rule API. The exception path is upf_exc.c.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/if_link.h>

#include <time.h>

#include "common/log.h"
#include "upf/upf_int.h"
#include "upf/upf.skel.h"

#define MOD "upf"
#define UPF_PROG_NAME "upf_xdp"

static const char *const counter_names[UPF_STAT__MAX] = {
	[UPF_CNT_UL_FWD] = "ul_fwd",
	[UPF_CNT_DL_FWD] = "dl_fwd",
	[UPF_CNT_UL_KERNEL] = "ul_kernel",
	[UPF_CNT_DL_NEXTHOP] = "dl_nexthop",
	[UPF_CNT_PASS_NON_IP] = "pass_non_ip",
	[UPF_CNT_PASS_OTHER] = "pass_other",
	[UPF_CNT_PASS_FRAG] = "pass_frag",
	[UPF_CNT_ECHO_REQ] = "echo_req",
	[UPF_CNT_ECHO_RSP] = "echo_rsp",
	[UPF_CNT_ERR_IND] = "err_ind",
	[UPF_CNT_END_MARKER] = "end_marker",
	[UPF_CNT_GTP_OTHER] = "gtp_other",
	[UPF_CNT_UNKNOWN_TEID] = "unknown_teid",
	[UPF_CNT_DROP_MALFORMED] = "drop_malformed",
	[UPF_CNT_DROP_INNER] = "drop_inner",
	[UPF_CNT_DROP_BAD_SRC] = "drop_bad_src",
	[UPF_CNT_DROP_QFI] = "drop_qfi",
	[UPF_CNT_DROP_AMBR_UL] = "drop_ambr_ul",
	[UPF_CNT_DROP_AMBR_DL] = "drop_ambr_dl",
	[UPF_CNT_DROP_NO_SESSION] = "drop_no_session",
	[UPF_CNT_DL_BUFFERED] = "dl_buffered",
	[UPF_CNT_DROP_EXC_FULL] = "drop_exc_full",
	[UPF_CNT_DROP_FIB] = "drop_fib",
	[UPF_CNT_DROP_HEADROOM] = "drop_headroom",
	[UPF_CNT_DROP_RULE_BUSY] = "drop_rule_busy",
	[UPF_CNT_FWD_PKTS] = "fwd_pkts",
	[UPF_CNT_FWD_BYTES] = "fwd_bytes",
	[UPF_CNT_FWD_END_MARKER] = "fwd_end_marker",
	[UPF_CNT_FWD_KERNEL] = "fwd_kernel",
	[UPF_CNT_DROP_FWD_NO_TUNNEL] = "drop_fwd_no_tunnel",
	[UPF_CNT_UL6_FWD] = "ul6_fwd",
	[UPF_CNT_DL6_FWD] = "dl6_fwd",
	[UPF_CNT_DROP_BAD_SRC6] = "drop_bad_src6",
	[UPF_CNT_DROP_SDF] = "drop_sdf",
	[UPF_CNT_UL_TO_CP] = "ul_to_cp",
	[UPF_CNT_DROP_FAR] = "drop_far",
	[UPF_CNT_DROP_FAMILY] = "drop_family",
	[UPF_CNT_DROP_NO_SESSION6] = "drop_no_session6",
	[UPF_CNT_UL_RS] = "ul_rs",
	[UPF_STAT_ECHO_RSP_SENT] = "echo_rsp_sent",
	[UPF_STAT_ERR_IND_SENT] = "err_ind_sent",
	[UPF_STAT_ERR_IND_LIMITED] = "err_ind_limited",
	[UPF_STAT_BUF_DROPPED] = "buf_dropped",
	[UPF_STAT_BUF_RELEASED] = "buf_released",
	[UPF_STAT_NEXTHOP_SENT] = "nexthop_sent",
	[UPF_STAT_SOCK_BAD] = "sock_bad",
	[UPF_STAT_END_MARKER_SENT] = "end_marker_sent",
	[UPF_STAT_FWD_SENT] = "fwd_sent",
	[UPF_STAT_FWD_SENT_BYTES] = "fwd_sent_bytes",
	[UPF_STAT_FWD_SEND_FAILED] = "drop_fwd_send",
	[UPF_STAT_RA_SENT] = "ra_sent",
	[UPF_STAT_RS_DROPPED] = "rs_dropped",
	[UPF_CNT_NAT_UL] = "nat_ul",
	[UPF_CNT_NAT_DL] = "nat_dl",
	[UPF_CNT_NAT_NEW] = "nat_new",
	[UPF_CNT_NAT_FULL] = "drop_nat_full",
	[UPF_CNT_NAT_PRESSURE] = "drop_nat_pressure",
	[UPF_CNT_NAT_QUOTA] = "drop_nat_quota",
	[UPF_CNT_NAT_DROP_PROTO] = "drop_nat_proto",
	[UPF_CNT_NAT_FRAG_UL] = "nat_frag_ul",
	[UPF_CNT_NAT_DL_NO_MATCH] = "pass_nat_no_match",
	[UPF_CNT_NAT_DL_FRAG] = "pass_nat_frag",
	[UPF_CNT_NAT_ICMP_ERR] = "nat_icmp_err",
	[UPF_CNT_NAT_UL_KERNEL] = "nat_ul_kernel",
	[UPF_CNT_NAT_FRAG_DL] = "nat_frag_dl",
	[UPF_CNT_NAT_HAIRPIN] = "nat_hairpin",
	[UPF_CNT_NAT_HAIRPIN_NO_MAP] = "drop_nat_no_mapping",
	[UPF_CNT_NAT_REMOTE_SHARE] = "drop_nat_remote_share",
	[UPF_CNT_UL_N3V6] = "ul_n3v6",
	[UPF_CNT_DL_N3V6] = "dl_n3v6",
	[UPF_CNT_DL_N3V6_USER] = "dl_n3v6_user",
	[UPF_STAT_NAT_ACTIVE] = "nat_active",
	[UPF_STAT_NAT_EXPIRED] = "nat_expired",
	[UPF_STAT_NAT_REMOVED] = "nat_removed",
	[UPF_STAT_NAT_ICMP_ERR_SENT] = "nat_icmp_err_sent",
	[UPF_STAT_END_MARKER_FAILED] = "drop_end_marker_send",
	[UPF_STAT_ERR_IND_REPORTED] = "err_ind_reported",
	[UPF_STAT_ERR_IND_IGNORED] = "err_ind_ignored",
	[UPF_STAT_ERR_IND_RX_LIMITED] = "err_ind_rx_limited",
	[UPF_STAT_NAT_ICMP_ERR_DROPPED] = "nat_icmp_err_dropped",
	[UPF_STAT_NAT_UL_SENT] = "nat_ul_sent",
	[UPF_STAT_NAT_UL_FAILED] = "nat_ul_failed",
};

/* The program and user space share these layouts (upf/upf_bpf.h): two cache lines per rule. */
_Static_assert(sizeof(struct upf_ul_slot) == 32, "ul slot");
_Static_assert(sizeof(struct upf_ul_rule) == 128, "ul rule");
_Static_assert(sizeof(struct upf_dl_rule) == 128, "dl rule");

const char *upf_counter_name(unsigned idx)
{
	return idx < UPF_STAT__MAX ? counter_names[idx] : NULL;
}

/* ---- attach ---- */

/* Is the XDP program attached to ifindex ours (from an earlier, crashed run)?
 * 1 ours, 0 nothing attached, -EBUSY someone else's. */
static int stale_check(int ifindex, uint32_t *mode_flags)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);
	struct bpf_prog_info info;
	uint32_t len = sizeof(info);
	uint32_t id;
	int fd, rc;

	if (bpf_xdp_query(ifindex, 0, &q))
		return 0;
	switch (q.attach_mode) {
	case XDP_ATTACHED_DRV: id = q.drv_prog_id; *mode_flags = XDP_FLAGS_DRV_MODE; break;
	case XDP_ATTACHED_SKB: id = q.skb_prog_id; *mode_flags = XDP_FLAGS_SKB_MODE; break;
	case XDP_ATTACHED_NONE: return 0;
	default: return -EBUSY;   /* offloaded or several */
	}
	fd = bpf_prog_get_fd_by_id(id);
	if (fd < 0)
		return -EBUSY;
	memset(&info, 0, sizeof(info));
	rc = bpf_obj_get_info_by_fd(fd, &info, &len);
	close(fd);
	if (rc || strcmp(info.name, UPF_PROG_NAME) != 0)
		return -EBUSY;
	return 1;
}

static int attach_one(struct upf *u, int ifindex)
{
	uint32_t old_flags = 0;
	int rc = stale_check(ifindex, &old_flags);

	if (rc < 0) {
		log_error(MOD, "ifindex=%d carries a foreign XDP program, not replacing it", ifindex);
		return rc;
	}
	if (rc == 1) {
		log_warn(MOD, "ifindex=%d: replacing a stale upf program", ifindex);
		bpf_xdp_detach(ifindex, old_flags, NULL);
	}
	if (u->p.xdp_mode == UPF_XDP_NATIVE || u->p.xdp_mode == UPF_XDP_AUTO) {
		rc = bpf_xdp_attach(ifindex, u->prog_fd, XDP_FLAGS_DRV_MODE, NULL);
		if (!rc) {
			u->attach_flags = XDP_FLAGS_DRV_MODE;
			return 0;
		}
		if (u->p.xdp_mode == UPF_XDP_NATIVE)
			return rc;
		log_info(MOD, "ifindex=%d: native XDP refused (%s), using generic", ifindex, strerror(-rc));
	}
	rc = bpf_xdp_attach(ifindex, u->prog_fd, XDP_FLAGS_SKB_MODE, NULL);
	if (!rc)
		u->attach_flags = XDP_FLAGS_SKB_MODE;
	return rc;
}

static void detach_all(struct upf *u)
{
	for (int i = 0; i < u->nif; i++)
		bpf_xdp_detach(u->ifindex[i], u->attach_flags, NULL);
	u->nif = 0;
}

/* Attach to every interface or to none. One attach mode for all of them
 * (the first interface decides in auto mode). */
static int attach_all(struct upf *u)
{
	const char *names[2] = { u->p.n3_ifname, u->p.n6_ifname };
	int n = (names[1] && strcmp(names[0], names[1]) != 0) ? 2 : 1;

	for (int i = 0; i < n; i++) {
		int ifindex = (int)if_nametoindex(names[i]);
		int rc;

		if (!ifindex) {
			log_error(MOD, "interface %s not found", names[i]);
			detach_all(u);
			return -ENODEV;
		}
		rc = attach_one(u, ifindex);
		if (rc) {
			log_error(MOD, "attach to %s failed: %s; rolling back", names[i], strerror(-rc));
			detach_all(u);
			return rc;
		}
		if (i == 0 && u->p.xdp_mode == UPF_XDP_AUTO)
			u->p.xdp_mode = u->attach_flags == XDP_FLAGS_DRV_MODE ? UPF_XDP_NATIVE : UPF_XDP_GENERIC;
		u->ifindex[u->nif++] = ifindex;
		log_info(MOD, "attached to %s ifindex=%d mode=%s", names[i], ifindex,
			 u->attach_flags == XDP_FLAGS_DRV_MODE ? "native" : "generic");
	}
	return 0;
}

/* ---- next-hop cache ---- */

uint64_t upf_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void upf_nexthop_flush(struct upf *u)
{
	if (u->remote)
		return;   /* the remote UPF routes on its own */
	__atomic_add_fetch(&u->skel->data->nh_gen, 1, __ATOMIC_RELEASE);
	u->nh_last_ns = upf_mono_ns();
}

static void nh_timer_cb(struct ev_loop *loop, struct ev_timer *t)
{
	struct upf *u = t->arg;

	upf_nexthop_flush(u);
	upf_nat_tick(u);   /* the NAT idle sweep rides on this timer (every UPF_NAT_SWEEP_MS) */
	ev_timer_start(loop, &u->nh_timer, UPF_NH_REVALIDATE_MS);
}

/* ---- open / close ---- */

static int params_check(struct upf_params *p)
{
	if (!p->max_sessions)
		p->max_sessions = 65536;
	if (!p->max_teid)
		p->max_teid = p->max_sessions;
	if (!p->buffer_per_session)
		p->buffer_per_session = 16;
	if (!p->buffer_total)
		p->buffer_total = 1024;
	if (!p->err_ind_per_s)
		p->err_ind_per_s = 100;
	if (!p->ambr_burst_ms)
		p->ambr_burst_ms = 10;
	if (!p->exc_ring_bytes)
		p->exc_ring_bytes = 1u << 20;
	/* dl_rules has one 128-byte entry per pool address: /10 is 512 MiB. */
	if (p->ue_pool_plen < 10 || p->ue_pool_plen > 30)
		return -EINVAL;
	/* dl6_rules: one entry per /64, 2^(64 - plen): a /48 is 65,536 entries, 8 MiB; the shortest,
	 * a /44, 1,048,576 entries and 128 MiB (as a /12 IPv4 pool). */
	if (p->ue_pool6_plen && (p->ue_pool6_plen < 44 || p->ue_pool6_plen > 64))
		return -EINVAL;
	if (p->exc_ring_bytes & (p->exc_ring_bytes - 1))
		return -EINVAL;
	if (p->xdp_mode != UPF_XDP_NONE && !p->n3_ifname)
		return -EINVAL;
	if (p->max_teid >= UINT32_MAX / sizeof(struct upf_ul_rule) || p->max_sessions > (1u << 26))
		return -ERANGE;
	return upf_nat_params(p);
}

void *upf_map_mmap(struct bpf_map *m, size_t n, size_t esz, size_t *len)
{
	long pg = sysconf(_SC_PAGESIZE);
	void *a;

	*len = (n * esz + (size_t)pg - 1) & ~((size_t)pg - 1);
	a = mmap(NULL, *len, PROT_READ | PROT_WRITE, MAP_SHARED, bpf_map__fd(m), 0);
	return a == MAP_FAILED ? NULL : a;
}

/* The per-CPU counter scratch, the session table and the downlink buffers with their free
 * list, all sized by the params once: nothing grows later. 0 or -errno. */
static int alloc_tables(struct upf *u)
{
	int rc = libbpf_num_possible_cpus();

	if (rc <= 0)
		return rc < 0 ? rc : -EINVAL;
	u->ncpus = rc;
	u->pcpu = calloc((size_t)u->ncpus, sizeof(uint64_t));
	u->sess = calloc(u->p.max_sessions, sizeof(*u->sess));
	u->bufs = calloc(u->p.buffer_total, sizeof(*u->bufs));
	if (!u->pcpu || !u->sess || !u->bufs || upf_tidx_setup(u))
		return -ENOMEM;
	for (uint32_t i = 0; i < u->p.buffer_total; i++)
		u->bufs[i].next = i + 1 < u->p.buffer_total ? i + 1 : UPF_NONE;
	u->buf_free = 0;
	return 0;
}

/* The XDP program through its skeleton: constants set, rule maps sized to the TEID range and
 * the UE pool, loaded (the verifier runs here), the rule maps mmapped. 0 or -errno; upf_close
 * undoes a partial load. */
static int load_program(struct upf *u)
{
	int rc;

	u->skel = upf_bpf__open();
	if (!u->skel) {
		rc = -errno ? -errno : -EINVAL;
		log_error(MOD, "cannot open the BPF object: %s", strerror(-rc));
		return rc;
	}
	u->skel->rodata->cfg_n3_addr = u->p.n3_addr;
	memcpy((void *)u->skel->rodata->cfg_n3_addr6, u->p.n3_addr6, 16);
	u->skel->rodata->cfg_n3_6_on = upf_addr6_set(u->p.n3_addr6);
	u->skel->rodata->cfg_ue_base = u->ue_base;
	u->skel->rodata->cfg_nh_cache = u->p.no_nh_cache ? 0 : 1;
	u->skel->rodata->cfg_ue6_on = u->dl6_n ? 1 : 0;
	u->skel->rodata->cfg_ue6_base = u->ue6_base;
	u->skel->rodata->cfg_ue6_shift = u->dl6_n ? 64u - u->p.ue_pool6_plen : 0;
	/* Without pool6 dl6_rules keeps its one placeholder entry and is not mapped: the program
	 * references it, and libbpf 1.1 (Debian 12) cannot load a program whose map was left out
	 * (bpf_map__set_autocreate), even behind a branch the verifier prunes. */
	if ((rc = bpf_map__set_max_entries(u->skel->maps.ul_rules, (uint32_t)u->ul_n)) ||
	    (rc = bpf_map__set_max_entries(u->skel->maps.dl_rules, (uint32_t)u->dl_n)) ||
	    (u->dl6_n && (rc = bpf_map__set_max_entries(u->skel->maps.dl6_rules, (uint32_t)u->dl6_n))) ||
	    (rc = bpf_map__set_max_entries(u->skel->maps.fwd_rules, u->p.max_sessions)) ||
	    (rc = bpf_map__set_max_entries(u->skel->maps.exc_ring, u->p.exc_ring_bytes)))
		return rc < 0 ? rc : -EINVAL;
	rc = upf_nat_setup(u);
	if (!rc)
		rc = upf_ulx_setup(u);
	if (!rc)
		rc = upf_sdf_setup(u);
	if (rc)
		return rc;
	rc = upf_bpf__load(u->skel);
	if (rc) {
		log_error(MOD, "the kernel refused the XDP program: %s (run with libbpf debug output for the verifier log)",
			  strerror(-rc));
		return rc < 0 ? rc : -EINVAL;
	}
	u->prog_fd = bpf_program__fd(u->skel->progs.upf_xdp);
	u->ul = upf_map_mmap(u->skel->maps.ul_rules, u->ul_n + u->ulx_n, sizeof(*u->ul), &u->ul_map_len);
	u->dl = upf_map_mmap(u->skel->maps.dl_rules, u->dl_n, sizeof(*u->dl), &u->dl_map_len);
	u->fwd = upf_map_mmap(u->skel->maps.fwd_rules, u->p.max_sessions, sizeof(*u->fwd), &u->fwd_map_len);
	if (u->dl6_n)
		u->dl6 = upf_map_mmap(u->skel->maps.dl6_rules, u->dl6_n, sizeof(*u->dl6), &u->dl6_map_len);
	if (!u->ul || !u->dl || !u->fwd || (u->dl6_n && !u->dl6)) {
		rc = -errno;
		log_error(MOD, "mmap of the rule maps failed: %s", strerror(-rc));
		return rc < 0 ? rc : -EINVAL;
	}
	rc = upf_nat_mapped(u);
	if (rc)
		log_error(MOD, "mmap of the NAT quota map failed: %s", strerror(-rc));
	if (!rc && (rc = upf_ulx_mapped(u)))
		log_error(MOD, "ul_teids: %s", strerror(-rc));
	upf_sdf_mapped(u);
	return rc;
}

int upf_open(const struct upf_params *params, struct upf **out)
{
	struct upf *u;
	int rc;

	*out = NULL;
	u = calloc(1, sizeof(*u));
	if (!u)
		return -ENOMEM;
	u->p = *params;
	u->sock = -1;
	u->sock6 = -1;
	u->raw = -1;
	u->ring_fd = -1;
	u->prog_fd = -1;
	u->teids_fd = -1;
	u->pdrs_fd = -1;
	u->notify_head = UPF_NONE;
	ev_timer_init(&u->nh_timer, nh_timer_cb, u);
	rc = params_check(&u->p);
	if (rc)
		goto fail;
	u->ue_base = ntohl(u->p.ue_pool_addr) & ~((1u << (32 - u->p.ue_pool_plen)) - 1);
	u->ul_n = (size_t)u->p.max_teid + 1;
	u->dl_n = (size_t)1 << (32 - u->p.ue_pool_plen);
	if (u->p.ue_pool6_plen) {
		u->dl6_n = (size_t)1 << (64 - u->p.ue_pool6_plen);
		u->ue6_base = upf_prefix6_hi(u->p.ue_pool6) & ~((uint64_t)u->dl6_n - 1);
	}

	rc = alloc_tables(u);
	if (rc)
		goto fail;
	rc = load_program(u);
	if (rc)
		goto fail;
	rc = upf_exc_open(u);
	if (rc)
		goto fail;
	u->nh_last_ns = upf_mono_ns();
	if (u->p.loop) {
		rc = ev_timer_start(u->p.loop, &u->nh_timer, UPF_NH_REVALIDATE_MS);
		if (rc)
			goto fail;
	}
	if (u->p.xdp_mode != UPF_XDP_NONE) {
		rc = attach_all(u);
		if (rc)
			goto fail;
	}
	*out = u;
	return 0;
fail:
	upf_close(u);
	return rc < 0 ? rc : -EINVAL;
}

void upf_close(struct upf *u)
{
	if (!u)
		return;
	if (u->remote) {
		upf_n4c_peer_close(u);
		return;
	}
	detach_all(u);
	if (u->p.loop)
		ev_timer_stop(u->p.loop, &u->nh_timer);
	upf_exc_close(u);
	if (u->ul)
		munmap(u->ul, u->ul_map_len);
	if (u->dl)
		munmap(u->dl, u->dl_map_len);
	if (u->dl6)
		munmap(u->dl6, u->dl6_map_len);
	if (u->fwd)
		munmap(u->fwd, u->fwd_map_len);
	upf_ulx_free(u);
	upf_bpf__destroy(u->skel);
	upf_nat_free(u);
	free(u->bufs);
	free(u->sess);
	free(u->tidx);
	free(u->pcpu);
	free(u);
}

bool upf_ready(const struct upf *u)
{
	return u->remote ? upf_n4c_ready(u) : true;
}

uint32_t upf_n3_addr(const struct upf *u)
{
	return u->remote ? upf_n4c_n3_addr(u) : u->p.n3_addr;
}

int upf_prog_fd(const struct upf *u)
{
	if (u->remote)
		return -1;
	return u->prog_fd;
}

/* ---- rules ---- */

/* Rule writers (see upf/upf_bpf.h): rewrite the older slot under its
 * sequence number, which ends larger than the other slot's. */
static uint32_t slot_next(uint32_t s0, uint32_t s1, int *k)
{
	uint32_t hi = (int32_t)(s0 - s1) >= 0 ? s0 : s1;

	*k = hi == s0 ? 1 : 0;
	return (hi | 1u) + 0u;   /* odd: being written */
}

static void ul_publish(struct upf_ul_rule *e, const struct upf_ul_slot *v)
{
	int k;
	uint32_t odd = slot_next(__atomic_load_n(&e->s[0].seq, __ATOMIC_RELAXED),
				 __atomic_load_n(&e->s[1].seq, __ATOMIC_RELAXED), &k);
	struct upf_ul_slot *sl = &e->s[k];

	__atomic_store_n(&sl->seq, odd, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	sl->flags = v->flags;
	sl->qfi = v->qfi;
	sl->sess_id = v->sess_id;
	sl->ue_addr = v->ue_addr;
	sl->cost_q8 = v->cost_q8;
	sl->tau_us = v->tau_us;
	sl->prefix6 = v->prefix6;
	__atomic_store_n(&sl->seq, odd + 1, __ATOMIC_RELEASE);
}

static void dl_publish(struct upf_dl_rule *e, const struct upf_dl_slot *v)
{
	int k;
	uint32_t odd = slot_next(__atomic_load_n(&e->s[0].seq, __ATOMIC_RELAXED),
				 __atomic_load_n(&e->s[1].seq, __ATOMIC_RELAXED), &k);
	struct upf_dl_slot *sl = &e->s[k];

	__atomic_store_n(&sl->seq, odd, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	sl->flags = v->flags;
	sl->qfi = v->qfi;
	sl->sess_id = v->sess_id;
	memcpy(sl->gnb_addr6, v->gnb_addr6, sizeof(sl->gnb_addr6));   /* or gnb_addr */
	sl->gnb_teid = v->gnb_teid;
	sl->cost_q8 = v->cost_q8;
	sl->tau_us = v->tau_us;
	__atomic_store_n(&sl->seq, odd + 1, __ATOMIC_RELEASE);
}

/* The current version of a rule, as the program would pick it (only the
 * control thread writes, so no race with ourselves). */
static void dir_stats_take(struct upf_dir_stats *st, uint64_t base[3]);

const struct upf_ul_slot *upf_ul_cur(const struct upf_ul_rule *e)
{
	return (int32_t)(e->s[0].seq - e->s[1].seq) >= 0 ? &e->s[0] : &e->s[1];
}

static const struct upf_dl_slot *dl_cur(const struct upf_dl_rule *e)
{
	return (int32_t)(e->s[0].seq - e->s[1].seq) >= 0 ? &e->s[0] : &e->s[1];
}

bool upf_ul_valid(const struct upf *u, uint32_t teid)
{
	uint32_t x;

	if (teid < u->ul_n)
		return upf_ul_cur(&u->ul[teid])->flags & UPF_RULE_VALID;
	return !upf_ulx_find(u, teid, &x) && (upf_ul_cur(&u->ulx[x])->flags & UPF_RULE_VALID);
}

/* The uplink rule of TEID teid goes (x1: its ulx entry past max_teid, returned to the free
 * list); its counters are added to base (NULL: dropped). The hash first: a packet that finds
 * no entry is an unknown TEID, one that found it just before reads the cleared rule. */
static void ul_clear(struct upf *u, uint32_t teid, uint32_t x1, uint64_t base[3])
{
	struct upf_ul_slot z = { 0 };
	struct upf_ul_rule *e = upf_ul_entry(u, teid, x1);

	if (!e)
		return;
	upf_ulx_unlink(u, teid);
	ul_publish(e, &z);
	if (base)
		dir_stats_take(&e->st, base);
	upf_ulx_put(u, teid < u->ul_n ? 0 : x1);
}

static void dl_clear(struct upf *u, uint32_t ue_addr)
{
	struct upf_dl_slot z = { 0 };
	uint32_t idx = ntohl(ue_addr) - u->ue_base;

	if (ue_addr && idx < u->dl_n)
		dl_publish(&u->dl[idx], &z);
}

bool upf_addr6_set(const uint8_t a[16])
{
	uint8_t any = 0;

	for (int i = 0; i < 16; i++)
		any |= a[i];
	return any != 0;
}

bool upf_rule_has_gnb(const struct upf_session_rule *r)
{
	return r->gnb_addr || upf_addr6_set(r->gnb_addr6);
}

uint64_t upf_prefix6_hi(const uint8_t p[8])
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

/* The dl6_rules entry of a session's /64: its index inside pool6. false: no prefix, no
 * pool6, or outside it. */
static bool dl6_index(const struct upf *u, const uint8_t prefix[8], uint32_t *idx)
{
	uint64_t d = upf_prefix6_hi(prefix) - u->ue6_base;

	if (!u->dl6 || !upf_prefix6_hi(prefix) || d >= u->dl6_n)
		return false;
	*idx = (uint32_t)d;
	return true;
}

static struct upf_dl_rule *dl6_entry(struct upf *u, const uint8_t prefix[8])
{
	uint32_t idx;

	return dl6_index(u, prefix, &idx) ? &u->dl6[idx] : NULL;
}

static void dl6_clear(struct upf *u, const uint8_t prefix[8])
{
	struct upf_dl_slot z = { 0 };
	struct upf_dl_rule *e = dl6_entry(u, prefix);

	if (e)
		dl_publish(e, &z);
}

/* Cost of one byte in ns << 8; the burst tolerance covers at least two
 * full-size packets so a low rate still passes whole packets. */
static void ambr_params(const struct upf *u, uint64_t bps, __u32 *cost_q8, __u32 *tau_us)
{
	uint64_t c, t;

	if (!bps) {
		*cost_q8 = *tau_us = 0;
		return;
	}
	c = (8000000000ull * 256) / bps;
	if (c > UINT32_MAX)
		c = UINT32_MAX;     /* below ~480 bit/s: police at that rate */
	if (!c)
		c = 1;
	t = (uint64_t)u->p.ambr_burst_ms * 1000;
	if (t < ((3000 * c) >> 8) / 1000)
		t = ((3000 * c) >> 8) / 1000;
	*cost_q8 = (__u32)c;
	*tau_us = t > UINT32_MAX ? UINT32_MAX : (__u32)t;
}

static int rule_check(const struct upf *u, uint32_t id, const struct upf_session_rule *r)
{
	if (id >= u->p.max_sessions)
		return -ERANGE;
	if (!r || r->qfi > 63 || r->dl_state > UPF_DL_BUFFER)
		return -EINVAL;
	/* TS 23.501 5.8.2.1: an IP PDU session has an IPv4 address, an IPv6 prefix or both. */
	bool v6 = upf_prefix6_hi(r->ue_prefix6) != 0;
	uint32_t idx6 = 0;

	if (!r->ue_addr && !v6)
		return -EINVAL;
	/* Past max_teid through ul_teids (upf_ulx.c); the forwarding TEIDs are not uplink ones. */
	if (upf_teid_fwd(u, r->ul_teid))
		return -ERANGE;
	if (r->ue_addr && (uint32_t)(ntohl(r->ue_addr) - u->ue_base) >= u->dl_n)
		return -ERANGE;
	/* TS 23.501 5.8.2.2.1: the /64 comes from our pool6 (none configured: nothing is in it). */
	if (v6 && !dl6_index(u, r->ue_prefix6, &idx6))
		return -ERANGE;
	/* An IPv6 gNB is reachable only from our own IPv6 N3 address. */
	if (!r->gnb_addr && upf_addr6_set(r->gnb_addr6) && !upf_addr6_set(u->p.n3_addr6))
		return -EAFNOSUPPORT;
	if (r->dl_state == UPF_DL_ACTIVE && !upf_rule_has_gnb(r))
		return -EINVAL;
	/* NAT on N6 needs the NAT address (upf_params.nat_addr). */
	if (r->nat && !u->p.nat_addr)
		return -EINVAL;
	/* Another session must not own the TEID or the address. */
	if (r->ul_teid && upf_teid_taken(u, r->ul_teid, id))
		return -EADDRINUSE;
	if (r->ue_addr) {
		const struct upf_dl_slot *d = dl_cur(&u->dl[ntohl(r->ue_addr) - u->ue_base]);

		if ((d->flags & UPF_RULE_VALID) && d->sess_id != id)
			return -EADDRINUSE;
	}
	/* One /64 per PDU session (TS 23.501 5.8.2.2.1): another session's is taken. */
	if (v6) {
		const struct upf_dl_slot *d = dl_cur(&u->dl6[idx6]);

		if ((d->flags & UPF_RULE_VALID) && d->sess_id != id)
			return -EADDRINUSE;
	}
	return 0;
}

static void rules_write(struct upf *u, uint32_t id, const struct upf_session_rule *r)
{
	struct upf_dl_slot d = {
		.flags = UPF_RULE_VALID | (r->dl_state == UPF_DL_BUFFER ? UPF_RULE_BUFFER : 0) |
			 (r->dl_drop ? UPF_RULE_DROP : 0),
		.sess_id = id,
		.gnb_teid = htonl(r->gnb_teid),
		.qfi = r->qfi,
	};

	if (r->gnb_addr) {
		d.gnb_addr = r->gnb_addr;
	} else if (upf_addr6_set(r->gnb_addr6)) {
		d.flags |= UPF_RULE_GNB6;
		memcpy(d.gnb_addr6, r->gnb_addr6, sizeof(d.gnb_addr6));
	}
	struct upf_dl_rule *e6 = dl6_entry(u, r->ue_prefix6);
	struct upf_ul_slot ul = {
		.flags = UPF_RULE_VALID | (r->ue_addr ? UPF_RULE_V4 : 0) | (e6 ? UPF_RULE_V6 : 0) |
			 (r->nat && r->ue_addr ? UPF_RULE_NAT : 0) | (u->sess[id].sdf ? UPF_RULE_SDF : 0) |
			 (r->ul_drop ? UPF_RULE_DROP : 0),
		.sess_id = id,
		.ue_addr = r->ue_addr,
		.qfi = r->qfi,
	};

	/* The /64 as it is on the wire: the program compares the source's first 8 octets. */
	memcpy(&ul.prefix6, r->ue_prefix6, sizeof(ul.prefix6));
	ambr_params(u, r->ambr_dl_bps, &d.cost_q8, &d.tau_us);
	ambr_params(u, r->ambr_ul_bps, &ul.cost_q8, &ul.tau_us);
	/* Downlink first: by the time the UE can send (uplink valid) its
	 * answers can come back. Each family has its own entry (and AMBR bucket). */
	if (r->ue_addr)
		dl_publish(&u->dl[ntohl(r->ue_addr) - u->ue_base], &d);
	if (e6)
		dl_publish(e6, &d);
	if (r->ul_teid)
		ul_publish(upf_ul_entry(u, r->ul_teid, u->sess[id].ulx), &ul);
}

void upf_ul_republish(struct upf *u, uint32_t id)
{
	rules_write(u, id, &u->sess[id].r);
}

static void dir_stats_take(struct upf_dir_stats *st, uint64_t base[3])
{
	/* The entry starts from zero for its new owner; what it held for us
	 * (when moving) is kept in base. */
	if (base) {
		base[0] += __atomic_exchange_n(&st->pkts, 0, __ATOMIC_RELAXED);
		base[1] += __atomic_exchange_n(&st->bytes, 0, __ATOMIC_RELAXED);
		base[2] += __atomic_exchange_n(&st->drops, 0, __ATOMIC_RELAXED);
		return;
	}
	__atomic_store_n(&st->pkts, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&st->bytes, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&st->drops, 0, __ATOMIC_RELAXED);
}

int upf_sess_by_ue(const struct upf *u, uint32_t ue_addr, uint32_t *id)
{
	uint32_t idx = ntohl(ue_addr) - u->ue_base;
	const struct upf_dl_slot *d;

	if (!ue_addr || idx >= u->dl_n)
		return -ENOENT;
	d = dl_cur(&u->dl[idx]);
	if (!(d->flags & UPF_RULE_VALID) || d->sess_id >= u->p.max_sessions || !u->sess[d->sess_id].used)
		return -ENOENT;
	*id = d->sess_id;
	return 0;
}

static struct upf_dl_rule *dl_entry(struct upf *u, uint32_t ue_addr)
{
	return &u->dl[ntohl(ue_addr) - u->ue_base];
}

int upf_session_create(struct upf *u, uint32_t id, const struct upf_session_rule *r)
{
	int rc;

	if (u->remote)
		return upf_n4c_sess_create(u, id, r);
	rc = rule_check(u, id, r);
	if (rc)
		return rc;
	if (u->sess[id].used)
		return -EEXIST;
	uint32_t x1 = 0;

	/* A TEID past max_teid takes one of the entries ul_teids points at (upf_ulx.c). */
	if (r->ul_teid >= u->ul_n && (rc = upf_ulx_take(u, &x1)))
		return rc;
	struct upf_sess *s = &u->sess[id];
	/* A removed session may still sit in the notification list (removed
	 * from inside on_dl_data): keep its link so the list stays whole. */
	bool queued = s->notify_queued;
	uint32_t next = s->notify_next;

	memset(s, 0, sizeof(*s));
	s->used = true;
	s->r = *r;
	upf_tidx_add(u, id);   /* the Error Indication lookup's index (upf_tidx.c) */
	s->buf_head = s->buf_tail = UPF_NONE;
	s->notify_queued = queued;
	s->notify_next = queued ? next : UPF_NONE;
	s->ulx = x1;
	/* Counters start at zero before any rule points at them. */
	if (r->ul_teid)
		dir_stats_take(&upf_ul_entry(u, r->ul_teid, x1)->st, NULL);
	if (r->ue_addr)
		dir_stats_take(&dl_entry(u, r->ue_addr)->st, NULL);
	if (dl6_entry(u, r->ue_prefix6))
		dir_stats_take(&dl6_entry(u, r->ue_prefix6)->st, NULL);
	rules_write(u, id, r);
	/* The hash entry last: a packet that finds it finds the whole rule. */
	if (x1 && (rc = upf_ulx_link(u, r->ul_teid, x1))) {
		upf_session_remove(u, id);
		return rc;
	}
	return 0;
}

int upf_session_modify(struct upf *u, uint32_t id, const struct upf_session_rule *r)
{
	struct upf_session_rule old;
	int rc;

	if (u->remote)
		return upf_n4c_sess_modify(u, id, r);
	if (id >= u->p.max_sessions)
		return -ERANGE;
	if (!u->sess[id].used)
		return -ENOENT;
	/* The /64 is the session's for its whole life (upf.h): its dl6_rules entry never moves. */
	if (r && memcmp(r->ue_prefix6, u->sess[id].r.ue_prefix6, sizeof(r->ue_prefix6)) != 0)
		return -EINVAL;
	/* So is NAT (upf.h): its connections were made for this UE address. */
	if (r && (r->nat != u->sess[id].r.nat || (r->nat && r->ue_addr != u->sess[id].r.ue_addr)))
		return -EINVAL;
	rc = rule_check(u, id, r);
	if (rc)
		return rc;
	old = u->sess[id].r;
	uint32_t ox1 = u->sess[id].ulx, nx1 = ox1;

	if (r->ul_teid != old.ul_teid) {
		nx1 = 0;
		if (r->ul_teid >= u->ul_n && (rc = upf_ulx_take(u, &nx1)))
			return rc;
		if (r->ul_teid)
			dir_stats_take(&upf_ul_entry(u, r->ul_teid, nx1)->st, NULL);
	}
	if (r->ue_addr != old.ue_addr && r->ue_addr)
		dir_stats_take(&dl_entry(u, r->ue_addr)->st, NULL);
	/* The index entry is keyed by the tunnel in sess[id].r: out before it changes (upf_tidx.c) */
	upf_tidx_del(u, id);
	if (old.dl_state == UPF_DL_BUFFER && r->dl_state == UPF_DL_ACTIVE) {
		/* Collect what is still in the ring, send the buffer in order,
		 * then let the program forward directly. */
		upf_exc_drain(u);
		u->sess[id].r = *r;
		upf_exc_release(u, id);
		u->sess[id].notified = false;
	}
	u->sess[id].r = *r;
	u->sess[id].ulx = nx1;
	upf_tidx_add(u, id);
	/* New rules are valid before the old indexes are cleared, so traffic
	 * on either never meets a gap in the middle of a move. */
	rules_write(u, id, r);
	if (nx1 != ox1 && nx1 && (rc = upf_ulx_link(u, r->ul_teid, nx1))) {
		/* No hash entry for the new TEID (out of kernel memory): back to the old rule. */
		ul_clear(u, r->ul_teid, nx1, NULL);
		upf_tidx_del(u, id);
		u->sess[id].r = old;
		u->sess[id].ulx = ox1;
		upf_tidx_add(u, id);
		rules_write(u, id, &old);
		return rc;
	}
	if (old.ul_teid && old.ul_teid != r->ul_teid)
		ul_clear(u, old.ul_teid, ox1, u->sess[id].base[0]);
	if (old.ue_addr && old.ue_addr != r->ue_addr) {
		dl_clear(u, old.ue_addr);
		dir_stats_take(&dl_entry(u, old.ue_addr)->st, u->sess[id].base[1]);
	}
	/* Packets that went to the ring before the switch. */
	upf_exc_drain(u);
	/* TS 23.501 5.8.2.9: the old path ends with an End Marker, sent after the new rule is
	 * in: a packet the program forwarded on the old tunnel was sent before the map write
	 * returned (one on another CPU mid-lookup at that instant can still trail it). */
	if (old.dl_state == UPF_DL_ACTIVE && r->dl_state == UPF_DL_ACTIVE && upf_rule_has_gnb(&old) &&
	    (old.gnb_addr != r->gnb_addr || memcmp(old.gnb_addr6, r->gnb_addr6, 16) ||
	     old.gnb_teid != r->gnb_teid))
		UPF_USTAT(u, upf_exc_end_marker(u, &old) == 0 ? UPF_STAT_END_MARKER_SENT
							      : UPF_STAT_END_MARKER_FAILED)++;
	return 0;
}

int upf_session_remove(struct upf *u, uint32_t id)
{
	if (u->remote)
		return upf_n4c_sess_remove(u, id);
	if (id >= u->p.max_sessions)
		return -ERANGE;
	if (!u->sess[id].used)
		return -ENOENT;
	upf_sdf_gone(u, id);
	upf_tidx_del(u, id);
	ul_clear(u, u->sess[id].r.ul_teid, u->sess[id].ulx, NULL);
	u->sess[id].ulx = 0;
	dl_clear(u, u->sess[id].r.ue_addr);
	dl6_clear(u, u->sess[id].r.ue_prefix6);
	/* After the rules: no new connection of this session can appear while we delete. */
	upf_nat_session_gone(u, id);
	/* A forwarding tunnel belongs to its session: it goes with it (the SMF need not
	 * have removed it first, e.g. a release during a handover). */
	upf_fwd_remove(u, id);
	upf_exc_flush(u, id);
	u->sess[id].used = false;
	return 0;
}

int upf_session_stats(struct upf *u, uint32_t id, struct upf_session_stats *out)
{
	const struct upf_sess *s;
	const struct upf_dir_stats *ul, *dl, *dl6;
	const struct upf_dl_rule *e6;

	if (u->remote)
		return upf_n4c_sess_stats(u, id, out);
	if (id >= u->p.max_sessions)
		return -ERANGE;
	s = &u->sess[id];
	if (!s->used)
		return -ENOENT;
	dl = s->r.ue_addr ? &dl_entry(u, s->r.ue_addr)->st : NULL;
	e6 = dl6_entry(u, s->r.ue_prefix6);
	dl6 = e6 ? &e6->st : NULL;
	ul = s->r.ul_teid ? &upf_ul_entry(u, s->r.ul_teid, s->ulx)->st : NULL;
	memset(out, 0, sizeof(*out));
	out->ul_pkts = s->base[0][0] + (ul ? __atomic_load_n(&ul->pkts, __ATOMIC_RELAXED) : 0);
	out->ul_bytes = s->base[0][1] + (ul ? __atomic_load_n(&ul->bytes, __ATOMIC_RELAXED) : 0);
	out->ul_drops = s->base[0][2] + (ul ? __atomic_load_n(&ul->drops, __ATOMIC_RELAXED) : 0);
	/* Downlink: both families' entries (the uplink shares one rule by TEID). */
	out->dl_pkts = s->base[1][0];
	out->dl_bytes = s->base[1][1];
	out->dl_drops = s->base[1][2];
	for (int f = 0; f < 2; f++) {
		const struct upf_dir_stats *st = f ? dl6 : dl;

		if (!st)
			continue;
		out->dl_pkts += __atomic_load_n(&st->pkts, __ATOMIC_RELAXED);
		out->dl_bytes += __atomic_load_n(&st->bytes, __ATOMIC_RELAXED);
		out->dl_drops += __atomic_load_n(&st->drops, __ATOMIC_RELAXED);
	}
	out->buffered = s->buf_count;
	return 0;
}

int upf_counters(struct upf *u, uint64_t *out, size_t n)
{
	const uint64_t *v = u->pcpu;
	int fd;

	if (u->remote)
		return upf_n4c_counters(u, out, n);
	fd = bpf_map__fd(u->skel->maps.counters);
	for (uint32_t i = 0; i < UPF_STAT__MAX && i < n; i++) {
		out[i] = 0;
		if (i >= UPF_CNT__MAX) {
			out[i] = UPF_USTAT(u, i);
			continue;
		}
		if (bpf_map_lookup_elem(fd, &i, u->pcpu))
			return -errno;
		for (int c = 0; c < u->ncpus; c++)
			out[i] += v[c];
	}
	/* A gauge: every connection created (nat_new) and not deleted since. */
	if (n > UPF_STAT_NAT_ACTIVE)
		out[UPF_STAT_NAT_ACTIVE] = out[UPF_CNT_NAT_NEW] - UPF_USTAT(u, UPF_STAT_NAT_EXPIRED) -
					   UPF_USTAT(u, UPF_STAT_NAT_REMOVED);
	return 0;
}
