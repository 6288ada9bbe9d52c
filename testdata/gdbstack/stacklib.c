/* The library half of stack.c's call chains. */
extern volatile long sink;

__attribute__((noinline)) void lib_inner(long seq, void (*cb)(long))
{
	cb(seq);
	sink++;
}

__attribute__((noinline)) void lib_call(long seq, void (*cb)(long))
{
	lib_inner(seq, cb);
	sink++;
}
