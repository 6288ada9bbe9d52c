/*
 * A program whose leaf is reached by two call chains that cross into a
 * library and back: main -> outer (7 times) or other (3 times) ->
 * middle -> lib_mid -> lib_inner (libchain.so) -> leaf. Built with
 * -DPROBE, leaf fires chain:hit; otherwise (x86-64 only) leaf copies
 * its registers and the top of its stack into the file "snap" at its
 * first call, as a tracer's probe would, and the program waits for its
 * standard input to close, so that its maps can be read; with -DPROBE,
 * it waits a second, or, given an argument, exits at once, before a
 * tracer has read its events.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef PROBE
#include <sys/sdt.h>
#endif

void lib_mid(long n, void (*cb)(long));

volatile long sink;

#ifndef PROBE
static unsigned long regs[3];
static int snapped;

/* dump writes the registers and the stack, up to 8 KiB of it, to "snap". */
__attribute__((noinline)) static void dump(void)
{
	unsigned long start, end, top = 0;
	char line[512];
	FILE *maps = fopen("/proc/self/maps", "r"), *f;

	if (snapped++)
		return;
	while (fgets(line, sizeof(line), maps))
		if (sscanf(line, "%lx-%lx", &start, &end) == 2 && regs[1] >= start && regs[1] < end)
			top = end;
	fclose(maps);
	if (top - regs[1] > 8192)
		top = regs[1] + 8192;
	f = fopen("snap.tmp", "w");
	fwrite(regs, sizeof(regs), 1, f);
	fwrite((void *)regs[1], top - regs[1], 1, f);
	fclose(f);
	rename("snap.tmp", "snap");
}

#define HIT(n)                                                                  \
	do {                                                                    \
		__asm__ volatile("lea 0(%%rip), %%rax\n\tmov %%rax, %0\n\t"     \
				 "mov %%rsp, %1\n\tmov %%rbp, %2"               \
				 : "=m"(regs[0]), "=m"(regs[1]), "=m"(regs[2])  \
				 :                                              \
				 : "rax", "memory");                            \
		dump();                                                 \
	} while (0)
#else
#define HIT(n) DTRACE_PROBE1(chain, hit, n)
#endif

__attribute__((noinline)) void leaf(long n)
{
	HIT(n);
	sink += n;
}

__attribute__((noinline)) void middle(long n)
{
	lib_mid(n, leaf);
	sink++;
}

__attribute__((noinline)) void outer(long n)
{
	middle(n + 1);
	sink++;
}

__attribute__((noinline)) void other(long n)
{
	middle(-n);
	sink++;
}

int main(int argc, char **argv)
{
	char c;

	for (long i = 1; i <= 7; i++)
		outer(i);
	for (long i = 1; i <= 3; i++)
		other(i);
	/* Alive while its maps are read: until told, or for a second, unless told not to be. */
#ifdef PROBE
	(void)c;
	(void)argv;
	if (argc < 2)
		sleep(1);
#else
	(void)argc;
	(void)argv;
	while (read(0, &c, 1) > 0)
		;
#endif
	return 0;
}
