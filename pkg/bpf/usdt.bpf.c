//go:build ignore

// SPDX-License-Identifier: (MIT OR GPL-2.0-only)
/*
 * Generic USDT probe handler: one program serves every probe site. The BPF
 * cookie of each attachment is the id of a site spec in the sites map, which
 * says how to fetch the site's arguments from the registers and memory of
 * the traced thread. Events go to user space through a ring buffer.
 *
 * The file is self-contained (no vmlinux.h, no libbpf headers; usdt.h
 * holds what it shares with agg.bpf.c): ctx is treated as raw bytes and
 * registers are read at the offsets in the spec, so only clang is needed
 * to rebuild it (go generate ./pkg/bpf/).
 *
 * The file builds two programs. By default it reads strings: events are
 * assembled in a per-CPU scratch slot, since their length is known only
 * once the strings are read, and copied into the ring buffer. Built with
 * -DUSDT_STRINGS=0 it reads numbers only: an event's size depends on its
 * argument count alone, it is written in place into a ring buffer record,
 * and the verifier has far fewer paths to walk, so the program loads
 * several times faster. Each is built twice more with -DUSDT_FAULTS=1,
 * sleepable, to read memory that is not resident (see usdt.h).
 */

#ifndef USDT_STRINGS
#define USDT_STRINGS 1
#endif
#define USDT_SLOTS USDT_STRINGS /* events with strings are assembled in scratch slots */

#include "usdt.h"

#define MAX_STR 256 /* space of a string: up to MAX_STR-2 bytes, NUL, and one to detect a cut */
#define STR_SPACE (MAX_ARGS * MAX_STR)
#define MAX_FRAMES 127 /* of a user stack: perf's default kernel.perf_event_max_stack */
#define STACK_SPACE (MAX_FRAMES * 8)
/*
 * A copy of the user stack: 4 registers, then up to COPY_MAX bytes from
 * the stack pointer up, read a page at a time. The space after it holds
 * the strings and the tail of the last page's read, whose bound the
 * verifier adds to the largest offset. 16 KiB: python3.11's probes fire
 * 7.5 to 10 KiB below _start, more for each call back into the
 * interpreter from C (about 1 KiB), which perf's 8 KiB cuts; a slot of
 * 32 KiB would pass the most a per-CPU map's value may take
 * (PCPU_MIN_UNIT_SIZE, 32 KiB: E2BIG).
 */
#define COPY_MAX 16384
#define COPY_REGS 32
/*
 * USDT_COPY builds hold the copy in each scratch slot; the others, 4 KiB
 * a slot rather than 20, make the events of streams without one.
 */
#ifndef USDT_COPY
#define USDT_COPY 1
#endif
#if USDT_COPY
#define DATA_SPACE (COPY_REGS + COPY_MAX + 4096) /* holds STACK_SPACE + STR_SPACE too */
#define STR_MASK 32767 /* covers DATA_SPACE */
#else
#define DATA_SPACE (STACK_SPACE + STR_SPACE)
#define STR_MASK 4095 /* covers DATA_SPACE */
#endif
#define HDR_SIZE __builtin_offsetof(struct event, data) /* an event without strings */

struct event {
	__u64 time; /* bpf_ktime_get_boot_ns */
	__u32 pid; /* tgid, both in the tracer's PID namespace (current_pid_tgid) */
	__u32 tid;
	__u32 cpu;
	__u32 spec_id;
	__u32 probe_id;
	__u16 nargs;
	__u16 failed; /* bit i: argument i was not read */
	__u16 strs; /* bit i: argument i has a string in data */
	__u16 trunc; /* bit i: that string was cut at str_max bytes */
	__u16 nframes; /* return addresses of the user stack at the start of data */
	__u16 copy; /* or: bytes at the start of data of a copy of the user stack */
	char comm[16];
	__u64 args[MAX_ARGS];
	/*
	 * The user stack, nframes addresses, innermost first, or its copy,
	 * then the strings in argument order, NUL-terminated.
	 */
	char data[DATA_SPACE];
};

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20); /* set by the loader */
} events SEC(".maps");

/*
 * The events lost in a full ring by probe id, which LOST_RING counts in
 * all: a stream folded into aggregates in user space says its lost hits
 * per probe, as agg.bpf.c's entries do. Shared by the CPUs, not per CPU:
 * one u64 a probe, bumped only when an event is lost.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1); /* set by the loader: one per probe */
	__type(key, __u32);
	__type(value, __u64);
} probe_lost SEC(".maps");

/* lost_ring counts an event of probe that found the ring full. */
static __always_inline void lost_ring(__u32 probe)
{
	__u64 *n = bpf_map_lookup_elem(&probe_lost, &probe);

	count(LOST_RING);
	if (n)
		__sync_fetch_and_add(n, 1);
}

#if USDT_STRINGS
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, SLOTS);
	__type(key, __u32);
	__type(value, struct event);
} scratch SEC(".maps");

/* Set by the loader before the object is loaded. */
volatile const __u32 str_max = 64; /* bytes kept of a string, NUL excluded */
/*
 * The most frames of the user stack an event carries, taken by the
 * kernel's perf callchain code (frame pointers); 0 takes none.
 */
volatile const __u32 ustack_max = 0;
/*
 * Or, the most bytes of the user stack each event carries a copy of,
 * with the registers that user space unwinds it from; 0 takes none.
 */
volatile const __u32 ustack_copy = 0;
#endif

/*
 * Events are submitted without waking the reader, which polls on a timer,
 * until this much data is waiting; 0 leaves it to the kernel, which wakes
 * the reader whenever it has caught up. Set by the loader.
 */
volatile const __u64 wakeup_bytes = 1 << 18;

/* fill_header fills in everything but the arguments. */
static __always_inline void fill_header(struct event *e, __u32 id, struct spec *s)
{
	__u64 pid_tgid = current_pid_tgid();

	e->time = bpf_ktime_get_boot_ns();
	e->pid = pid_tgid >> 32;
	e->tid = (__u32)pid_tgid;
	e->cpu = bpf_get_smp_processor_id();
	e->spec_id = id;
	e->probe_id = s->probe_id;
	e->nargs = s->nargs;
	e->failed = 0;
	e->strs = 0;
	e->trunc = 0;
	e->nframes = 0;
	e->copy = 0;
	bpf_get_current_comm(e->comm, sizeof(e->comm));
}

/* ring_len is the space a record of size bytes takes in the ring. */
#define ring_len(size) (((size) + 8 + 7) & ~7ULL)

/*
 * wakeup returns the flags to submit a record with, given the bytes
 * waiting in the ring once it is in (after) and the space it takes (len):
 * a forced wakeup of the reader when they cross a multiple of
 * wakeup_bytes, none otherwise. A wakeup costs the traced thread an
 * interrupt, which under a hypervisor is an exit, and while the reader is
 * being woken every event sees the threshold passed: forcing a wakeup on
 * each of those made the wakeups the most expensive part of an event.
 * Once per wakeup_bytes is enough; a crossing that two CPUs race past
 * unseen is caught at the next multiple.
 */
static __always_inline __u64 wakeup(__u64 after, __u64 len)
{
	__u64 before = after > len ? after - len : 0;

	if (wakeup_bytes == 0)
		return 0;
	if (after / wakeup_bytes != before / wakeup_bytes)
		return BPF_RB_FORCE_WAKEUP;
	return BPF_RB_NO_WAKEUP;
}

#if USDT_STRINGS
/*
 * read_str reads the string of argument i at addr into e->data at pos,
 * keeping at most str_max bytes and flagging a cut in e->trunc, and
 * returns the bytes it takes there with the NUL: 0 when the string cannot
 * be read. The string ends at its NUL, or, when n >= 0, is n bytes long,
 * as runtimes that pass a length with a pointer have it (the JVM). Global,
 * like read_arg.
 */
GLOBAL int read_str(struct event *e, __u64 pos, __u64 addr, __u32 i, __s64 n)
{
	__u32 cap = str_max;
	long len;

	if (!e || pos > DATA_SPACE - MAX_STR)
		return 0;
	if (cap > MAX_STR - 2)
		cap = MAX_STR - 2;
	if (n >= 0) {
		__u64 want = n;

		if (want > cap) {
			want = cap;
			e->trunc |= 1 << (i & 15);
		}
		if (want > 0 && read_user(&e->data[pos], want, addr))
			return 0;
		e->data[pos + want] = 0;
		return want + 1;
	}
	/* Read one byte more than kept to tell a cut string. */
	len = read_user_str(&e->data[pos], cap + 2, addr);
	if (len <= 0 || len > MAX_STR)
		return 0;
	if (len > cap + 1) {
		e->data[pos + cap] = 0;
		e->trunc |= 1 << (i & 15);
		return cap + 1;
	}
	return len;
}

/*
 * take_stack puts the user stack at the start of e->data and returns
 * the bytes it takes there. A function of its own, so that its locals
 * take no room in handle's frame, which with the filter's on top fills
 * the 512 bytes of BPF stack.
 */
static __attribute__((noinline)) __u32 take_stack(void *ctx, struct event *e)
{
	__u32 max = ustack_max;
	long got;

	if (max > MAX_FRAMES)
		max = MAX_FRAMES;
	got = bpf_get_stack(ctx, e->data, max * 8, BPF_F_USER_STACK);
	if (got <= 0)
		return 0;
	e->nframes = got / 8;
	return e->nframes * 8;
}

/*
 * take_copy puts a copy of the user stack at the start of e->data and
 * returns the bytes it takes there: the registers an unwind starts from
 * (x86-64: rip, rsp, rbp and 0; arm64: pc, sp, x29, x30), then the
 * stack from the stack pointer up, ustack_copy bytes at most. It is read
 * a page at a time, since a read that crosses the top of the stack fails
 * whole, and ends at the first page that cannot be read.
 */
#if USDT_COPY
static __attribute__((noinline)) __u32 take_copy(void *ctx, struct event *e)
{
	__u64 *regs = ctx, *r = (__u64 *)e->data;
	__u32 want = ustack_copy, got = 0;
	__u64 sp;

#if defined(__TARGET_ARCH_x86)
	r[0] = regs[IP_OFF / 8];
	r[1] = regs[19]; /* sp */
	r[2] = regs[4]; /* bp */
	r[3] = 0;
#else
	r[0] = regs[IP_OFF / 8];
	r[1] = regs[31]; /* sp */
	r[2] = regs[29];
	r[3] = regs[30];
#endif
	sp = r[1];
	if (want > COPY_MAX)
		want = COPY_MAX;
	/* Unrolled, the body is copied and clang drops the mask of off. */
#pragma clang loop unroll(disable)
	for (int i = 0; i < COPY_MAX / 4096 + 1; i++) {
		/* 64 bits: the register checked is the one passed, not a copy cut to 32. */
		__u64 n = 4096 - ((sp + got) & 4095);
		__u32 off = got & (COPY_MAX - 1);

		if (got >= want)
			break;
		if (n > want - got)
			n = want - got;
		/*
		 * n is at most 4096 either way and clang drops the check, but
		 * 6.1's verifier, unlike 6.12's, learns no bound from comparing
		 * two registers of unknown values (n against want - got) and
		 * needs it to bound the read: hiding n keeps it.
		 */
		asm volatile("" : "+r"(n));
		if (n > 4096)
			break;
		if (bpf_probe_read_user(&e->data[COPY_REGS + off], n, (void *)(sp + got)))
			break;
		got += n;
	}
	return COPY_REGS + got;
}
#endif

static __always_inline int handle(void *ctx)
{
	__u32 id, pos = 0, n;
	__u64 *mask, bias, size;
	struct regs regs;
	struct spec *s;
	struct event *e;
	int slot;

	s = site_of(ctx, &id);
	if (!s)
		return 0;
	load_regs(ctx, &regs);
	/*
	 * The uprobe handler sees the instruction pointer at the probe
	 * address itself (the kernel rewinds it past the breakpoint before
	 * running handlers), so the load bias of the mapping is exact.
	 */
	bias = regs.r[IP_OFF / 8] - s->pc;
	/* Before anything else: a hit filtered out costs the filter only. */
	if (!passes(&regs, s, bias))
		return 0;
	slot = get_slot(&mask);
	if (slot < 0)
		return 0;
	n = slot;
	e = bpf_map_lookup_elem(&scratch, &n);
	if (!e)
		goto out;

	fill_header(e, id, s);
	if (ustack_max)
		pos = take_stack(ctx, e);
#if USDT_COPY
	else if (ustack_copy) {
		pos = take_copy(ctx, e);
		e->copy = pos;
	}
#endif

	for (int i = 0; i < MAX_ARGS; i++) {
		struct arg *a = &s->args[i];
		__u64 v;

		e->args[i] = 0;
		if (i >= s->nargs)
			continue;
		if (!read_arg(&regs, a, bias, &v)) {
			e->failed |= 1 << i;
			continue;
		}
		e->args[i] = v;
	}
	/* Strings once every number is known: a length may come after. */
	for (int i = 0; i < MAX_ARGS; i++) {
		struct arg *a = &s->args[i];
		__s64 n = -1;
		__u32 j;
		long len;

		if (i >= s->nargs || !(a->flags & ARG_STRING) || (e->failed & (1 << i)))
			continue;
		if (a->len_arg) {
			j = a->len_arg - 1;
			if (j >= MAX_ARGS || (e->failed & (1 << j)) || (__s64)e->args[j] < 0) {
				e->failed |= 1 << i;
				continue;
			}
			n = e->args[j];
		}
		len = read_str(e, pos, e->args[i], i, n);
		if (len <= 0 || len > MAX_STR) {
			e->failed |= 1 << i;
			continue;
		}
		e->strs |= 1 << i;
		/*
		 * The mask changes nothing, pos stays below the end of data, but
		 * it widens what the verifier knows of pos to one range for
		 * all paths, so that it checks the next argument once.
		 */
		pos = (pos + len) & (STR_MASK);
	}

	size = HDR_SIZE + pos;
	if (size > sizeof(*e))
		goto out;
	if (bpf_ringbuf_output(&events, e, size,
			       wakeup(bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) + ring_len(size), ring_len(size))))
		lost_ring(s->probe_id);
out:
	put_slot(mask, slot);
	return 0;
}
#else
/*
 * Without strings an event's size depends only on its argument count, so
 * it is written in place into a ring buffer record: no scratch slot, no
 * copy. The record holds the arguments of the site rounded up to 4, 8 or
 * 12 (the reserved size must be a constant): the fewer bytes an event
 * takes, the fewer cache lines move to the reading CPU and back.
 */
#define ARGS_OFF __builtin_offsetof(struct event, args)

static __always_inline int emit(const struct regs *regs, __u64 bias, __u32 id, struct spec *s, const int nargs)
{
	struct event *e;

	e = bpf_ringbuf_reserve(&events, ARGS_OFF + nargs * 8, 0);
	if (!e) {
		lost_ring(s->probe_id);
		return 0;
	}
	fill_header(e, id, s);
	for (int i = 0; i < nargs; i++) {
		__u64 v = 0;

		/* Kept in the record, not a register: fewer states to verify. */
		if (i < s->nargs && !read_arg(regs, &s->args[i], bias, &v))
			e->failed |= 1 << i;
		e->args[i] = v;
	}
	/* The record is reserved: the data waiting includes it. */
	bpf_ringbuf_submit(e, wakeup(bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA), ring_len(ARGS_OFF + nargs * 8)));
	return 0;
}

static __always_inline int handle(void *ctx)
{
	struct regs regs;
	struct spec *s;
	__u64 bias;
	__u32 id;

	s = site_of(ctx, &id);
	if (!s)
		return 0;
	load_regs(ctx, &regs);
	bias = regs.r[IP_OFF / 8] - s->pc; /* see the strings version */
	/* Before the record is reserved: see the strings version. */
	if (!passes(&regs, s, bias))
		return 0;
	if (s->nargs <= 4)
		return emit(&regs, bias, id, s, 4);
	if (s->nargs <= 8)
		return emit(&regs, bias, id, s, 8);
	return emit(&regs, bias, id, s, MAX_ARGS);
}
#endif

#if USDT_FAULTS
#define SLEEPABLE ".s" /* see USDT_FAULTS in usdt.h */
#else
#define SLEEPABLE ""
#endif

/* For uprobe_multi links, one link for all sites of a binary. */
SEC("uprobe.multi" SLEEPABLE)
int usdt_multi(void *ctx)
{
	return handle(ctx);
}

/* For one perf-event uprobe per site, where uprobe_multi is missing. */
SEC("uprobe" SLEEPABLE)
int usdt_single(void *ctx)
{
	return handle(ctx);
}

char LICENSE[] SEC("license") = "Dual MIT/GPL";
