/*
Sdtgen writes Linux executables, for x86-64 or with --arch for aarch64,
i386 or s390x, that fire USDT probes with known
argument values, from a DTrace provider file, with no compiler, assembler
or linker: test fixtures for tools that read sys/sdt.h probes. It also
writes the C header and the semaphore object that systemtap's dtrace -h
and -G write, with no need of <sys/sdt.h>.

Sdtgen is flags and files around packages a Go program can call: the
programs, shared objects and manifests are those of package fixture,
which a Go test suite calls to make the same fixtures in-process; the
header is package dtrace's WriteHeader, and the semaphore object package
elfwriter's SemaphoreObject.

Usage:

	sdtgen -o PROG [--pie | --shared] [--arch ARCH] [--semaphores] [--forms LIST] [--sites N] [--insn INSN] [--manifest FILE] [--corrupt KIND] SPEC.d
	sdtgen -h [-o FILE.h] SPEC.d
	sdtgen -G -o FILE.o SPEC.d
	sdtgen -h|-G [-C [-IDIR] [-DNAME[=VALUE]]] -s SPEC.d [-o FILE] [OBJ...]

SPEC.d is a provider file, as systemtap's dtrace reads it:

	provider p {
		probe q(int, long);
		probe s(const char *);
	};

For a program, arguments must be integers, pointers, strings (char *),
float or double; long double is not supported. The header takes any type.

The flags are:

	-o PROG
		Write the program to PROG.
	--pie
		Write a static position-independent executable (ET_DYN with no
		interpreter, linked at 0) instead of an ET_EXEC linked where GNU
		ld links executables: 0x400000 on amd64 and arm64, 0x8048000 on
		386, 0x1000000 on s390x.
	--shared
		Write a shared object (ET_DYN linked at 0, with a dynamic
		section) instead of a program: see "Shared objects" below.
	--arch ARCH
		Write the program for ARCH, as Go names it: amd64 (the default),
		arm64, 386 or s390x; see "Other machines" below.
	--semaphores
		Give every probe a semaphore, PROVIDER_NAME_semaphore, in section
		.probes; a probe then fires only while its semaphore is non-zero,
		as sys/sdt.h's is-enabled probes do.
	--forms LIST
		Place the probe arguments in the operand forms of the
		comma-separated LIST in turn, over all arguments of all sites
		(default reg):
			reg    a register, sized as the argument: -4@%edi, 8@%rax,
			       1@%al
			mem    a stack slot: -4@-8(%rbp), 8@16(%rsp)
			sib    base, index and scale: -8@8(%rbx,%rcx,4),
			       2@44(%rbx,%rcx)
			rip    a .data slot through a symbol: -4@p_q_site1(%rip),
			       8@p_q_site1+8(%rip)
			imm    a constant, the value of iteration 1: -4@$-1000
			float  an SSE register, for a float or double argument
		A float or double is marked "f" and never signed, as sys/sdt.h
		marks it, and takes the forms as gcc and clang give them: reg is
		a general-purpose register holding its bits (8f@%rax, 4f@%edx,
		the float in the low 4 bytes), mem, sib and rip hold it in memory
		(8f@-8(%rbp), 4f@p_q_site1+8(%rip)), and float is %xmmI for
		argument I (8f@%xmm0, 4f@%xmm2), which gcc writes when a program
		sets STAP_SDT_ARG_CONSTRAINT to norx (sys/sdt.h's own nor never
		gives an SSE register). Some forms do not fit some arguments: a
		string whose turn is imm takes reg (its address is not constant
		in a PIE); a float or double whose turn is imm takes rip (a
		compiler puts a floating-point constant in memory, as in
		8f@.LC0(%rip)); any other argument whose turn is float takes
		reg.
	--sites N
		Give each probe N sites (default 1). A program has at most
		1048576 sites over all its probes: more is an error before
		anything is written (a program of a million sites takes about
		1.5 GB to write, and sdtattach attaches no more).
	--insn INSN
		Place every site on INSN (default nop), as sdtlist names it:
			nop        the machine's nop, as sys/sdt.h places it
			nop5       x86-64's 5-byte nop 0f 1f 44 00 00, as package
			           sdt places it where the kernel optimizes uprobes
			           on it: Linux 6.18 turns a uprobe there into a
			           call, which writes below the stack pointer; the
			           programs keep nothing there
			nop+nop5   the 1-byte nop, then the 5-byte nop
			nop+nop10  the 1-byte nop, then the 10-byte nop 66 2e 0f 1f
			           84 00 00 00 00 00: the pairs of libbpf's usdt.h,
			           whose notes point at the 1-byte nop
		The long nops are x86-64's: with --arch amd64 only.
	--manifest FILE
		Write a JSON description of the program to FILE, as it is
		before --corrupt.
	--corrupt KIND
		Write a defect into the notes of the program, as a negative
		fixture for tools that read them. KIND is one of:
			truncated        cut .note.stapsdt (its sh_size) in the
			                 middle of the last note's descriptor
			badnamesz        set the first note's namesz to 0xffffffff
			nonul            replace the NUL that ends the first note's
			                 argument string with 'X'
			badowner         make the first note's owner "stapsdX"
			misaligned-sema  point the first note's semaphore one byte
			                 past its semaphore (implies --semaphores)
			pc-outside-text  point the first note's pc at .data, in the
			                 writable segment
	-h
		Write a C header of probe macros, to -o FILE.h or to standard
		output, instead of a program (see below).
	-G
		Write an object file defining the semaphores of the header's
		probes to -o FILE.o, instead of a program.
	-s SPEC.d
		Read SPEC.d, named by a flag instead of an argument; with -h
		and -G, take systemtap's command line (see below).
	-C
		Run SPEC.d through the C preprocessor first, $CPP or cpp, with
		the -IDIR and -DNAME[=VALUE] options given (which are errors
		without -C).
	-help, --help
		Print the usage and exit. (-h is not help: it takes SPEC.d.)

Flags may follow other arguments.

The program is run as

	PROG [ITERATIONS [INTERVAL_MS]]

and fires every site of every probe once per iteration, in file order, for
ITERATIONS iterations (default 1; 0 runs until killed), pausing INTERVAL_MS
milliseconds between iterations (default 100). It exits 0, or 2 with a
usage message when an argument is not a decimal number. It needs no libc:
it makes raw system calls.

On iteration k (from 1), integer argument i (from 0) has the value
k*1000+i, negated when its type is signed, truncated to its size (so an
unsigned char argument 0 is 1000 mod 256 = 232 on iteration 1). A pointer
counts as an unsigned 8-byte integer (4-byte with --arch 386, where long
is 4 bytes too; on i386, an 8-byte value's high word is the sign of its low
word, exact while k*1000+i is below 2^31). A float or double argument i is
-(k*1000+i+0.5), exact in binary (for a float while k*1000+i is below
2^23). A string argument i points to the string "PROVIDER:NAME:argI". An
imm argument is the constant of iteration 1.

With --semaphores, the program prints one line per iteration to standard
output: the iteration number followed by PROVIDER:NAME of each site that
fired, separated by spaces, such as "2 p:q p:q" for a probe with two sites.
Without --semaphores it prints nothing.

# Other machines

With --arch, the program behaves as on x86-64 (the same iterations,
values, output and exit status) and its operands are what gcc writes with
sys/sdt.h on that machine. Plain char is unsigned on aarch64 and s390x, as
their ABIs have it. Where a form has no counterpart, the argument takes
another, and the manifest's form says which:

	arm64  reg x2 (the x register whatever the size), mem [sp, 8] or
	       [x29, -8], sib [x1, x2] (a base and an index register, no
	       displacement or scale), imm 5, float v0 (norx); rip takes
	       mem, as aarch64 operands name no symbol (gcc writes a global
	       as [x1, #:lo12:sym], which no note reader resolves).
	s390x  reg %r2, mem 160(%r15) or 160(%r11), sib 14(%r1,%r2) (index
	       first, scale 1), imm 5; rip takes mem (gcc addresses a
	       global through larl, 0(%r1)), and float takes reg: gcc keeps
	       floating-point values in general registers or memory.
	386    reg %eax (the 32-bit register whatever the size; an 8-byte
	       value in a pair, %eax naming it and %edx holding the high
	       word, as gcc pairs %eax:%edx, %edx:%ecx, %ecx:%ebx, %ebx:%esi,
	       %esi:%edi), mem -8(%ebp) or 8(%esp), sib 8(%ebx,%ecx,4), imm
	       $5, rip the bare symbol, absolute: p_q_site1+8; in a PIE or a
	       shared object relative to the GOT, whose address the register
	       holds, as gcc writes PIC code's globals: 8+p_q_site1@GOTOFF(%ebx)
	       (the file defines _GLOBAL_OFFSET_TABLE_). A float or double
	       whose turn is reg or float takes mem: gcc keeps
	       floating-point values in memory on i386.

A reg argument for which no register is left (i386 has six) takes mem, as
a compiler spills it.

# Shared objects

With --shared, sdtgen writes a shared object instead of a program. It
exports, for each probe, a function

	long PROVIDER_NAME(unsigned long k)

which fires every site of the probe once with the values of iteration k
and returns the number of sites that fired (with --semaphores, those whose
semaphore is raised), and

	long sdt_fire_all(unsigned long k)

which calls them all in file order and returns the sum. They follow the C
calling convention of the machine, callee-saved registers included, so C
programs call them: System V AMD64; AAPCS64 on aarch64, k and the result
in x0; the s390x ELF ABI, in %r2; cdecl on i386, k on the stack and the
result in %eax. The object's DT_SONAME is the base name of PROG. It has no relocations, addressing its
data relative to the pc, and needs no libc: the dynamic loader loads it
(dlopen, or linked with -L. -lNAME), and so does a program that only maps
its two PT_LOAD segments at one base address, as package sdt does. The
semaphores are exported too. Two probes whose functions would have the
same name (p_q:r and p:q_r) are an error.

The manifest is one JSON object, on one line, with these fields:

	type           "exec", "pie" or "shared"
	machine        "x86-64", "aarch64", "i386" or "s390x"
	stapsdt_base   address of .stapsdt.base
	semaphores     whether --semaphores was given
	insn           the sites' instruction, as --insn names it
	value_rule     the value rule above, in words
	probes         one object per probe, in file order
	functions      of a shared object, one object per exported function:
	               name, probe (PROVIDER:NAME; none for sdt_fire_all)
	               and addr, its address

Each probe has:

	provider, name    as in SPEC.d (and in the notes)
	semaphore         address of the semaphore (only with --semaphores)
	semaphore_offset  its file offset: a uprobe's ref_ctr_offset
	semaphore_symbol  its symbol, PROVIDER_NAME_semaphore
	args              one object per argument: type (the C type), size,
	                  signed, string (true for a string), float (true
	                  for a float or double) and, for a string, value
	                  (the string pointed to)
	sites             one object per site, in note order

Each site has:

	pc         address of the site's nop, as the note records it
	pc_offset  its file offset: where a uprobe attaches
	args       the argument string of the note
	argv       one object per argument: operand (its token in args),
	           form (reg, mem, sib, rip, imm or float, the form taken)
	           and, for imm, value
	values     the argument values of iterations 1, 2 and 3, one array
	           per iteration, as a tracer reading the note shows them:
	           integers and floating-point values as numbers, strings as
	           strings

The notes are laid out exactly as sys/sdt.h lays them out, one per site, in
the order of the manifest's sites.

# Header and semaphore object

sdtgen -h writes what systemtap's dtrace -h writes, for each probe:

	PROVIDER_NAME(arg1, ...)   place the probe, with its arguments
	PROVIDER_NAME_ENABLED()    whether the probe's semaphore is raised
	PROVIDER_NAME_semaphore    the semaphore, an extern unsigned short in
	                           section .probes, of hidden visibility

The macro names are the provider and probe names upper-cased, with each
"__" of the probe name made "_" (myapp:request__start gives
MYAPP_REQUEST_START), as systemtap's dtrace has them; two probes whose macros
would have the same name are an error. The semaphore keeps the names as
written (myapp_request__start_semaphore), as sys/sdt.h has it.

The header does not include <sys/sdt.h> or any other file: each macro
writes the nop and the stapsdt note itself, in inline assembly, with the
layout sys/sdt.h gives them (and the .stapsdt.base section), and computes
each argument's size and sign from the C expression passed, as sys/sdt.h
does, so that a program compiled with it has the notes it would have with
systemtap's header. It compiles as C and as C++, with gcc and clang.

Every probe has a semaphore, as with systemtap's dtrace -h, so a program
using the header is linked with the object of sdtgen -G: a relocatable
x86-64 object with one 2-byte, zero-initialized, global, hidden object per
probe in a writable section .probes, as systemtap's dtrace -G writes. The
two are interchangeable with systemtap's.

# Systemtap's command line

With -s, sdtgen -h and -G take the command line of systemtap's dtrace, so
that sdtgen can stand in for it in a build, as DTRACE=sdtgen:

	sdtgen -G -s SPEC.d -o FILE.o OBJ...
	sdtgen -h -s SPEC.d -o FILE.h

The arguments that are not flags, the object files DTrace's -G would
read, are ignored, as systemtap's dtrace ignores them: sys/sdt.h or the
-h header has already put the notes in them, and -G only defines the
semaphores, so nothing in them needs rewriting. Without -o, -h writes
SPEC.h and -G SPEC.o in the current directory: the base name of SPEC.d
with its extension replaced. The options makefiles written for DTrace
pass, -64, -32, -fpic, -fPIC, -k, --no-pyparsing, --types and -x with
its value, are accepted and ignored, as systemtap's dtrace accepts them.
Without -s, -h writes to standard output unless given -o and -G needs -o,
as described above.
*/
package main
