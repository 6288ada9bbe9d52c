// Package probespec parses the probe specifications the sdtkit tools take
// on their command lines:
//
//	[usdt:]PATH:PROVIDER:NAME[(TYPES)]
//	PROVIDER:NAME[(TYPES)]
//
// and as bpftrace and bcc take them: usdt:PATH:NAME and PATH:NAME (PATH
// with '/'), which leave PROVIDER out (Spec.AnyProvider), and bcc's
// u:PATH:NAME and u:PATH:PROVIDER:NAME. A first part with '/' is a PATH.
//
// PROVIDER and NAME are globs (as in path.Match) with brace alternatives
// as bpftrace takes them: gc__{start,done} (MatchGlob). PATH names an ELF file;
// a bare name without '/' is looked up the way a shell finds a command
// (PATH) or the dynamic loader a library (LD_LIBRARY_PATH, the
// directories of /etc/ld.so.conf, the system library directories). The
// second form leaves the file open, for tools that search the objects a
// process maps.
//
// TYPES, when given, lists one type per probe argument, separated by
// commas: str (a NUL-terminated string at the address the argument
// holds), strN (a string at that address whose length in bytes is argument
// N, counting from 0, as the JVM passes its names), s8, s16, s32, s64, u8,
// u16, u32, u64, hex (an unsigned integer
// of the argument's own size, shown in hexadecimal), or _ to drop the
// argument. An argument past the end of the list keeps its default: an
// integer of the size and signedness the note gives.
//
// ParsePattern parses the same PROVIDER:NAME globs as patterns over
// files given apart, as sdtlist takes them: NAME alone selects a probe of
// any provider.
//
// Errors are *SyntaxError, which match ErrSyntax and say what was
// expected.
package probespec
