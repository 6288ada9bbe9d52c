//go:build ignore

// SPDX-License-Identifier: (MIT OR GPL-2.0-only)
/*
 * One of two objects that TestLink links into one program with bpftool
 * gen object, each with a program of BPF_USDT: this one defines the map
 * of specs and the ring buffer both write to.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/usdt.bpf.h>

struct link_hit {
	__u64 cookie;
	__s64 a;
};

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 16);
} link_hits SEC(".maps");

SEC("usdt")
int BPF_USDT(link_a, int a)
{
	struct link_hit *h = bpf_ringbuf_reserve(&link_hits, sizeof(*h), 0);

	if (!h)
		return 0;
	h->cookie = bpf_usdt_cookie(ctx);
	h->a = a;
	bpf_ringbuf_submit(h, 0);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
