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
	BPF_MAP_TYPE_HASH = 1,
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
static __unused __u64 (*bpf_get_current_cgroup_id)(void) = (void *)80;
static __unused long (*bpf_get_current_comm)(void *buf, __u32 size) = (void *)16;
static __unused long (*bpf_probe_read_user)(void *dst, __u32 size, const void *src) = (void *)112;
static __unused long (*bpf_probe_read_user_str)(void *dst, __u32 size, const void *src) = (void *)114;
static __unused long (*bpf_probe_read_kernel_str)(void *dst, __u32 size, const void *src) = (void *)115;
static __unused __u64 (*bpf_ktime_get_boot_ns)(void) = (void *)125;
static __unused long (*bpf_ringbuf_output)(void *rb, void *data, __u64 size, __u64 flags) = (void *)130;
static __unused __u64 (*bpf_ringbuf_query)(void *rb, __u64 flags) = (void *)134;
static __unused __u64 (*bpf_get_attach_cookie)(void *ctx) = (void *)174;
static __unused void *(*bpf_ringbuf_reserve)(void *rb, __u64 size, __u64 flags) = (void *)131;
static __unused void (*bpf_ringbuf_submit)(void *data, __u64 flags) = (void *)132;
static __unused long (*bpf_map_update_elem)(void *map, const void *key, const void *value, __u64 flags) = (void *)2;
static __unused long (*bpf_copy_from_user)(void *dst, __u32 size, const void *user_ptr) = (void *)148;
static __unused long (*bpf_get_stack)(void *ctx, void *buf, __u32 size, __u64 flags) = (void *)67;

#define BPF_F_USER_STACK (1ULL << 8)

struct bpf_pidns_info {
	__u32 pid; /* the thread */
	__u32 tgid; /* the process */
};

static __unused long (*bpf_get_ns_current_pid_tgid)(__u64 dev, __u64 ino, struct bpf_pidns_info *ns, __u32 size) = (void *)120;

/*
 * Registers in the BPF-visible pt_regs, and the offset of the instruction
 * pointer.
 */
#if defined(__TARGET_ARCH_x86)
#define NREGS 21 /* struct pt_regs: 15 registers, orig_ax, ip, cs, flags, sp, ss */
#define IP_OFF 128 /* ip follows 16 longs */
#elif defined(__TARGET_ARCH_arm64)
#define NREGS 33 /* struct user_pt_regs: regs[31], sp, pc; not pstate, which no operand names */
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
	LOST_SPEC, /* the cookie, or the address, named no spec */
	LOST_AGG, /* agg.bpf.c: a hit neither counted nor counted as lost */
	NCOUNTERS,
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 4096); /* set by the loader */
	__type(key, __u32);
	__type(value, struct spec);
} sites SEC(".maps");

/*
 * Set by the loader where the kernel lacks BPF cookies (Linux 5.15): a
 * hit's site is then found by the address of its instruction, the
 * instruction pointer of the uprobe's registers (the kernel sets it to
 * the probe address before it runs the handlers), in site_ips, which
 * the loader fills with the address of every site in the processes
 * traced, as libbpf's usdt.bpf.h does. The verifier knows the constant:
 * on such a kernel the call of bpf_get_attach_cookie, which it does not
 * know, is dead code, pruned unseen.
 */
volatile const __u8 by_ip = 0;

/*
 * Built with -DUSDT_OLD=1 for the kernels without BPF cookies, whose
 * verifier refuses two things of the other builds, dead code or not (it
 * checks the fields of every instruction before it walks the program):
 * the atomic operations that return a value or are not adds (BPF_FETCH,
 * Linux 5.12), and global functions that take pointers to memory (Linux
 * 5.12). The functions are static there (GLOBAL), checked at each call
 * with what the caller knows, and plain loads and stores do what the
 * atomic operations do elsewhere: those kernels run a uprobe program
 * with preemption disabled (__uprobe_perf_func) and no other tracing
 * program on its CPU meanwhile (bpf_prog_active), so no other hit can
 * come between a load and a store of the per-CPU data of a hit.
 */
#ifndef USDT_OLD
#define USDT_OLD 0
#endif
#if USDT_OLD
#define GLOBAL static __attribute__((noinline))
#else
#define GLOBAL __attribute__((noinline))
#endif

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1); /* set by the loader: the most sites, with by_ip */
	__type(key, __u64); /* the address of a site in the processes traced */
	__type(value, __u32); /* its number, as the sites map has it */
} site_ips SEC(".maps");

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

#if USDT_SLOTS
/*
 * Scratch slots, for a program that defines USDT_SLOTS: per-CPU memory
 * for what does not fit the 512 bytes of stack. A uprobe program runs
 * with migration disabled but can be preempted by another thread hitting
 * a probe on the same CPU, so a single per-CPU buffer could be
 * overwritten under our feet; each of SLOTS buffers is claimed instead
 * with a bit of the CPU's mask in busy. The program's map scratch holds
 * the buffers.
 */
#define SLOTS 4 /* scratch slots per CPU */

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} busy SEC(".maps");

/*
 * get_slot claims one of the CPU's scratch slots and sets *mask for
 * put_slot. A hit that finds every slot in use is counted as LOST_BUSY,
 * and gets -1.
 */
static __always_inline int get_slot(__u64 **mask)
{
	__u32 zero = 0;
	__u64 *m = bpf_map_lookup_elem(&busy, &zero);

	if (m && USDT_OLD) {
		/* One hit at a time on the CPU (see USDT_OLD). */
		*mask = m;
		return 0;
	}
	if (m) {
		for (int i = 0; i < SLOTS; i++) {
			__u64 bit = 1ULL << i;

			if (!(__sync_fetch_and_or(m, bit) & bit)) {
				*mask = m;
				return i;
			}
		}
	}
	count(LOST_BUSY);
	return -1;
}

/* put_slot gives back a slot of get_slot. */
static __always_inline void put_slot(__u64 *mask, int slot)
{
	if (!USDT_OLD)
		__sync_fetch_and_and(mask, ~(1ULL << slot));
}
#endif

/*
 * Set by the loader: the PID namespace of the tracer, as the device
 * (kernel encoding) and inode of its nsfs file, /proc/self/ns/pid; 0 in
 * the initial namespace.
 */
volatile const __u64 pidns_dev = 0;
volatile const __u64 pidns_ino = 0;

/*
 * Set by the loader: the id of a cgroup v2, the inode of its directory,
 * when the uprobes are attached without a pid filter to trace a process
 * and its descendants, which start in that cgroup; 0 keeps every hit.
 */
volatile const __u64 cgroup_id = 0;

/*
 * in_cgroup reports whether the current thread is one of those traced:
 * checked first, so that a hit of another process that maps the file
 * costs the trap, the helper call and one compare.
 */
static __always_inline int in_cgroup(void)
{
	return !cgroup_id || bpf_get_current_cgroup_id() == cgroup_id;
}

/*
 * site_of returns the spec of the site whose uprobe ctx is, whose number,
 * the low half of the uprobe's cookie or the number site_ips has for its
 * address, it stores in *id, or 0 for a hit to drop: of a thread not
 * traced, or of a site the maps lack (counted as LOST_SPEC).
 */
static __always_inline struct spec *site_of(void *ctx, __u32 *id)
{
	struct spec *s;

	if (!in_cgroup())
		return 0;
	if (by_ip) {
		__u64 ip = ((__u64 *)ctx)[IP_OFF / 8];
		__u32 *n = bpf_map_lookup_elem(&site_ips, &ip);

		if (!n) {
			count(LOST_SPEC);
			return 0;
		}
		*id = *n;
	} else {
		*id = bpf_get_attach_cookie(ctx);
	}
	s = bpf_map_lookup_elem(&sites, id);
	if (!s)
		count(LOST_SPEC);
	return s;
}

/*
 * current_pid_tgid is bpf_get_current_pid_tgid, the process id in the
 * high half and the thread id in the low one, with the ids the tracer's
 * PID namespace gives the current thread. In the initial namespace those
 * are the kernel's own, and bpf_get_current_pid_tgid, cheaper, gives
 * them. Elsewhere bpf_get_ns_current_pid_tgid gives them only for a
 * thread whose own namespace is the tracer's: a thread outside it, or in
 * a namespace nested in it, gets 0, which no thread that hits a uprobe
 * has.
 */
static __always_inline __u64 current_pid_tgid(void)
{
	struct bpf_pidns_info ns;

	if (!pidns_ino)
		return bpf_get_current_pid_tgid();
	if (bpf_get_ns_current_pid_tgid(pidns_dev, pidns_ino, &ns, sizeof(ns)))
		return 0;
	return (__u64)ns.tgid << 32 | ns.pid;
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
 * Built with -DUSDT_FAULTS=1 for a sleepable program (a uprobe program,
 * Linux 6.0; one for uprobe_multi links, 6.6): memory of the traced
 * thread that is not resident, a page of .rodata or of a mapped file the
 * thread has not read yet, which bpf_probe_read_user cannot read, is
 * then faulted in with bpf_copy_from_user, as the thread itself would
 * fault it in. Only a read that failed is retried that way, so a hit
 * whose memory is resident costs what it did. A separate build, not a
 * constant set by the loader: a kernel may refuse a call of a global
 * function that has a sleepable call in it, dead or not, from a program
 * that is not sleepable. agg.bpf.c is never built so: its flip of
 * generations counts on each hit running in an RCU read-side section,
 * which a sleepable program does not.
 */
#ifndef USDT_FAULTS
#define USDT_FAULTS 0
#endif

/*
 * A fault that finds no page costs the hit about a microsecond: an
 * address on the first page, NULL or near it, as an optional string
 * passes, is not worth the try.
 */
#define FAULT_MIN 4096

/* read_user is bpf_probe_read_user, faulting pages in with USDT_FAULTS. */
static __always_inline long read_user(void *dst, __u32 size, __u64 addr)
{
	long err = bpf_probe_read_user(dst, size, (void *)addr);

#if USDT_FAULTS
	if (err && addr >= FAULT_MIN)
		err = bpf_copy_from_user(dst, size, (void *)addr);
#endif
	return err;
}

/*
 * read_user_str is bpf_probe_read_user_str, faulting pages in with
 * USDT_FAULTS. A string that cannot be read has its pages faulted in one
 * at a time by a read of their first byte, the string's own first, and is
 * read again after each: a page is brought in only when the string goes
 * on past the pages before it, as a read by the thread would. size is at
 * most 4097, so that the string spans two pages at most. It returns the
 * length with the NUL, 1 for an empty string, which kernels without
 * "maccess: fix strncpy_from_user_nofault empty string handling" (2025;
 * Debian's 6.12 among them) read as 0, its NUL copied.
 */
static __always_inline long read_user_str(void *dst, __u32 size, __u64 addr)
{
	long len = bpf_probe_read_user_str(dst, size, (void *)addr);
#if USDT_FAULTS
	__u64 page = addr;
	__u8 b;

	for (int i = 0; i < 2 && len < 0 && addr >= FAULT_MIN; i++) {
		if (page - addr >= size || bpf_copy_from_user(&b, 1, (void *)page))
			break;
		len = bpf_probe_read_user_str(dst, size, (void *)addr);
		page = (page | 4095) + 1;
	}
#endif
	return len == 0 ? 1 : len;
}

/*
 * read_arg stores the value of a in *v and reports whether it could. It
 * is a global function, which the verifier checks once, on its own,
 * rather than once per argument with everything the caller knows: that
 * keeps loading fast. The verifier lets any pointer argument be NULL.
 */
GLOBAL int read_arg(const struct regs *r, const struct arg *a, __u64 bias, __u64 *v)
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
		if (read_user(&x, size, addr))
			return 0;
		*v = extend(x, size, a->flags & ARG_SIGNED);
		return 1;
	}
	return 0;
}

/*
 * The --filter of a probe: a postfix program of at most MAX_FINSNS
 * instructions (package filter compiles it), evaluated by filter_hit
 * before anything else is done for the hit. A program is interpreted
 * rather than compiled to BPF so that the object stays precompiled and
 * the verifier checks the interpreter once, whatever the expression.
 * Every instruction yields a truth value, so the stack of the
 * interpreter is a bit mask: comparisons push a bit, F_NOT flips the
 * top, F_AND and F_OR pop two and push one. No short cut is taken:
 * comparisons have no side effects, and the longest program is short.
 */
#define MAX_FINSNS 32
#define FSTR_WORDS 5 /* a string literal: up to 32 bytes, a NUL, padding */

enum f_op {
	F_EQ = 1, /* numbers: key op num */
	F_NE,
	F_LT,
	F_LE,
	F_GT,
	F_GE,
	F_STREQ, /* strings: the key is str */
	F_PREFIX, /* the key begins with str */
	F_NOT,
	F_AND,
	F_OR,
};

enum f_key {
	FK_PID = 1,
	FK_TID,
	FK_COMM,
	FK_ARG,
};

struct finsn {
	__u8 op; /* enum f_op */
	__u8 key; /* enum f_key */
	__u8 arg; /* FK_ARG: the argument, from 0 */
	__u8 size; /* numbers: bytes kept, 0 as read (signed as the note says) */
	__u8 sign; /* with size: signed */
	__u8 len; /* bytes of str */
	__u8 pad[2];
	__u64 num;
	__u64 str[FSTR_WORDS]; /* little-endian bytes, zero past len */
};

struct filter {
	__u32 n; /* instructions; 0 accepts every hit */
	__u32 pad;
	struct finsn insns[MAX_FINSNS];
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1); /* set by the loader: one per probe */
	__type(key, __u32);
	__type(value, struct filter);
} filters SEC(".maps");

/* Set by the loader: some probe has a filter. */
volatile const __u8 filtering = 0;

/*
 * str_match compares a string with the literal of in: equal, or
 * beginning with it. The string is the thread's name (comm), or else
 * the one at src in user memory. It is read 8 bytes at a time, so that
 * the stack holds a word and not a string, and compared a word at a
 * time under a mask of the bytes that count. Equality wants the string
 * to end where the literal does. A counted string (len_arg) ends at
 * limit bytes, or at a NUL before. Global, like read_arg, and with the
 * buffers of the strings in its own frame: the frames of filter_hit's
 * callees are not on the stack together. The name, NUL included, fills
 * its 16 bytes at most, and no read goes past them: a literal of 16
 * bytes or more (package filter refuses them) fails at the second word,
 * where the name has at most 7.
 */
GLOBAL int str_match(const struct finsn *in, __u64 src, int comm, __u64 limit)
{
	__u64 name[2] = {};
	__u32 len;

	if (!in)
		return 0;
	len = in->len;
	if (comm)
		bpf_get_current_comm(name, 16);
	for (int c = 0; c < FSTR_WORDS; c++) {
		__u32 off = c * 8, want;
		__u64 buf[2] = {}, mask, got;
		long n;

		if (off > len || (off == len && in->op == F_PREFIX))
			return 1;
		if (comm)
			n = bpf_probe_read_kernel_str(buf, 9, (char *)name + off);
		else
			n = read_user_str(buf, 9, src + off);
		if (n <= 0)
			return 0;
		got = n - 1;
		if (limit < off)
			return 0;
		if (got > limit - off)
			got = limit - off;
		want = len - off;
		if (want > 8)
			want = 8;
		if (got < want)
			return 0; /* shorter than the literal */
		if (in->op == F_STREQ && want < 8 && got != want)
			return 0; /* longer */
		mask = want >= 8 ? ~0ULL : (1ULL << (want * 8)) - 1;
		if ((buf[0] ^ in->str[c]) & mask)
			return 0;
	}
	return 1;
}

/* cmp_num compares v with in->num as in->op says. */
static __always_inline int cmp_num(const struct finsn *in, __u64 v, int sign)
{
	__u64 x = in->num;

	switch (in->op) {
	case F_EQ:
		return v == x;
	case F_NE:
		return v != x;
	case F_LT:
		return sign ? (__s64)v < (__s64)x : v < x;
	case F_LE:
		return sign ? (__s64)v <= (__s64)x : v <= x;
	case F_GT:
		return sign ? (__s64)v > (__s64)x : v > x;
	case F_GE:
		return sign ? (__s64)v >= (__s64)x : v >= x;
	}
	return 0;
}

/*
 * eval_insn returns the truth of comparison in on the hit. A
 * comparison on an argument that cannot be read is false.
 */
static __always_inline int eval_insn(const struct finsn *in, const struct regs *r, const struct spec *s, __u64 bias)
{
	__u64 pid_tgid, v = 0;
	const struct arg *a;
	__u32 j;
	int sign = 0;

	switch (in->key) {
	case FK_PID:
		v = current_pid_tgid() >> 32;
		break;
	case FK_TID:
		pid_tgid = current_pid_tgid();
		v = (__u32)pid_tgid;
		break;
	case FK_COMM:
		return str_match(in, 0, 1, ~0ULL);
	case FK_ARG:
		j = in->arg;
		if (j >= MAX_ARGS || j >= s->nargs)
			return 0;
		a = &s->args[j];
		if (!read_arg(r, a, bias, &v))
			return 0;
		if (in->op == F_STREQ || in->op == F_PREFIX) {
			__u64 limit = ~0ULL;

			if (a->len_arg) {
				j = a->len_arg - 1;
				if (j >= MAX_ARGS || j >= s->nargs || !read_arg(r, &s->args[j], bias, &limit) || (__s64)limit < 0)
					return 0;
			}
			return str_match(in, v, 0, limit);
		}
		sign = a->flags & ARG_SIGNED;
		if (in->size) {
			sign = in->sign;
			v = extend(v, in->size, sign);
		}
		break;
	default:
		return 0;
	}
	return cmp_num(in, v, sign);
}

/*
 * filter_hit reports whether the hit of site s passes f, the filter of
 * its probe. Global, like read_arg: checked once, on its own.
 */
GLOBAL int filter_hit(const struct regs *r, const struct spec *s, const struct filter *f, __u64 bias)
{
	__u64 stack = 0, top;

	if (!r || !s || !f)
		return 0;
	if (f->n == 0)
		return 1;
	for (int i = 0; i < MAX_FINSNS; i++) {
		const struct finsn *in = &f->insns[i];

		if (i >= f->n)
			break;
		switch (in->op) {
		case F_NOT:
			stack ^= 1;
			break;
		case F_AND:
			top = stack & 1;
			stack >>= 1;
			stack &= ~1ULL | top;
			break;
		case F_OR:
			top = stack & 1;
			stack >>= 1;
			stack |= top;
			break;
		default:
			stack = stack << 1 | (eval_insn(in, r, s, bias) & 1);
		}
	}
	return stack & 1;
}

/*
 * passes reports whether the hit of site s passes the filter of its
 * probe, when some probe has one. The filter is looked up here, the key
 * the probe id in the map value s, and not in filter_hit, whose frame
 * would hold a copy of the key: Linux 5.15 takes no key in the memory a
 * global function is given. The frames of filter_hit and str_match come
 * on top of the program's.
 */
static __always_inline int passes(const struct regs *r, struct spec *s, __u64 bias)
{
	if (!filtering)
		return 1;
	return filter_hit(r, s, bpf_map_lookup_elem(&filters, &s->probe_id), bias);
}

#endif /* USDT_H */
