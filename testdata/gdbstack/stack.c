/*
 * Call chains for comparing unwound stacks with gdb's: hit SEQ fires
 * gdbstack:hit(SEQ) in leaf, reached from main through one of three
 * paths that differ from hit to hit:
 *
 *	SEQ % 3 == 0: main -> direct -> leaf
 *	SEQ % 3 == 1: main -> recurse (SEQ % 4 + 1 times) -> lib_call -> lib_inner -> leaf
 *	SEQ % 3 == 2: main -> through -> lib_call -> lib_inner -> leaf
 *
 * lib_call and lib_inner are in libstacklib.so. The program waits a
 * second at the end, alive while its stacks are symbolized.
 *
 * leaf has no frame of its own: a walk by frame pointers loses its
 * caller, whose return address only the call-frame information finds
 * (gcc 12 leaves leaf functions without frame pointers even with
 * -fno-omit-frame-pointer). Built with -DFRAMED, leaf calls a function
 * after the probe, which gives it a frame.
 */
#include <stdlib.h>
#include <sys/sdt.h>
#include <unistd.h>

void lib_call(long seq, void (*cb)(long));

volatile long sink;

__attribute__((noinline)) void note(long seq)
{
	sink ^= seq;
}

__attribute__((noinline)) void leaf(long seq)
{
	DTRACE_PROBE1(gdbstack, hit, seq);
	sink += seq;
#ifdef FRAMED
	note(seq);
#endif
}

__attribute__((noinline)) void direct(long seq)
{
	leaf(seq);
	sink++;
}

__attribute__((noinline)) void recurse(long seq, int depth)
{
	if (depth > 0)
		recurse(seq, depth - 1);
	else
		lib_call(seq, leaf);
	sink++;
}

__attribute__((noinline)) void through(long seq)
{
	volatile char buf[256]; /* a frame of some size */

	buf[seq & 255] = 1;
	lib_call(seq, leaf);
	sink++;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 12;

	for (long seq = 0; seq < n; seq++) {
		switch (seq % 3) {
		case 0:
			direct(seq);
			break;
		case 1:
			recurse(seq, seq % 4);
			break;
		default:
			through(seq);
		}
	}
	sleep(1);
	return 0;
}
