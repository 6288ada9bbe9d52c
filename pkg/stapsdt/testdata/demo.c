/*
 * Source of the demo fixture: build with build.sh. It fires its probes
 * once, or, given a count and an interval in milliseconds, that many times
 * (0: until killed), so that tools can list and trace a live process.
 */
#include <stdlib.h>
#include <time.h>
#include "demo.h"

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1;
	long ms = argc > 2 ? atol(argv[2]) : 0;
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	DEMO_START(argc, argv[0]);
	for (long i = 1; n == 0 || i <= n; i++) {
		DEMO_TICK(i);
		if (DEMO_TICK_ENABLED())
			DEMO_TICK(-i);
		if (ms > 0)
			nanosleep(&ts, NULL);
	}
	return 0;
}
