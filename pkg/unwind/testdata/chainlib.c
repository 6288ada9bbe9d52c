/* The library half of chain.c's call chains. */
extern volatile long sink;

__attribute__((noinline)) void lib_inner(long n, void (*cb)(long))
{
	cb(n * 2);
	sink++;
}

void lib_mid(long n, void (*cb)(long))
{
	lib_inner(n + 1, cb);
	sink++;
}
