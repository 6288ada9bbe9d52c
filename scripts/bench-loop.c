/*
 * The streaming benchmark's traced program (scripts/bench-stream): fires
 * the 3-argument probe bench:hit N times in a tight loop and prints the
 * nanoseconds per iteration. It stops itself (SIGSTOP) before the loop, so
 * that the benchmark can attach a tracer and wait until the probe site is
 * armed before it sends SIGCONT. With a second argument, each iteration
 * fires bench:begin(i) then bench:end(i) instead, a pair for latencies
 * (scripts/bench-agg); with "str", bench:str(i, s), s a string literal
 * (scripts/bench-stream --base). The output is one line: N, the
 * nanoseconds the loop took, those per iteration, and the nanoseconds of
 * CPU time the thread spent per iteration, in user space and in the
 * kernel handling its probes (scripts/bench-site): unlike the first,
 * unaffected by the other work of a busy machine.
 *
 * usage: bench-loop N [pairs | str]
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/sdt.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	int str = argc > 2 && strcmp(argv[2], "str") == 0; /* bench:str instead */
	int pairs = argc > 2 && !str; /* bench:begin and bench:end instead */
	struct timespec t0, t1, c0, c1;

	raise(SIGSTOP);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
	if (str)
		for (long i = 0; i < n; i++)
			DTRACE_PROBE2(bench, str, i, "a string argument");
	else if (pairs)
		for (long i = 0; i < n; i++) {
			DTRACE_PROBE1(bench, begin, i);
			DTRACE_PROBE1(bench, end, i);
		}
	else
		for (long i = 0; i < n; i++)
			DTRACE_PROBE3(bench, hit, i, i * 2, i * 3);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double ns = (t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec);
	double cpu = (c1.tv_sec - c0.tv_sec) * 1e9 + (c1.tv_nsec - c0.tv_nsec);
	printf("%ld %.1f %.3f %.3f\n", n, ns, ns / n, cpu / n);
	return 0;
}
