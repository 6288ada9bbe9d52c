/*
 * The fixture of TestEmptyString: a probe passing two empty strings, one
 * on the stack and one on a page of .rodata the program never reads.
 */
#include <sys/sdt.h>

#define HALF (512 << 10)

/* As in fault.c: away from what the program reads of .rodata. */
static const struct {
	char pad[HALF];
	char far[32];
	char rest[HALF - 32];
} ro __attribute__((aligned(1 << 16)));

int main(void)
{
	volatile char here[8] = "";

	DTRACE_PROBE2(e, empty, (const char *)here, ro.far);
	return 0;
}
