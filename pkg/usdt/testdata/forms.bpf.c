//go:build ignore

// SPDX-License-Identifier: (MIT OR GPL-2.0-only)
/*
 * What usdt.bpf.h reads at every hit, for usdt_test.go: written as for
 * libbpf's header, and built against this repository's.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/usdt.bpf.h>

#define NARGS 12
#define STR 32

struct hit {
	__u64 cookie;
	__s32 cnt;
	__s32 pad;
	__s64 val[NARGS];
	__s32 err[NARGS];
	__s32 size[NARGS];
	char str[NARGS][STR];
};

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 18);
} hits SEC(".maps");

static __always_inline int record(struct pt_regs *ctx)
{
	struct hit *h = bpf_ringbuf_reserve(&hits, sizeof(*h), 0);

	if (!h)
		return 0;
	h->cookie = bpf_usdt_cookie(ctx);
	h->cnt = bpf_usdt_arg_cnt(ctx);
	for (int i = 0; i < NARGS; i++) {
		long v;

		h->err[i] = bpf_usdt_arg(ctx, i, &v);
		h->val[i] = v;
		h->size[i] = bpf_usdt_arg_size(ctx, i);
		h->str[i][0] = 0;
		if (!h->err[i])
			bpf_probe_read_user_str(h->str[i], STR, (void *)v);
	}
	bpf_ringbuf_submit(h, 0);
	return 0;
}

SEC("usdt")
int forms(struct pt_regs *ctx)
{
	return record(ctx);
}

/* The same, for uprobe_multi links (Linux 6.6). */
SEC("uprobe.multi")
int forms_multi(struct pt_regs *ctx)
{
	return record(ctx);
}

/* BPF_USDT: the first two arguments, typed. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 16);
} typed_hits SEC(".maps");

SEC("usdt")
int BPF_USDT(typed, int a, char *s)
{
	struct {
		__s64 a;
		char s[STR];
	} *t = bpf_ringbuf_reserve(&typed_hits, sizeof(*t), 0);

	if (!t)
		return 0;
	t->a = a;
	t->s[0] = 0;
	bpf_probe_read_user_str(t->s, STR, s);
	bpf_ringbuf_submit(t, 0);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
