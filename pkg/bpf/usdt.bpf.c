//go:build ignore

// SPDX-License-Identifier: (MIT OR GPL-2.0-only)
/*
 * Generic USDT probe handler: one program serves every probe site. The BPF
 * cookie of each attachment is the id of a site spec in the sites map, which
 * says how to fetch the site's arguments from the registers and memory of
 * the traced thread. Events go to user space through a ring buffer.
 *
 * The file is self-contained (no vmlinux.h, no libbpf headers): ctx is
 * treated as raw bytes and registers are read at the offsets in the spec,
 * so only clang is needed to rebuild it (go generate ./bpf/).
 *
 * The file builds two programs. By default it reads strings: events are
 * assembled in a per-CPU scratch slot, since their length is known only
 * once the strings are read, and copied into the ring buffer. Built with
 * -DUSDT_STRINGS=0 it reads numbers only: an event's size depends on its
 * argument count alone, it is written in place into a ring buffer record,
 * and the verifier has far fewer paths to walk, so the program loads
 * several times faster.
 */

#ifndef USDT_STRINGS
#define USDT_STRINGS 1
#endif

typedef unsigned char __u8;
typedef unsigned short __u16;
typedef unsigned int __u32;
typedef unsigned long long __u64;
typedef short __s16;
typedef long long __s64;

#define SEC(name) __attribute__((section(name), used))
#define __uint(name, val) int (*name)[val]
#define __type(name, val) typeof(val) *name
#define __always_inline inline __attribute__((always_inline))
#define __unused __attribute__((unused)) /* helpers one of the programs leaves out */

enum {
	BPF_MAP_TYPE_ARRAY = 2,
	BPF_MAP_TYPE_PERCPU_ARRAY = 6,
	BPF_MAP_TYPE_RINGBUF = 27,
};

enum {
	BPF_RB_NO_WAKEUP = 1,
	BPF_RB_FORCE_WAKEUP = 2,
	BPF_RB_AVAIL_DATA = 0,
};

static __unused void *(*bpf_map_lookup_elem)(void *map, const void *key) = (void *)1;
static __unused __u32 (*bpf_get_smp_processor_id)(void) = (void *)8;
static __unused __u64 (*bpf_get_current_pid_tgid)(void) = (void *)14;
static __unused long (*bpf_get_current_comm)(void *buf, __u32 size) = (void *)16;
static __unused long (*bpf_probe_read_user)(void *dst, __u32 size, const void *src) = (void *)112;
static __unused long (*bpf_probe_read_user_str)(void *dst, __u32 size, const void *src) = (void *)114;
static __unused __u64 (*bpf_ktime_get_boot_ns)(void) = (void *)125;
static __unused long (*bpf_ringbuf_output)(void *rb, void *data, __u64 size, __u64 flags) = (void *)130;
static __unused __u64 (*bpf_ringbuf_query)(void *rb, __u64 flags) = (void *)134;
static __unused __u64 (*bpf_get_attach_cookie)(void *ctx) = (void *)174;
static __unused void *(*bpf_ringbuf_reserve)(void *rb, __u64 size, __u64 flags) = (void *)131;
static __unused void (*bpf_ringbuf_submit)(void *data, __u64 flags) = (void *)132;

/*
 * Registers in the BPF-visible pt_regs, and the offset of the instruction
 * pointer.
 */
#if defined(__TARGET_ARCH_x86)
#define NREGS 21 /* struct pt_regs: 15 registers, orig_ax, ip, cs, flags, sp, ss */
#define IP_OFF 128 /* ip follows 16 longs */
#elif defined(__TARGET_ARCH_arm64)
#define NREGS 34 /* struct user_pt_regs: regs[31], sp, pc, pstate */
#define IP_OFF 256
#else
#error "unsupported architecture: build with -target amd64 or arm64"
#endif

#define MAX_ARGS 12
#define MAX_STR 256 /* space of a string: up to MAX_STR-2 bytes, NUL, and one to detect a cut */
#define STR_SPACE (MAX_ARGS * MAX_STR)
#define STR_MASK 4095 /* covers STR_SPACE */
#define SLOTS 4 /* scratch events per CPU, see get_slot */
#define HDR_SIZE __builtin_offsetof(struct event, data) /* an event without strings */

enum arg_kind {
	ARG_NONE = 0, /* not decoded: the event marks it as not read */
	ARG_CONST = 1, /* val */
	ARG_REG = 2, /* register base, shifted right by shift; with an index, its low half, the index the high one */
	ARG_MEM = 3, /* memory at base + index*scale + val; base, index optional */
};

enum arg_flags {
	ARG_SIGNED = 1, /* sign-extend from size bytes */
	ARG_BIAS = 2, /* val is a link-time address: add the load bias */
	ARG_STRING = 4, /* the value points to a NUL-terminated string */
	ARG_FLOAT = 8, /* for user space: the bits are a float or double */
};

struct arg {
	__u64 val; /* constant, displacement or link-time address */
	__s16 base; /* ctx offset of the base register, -1 if none */
	__s16 index; /* ctx offset of the index register, -1 if none */
	__u8 kind; /* enum arg_kind */
	__u8 size; /* bytes kept: 1, 2, 4 or 8 */
	__u8 flags; /* enum arg_flags */
	__u8 shift; /* right shift of the register (8 for %ah) */
	__u8 scale; /* multiplier of index */
	__u8 len_arg; /* string: 1 + the argument holding its length, 0 if NUL-terminated */
	__u8 pad[6];
};

struct spec {
	__u64 pc; /* link-time address of the probe site */
	__u32 probe_id; /* index into the user-space probe table */
	__u16 nargs;
	__u16 pad;
	struct arg args[MAX_ARGS];
};

struct event {
	__u64 time; /* bpf_ktime_get_boot_ns */
	__u32 pid; /* tgid */
	__u32 tid;
	__u32 cpu;
	__u32 spec_id;
	__u32 probe_id;
	__u16 nargs;
	__u16 failed; /* bit i: argument i was not read */
	__u16 strs; /* bit i: argument i has a string in data */
	__u16 trunc; /* bit i: that string was cut at str_max bytes */
	__u32 pad;
	char comm[16];
	__u64 args[MAX_ARGS];
	char data[STR_SPACE]; /* strings in argument order, NUL-terminated */
};

enum counter {
	LOST_RING, /* the ring buffer was full */
	LOST_BUSY, /* every scratch slot of the CPU was in use */
	LOST_SPEC, /* the cookie named no spec */
	NCOUNTERS,
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 4096); /* set by the loader */
	__type(key, __u32);
	__type(value, struct spec);
} sites SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20); /* set by the loader */
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, NCOUNTERS);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps");

#if USDT_STRINGS
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, SLOTS);
	__type(key, __u32);
	__type(value, struct event);
} scratch SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} busy SEC(".maps");

/* Set by the loader before the object is loaded. */
volatile const __u32 str_max = 64; /* bytes kept of a string, NUL excluded */
#endif

/*
 * Events are submitted without waking the reader, which polls on a timer,
 * until this much data is waiting; 0 leaves it to the kernel, which wakes
 * the reader whenever it has caught up. Set by the loader.
 */
volatile const __u64 wakeup_bytes = 1 << 18;

static __always_inline void count(__u32 c)
{
	__u64 *n = bpf_map_lookup_elem(&counters, &c);

	if (n)
		__sync_fetch_and_add(n, 1);
}

/*
 * load_regs copies the registers out of ctx. A BPF program may read ctx
 * only at constant offsets, so the copy, unrolled, is what lets read_arg
 * index the registers by the offsets in the spec without a helper call.
 */
struct regs {
	__u64 r[NREGS];
};

static __always_inline void load_regs(void *ctx, struct regs *r)
{
#pragma unroll
	for (int i = 0; i < NREGS; i++)
		r->r[i] = ((__u64 *)ctx)[i];
}

/* reg returns the register at ctx offset off, 0 for none (off < 0). */
static __always_inline __u64 reg(const struct regs *r, __s16 off)
{
	__u32 i;

	if (off < 0)
		return 0;
	i = (__u32)off / 8;
	if (i >= NREGS)
		return 0;
	/* Index with i as bounded, not with a byte offset clang derives. */
	asm volatile("" : "+r"(i));
	return r->r[i];
}

static __always_inline __u64 extend(__u64 v, __u8 size, int sign)
{
	int bits;

	if (size == 0 || size >= 8)
		return v;
	bits = 64 - size * 8;
	if (sign)
		return (__u64)((__s64)(v << bits) >> bits);
	return (v << bits) >> bits;
}

/*
 * read_arg stores the value of a in *v and reports whether it could. It
 * is a global function, which the verifier checks once, on its own,
 * rather than once per argument with everything the caller knows: that
 * keeps loading fast. The verifier lets any pointer argument be NULL.
 */
__attribute__((noinline)) int read_arg(const struct regs *r, const struct arg *a, __u64 bias, __u64 *v)
{
	__u64 addr, x = 0;
	__u32 size;

	if (!r || !a || !v)
		return 0;
	switch (a->kind) {
	case ARG_CONST:
		*v = a->val + (a->flags & ARG_BIAS ? bias : 0);
		return 1;
	case ARG_REG:
		if (a->base < 0)
			return 0;
		x = reg(r, a->base) >> (a->shift & 63);
		if (a->index >= 0)
			x = (__u32)x | reg(r, a->index) << 32;
		*v = extend(x, a->size, a->flags & ARG_SIGNED);
		return 1;
	case ARG_MEM:
		addr = a->val + (a->flags & ARG_BIAS ? bias : 0);
		if (a->base >= 0)
			addr += reg(r, a->base);
		if (a->index >= 0)
			addr += reg(r, a->index) * a->scale;
		size = a->size;
		if (size == 0 || size > 8)
			size = 8;
		if (bpf_probe_read_user(&x, size, (void *)addr))
			return 0;
		*v = extend(x, size, a->flags & ARG_SIGNED);
		return 1;
	}
	return 0;
}

/* fill_header fills in everything but the arguments. */
static __always_inline void fill_header(struct event *e, __u32 id, struct spec *s)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();

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
	e->pad = 0;
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
 * get_slot claims one of the CPU's scratch events. A uprobe program can be
 * preempted by another thread hitting a probe on the same CPU, so a single
 * per-CPU buffer could be overwritten under our feet; the slots are claimed
 * with an atomic bit mask instead.
 */
static __always_inline int get_slot(__u64 *mask)
{
	for (int i = 0; i < SLOTS; i++) {
		__u64 bit = 1ULL << i;

		if (!(__sync_fetch_and_or(mask, bit) & bit))
			return i;
	}
	return -1;
}

/*
 * read_str reads the string of argument i at addr into e->data at pos,
 * keeping at most str_max bytes and flagging a cut in e->trunc, and
 * returns the bytes it takes there with the NUL: 0 when the string cannot
 * be read. The string ends at its NUL, or, when n >= 0, is n bytes long,
 * as runtimes that pass a length with a pointer have it (the JVM). Global,
 * like read_arg.
 */
__attribute__((noinline)) int read_str(struct event *e, __u64 pos, __u64 addr, __u32 i, __s64 n)
{
	__u32 cap = str_max;
	long len;

	if (!e || pos > STR_SPACE - MAX_STR)
		return 0;
	if (cap > MAX_STR - 2)
		cap = MAX_STR - 2;
	if (n >= 0) {
		__u64 want = n;

		if (want > cap) {
			want = cap;
			e->trunc |= 1 << (i & 15);
		}
		if (want > 0 && bpf_probe_read_user(&e->data[pos], want, (void *)addr))
			return 0;
		e->data[pos + want] = 0;
		return want + 1;
	}
	/* Read one byte more than kept to tell a cut string. */
	len = bpf_probe_read_user_str(&e->data[pos], cap + 2, (void *)addr);
	if (len <= 0 || len > MAX_STR)
		return 0;
	if (len > cap + 1) {
		e->data[pos + cap] = 0;
		e->trunc |= 1 << (i & 15);
		return cap + 1;
	}
	return len;
}

static __always_inline int handle(void *ctx)
{
	__u32 zero = 0, id, pos = 0, n;
	__u64 *mask, bias, size;
	struct regs regs;
	struct spec *s;
	struct event *e;
	int slot;

	id = bpf_get_attach_cookie(ctx);
	s = bpf_map_lookup_elem(&sites, &id);
	if (!s) {
		count(LOST_SPEC);
		return 0;
	}
	mask = bpf_map_lookup_elem(&busy, &zero);
	if (!mask)
		return 0;
	slot = get_slot(mask);
	if (slot < 0) {
		count(LOST_BUSY);
		return 0;
	}
	n = slot;
	e = bpf_map_lookup_elem(&scratch, &n);
	if (!e)
		goto out;

	fill_header(e, id, s);
	load_regs(ctx, &regs);
	/*
	 * The uprobe handler sees the instruction pointer at the probe
	 * address itself (the kernel rewinds it past the breakpoint before
	 * running handlers), so the load bias of the mapping is exact.
	 */
	bias = regs.r[IP_OFF / 8] - s->pc;

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
		 * The mask changes nothing, pos stays below STR_SPACE, but
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
		count(LOST_RING);
out:
	__sync_fetch_and_and(mask, ~(1ULL << slot));
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

static __always_inline int emit(void *ctx, __u32 id, struct spec *s, const int nargs)
{
	__u64 bias;
	struct regs regs;
	struct event *e;

	e = bpf_ringbuf_reserve(&events, ARGS_OFF + nargs * 8, 0);
	if (!e) {
		count(LOST_RING);
		return 0;
	}
	fill_header(e, id, s);
	load_regs(ctx, &regs);
	bias = regs.r[IP_OFF / 8] - s->pc; /* see the strings version */
	for (int i = 0; i < nargs; i++) {
		__u64 v = 0;

		/* Kept in the record, not a register: fewer states to verify. */
		if (i < s->nargs && !read_arg(&regs, &s->args[i], bias, &v))
			e->failed |= 1 << i;
		e->args[i] = v;
	}
	/* The record is reserved: the data waiting includes it. */
	bpf_ringbuf_submit(e, wakeup(bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA), ring_len(ARGS_OFF + nargs * 8)));
	return 0;
}

static __always_inline int handle(void *ctx)
{
	__u32 id = bpf_get_attach_cookie(ctx);
	struct spec *s;

	s = bpf_map_lookup_elem(&sites, &id);
	if (!s) {
		count(LOST_SPEC);
		return 0;
	}
	if (s->nargs <= 4)
		return emit(ctx, id, s, 4);
	if (s->nargs <= 8)
		return emit(ctx, id, s, 8);
	return emit(ctx, id, s, MAX_ARGS);
}
#endif

/* For uprobe_multi links, one link for all sites of a binary. */
SEC("uprobe.multi")
int usdt_multi(void *ctx)
{
	return handle(ctx);
}

/* For one perf-event uprobe per site, where uprobe_multi is missing. */
SEC("uprobe")
int usdt_single(void *ctx)
{
	return handle(ctx);
}

char LICENSE[] SEC("license") = "Dual MIT/GPL";
