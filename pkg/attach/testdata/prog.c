/*
 * A position-independent program linked with libwork.so, for the tests
 * by address: "prog N MS" fires p:tick with i, and work:call with 10*i
 * in the library, for i from 1 to N (0: until killed), MS milliseconds
 * apart. "prog N MS fork FILE" first forks a child, which executes no
 * program: the child fires the same probes once FILE exists (at most
 * 10 s later), the parent at once. "prog N MS mark FILE" first creates
 * FILE.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/sdt.h>

void work(long n);

/* await waits until path exists, for at most 10 s. */
static void await(const char *path)
{
	struct timespec ts = { 0, 2000000 };

	for (int i = 0; i < 5000 && access(path, F_OK) != 0; i++)
		nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1;
	long ms = argc > 2 ? atol(argv[2]) : 0;
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	if (argc > 4 && strcmp(argv[3], "fork") == 0) {
		pid_t pid = fork();
		if (pid < 0)
			return 1;
		if (pid == 0)
			await(argv[4]);
	} else if (argc > 4 && strcmp(argv[3], "mark") == 0) {
		int fd = open(argv[4], O_WRONLY | O_CREAT, 0644);
		if (fd < 0)
			return 1;
		close(fd);
	}
	for (long i = 1; n == 0 || i <= n; i++) {
		STAP_PROBE1(p, tick, i);
		work(i);
		if (ms > 0)
			nanosleep(&ts, NULL);
	}
	return 0;
}
