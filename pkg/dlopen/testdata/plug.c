// A library with probes, for the tests of packages dlopen and usdt:
// plug:init in its constructor, which runs before dlopen returns, and
// plug:fire.
#include <sys/sdt.h>

__attribute__((constructor)) static void init(void)
{
	STAP_PROBE1(plug, init, 7);
}

void plugfire(int x)
{
	STAP_PROBE2(plug, fire, x, x * 2);
}
