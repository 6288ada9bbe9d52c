// SPDX-License-Identifier: (MIT OR GPL-2.0-only)
/*
 * count.bpf.c under its own loader, libbpf, for libbpf_test.go:
 *
 *	libbpf OBJECT PATH PROVIDER NAME
 *
 * attaches the program count of OBJECT with bpf_program__attach_usdt,
 * prints "attached", counts until a line or the end of its standard
 * input, and prints one "COUNT STRING" line per string counted.
 */
#include <stdio.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

int main(int argc, char **argv)
{
	struct bpf_object *obj;
	struct bpf_program *prog;
	struct bpf_link *link;
	unsigned char key[64], next[64];
	unsigned long long n;
	int fd, err, first = 1;
	char line[16];

	if (argc != 5) {
		fprintf(stderr, "usage: libbpf OBJECT PATH PROVIDER NAME\n");
		return 2;
	}
	obj = bpf_object__open_file(argv[1], NULL);
	if (!obj || bpf_object__load(obj)) {
		fprintf(stderr, "libbpf: load %s failed\n", argv[1]);
		return 1;
	}
	prog = bpf_object__find_program_by_name(obj, "count");
	link = prog ? bpf_program__attach_usdt(prog, -1, argv[2], argv[3], argv[4], NULL) : NULL;
	err = libbpf_get_error(link);
	if (!prog || err) {
		fprintf(stderr, "libbpf: attach: %d\n", err);
		return 1;
	}
	printf("attached\n");
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		line[0] = 0;
	bpf_link__destroy(link);
	fd = bpf_object__find_map_fd_by_name(obj, "counts");
	while (bpf_map_get_next_key(fd, first ? NULL : key, next) == 0) {
		first = 0;
		memcpy(key, next, sizeof(key));
		if (bpf_map_lookup_elem(fd, key, &n) == 0)
			printf("%llu %.64s\n", n, (char *)key);
	}
	bpf_object__close(obj);
	return 0;
}
