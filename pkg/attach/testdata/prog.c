/*
 * A position-independent program linked with libwork.so, for the tests
 * by address: "prog N MS" fires p:tick with i, and work:call with 10*i
 * in the library, for i from 1 to N (0: until killed), MS milliseconds
 * apart.
 */
#include <stdlib.h>
#include <time.h>
#include <sys/sdt.h>

void work(long n);

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1;
	long ms = argc > 2 ? atol(argv[2]) : 0;
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	for (long i = 1; n == 0 || i <= n; i++) {
		STAP_PROBE1(p, tick, i);
		work(i);
		if (ms > 0)
			nanosleep(&ts, NULL);
	}
	return 0;
}
