// Package stacks counts symbolized stacks and writes them in the formats
// that flame graph and profile viewers read.
//
// A Set counts stacks of symbolize.Frame, innermost frame first, as
// events carry them: one per event of sdtattach --ustack (AddEvent), and
// the count of each record of sdtattach --by ustack, which aggregates by
// stack in the kernel (AddRecord). WriteFolded writes folded stacks, one line a stack:
// the frames root first, joined by ';', then a space and the count, as
// flamegraph.pl, inferno and speedscope read them:
//
//	main;outer;inner 700
//	main;other;inner 300
//
// A frame is named by its symbol, or by file and file offset
// ("libc.so.6+0x2a1ca") where no symbol is known, or by its address.
//
// Profile builds a pprof profile (github.com/google/pprof/profile) of the
// same counts, with a Function for each name, a Location for each address
// and a Mapping for each file with its build-id, and WritePprof writes it
// gzipped, as go tool pprof reads it.
package stacks
