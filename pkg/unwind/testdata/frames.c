/*
 * Frames of the shapes a compiler gives functions built without frame
 * pointers, for the tests of the rules of other machines' call-frame
 * information, checked against readelf's: a leaf, a caller that saves
 * its return address, one that saves callee-saved registers, integer
 * and floating-point, one whose frame is too large for one adjustment
 * of the stack pointer, one of a frame of variable size, and a variadic
 * one.
 */
#include <stdarg.h>

volatile long sink;
volatile double dsink;

__attribute__((noinline)) long leaf(long n) { return n * 3 + 1; }

__attribute__((noinline)) long caller(long n) { return leaf(n) + 1; }

__attribute__((noinline)) long saves(long a, long b, long c, long d)
{
	long x = leaf(a), y = leaf(b), z = leaf(c), w = leaf(d);

	return leaf(x + y) + leaf(z * w) + x * y * z * w + a + b + c + d;
}

__attribute__((noinline)) double floats(double a, double b)
{
	double x = a * 2, y = b * 3;

	sink = leaf((long)x);
	dsink = x + y;
	sink = leaf((long)y);
	return x * y + a / b;
}

__attribute__((noinline)) long large(long n)
{
	volatile char buf[70000];

	buf[n] = 1;
	buf[n + 60000] = 2;
	return leaf(buf[n] + buf[n + 60000]);
}

__attribute__((noinline)) long dynamic(long n)
{
	volatile char buf[n];

	buf[0] = 1;
	return leaf(buf[0] + n);
}

__attribute__((noinline)) long sum(int n, ...)
{
	va_list ap;
	long s = 0;

	va_start(ap, n);
	for (int i = 0; i < n; i++)
		s += va_arg(ap, long);
	va_end(ap);
	return leaf(s);
}

int main(int argc, char **argv)
{
	(void)argv;
	sink = caller(argc) + saves(argc, 2, 3, 4) + large(argc) + dynamic(argc + 8) + sum(3, 1L, 2L, 3L);
	dsink = floats(argc, 2.5);
	return 0;
}
