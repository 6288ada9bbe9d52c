/* SPDX-License-Identifier: (MIT OR GPL-2.0-only) */
/*
 * libbpf's USDT API for BPF programs, with the argument specs filled in
 * by sdtkit (package github.com/sdtkit/sdtkit/pkg/usdt) rather than by
 * libbpf's bpf_program__attach_usdt:
 *
 *	SEC("usdt")
 *	int BPF_USDT(handler, int x, char *s) { ... }
 *
 *	bpf_usdt_arg_cnt(ctx)        the number of arguments of the site hit
 *	bpf_usdt_arg(ctx, n, &res)   argument n (from 0) into *res: 0, or a
 *	                             negative error with *res set to 0
 *	bpf_usdt_arg_size(ctx, n)    its size in bytes
 *	bpf_usdt_cookie(ctx)         the cookie of the attachment
 *
 * A program that includes <bpf/usdt.bpf.h> finds this file first when
 * its directory (the include directory above bpf/) comes first in the
 * include path. Like libbpf's header, it includes libbpf's
 * <bpf/bpf_helpers.h> and <bpf/bpf_tracing.h> where they are installed;
 * it needs nothing of them itself, nor any kernel header.
 *
 * The maps and the layout of a spec are this file's and sdtkit's own,
 * as libbpf's are libbpf's: only the functions and BPF_USDT are shared.
 * The BPF cookie of each uprobe is the number of its spec, so the kernel
 * must have BPF cookies (Linux 5.15); there is no lookup by instruction
 * pointer for older kernels.
 */
#ifndef __USDT_BPF_H__
#define __USDT_BPF_H__

#if __has_include(<bpf/bpf_helpers.h>)
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#endif
#if __has_include(<asm/errno.h>)
#include <linux/errno.h>
#endif

/*
 * The most specs, sites or attachments with different cookies and
 * arguments, that a program can serve at once; define it before
 * including this file to change it, as with libbpf.
 */
#ifndef BPF_USDT_MAX_SPEC_CNT
#define BPF_USDT_MAX_SPEC_CNT 1024
#endif

#define BPF_USDT_MAX_ARG_CNT 12

struct pt_regs;

/* Kinds of struct __sdt_usdt_arg. */
enum {
	__SDT_USDT_NONE = 0, /* sdtkit cannot read it (a floating-point register) */
	__SDT_USDT_CONST = 1, /* val */
	__SDT_USDT_REG = 2, /* the register at base, shifted right by shift; with an index, the low half of a pair */
	__SDT_USDT_MEM = 3, /* size bytes at base + index*scale + val */
};

/* Flags of struct __sdt_usdt_arg. */
enum {
	__SDT_USDT_SIGNED = 1, /* sign-extend from size bytes */
	__SDT_USDT_BIAS = 2, /* val is a link-time address: add the load bias */
};

/* How to read one argument; written by package usdt (its spec.go). */
struct __sdt_usdt_arg {
	unsigned long long val; /* constant, displacement or link-time address */
	short base; /* pt_regs offset of the base register, -1 if none */
	short index; /* pt_regs offset of the index register, -1 if none */
	unsigned char kind;
	unsigned char size; /* 1, 2, 4 or 8 */
	unsigned char flags;
	unsigned char shift; /* right shift of the register: 8 for %ah */
	unsigned char scale;
	unsigned char pad[7];
};

struct __sdt_usdt_spec {
	struct __sdt_usdt_arg args[BPF_USDT_MAX_ARG_CNT];
	unsigned long long cookie; /* bpf_usdt_cookie */
	unsigned long long pc; /* link-time address of the site */
	short ip_off; /* pt_regs offset of the instruction pointer */
	short arg_cnt;
	unsigned char pad[4];
};

/*
 * The specs, by spec id, which is the BPF cookie of the uprobe. The name
 * is how sdtkit finds the map among those of the program: at most 15
 * bytes, as the kernel keeps them.
 *
 * A program made of several objects linked into one (bpftool gen
 * object), each including this file, has one map of specs: it is
 * defined in one object, and weak in the others, which define
 * BPF_USDT_WEAK before the include; the linker keeps the strong one.
 * libbpf's map is weak in every object, but cilium/ebpf refuses a
 * reference to a weak map, and the linker keeps a map weak when every
 * definition is. With BPF_USDT_WEAK, the functions below are inlined
 * too: cilium/ebpf refuses two static functions of one name in the
 * linked object, and global ones would be verified apart from their
 * caller (libbpf's are weak and hidden, which libbpf alone verifies as
 * static).
 */
#ifdef BPF_USDT_WEAK
#define __SDT_USDT_SPECS_WEAK __attribute__((weak))
#define __SDT_USDT_FUNC __attribute__((always_inline, unused)) inline
#else
#define __SDT_USDT_SPECS_WEAK
#define __SDT_USDT_FUNC __attribute__((noinline, unused))
#endif
struct {
	int (*type)[2 /* BPF_MAP_TYPE_ARRAY */];
	int (*max_entries)[BPF_USDT_MAX_SPEC_CNT];
	unsigned int *key;
	struct __sdt_usdt_spec *value;
} sdt_usdt_specs __attribute__((section(".maps"), used)) __SDT_USDT_SPECS_WEAK;

/* BPF helpers, under names of this file, so that none clashes with libbpf's. */
static void *(*const __sdt_map_lookup_elem)(void *map, const void *key) = (void *)1;
static long (*const __sdt_probe_read_user)(void *dst, unsigned int size, const void *src) = (void *)112;
static long (*const __sdt_probe_read_kernel)(void *dst, unsigned int size, const void *src) = (void *)113;
static unsigned long long (*const __sdt_get_attach_cookie)(void *ctx) = (void *)174;

#define __SDT_ENOENT 2
#define __SDT_ESRCH 3
#define __SDT_EOPNOTSUPP 95

static __attribute__((always_inline)) inline struct __sdt_usdt_spec *__sdt_usdt_spec(struct pt_regs *ctx)
{
	unsigned int id = __sdt_get_attach_cookie(ctx);

	return __sdt_map_lookup_elem(&sdt_usdt_specs, &id);
}

/* The spec of argument n, or 0 with *err set. */
static __attribute__((always_inline)) inline struct __sdt_usdt_arg *__sdt_usdt_arg(struct pt_regs *ctx, unsigned long long n,
										       struct __sdt_usdt_spec **sp, int *err)
{
	struct __sdt_usdt_spec *s = __sdt_usdt_spec(ctx);

	*sp = s;
	if (!s) {
		*err = -__SDT_ESRCH;
		return 0;
	}
	if (n >= BPF_USDT_MAX_ARG_CNT || n >= (unsigned long long)s->arg_cnt) {
		*err = -__SDT_ENOENT;
		return 0;
	}
	asm volatile("" : "+r"(n)); /* index with n as bounded above */
	if (n >= BPF_USDT_MAX_ARG_CNT)
		return 0;
	return &s->args[n];
}

/* __sdt_usdt_reg reads the register at pt_regs offset off into *v. */
static __attribute__((always_inline)) inline long __sdt_usdt_reg(struct pt_regs *ctx, short off, unsigned long long *v)
{
	*v = 0;
	if (off < 0)
		return 0;
	return __sdt_probe_read_kernel(v, sizeof(*v), (char *)ctx + off);
}

/* Returns the number of arguments of the site hit, or a negative error. */
static __SDT_USDT_FUNC int bpf_usdt_arg_cnt(struct pt_regs *ctx)
{
	struct __sdt_usdt_spec *s = __sdt_usdt_spec(ctx);

	if (!s)
		return -__SDT_ESRCH;
	return s->arg_cnt;
}

/*
 * Returns the size in bytes of argument arg_num (from 0), or a negative
 * error if the site has no such argument.
 */
static __attribute__((always_inline, unused)) inline int bpf_usdt_arg_size(struct pt_regs *ctx, unsigned long long arg_num)
{
	struct __sdt_usdt_spec *s;
	struct __sdt_usdt_arg *a;
	int err = 0;

	a = __sdt_usdt_arg(ctx, arg_num, &s, &err);
	if (!a)
		return err ? err : -__SDT_ENOENT;
	return a->size;
}

/*
 * Fetches argument arg_num (from 0) into *res, sign-extended if the note
 * marks it signed, and returns 0; on error *res is 0 and the error
 * negative: -ESRCH for a site sdtkit did not attach, -ENOENT for an
 * argument the site does not have, -EOPNOTSUPP for one sdtkit cannot read
 * (a floating-point register), or that of the helper that failed to read
 * memory.
 */
static __SDT_USDT_FUNC int bpf_usdt_arg(struct pt_regs *ctx, unsigned long long arg_num, long *res)
{
	struct __sdt_usdt_spec *s;
	struct __sdt_usdt_arg *a;
	unsigned long long v = 0, x = 0, addr;
	unsigned int size;
	int err = 0, bits;

	*res = 0;
	a = __sdt_usdt_arg(ctx, arg_num, &s, &err);
	if (!a || !s)
		return err ? err : -__SDT_ENOENT;
	size = a->size;
	if (size == 0 || size > 8)
		size = 8;
	switch (a->kind) {
	case __SDT_USDT_CONST:
		v = a->val;
		break;
	case __SDT_USDT_REG:
		err = __sdt_usdt_reg(ctx, a->base, &v);
		if (err)
			return err;
		v >>= a->shift & 63;
		if (a->index >= 0) {
			err = __sdt_usdt_reg(ctx, a->index, &x);
			if (err)
				return err;
			v = (unsigned int)v | x << 32;
		}
		break;
	case __SDT_USDT_MEM:
		addr = a->val;
		if (a->flags & __SDT_USDT_BIAS) {
			/* The IP is the site's: the load bias is what it moved by. */
			err = __sdt_usdt_reg(ctx, s->ip_off, &x);
			if (err)
				return err;
			addr += x - s->pc;
		}
		err = __sdt_usdt_reg(ctx, a->base, &x);
		if (err)
			return err;
		addr += x;
		err = __sdt_usdt_reg(ctx, a->index, &x);
		if (err)
			return err;
		addr += x * a->scale;
		err = __sdt_probe_read_user(&v, size, (void *)addr);
		if (err) {
			v = 0;
			return err;
		}
		break;
	default:
		return -__SDT_EOPNOTSUPP;
	}
	if (size < 8) {
		bits = 64 - size * 8;
		v <<= bits;
		if (a->flags & __SDT_USDT_SIGNED)
			v = (unsigned long long)((long long)v >> bits);
		else
			v >>= bits;
	}
	*res = v;
	return 0;
}

/*
 * Returns the cookie given when attaching (usdt.Options.Cookie), 0 for
 * a site sdtkit did not attach.
 */
static __SDT_USDT_FUNC long bpf_usdt_cookie(struct pt_regs *ctx)
{
	struct __sdt_usdt_spec *s = __sdt_usdt_spec(ctx);

	if (!s)
		return 0;
	return s->cookie;
}

/*
 * BPF_USDT(name, args...) defines the program name, whose body sees the
 * probe's arguments as the typed parameters args (at most 12), fetched
 * with bpf_usdt_arg (0 for one that cannot be read), and ctx.
 */
#define __sdt_usdt_nth(_, _1, _2, _3, _4, _5, _6, _7, _8, _9, _a, _b, _c, N, ...) N
#define __sdt_usdt_narg(...) __sdt_usdt_nth(_, ##__VA_ARGS__, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define __sdt_usdt_concat(a, b) a##b
#define __sdt_usdt_apply(fn, n) __sdt_usdt_concat(fn, n)
#define __sdt_usdt_get(n) ({ long _x; bpf_usdt_arg(ctx, n, &_x); _x; })
#define __sdt_usdt_args0() ctx
#define __sdt_usdt_args1(x) __sdt_usdt_args0(), __sdt_usdt_get(0)
#define __sdt_usdt_args2(x, args...) __sdt_usdt_args1(args), __sdt_usdt_get(1)
#define __sdt_usdt_args3(x, args...) __sdt_usdt_args2(args), __sdt_usdt_get(2)
#define __sdt_usdt_args4(x, args...) __sdt_usdt_args3(args), __sdt_usdt_get(3)
#define __sdt_usdt_args5(x, args...) __sdt_usdt_args4(args), __sdt_usdt_get(4)
#define __sdt_usdt_args6(x, args...) __sdt_usdt_args5(args), __sdt_usdt_get(5)
#define __sdt_usdt_args7(x, args...) __sdt_usdt_args6(args), __sdt_usdt_get(6)
#define __sdt_usdt_args8(x, args...) __sdt_usdt_args7(args), __sdt_usdt_get(7)
#define __sdt_usdt_args9(x, args...) __sdt_usdt_args8(args), __sdt_usdt_get(8)
#define __sdt_usdt_args10(x, args...) __sdt_usdt_args9(args), __sdt_usdt_get(9)
#define __sdt_usdt_args11(x, args...) __sdt_usdt_args10(args), __sdt_usdt_get(10)
#define __sdt_usdt_args12(x, args...) __sdt_usdt_args11(args), __sdt_usdt_get(11)
#define __sdt_usdt_args(args...) __sdt_usdt_apply(__sdt_usdt_args, __sdt_usdt_narg(args))(args)

#define BPF_USDT(name, args...)                                                       \
	name(struct pt_regs *ctx);                                                    \
	static __attribute__((always_inline)) inline typeof(name(0))                  \
		____##name(struct pt_regs *ctx, ##args);                              \
	typeof(name(0)) name(struct pt_regs *ctx)                                     \
	{                                                                             \
		_Pragma("GCC diagnostic push")                                        \
		_Pragma("GCC diagnostic ignored \"-Wint-conversion\"")                \
		return ____##name(__sdt_usdt_args(args));                             \
		_Pragma("GCC diagnostic pop")                                         \
	}                                                                             \
	static __attribute__((always_inline)) inline typeof(name(0))                  \
		____##name(struct pt_regs *ctx, ##args)

#endif /* __USDT_BPF_H__ */
