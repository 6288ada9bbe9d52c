//go:build ignore

// SPDX-License-Identifier: (MIT OR GPL-2.0-only)
/*
 * Counts the hits of a USDT probe by the string of its second argument,
 * as python's function__entry(file, function, line) passes the name of
 * the function. Written for libbpf's usdt.bpf.h, and built against
 * sdtkit's by go generate (libbpf_test.go builds it against libbpf's
 * too): bool and struct pt_regs, which libbpf's header wants, come from
 * <stdbool.h> and <linux/ptrace.h> rather than a vmlinux.h.
 */
#include <stdbool.h>
#include <linux/bpf.h>
#include <linux/ptrace.h>
#include <bpf/bpf_helpers.h>
#include <bpf/usdt.bpf.h>

struct key {
	unsigned char name[64];
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 10240);
	__type(key, struct key);
	__type(value, __u64);
} counts SEC(".maps");

SEC("usdt")
int BPF_USDT(count, const char *file, const char *name)
{
	struct key k = {};
	__u64 one = 1, *n;

	if (bpf_probe_read_user_str(k.name, sizeof(k.name), name) < 0)
		return 0;
	n = bpf_map_lookup_elem(&counts, &k);
	if (n)
		__sync_fetch_and_add(n, 1);
	else
		bpf_map_update_elem(&counts, &k, &one, BPF_NOEXIST);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
