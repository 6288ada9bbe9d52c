/* sdtdemo has one USDT probe with a semaphore. It prints "ready" and then
 * fires the probe for every byte read from stdin, until end of file. */
#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>
#include <stdio.h>
#include <unistd.h>

__extension__ unsigned short sdtkit_test_tick_semaphore
	__attribute__((unused)) __attribute__((section(".probes")));

int main(void)
{
	char c;
	long n = 0;

	puts("ready");
	fflush(stdout);
	while (read(0, &c, 1) == 1) {
		n++;
		if (sdtkit_test_tick_semaphore)
			STAP_PROBE1(sdtkit_test, tick, n);
	}
	return 0;
}
