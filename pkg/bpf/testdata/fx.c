/*
 * Fixture for the attach tests, built by them with gcc -O2 -fPIE -pie:
 * fx:all fires with one argument of every operand form the BPF program
 * decodes, with known values; fx:glob passes a static variable, which
 * gcc addresses relative to %rip. "fx N MS" fires both N times (0: until
 * killed), MS milliseconds apart.
 */
#include <stdlib.h>
#include <time.h>
#include <sys/sdt.h>

long arr[5] = { 10, 20, 30, 40, 50 };
long gvar = 0x1122334455667788;
const char msg[] = "hello, usdt";
const char longmsg[] = "0123456789abcdefghijklmnopqrstuvwxyz";
static volatile long g2 = -42;

void fire(void);

__asm__(
	".text\n"
	".globl fire\n"
	".type fire, @function\n"
	"fire:\n"
	"	push %rbx\n"
	"	lea arr(%rip), %rbx\n"
	"	mov $3, %rcx\n"
	"	mov $-5, %rax\n"
	"	mov $0x12f0, %edx\n"
	"	lea msg(%rip), %rsi\n"
	"	lea longmsg(%rip), %rdi\n"
	STAP_PROBE_ASM(fx, all, -8@%rax 8@(%rbx) 8@16(%rbx) 8@(%rbx,%rcx,8) 8@0(,%rbx,1) 8@gvar(%rip) -4@$-7 1@%dh -1@%dl 8@%rsi 8@%rdi 8@-16(%rip))
	"	pop %rbx\n"
	"	ret\n"
	".size fire, .-fire\n");

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1;
	long ms = argc > 2 ? atol(argv[2]) : 0;
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	/*
	 * A BPF program cannot fault pages in: touch the strings, as a
	 * program that passes a string has usually done.
	 */
	if (*(volatile const char *)msg == 0 || *(volatile const char *)longmsg == 0)
		return 1;
	for (long i = 1; n == 0 || i <= n; i++) {
		fire();
		STAP_PROBE1(fx, glob, g2);
		if (ms > 0)
			nanosleep(&ts, NULL);
	}
	return 0;
}
