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
static __u64 (*bpf_get_current_cgroup_id)(void) = (void *)80;

struct bpf_pidns_info {
	__u32 pid;
	__u32 tgid;
};

static long (*bpf_get_ns_current_pid_tgid)(__u64 dev, __u64 ino, struct bpf_pidns_info *ns, __u32 size) = (void *)120;
static long (*bpf_send_signal_thread)(__u32 sig) = (void *)117;
static long (*bpf_ringbuf_output)(void *rb, void *data, __u64 size, __u64 flags) = (void *)130;

#define SIGSTOP 19
#define ESRCH 3

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} stops SEC(".maps");

struct stop {
	__u32 pid;
	__u32 tid;
	__s32 err; /* of bpf_send_signal_thread: 0 once sent */
	__u32 pad;
};

/*
 * Set by the loader: the id of a cgroup v2 whose threads alone are
 * stopped, for a uprobe attached in every process; 0 stops every thread
 * the uprobe fires in.
 */
volatile const __u64 cgroup_id = 0;

/*
 * Set by the loader outside the initial PID namespace: the namespace
 * whose ids the records carry, as usdt.h's current_pid_tgid; 0 for a
 * thread that namespace does not number.
 */
volatile const __u64 pidns_dev = 0;
volatile const __u64 pidns_ino = 0;

SEC("uprobe")
int stop_thread(void *ctx)
{
	struct stop s = {};
	struct bpf_pidns_info ns;
	__u64 id;

	if (cgroup_id != 0 && bpf_get_current_cgroup_id() != cgroup_id)
		return 0;
	if (!pidns_ino) {
		id = bpf_get_current_pid_tgid();
		s.pid = id >> 32;
		s.tid = (__u32)id;
	} else if (!bpf_get_ns_current_pid_tgid(pidns_dev, pidns_ino, &ns, sizeof(ns))) {
		s.pid = ns.tgid;
		s.tid = ns.pid;
	} else {
		/* Not stopped: user space could not tell whom to continue. */
		s.err = -ESRCH;
		bpf_ringbuf_output(&stops, &s, sizeof(s), 0);
		return 0;
	}
	s.err = bpf_send_signal_thread(SIGSTOP);
	bpf_ringbuf_output(&stops, &s, sizeof(s), 0);
	return 0;
}

char LICENSE[] SEC("license") = "Dual MIT/GPL";
