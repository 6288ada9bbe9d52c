package usdt

// The test program is built against include/bpf/usdt.bpf.h and committed,
// so that testing needs no clang; regenerate it with go generate
// ./pkg/usdt/ after changing it or the header, with clang-19,
// llvm-strip-19 and libbpf's headers (Debian's libbpf-dev) installed.
// It is written as a program for libbpf's usdt.bpf.h is: with
// <linux/bpf.h> and <bpf/bpf_helpers.h>, whose asm/ headers Debian keeps
// under the multiarch directory.
//go:generate clang-19 -O2 -g -Wall -Werror -target bpfel -I include -idirafter /usr/include/x86_64-linux-gnu -c testdata/forms.bpf.c -o testdata/forms_bpfel.o
//go:generate llvm-strip-19 -g testdata/forms_bpfel.o
