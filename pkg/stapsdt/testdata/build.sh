#!/bin/sh
# Rebuilds the demo fixture used by the examples: a non-PIE x86-64
# executable with a semaphore-guarded probe that has two sites.
set -e
cd "$(dirname "$0")"
dtrace -h -s demo.d -o demo.h
dtrace -G -s demo.d -o demo_probes.o
gcc -O2 -g0 -no-pie -fno-PIE -o demo demo.c demo_probes.o
strip --strip-unneeded demo
rm -f demo.h demo_probes.o
