// Package filter is the expression language of sdtattach --filter: it
// parses an expression, checks it against each probe, and compiles it to
// a short program that the BPF programs of package bpf evaluate on every
// hit, in the kernel, before anything else is done for it.
//
// # Expressions
//
// A comparison sets a key against a literal, in either order:
//
//	arg0 > 100
//	100 < arg0
//	comm == "postgres"
//	arg1 == "GET*"
//
// The keys are
//
//	pid    the process ID (the thread group ID), a number
//	tid    the thread ID, a number
//	comm   the thread's name, a string of at most 15 bytes
//	argN   argument N of the probe, from 0
//	NAME   a field: an argument as sdtattach --types names it
//
// Numbers compare with ==, !=, <, <=, > and >=, against a decimal, 0x
// hexadecimal, 0o octal or 0b binary literal, maybe negative, as 64-bit
// integers. An argument is compared signed when its type says so: the
// type a probe specification gives it (s32, u64, ...), or the type of its
// --types declaration, or else the size and sign of its note (-4@%eax is
// a signed 32-bit integer). pid and tid are unsigned.
//
// Strings compare with == and != only, against a string literal in
// double quotes (with the escapes \", \\, \n, \t and \*): comm, and the
// arguments that are strings by their type (str, strN, or char * in
// --types). A literal that ends with an unescaped * is a prefix, as the
// globs of probe names are: arg1 == "GE*" holds for "GET" and "GETTER",
// arg1 != "GE*" for the others, and "*" for every string. A * elsewhere
// must be escaped. A literal has at most MaxString bytes; a string
// argument is compared in full up to that length, whatever the bytes
// events keep of it (--strlen).
//
// Comparisons combine with && (and), || (or) and ! (not), in that order
// of precedence from the weakest, and parentheses:
//
//	comm == "nginx" && (arg0 >= 400 || !(arg1 == "/health*"))
//
// A comparison on an argument that cannot be read is false.
//
// # Errors
//
// Parse reports a malformed expression, Compile a key that a probe does
// not have (argN past its last argument, a field its declaration lacks)
// or a string compared with a number, each as an *Error that gives the
// column of the offending token, the token, and for Compile the probe.
//
// # Programs
//
// A Program is the expression in postfix order: each comparison pushes
// its truth, Not, And and Or combine the truths on top of the stack.
// It has at most MaxInsns instructions, the bound of the kernel's loop.
// Program.Eval computes in Go what the kernel computes, for tests.
package filter
