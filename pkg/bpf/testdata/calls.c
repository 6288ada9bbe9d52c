/*
 * Known call chains to one probe, for the tests of user stacks: main
 * calls outer 7 times and other 3 times, and both call inner, which
 * fires calls:hit(n). Built at -O0 with frame pointers, every function
 * sets its frame up before its body, so that the kernel's walk of the
 * frame pointers sees every frame. (At -O2 gcc gives a function such as
 * inner, which calls nothing, no frame at all, and the walk from its
 * probe skips its caller.)
 */
#include <sys/sdt.h>

__attribute__((noinline)) void inner(long n)
{
	DTRACE_PROBE1(calls, hit, n);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void outer(long n)
{
	inner(n);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void other(long n)
{
	inner(-n);
	__asm__ volatile("" ::: "memory");
}

int main(void)
{
	for (long i = 1; i <= 7; i++)
		outer(i);
	for (long i = 1; i <= 3; i++)
		other(i);
	return 0;
}
