// For the tests of packages dlopen and usdt: waits for a line on its
// standard input, then loads the library its argument names with dlopen
// and calls its plugfire.
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	char line[16];
	void *h;
	void (*f)(int);

	if (argc != 2 || !fgets(line, sizeof(line), stdin))
		return 2;
	h = dlopen(argv[1], RTLD_NOW);
	f = h ? (void (*)(int))dlsym(h, "plugfire") : NULL;
	if (f == NULL) {
		fprintf(stderr, "%s\n", dlerror());
		return 1;
	}
	f(55);
	return 0;
}
