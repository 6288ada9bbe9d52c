/* A shared library with a probe, for the tests by address. */
#include <sys/sdt.h>

void work(long n)
{
	STAP_PROBE1(work, call, n * 10);
}
