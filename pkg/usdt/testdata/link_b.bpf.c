//go:build ignore

// SPDX-License-Identifier: (MIT OR GPL-2.0-only)
/*
 * The other object of TestLink: the map of specs and the ring buffer
 * are link_a's, declared weak here.
 */
#define BPF_USDT_WEAK
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
} link_hits SEC(".maps") __weak;

SEC("usdt")
int BPF_USDT(link_b, int a, char *s)
{
	struct link_hit *h = bpf_ringbuf_reserve(&link_hits, sizeof(*h), 0);

	if (!h)
		return 0;
	h->cookie = bpf_usdt_cookie(ctx) + 1000;
	h->a = a;
	bpf_ringbuf_submit(h, 0);
	return 0;
}
