/*
 * The streaming benchmark's traced program (scripts/bench-stream): fires
 * the 3-argument probe bench:hit N times in a tight loop and prints the
 * nanoseconds per iteration. It stops itself (SIGSTOP) before the loop, so
 * that the benchmark can attach a tracer and wait until the probe site is
 * armed before it sends SIGCONT. With a second argument, each iteration
 * fires bench:begin(i) then bench:end(i) instead, a pair for latencies
 * (scripts/bench-agg); with "str", bench:str(i, s), s a string literal
 * (scripts/bench-stream --base); with "threads T", bench:hit N times in
 * each of T threads at once, the many producers of scripts/bench-stream;
 * with "deep D", bench:hit N times from a function D calls below main,
 * for stacks of some depth (scripts/bench-ustack).
 * The output is one line: the iterations (of every thread), the
 * nanoseconds the loop took (from the threads' common start to the last
 * one's end), those per iteration, and the nanoseconds of CPU time spent
 * per iteration, in user space and in the kernel handling its probes, by
 * the thread (by the process with threads) (scripts/bench-site): unlike
 * the first, unaffected by the other work of a busy machine.
 *
 * usage: bench-loop N [pairs | str | threads T | deep D]
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/sdt.h>

static long n;
static pthread_barrier_t start;

static void *hits(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&start);
	for (long i = 0; i < n; i++)
		DTRACE_PROBE3(bench, hit, i, i * 2, i * 3);
	return NULL;
}

/* deep calls itself d times, then fires bench:hit n times. */
__attribute__((noinline)) static long deep(int d)
{
	long r = 0;

	if (d > 0)
		r = deep(d - 1);
	else
		for (long i = 0; i < n; i++)
			DTRACE_PROBE3(bench, hit, i, i * 2, i * 3);
	__asm__ volatile("" : "+r"(r)); /* a call, not a jump or a loop */
	return r + 1;
}

int main(int argc, char **argv)
{
	int str = argc > 2 && strcmp(argv[2], "str") == 0; /* bench:str instead */
	int threads = argc > 3 && strcmp(argv[2], "threads") == 0 ? atoi(argv[3]) : 0;
	int depth = argc > 3 && strcmp(argv[2], "deep") == 0 ? atoi(argv[3]) : -1;
	int pairs = argc > 2 && !str && !threads && depth < 0; /* bench:begin and bench:end instead */
	clockid_t cpuclock = threads ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_THREAD_CPUTIME_ID;
	struct timespec t0, t1, c0, c1;
	pthread_t tid[1024];

	n = argc > 1 ? atol(argv[1]) : 1000000;
	if (threads < 0 || threads > 1024) {
		fprintf(stderr, "bench-loop: threads: %d not in [1, 1024]\n", threads);
		return 2;
	}
	if (threads) {
		pthread_barrier_init(&start, NULL, threads + 1);
		for (int t = 0; t < threads; t++)
			if (pthread_create(&tid[t], NULL, hits, NULL)) {
				perror("bench-loop: pthread_create");
				return 1;
			}
	}
	raise(SIGSTOP);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	clock_gettime(cpuclock, &c0);
	if (threads) {
		pthread_barrier_wait(&start);
		for (int t = 0; t < threads; t++)
			pthread_join(tid[t], NULL);
		n *= threads;
	} else if (depth >= 0)
		deep(depth);
	else if (str)
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
	clock_gettime(cpuclock, &c1);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double ns = (t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec);
	double cpu = (c1.tv_sec - c0.tv_sec) * 1e9 + (c1.tv_nsec - c0.tv_nsec);
	printf("%ld %.1f %.3f %.3f\n", n, ns, ns / n, cpu / n);
	return 0;
}
