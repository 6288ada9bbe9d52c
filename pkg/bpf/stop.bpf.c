//go:build ignore

// SPDX-License-Identifier: (MIT OR GPL-2.0-only)
/*
 * Stops the thread that hits the uprobe it is attached to with SIGSTOP,
 * and tells user space which thread, and whether the signal was sent,
 * through a ring buffer: user space does its work while the thread is
 * stopped (or the signal still pending), then sends SIGCONT. See
 * Stopper in stop.go.
 *
 * Self-contained, like usdt.bpf.c, but without usdt.h, whose maps it
 * does not need.
 */

typedef unsigned int __u32;
typedef int __s32;
typedef unsigned long long __u64;

#define SEC(name) __attribute__((section(name), used))
#define __uint(name, val) int (*name)[val]

enum { BPF_MAP_TYPE_RINGBUF = 27 };

static __u64 (*bpf_get_current_pid_tgid)(void) = (void *)14;
static long (*bpf_send_signal_thread)(__u32 sig) = (void *)117;
static long (*bpf_ringbuf_output)(void *rb, void *data, __u64 size, __u64 flags) = (void *)130;

#define SIGSTOP 19

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} stops SEC(".maps");

struct stop {
	__u32 tid;
	__s32 err; /* of bpf_send_signal_thread: 0 once sent */
};

SEC("uprobe")
int stop_thread(void *ctx)
{
	struct stop s;

	s.tid = (__u32)bpf_get_current_pid_tgid();
	s.err = bpf_send_signal_thread(SIGSTOP);
	bpf_ringbuf_output(&stops, &s, sizeof(s), 0);
	return 0;
}

char LICENSE[] SEC("license") = "Dual MIT/GPL";
