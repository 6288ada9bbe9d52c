/*
 * The fixture of TestFaults: probes passing memory that the program has
 * not read, on pages that are not resident when the probes fire. usage:
 * fault FILE, a file of at least one page whose start is a string.
 */
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/sdt.h>
#include <unistd.h>

#define HALF (512 << 10)
#define EDGE (256 << 10)

/*
 * A megabyte of .rodata, aligned to the 64 KiB that the kernel maps
 * around a fault at most, so that what the program reads of it does not
 * bring in the pages its probes pass.
 */
static const struct {
	char pad[EDGE - 10];
	char cross[32]; /* from a page read into one not read */
	char pad2[HALF - EDGE - 22];
	char far[32]; /* on a page never read */
	char rest[HALF - 32];
} ro __attribute__((aligned(1 << 16))) = {
	.cross = "across a page boundary",
	.far = "on a page never read",
};

/* A megabyte of .data, the number in its middle never read. */
long data[1 << 17] __attribute__((aligned(1 << 16))) = { [1 << 16] = 4242 };

int
main(int argc, char **argv)
{
	volatile char touch = ro.cross[0]; /* the first page of cross only */
	const char *file;
	int fd;

	(void)touch;
	if (argc < 2 || (fd = open(argv[1], O_RDONLY)) < 0)
		return 1;
	file = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
	if (file == MAP_FAILED)
		return 1;
	STAP_PROBE1(fault, far, ro.far);
	STAP_PROBE1(fault, cross, ro.cross);
	STAP_PROBE1(fault, file, file);
	STAP_PROBE1(fault, data, data[1 << 16]);
	return 0;
}
