#!/bin/sh
# Rebuilds the fixture of the examples: a non-PIE x86-64 executable
# built at -O2 without frame pointers.
set -e
cd "$(dirname "$0")"
gcc -O2 -g0 -fomit-frame-pointer -fno-optimize-sibling-calls -no-pie -fno-PIE -o frameless frameless.c
