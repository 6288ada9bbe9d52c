//go:build ignore

// SPDX-License-Identifier: (MIT OR GPL-2.0-only)
/*
 * In-kernel aggregation of USDT probe hits: counts, log2 histograms and
 * stats of an argument, grouped by a key made of the pid, tid, comm,
 * arguments (numbers or strings) and the user stack. One program serves every site, as
 * usdt.bpf.c does, and reads arguments with the same code (usdt.h); it
 * sends no events, so nothing is lost to a full ring buffer.
 *
 * A hit adds to the entry of its key in a per-CPU hash map, or, for
 * counts and histograms without key parts, to its CPU's counter in an
 * array (see dense_add): no cache line moves between CPUs, and the
 * atomic adds keep the counts exact when a thread that hit a probe is
 * preempted by another hitting one on the same CPU (uprobe programs run
 * with migration, not preemption, disabled). A small key of a hit that
 * reads no argument is made on the stack; otherwise the registers and
 * the key are kept in a scratch slot (usdt.h), claimed per hit for the
 * same reason, rather than on the stack: with the frames of the filter,
 * they would not fit its 512 bytes. The hash is the current one of two
 * generations: user space makes the other one current, reads the old
 * one and empties it, once per interval (see current). The counters of
 * the array only grow: user space reads how much they grew.
 *
 * How the key is laid out and what is aggregated are constants the
 * loader sets, which the verifier knows: the code of the parts that are
 * not used is never run, so --count without a key costs one array
 * lookup and an add (see handle).
 *
 * Latencies (AGG_LATENCY) pair the hit of a START probe with the next
 * hit of an END probe that has the same pairing key: a START stores its
 * time in the map starts under that key, an END takes it out and adds
 * the time between to the histogram of its own key (see pair).
 */

#define USDT_SLOTS 1
#include "usdt.h"

#define MAX_KEYS 8 /* parts of a key */
#define KEY_SIZE 192 /* the largest key, header included: package bpf's maxKeySize */
#define KEY_WORDS (KEY_SIZE / 8)
#define BUCKET_LOST 255 /* the entry of a probe's hits that found the map full */
#define BUCKET_UNREAD 254 /* hits whose value could not be read */
#define BUCKET_UNMATCHED 253 /* AGG_LATENCY: ENDs that found no START waiting */
#define BUCKET_STARTS 252 /* AGG_LATENCY: the hits of a START probe */
#define EEXIST 17
#define BPF_ANY 0
#define BPF_NOEXIST 1

#define __array(name, val) typeof(val) *name[]

static long (*bpf_map_delete_elem)(void *map, const void *key) = (void *)3;
static __u64 (*bpf_ktime_get_ns)(void) = (void *)5;
static long (*bpf_get_stackid)(void *ctx, void *map, __u64 flags) = (void *)27;

#define BPF_F_USER_STACK (1ULL << 8)

enum {
	BPF_MAP_TYPE_PERCPU_HASH = 5,
	BPF_MAP_TYPE_STACK_TRACE = 7,
	BPF_MAP_TYPE_ARRAY_OF_MAPS = 12,
	BPF_F_NO_PREALLOC = 1,
};

enum agg_mode {
	AGG_COUNT = 1, /* hits */
	AGG_HIST = 2, /* hits by log2 bucket of the value */
	AGG_STATS = 3, /* count, sum, min and max of the value */
	AGG_LATENCY = 4, /* pairs of hits: by log2 bucket of the time between, with its stats */
};

/* What a probe's hits are to AGG_LATENCY: bits. */
enum role {
	ROLE_START = 1,
	ROLE_END = 2,
};

enum part_kind {
	PART_PID = 1, /* 8 bytes */
	PART_TID = 2, /* 8 bytes */
	PART_COMM = 3, /* 16 bytes */
	PART_ARG = 4, /* 8 bytes, or part_size bytes of a string */
	PART_USTACK = 5, /* 8 bytes: the id of the user stack in stacks; failed, the errno */
};

/*
 * A key: its probe, the bucket of a histogram, and the parts at the
 * offsets the loader set. Bytes past a part's value are zero, so that
 * equal values make equal keys.
 */
struct aggkey {
	__u32 probe; /* probe id of the site's spec */
	__u8 bucket; /* AGG_HIST: bucket of the value; BUCKET_LOST, BUCKET_UNREAD */
	__u8 failed; /* bit i: part i could not be read */
	__u8 signs; /* bit i: part i is a signed number */
	__u8 pad;
	__u8 data[KEY_SIZE - 8];
};

/*
 * The value of a key on one CPU. AGG_COUNT and AGG_HIST use count alone
 * (the map's values are 8 bytes). min and max are kept so that zero, a
 * CPU's value before its first hit, is neither: with v's sign bit
 * flipped, the order of signed values is that of unsigned ones, and min
 * holds the complement of that. Both are then raised only, by atomic_max.
 */
struct aggval {
	__u64 count;
	__u64 sum;
	__u64 min; /* ~(v ^ 1<<63) of the least v */
	__u64 max; /* v ^ 1<<63 of the greatest v */
};

/* How to read one argument of a probe: the value, or a part of the key. */
struct aggarg {
	__u8 arg; /* argument, from 0 */
	__u8 size; /* bytes kept, 0: as read */
	__u8 sign; /* with size: sign-extend */
	__u8 pad;
};

/* What a probe's hits aggregate, by probe id. */
struct aggprobe {
	struct aggarg value; /* AGG_HIST, AGG_STATS */
	struct aggarg parts[MAX_KEYS]; /* for the PART_ARG parts */
	struct aggarg pair; /* AGG_LATENCY: the argument of a PART_ARG pairing key */
	__u8 role; /* AGG_LATENCY: enum role */
	__u8 pad[3];
};

/* A hit's scratch slot. */
struct aggscratch {
	struct regs regs;
	struct aggkey key;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, SLOTS);
	__type(key, __u32);
	__type(value, struct aggscratch);
} scratch SEC(".maps");

/* A START waiting for its END, under its pairing key. */
struct start {
	__u64 ts; /* bpf_ktime_get_ns; 0 once an END took it */
	__u32 probe; /* probe id of the START */
	__u32 pad;
};

/*
 * The STARTs waiting, by pairing key: a key of pair_size bytes, the
 * size and the number of entries set by the loader. Not per CPU: a
 * thread may start on one CPU and end on another.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__uint(key_size, 8);
	__type(value, struct start);
} starts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1); /* set by the loader */
	__type(key, __u32);
	__type(value, struct aggprobe);
} probes SEC(".maps");

/*
 * The user stacks of PART_USTACK, by id: the kernel walks the stack by
 * its frame pointers and keeps each distinct one once. An id is the
 * bucket of the stack's hash, so that a stack has the same id in every
 * generation. Without BPF_F_REUSE_STACKID, a stack whose bucket holds
 * another fails with -EEXIST rather than take it: the ids in keys
 * already made keep naming their stacks, and the hit is counted in the
 * key with the part failed, its errno there. Sizes set by the loader:
 * one entry of 8 bytes when no key has a stack.
 */
struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 1);
	__uint(key_size, 4);
	__uint(value_size, 8);
} stacks SEC(".maps");

/* A generation: sizes set by the loader. */
struct gen {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1);
	__uint(key_size, 8);
	__uint(value_size, 8);
};

/*
 * current holds the generation hits add to. User space replaces it
 * with the other one, and the kernel's update of a map of maps returns
 * only after an RCU grace period (maybe_wait_bpf_programs in
 * kernel/bpf/syscall.c). A uprobe program runs inside an RCU read-side
 * section (rcu_read_lock around a non-sleepable program, both for
 * uprobe_multi links and for perf-event uprobes), from its lookup of
 * current to its last add, even when it is preempted. So once the
 * update returns, every hit that found the old generation has added to
 * it, and every later hit adds to the new one: reading the old one then
 * sees each hit of the interval once, and no hit is lost or counted
 * twice across the flip.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);
	__type(key, __u32);
	__array(values, struct gen);
} current SEC(".maps");

/*
 * The counters of dense_add: an entry per CPU of dense_stride counters,
 * sizes set by the loader; one of 8 bytes when the generations are
 * hashes.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__uint(key_size, 4);
	__uint(value_size, 8);
} counts SEC(".maps");

/*
 * Set by the loader before the object is loaded. Those a plain count
 * reads come first, after usdt.h's, so that they share a cache line.
 */
volatile const __u8 mode = AGG_COUNT;
volatile const __u8 read_args = 0; /* the value or a part is an argument */
volatile const __u8 dense = 0; /* the counters are in counts, not in generations (see dense_add) */
volatile const __u8 dense_buckets = 1; /* counters per probe: 1, or DENSE_HIST for AGG_HIST */
volatile const __u32 dense_stride = 8; /* counters per CPU, a multiple of 8: counts' value_size / 8 */
volatile const __u8 nparts = 0;
volatile const __u8 key_words = 1; /* 8-byte words zeroed of a key: at least the map's key_size / 8 */
volatile const __u8 part_kind[MAX_KEYS] = {};
volatile const __u16 part_off[MAX_KEYS] = {}; /* in data, a multiple of 8 */
volatile const __u16 part_size[MAX_KEYS] = {};
volatile const __u8 pair_kind = PART_TID; /* AGG_LATENCY: the pairing key */
volatile const __u16 pair_size = 8; /* its bytes: the key_size of starts */

#define DENSE_HIST 67 /* buckets 0 to 65, then BUCKET_UNREAD */

/* bucket returns the log2 bucket of v as package aggregate numbers it. */
static __always_inline __u8 bucket(__u64 v, int sign)
{
	__u8 n = 0;

	if (sign && (__s64)v < 0)
		return 0;
	if (v == 0)
		return 1;
	if (v >> 32) {
		v >>= 32;
		n += 32;
	}
	if (v >> 16) {
		v >>= 16;
		n += 16;
	}
	if (v >> 8) {
		v >>= 8;
		n += 8;
	}
	if (v >> 4) {
		v >>= 4;
		n += 4;
	}
	if (v >> 2) {
		v >>= 2;
		n += 2;
	}
	if (v >> 1)
		n += 1;
	return n + 2; /* the bit length, plus one */
}

/*
 * atomic_add adds v to *p. Not with an atomic add in USDT_OLD: clang
 * makes an add of 0 an atomic or, which those kernels lack.
 */
static __always_inline void atomic_add(__u64 *p, __u64 v)
{
	if (USDT_OLD)
		*p += v;
	else
		__sync_fetch_and_add(p, v);
}

/*
 * atomic_max raises *p to v. Another hit on the same CPU can change *p
 * between the load and the exchange only by raising it too, so a failed
 * exchange is retried against the newer value; the bound is for the
 * verifier.
 */
static __always_inline void atomic_max(__u64 *p, __u64 v)
{
	__u64 old = *p;

	if (USDT_OLD) {
		if (v > old)
			*p = v;
		return;
	}
	for (int i = 0; i < 16 && v > old; i++) {
		__u64 prev = __sync_val_compare_and_swap(p, old, v);

		if (prev == old)
			break;
		old = prev;
	}
}

/*
 * The words of a key alias its fields: without may_alias, the compiler
 * may read k->probe after zeroing them, as C's aliasing rules allow.
 */
typedef __u64 __attribute__((may_alias)) key_word;

/*
 * zero_key zeroes the key_words words of k. key_words is loaded once:
 * the verifier knows its value and drops the stores past it, where a
 * load of the constant per word would stay, run at every hit.
 */
static __always_inline void zero_key(struct aggkey *k)
{
	__u32 n = key_words;

#pragma unroll
	for (int i = 0; i < KEY_WORDS; i++)
		if (i < n)
			((key_word *)k)[i] = 0;
}

/* reset_key empties k but for its probe, and sets its bucket. */
static __always_inline void reset_key(struct aggkey *k, __u32 probe, __u8 b)
{
	zero_key(k);
	k->probe = probe;
	k->bucket = b;
}

/*
 * lost counts a hit that found the map full in its probe's BUCKET_LOST
 * entry, which user space puts in every generation before it is
 * current.
 */
static __always_inline void lost(void *m, struct aggkey *k)
{
	struct aggval *a;

	reset_key(k, k->probe, BUCKET_LOST);
	a = bpf_map_lookup_elem(m, k);
	if (a)
		atomic_add(&a->count, 1);
	else
		count(LOST_AGG);
}

/*
 * dense_add counts a hit of AGG_COUNT or AGG_HIST without key parts,
 * whose keys are the probe and the bucket alone, in counts, an array
 * rather than a hash: one entry per CPU, keyed by the CPU's number, each
 * holding dense_stride counters, dense_buckets per probe. It is the
 * cheap way, and --count without --by the common case: no hash of the
 * key, no walk of a bucket, and the counters are in memory of the map
 * itself. Measured by bpf_stats on Linux 6.18, a count in a per-CPU
 * array cost about 80 ns more per hit than one in an array, and one in
 * a per-CPU hash 170 ns more: per-CPU memory is mapped by pages of 4
 * KiB, which a hit, coming after a trap, finds out of the TLB (see
 * docs/benchmarks.md). Each CPU adds to its own entry only, so no cache
 * line moves between CPUs while the program runs; the program runs with
 * migration disabled, so the CPU's number stays right until the add. It
 * is still an atomic add: a hit preempted between a load and a store by
 * another hit on its CPU would lose that one's count. The counters are
 * not in generations: user space reads them and keeps what they were,
 * and a counter that only grows needs no switch to be read whole. That
 * spares a hit the lookup of the current generation, a cache line it
 * missed after its trap. A probe id past the counters (the loader makes
 * room for every id) is counted as LOST_AGG.
 */
static __always_inline void dense_add(__u32 probe, __u8 bucket)
{
	__u32 cpu = bpf_get_smp_processor_id(), b = 0, slot;
	__u64 *c;

	if (mode == AGG_HIST)
		b = bucket < DENSE_HIST - 1 ? bucket : DENSE_HIST - 1;
	slot = probe * dense_buckets + b;
	c = bpf_map_lookup_elem(&counts, &cpu);
	if (!c || slot >= dense_stride) {
		count(LOST_AGG);
		return;
	}
	atomic_add(&c[slot], 1);
}

/* add adds a hit with value v to the entry of k. */
static __always_inline void add(void *m, struct aggkey *k, __u64 v)
{
	__u64 ord = v ^ (1ULL << 63);
	struct aggval *a;

	if (dense) {
		dense_add(k->probe, k->bucket);
		return;
	}
	a = bpf_map_lookup_elem(m, k);
	if (!a) {
		struct aggval nv = {1, v, ~ord, ord};
		long err = bpf_map_update_elem(m, k, &nv, BPF_NOEXIST);

		if (err == 0)
			return;
		/* Another hit made the entry since the lookup. */
		if (err == -EEXIST)
			a = bpf_map_lookup_elem(m, k);
		if (!a) {
			lost(m, k);
			return;
		}
	}
	atomic_add(&a->count, 1);
	if (mode == AGG_STATS || mode == AGG_LATENCY) {
		atomic_add(&a->sum, v);
		atomic_max(&a->min, ~ord);
		atomic_max(&a->max, ord);
	}
}

/*
 * read_num reads the argument x says as a number into *v, kept and
 * extended as x says, and reports whether it could and whether the
 * number is signed.
 */
static __always_inline int read_num(const struct regs *r, struct spec *s, const struct aggarg *x, __u64 bias, __u64 *v, int *sign)
{
	__u32 j = x->arg;
	struct arg *a;

	if (j >= MAX_ARGS || j >= s->nargs)
		return 0;
	a = &s->args[j];
	if (!read_arg(r, a, bias, v))
		return 0;
	*sign = a->flags & ARG_SIGNED;
	if (x->size) {
		*sign = x->sign;
		*v = extend(*v, x->size, x->sign);
	}
	return 1;
}

/*
 * read_str reads the string argument a, at addr, into dst: at most
 * size-1 bytes and a NUL, or for a counted string (len_arg) as many
 * bytes as its length argument says, cut there. It reports whether it
 * could. An empty string reads as 0 bytes on some kernels (see
 * read_user_str), its NUL copied.
 */
static __always_inline int read_str(const struct regs *r, struct spec *s, struct arg *a, __u64 bias, __u64 addr, void *dst, __u32 size)
{
	__u32 j;
	__u64 n;

	if (!a->len_arg)
		return bpf_probe_read_user_str(dst, size, (void *)addr) >= 0;
	j = a->len_arg - 1;
	if (j >= MAX_ARGS || j >= s->nargs || !read_arg(r, &s->args[j], bias, &n) || (__s64)n < 0)
		return 0;
	if (n > size - 1)
		n = size - 1;
	return bpf_probe_read_user(dst, n & 0xff, (void *)addr) == 0;
}

/*
 * read_part reads a part of a key of the given kind into dst, size bytes
 * for a string, as x says for an argument, and reports whether it could
 * and in *sign whether a number is signed.
 */
static __always_inline int read_part(__u8 kind, const struct aggarg *x, __u16 size, const struct regs *r, struct spec *s, __u64 bias, void *dst, int *sign)
{
	__u64 v;
	__u32 j;

	switch (kind) {
	case PART_PID:
		*(__u64 *)dst = current_pid_tgid() >> 32;
		return 1;
	case PART_TID:
		*(__u64 *)dst = (__u32)current_pid_tgid();
		return 1;
	case PART_COMM:
		bpf_get_current_comm(dst, 16);
		return 1;
	case PART_ARG:
		j = x->arg;
		if (j >= MAX_ARGS || j >= s->nargs)
			return 0;
		if (s->args[j].flags & ARG_STRING)
			return read_arg(r, &s->args[j], bias, &v) && read_str(r, s, &s->args[j], bias, v, dst, size);
		if (!read_num(r, s, x, bias, &v, sign))
			return 0;
		*(__u64 *)dst = v;
		return 1;
	}
	return 0;
}

/*
 * pair handles a hit of AGG_LATENCY. Its pairing key, read into k's
 * data, finds the START waiting, which an END takes out: the exchange
 * of its time with 0 makes sure that only one END takes a START, when
 * ENDs of one key come on several CPUs at once. A START then waits under
 * the key, in place of one waiting already, and is counted in the
 * BUCKET_STARTS entry of its probe (lost when starts is full). pair
 * returns 1 for an END, with k's bucket and *v set for add: the
 * latency's bucket and the latency, BUCKET_UNMATCHED when no START was
 * waiting (unless the END is a START too, which then only waits), or
 * BUCKET_UNREAD when the key could not be read.
 */
static __always_inline int pair(const struct regs *r, struct spec *s, struct aggprobe *p, __u64 bias, void *m, struct aggkey *k, __u64 *v)
{
	__u32 probe = k->probe;
	__u8 role = p->role;
	__u64 now = bpf_ktime_get_ns(), t = 0;
	struct start *w;
	int sign = 0;

	if (!read_part(pair_kind, &p->pair, pair_size, r, s, bias, k->data, &sign)) {
		reset_key(k, probe, BUCKET_UNREAD);
		if (role & ROLE_END)
			return 1;
		add(m, k, 0);
		return 0;
	}
	if (role & ROLE_END) {
		w = bpf_map_lookup_elem(&starts, k->data);
		if (w && USDT_OLD) {
			/*
			 * No exchange (see USDT_OLD), and starts is not per CPU:
			 * the END that deletes the START takes it.
			 */
			t = w->ts;
			if (t && bpf_map_delete_elem(&starts, k->data))
				t = 0;
		} else if (w) {
			t = __sync_lock_test_and_set(&w->ts, 0);
			if (t)
				bpf_map_delete_elem(&starts, k->data);
		}
	}
	if (role & ROLE_START) {
		struct start st = {now, probe, 0};

		if (bpf_map_update_elem(&starts, k->data, &st, BPF_ANY) == 0) {
			reset_key(k, probe, BUCKET_STARTS);
			add(m, k, 0);
		} else {
			lost(m, k);
		}
	}
	if (!(role & ROLE_END))
		return 0;
	if (t && now >= t) {
		*v = now - t;
		reset_key(k, probe, bucket(*v, 0));
		return 1;
	}
	/* An END that is a START too only waits. */
	if (role & ROLE_START)
		return 0;
	reset_key(k, probe, BUCKET_UNMATCHED);
	return 1;
}

/*
 * aggregate adds a hit of site s, its key made in k, its registers
 * loaded into regs when it reads arguments or filters.
 */
static __always_inline void aggregate(void *ctx, struct spec *s, struct regs *regs, struct aggkey *k)
{
	__u64 v = 0, bias = 0;
	struct aggprobe *p = 0;
	__u32 zero = 0;
	int sign = 0;
	void *m = 0;

	if (read_args || filtering) {
		load_regs(ctx, regs);
		bias = regs->r[IP_OFF / 8] - s->pc; /* see usdt.bpf.c */
	}
	/* Before anything else: a hit filtered out is not counted. */
	if (!passes(regs, s, bias))
		return;
	/* Only arguments and latencies need the probe's settings. */
	if (read_args || mode == AGG_LATENCY) {
		p = bpf_map_lookup_elem(&probes, &s->probe_id);
		if (!p) {
			count(LOST_AGG);
			return;
		}
	}
	if (!dense) {
		m = bpf_map_lookup_elem(&current, &zero);
		if (!m) {
			count(LOST_AGG);
			return;
		}
	}
	zero_key(k);
	k->probe = s->probe_id;
	if (mode == AGG_LATENCY) {
		if (!pair(regs, s, p, bias, m, k, &v))
			return;
	} else if (mode != AGG_COUNT && !read_num(regs, s, &p->value, bias, &v, &sign)) {
		k->bucket = BUCKET_UNREAD;
	} else if (mode == AGG_HIST) {
		k->bucket = bucket(v, sign);
	}

#pragma unroll
	for (int i = 0; i < MAX_KEYS; i++) {
		int xsign = 0;

		if (i >= nparts)
			break;
		if (part_kind[i] == PART_USTACK) {
			__u64 *d = (__u64 *)&k->data[part_off[i]];
			long id = bpf_get_stackid(ctx, &stacks, BPF_F_USER_STACK);

			if (id < 0) {
				*d = -id;
				k->failed |= 1 << i;
			} else {
				*d = id;
			}
		} else if (!read_part(part_kind[i], &p->parts[i], part_size[i], regs, s, bias, &k->data[part_off[i]], &xsign))
			k->failed |= 1 << i;
		else if (xsign)
			k->signs |= 1 << i;
	}
	add(m, k, v);
}

/*
 * A key of at most STACK_KEY_WORDS words, of a hit that needs no
 * registers (it reads no argument and has no filter), is made on the
 * stack: no scratch slot is claimed, which saves the two atomic
 * operations on the CPU's mask and the cache lines of two more maps.
 * The stack is the hit's own, so a hit preempted by another on its CPU
 * keeps its key. The verifier knows the constants that choose the way
 * and walks only the one taken; it checks the key's accesses against
 * the stack's bytes. STACK_KEY_WORDS is what the frames of the filter
 * leave of the 512 bytes of stack (TestStackDepth): 64 bytes hold the
 * header and the pid, tid, comm or stack parts of --by, or their pairing
 * key.
 */
#define STACK_KEY_WORDS 8

static __always_inline int key_on_stack(void)
{
	return !read_args && !filtering && key_words <= STACK_KEY_WORDS;
}

/*
 * aggregate_hit adds a hit of site s that is not a plain count: a
 * function of its own, whose frame holds the key, so that the frame of
 * handle stays small (see handle).
 */
static __attribute__((noinline)) int aggregate_hit(void *ctx, struct spec *s)
{
	__u64 kbuf[STACK_KEY_WORDS];
	struct aggscratch *x;
	__u64 *mask;
	__u32 n;
	int slot;

	if (key_on_stack()) {
		aggregate(ctx, s, 0, (struct aggkey *)kbuf);
		return 0;
	}
	slot = get_slot(&mask);
	if (slot < 0)
		return 0;
	n = slot;
	x = bpf_map_lookup_elem(&scratch, &n);
	if (x)
		aggregate(ctx, s, &x->regs, &x->key);
	else
		count(LOST_AGG);
	put_slot(mask, slot);
	return 0;
}

/*
 * handle adds a hit. A plain count, AGG_COUNT with no key part, no
 * argument and no filter, in a dense generation, takes the short way:
 * the probe is its key, and it is counted with a few words of stack.
 * Since Linux 6.14 the kernel gives a tracing program whose frame is of
 * 64 bytes or more a stack of its own, per-CPU memory, whose page the
 * hit, after its trap, finds out of the TLB; measured by bpf_stats, that
 * was about 100 ns of a hit. A frame of its own for the other ways keeps
 * their keys off this one. With BPF cookies, the high half of a site's
 * cookie is its probe id (package bpf's Attach), so that a plain count
 * reads no spec: a cache line fewer, which a hit after its trap may
 * miss (scripts/bench-agg --base: 0.81 to 1.01x the time before, noisy).
 * The low half is the site's number, which site_of takes.
 */
static __always_inline int handle(void *ctx)
{
	struct spec *s;
	__u32 id;

	if (!dense || read_args || filtering) {
		s = site_of(ctx, &id);
		return s ? aggregate_hit(ctx, s) : 0;
	}
	if (!by_ip) {
		if (in_cgroup())
			dense_add(bpf_get_attach_cookie(ctx) >> 32, 0);
		return 0;
	}
	s = site_of(ctx, &id);
	if (s)
		dense_add(s->probe_id, 0);
	return 0;
}

/* For uprobe_multi links, one link for all sites of a binary. */
SEC("uprobe.multi")
int agg_multi(void *ctx)
{
	return handle(ctx);
}

/* For one perf-event uprobe per site, where uprobe_multi is missing. */
SEC("uprobe")
int agg_single(void *ctx)
{
	return handle(ctx);
}

char LICENSE[] SEC("license") = "Dual MIT/GPL";
