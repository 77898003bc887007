// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench.bpf.c - BPF_PROG_TEST_RUN harness for the upf program.
 *
 * With repeat=N the kernel runs every repetition on the same buffer without
 * restoring it, so from the second run on the UPF program would see its own
 * output (decapsulated or encapsulated), miss and return XDP_PASS. bench_wrap
 * restores the original frame (length and bytes) before every repetition,
 * optionally rewrites the TEID / UE address to cycle through the installed
 * sessions ("cold": in order, or scattered with a large prime step so the
 * hardware prefetcher cannot follow), and tail-calls jmp[0]: the UPF program for a timed run,
 * bench_empty for the baseline that measures the wrapper itself.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#define BENCH_MAX_FRAME 1600

struct bench_cfg {
	__u32 len;        /* frame length */
	__u32 n;          /* sessions to cycle through; <= 1: hot */
	__u32 idx;        /* session of the last repetition */
	__u32 teid_off;   /* offset of the TEID to rewrite, 0: none */
	__u32 ue_off;     /* offset of the UE address to rewrite */
	__u32 teid_base;  /* TEID of session 0 (host order) */
	__u32 ue_base;    /* UE address of session 0 (host order) */
	__u32 step;       /* 1: sessions in order; a large prime: scattered */
	__u8 frame[BENCH_MAX_FRAME];
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, struct bench_cfg);
	__uint(max_entries, 1);
} cfg SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
	__uint(max_entries, 1);
} jmp SEC(".maps");

SEC("xdp")
int bench_wrap(struct xdp_md *ctx)
{
	__u32 k = 0;
	struct bench_cfg *c = bpf_map_lookup_elem(&cfg, &k);
	void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
	long cur = end - data;
	__u32 len;

	asm volatile("" : "+r"(cur));   /* keep the subtraction on scalars */

	if (!c)
		return XDP_ABORTED;
	len = c->len;
	if (len < 64 || len > BENCH_MAX_FRAME)
		return XDP_ABORTED;
	if (bpf_xdp_adjust_head(ctx, (int)(cur - (long)len)))
		return XDP_ABORTED;
	if (bpf_xdp_store_bytes(ctx, 0, c->frame, len))
		return XDP_ABORTED;
	if (c->n > 1) {
		__u32 i = c->idx + c->step;
		__be32 v;

		if (i >= c->n)
			i -= c->n;
		c->idx = i;
		if (c->teid_off) {
			v = bpf_htonl(c->teid_base + i);
			bpf_xdp_store_bytes(ctx, c->teid_off & 0xff, &v, 4);
		}
		v = bpf_htonl(c->ue_base + i);
		bpf_xdp_store_bytes(ctx, c->ue_off & 0xff, &v, 4);
	}
	bpf_tail_call(ctx, &jmp, 0);
	return XDP_ABORTED;
}

SEC("xdp")
int bench_empty(struct xdp_md *ctx)
{
	(void)ctx;
	return XDP_REDIRECT;
}

char LICENSE[] SEC("license") = "GPL";
