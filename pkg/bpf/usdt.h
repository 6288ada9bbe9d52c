// SPDX-License-Identifier: (MIT OR GPL-2.0-only)
/*
 * What the BPF programs of this directory share: the per-site argument
 * specs, the reading of arguments out of the registers and memory of the
 * traced thread, and the counters of hits that went wrong. usdt.bpf.c
 * streams events, agg.bpf.c aggregates them in the kernel; both read
 * arguments with the same code, so that a value is the same value in
 * both.
 *
 * Self-contained, like the programs: no vmlinux.h, no libbpf headers.
 */

#ifndef USDT_H
#define USDT_H

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
static __unused long (*bpf_map_update_elem)(void *map, const void *key, const void *value, __u64 flags) = (void *)2;

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

enum counter {
	LOST_RING, /* the ring buffer was full */
	LOST_BUSY, /* every scratch slot of the CPU was in use */
	LOST_SPEC, /* the cookie named no spec */
	LOST_AGG, /* agg.bpf.c: a hit neither counted nor counted as lost */
	NCOUNTERS,
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 4096); /* set by the loader */
	__type(key, __u32);
	__type(value, struct spec);
} sites SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, NCOUNTERS);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps");

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

#endif /* USDT_H */
