/*
Sdtlist lists the USDT probes of ELF files, or of every object a running
process maps, one JSON object per probe site per line (NDJSON).

Usage:

	sdtlist [-t | --uprobe-events] FILE... [PATTERN...]
	sdtlist [-t | --uprobe-events] [usdt:]PATH:[PROVIDER:]NAME...
	sdtlist [-t] -p PID [PATTERN | usdt:PATH:[PROVIDER:]NAME]...

The flags are:

	-p PID
		List the probes of the executable and of every shared library that
		process PID maps, including libraries loaded with dlopen. Files
		are opened through /proc/PID/root, so processes in containers
		work; deleted and memfd-backed objects through
		/proc/PID/map_files. Reading the live state needs the right to
		ptrace the process (root, or CAP_SYS_PTRACE).
	-t
		Print an aligned table for people instead of NDJSON.
	--uprobe-events
		Print the kernel's uprobe_events definition of each site instead
		of NDJSON, for tracing without BPF (see Uprobe events below).
		Files of x86-64, i386, aarch64, arm, riscv, ppc64, ppc, s390x
		and loongarch.
	--debug-dir DIR
		With --uprobe-events, look for the separate debug files of
		stripped files under DIR instead of /usr/lib/debug, by build-id
		and by .gnu_debuglink, as sdtattach --debug-dir does; repeated,
		each DIR is searched in turn. Their symbols place the globals
		that arguments name, such as a static of a stripped library.
	-h
		Print the usage and exit.

PATTERN is a glob (as in path.Match, with brace alternatives) on
PROVIDER:NAME, such as 'node:http__*', '*:gc*' or 'python:gc__{start,done}';
a pattern without ':' is matched against the probe name alone. An argument
that names an existing file is a FILE; any other argument with ':' or a
glob character is a PATTERN; a bare name is a FILE when it is a command in
$PATH or a library where the dynamic loader looks, as sdtattach finds them
(sdtlist libstdc++), and a PATTERN otherwise (sdtlist FILE gc__start).
When patterns are given, only the probes matching one of them are listed,
and each must match a probe of the files listed: one that matches none is
an error that names the closest probes, as sdtattach gives it, and makes
the exit status 1. A pattern with more parts, such as '::', could match
nothing and is a usage error.

A probe specification that names its file lists the matching probes of
that file alone; with -p, of the objects the process maps that PATH
names. sdtlist's own forms and bpftrace's:

	sdtlist FILE                     sdtlist 'usdt:FILE:*'
	sdtlist FILE PROVIDER:NAME       sdtlist 'usdt:FILE:PROVIDER:NAME'
	sdtlist -p PID PROVIDER:NAME     sdtlist -p PID 'usdt:PATH:PROVIDER:NAME'
	sdtlist -p PID                   sdtlist -p PID 'usdt:*'
	sdtlist -p PID PROVIDER:NAME     sdtlist -p PID 'usdt:*:PROVIDER:NAME'

(the second column as bpftrace -l takes it).

usdt:A:B is the PATH A only when A has a '/' or is a file here; otherwise
it is the pattern A:B. usdt:PATH:PROVIDER:NAME always names PATH.

Each output line describes one probe site (a probe fired from several
places has one line per place, in note order) with these fields:

	file              the file, as named on the command line, or as the
	                  process maps it with -p; for a member of an ar
	                  archive, ARCHIVE(MEMBER) as binutils names it:
	                  libstdc++.a(eh_throw.o)
	provider, name    the probe's provider and name
	pc                address of the probe's nop, adjusted for
	                  .stapsdt.base (what readelf -n shows as Location for
	                  an ordinary binary)
	base              address of .stapsdt.base recorded in the note
	semaphore         address of the probe's semaphore, 0 when it has none
	args              the raw argument string of the note
	pc_offset         file offset of pc: where a uprobe attaches
	semaphore_offset  file offset of the semaphore: a uprobe's
	                  ref_ctr_offset; 0 when there is no semaphore
	insn              the instruction at pc_offset in the file: "nop",
	                  the machine's nop, as sys/sdt.h places it (one
	                  byte on x86); "nop5", x86's 5-byte nop
	                  0f 1f 44 00 00, which package sdt places where the
	                  kernel optimizes uprobes on it (Linux 6.18 turns
	                  such a uprobe into a call instead of a breakpoint
	                  trap); "nop+nop5" and "nop+nop10", the 1-byte nop
	                  followed by the 5-byte or the 10-byte nop (66 2e 0f
	                  1f 84 00 00 00 00 00), the pairs of libbpf's usdt.h;
	                  "other" for anything else. Absent where pc_error
	                  is. sdtattach attaches at pc_offset, the 1-byte nop
	                  of a pair: on Linux 6.18 a uprobe on the long nop
	                  is made a call that writes below the stack pointer,
	                  over data the code around it may keep there (the
	                  x86-64 red zone)
	note_pc,          pc and semaphore as stored in the note, present only
	note_semaphore    when they differ from the adjusted values (prelink)
	pc_error,         why pc_offset or semaphore_offset is not usable
	semaphore_error   (the address lies in no suitable PT_LOAD segment,
	                  the semaphore is not 2-byte aligned, or the file is
	                  a relocatable object)
	argv              the parsed arguments, one element per argument of
	                  args, in order

Each element of argv has:

	raw               the argument as written, such as "-4@-20(%rbp)"
	size              size in bytes; 0 when the note gives none
	signed            whether the value is signed
	float             present and true for a floating-point value
	kind              const, register, memory, sib, symbol or
	                  float_register
	location          the operand in canonical form, such as "-20(%rbp)"
	reg               the full register read (rax for %eax), or the base
	                  register of a memory operand
	reg_offset        offset of reg in the pt_regs of the file's machine
	reg_high          the register holding the high half of an 8-byte
	                  value that an i386 note names by its low register:
	                  gcc keeps it in a pair (-8@%eax is %edx:%eax)
	index, scale      index register and scale of a sib operand
	offset            displacement of a memory, sib or symbol operand
	value             the value of a const operand
	symbol            the symbol of a symbol operand (rip-relative or
	                  absolute), or the symbol whose address is part of
	                  the displacement of a memory or sib operand, as in
	                  x86 non-PIC code's arr(,%eax,4)
	reloc             the relocation operator of a memory or sib
	                  operand's symbol, when it has one: "GOTOFF" in x86
	                  PIC code (sym@GOTOFF(%ebx)), where the symbol counts
	                  from _GLOBAL_OFFSET_TABLE_, whose address reg holds
	error             present, instead of kind and the rest, when the
	                  argument cannot be decoded; the other arguments are
	                  unaffected

With -p, each line also has:

	pid               the process
	addr              run-time address of the site in the process
	armed             whether a tracer has attached: the instruction at
	                  addr is the kernel's uprobe breakpoint (int3 on x86)
	                  or, as the kernel may turn an x86-64 site it hit
	                  into a call (Linux 6.18), not the file's; a
	                  breakpoint the file holds itself is no tracer's
	orphaned          of an armed site: true when no uprobe owns its
	                  breakpoint, left behind by a tracer that is gone
	                  (sdtrepair restores it); false when one does
	owners            of an armed site that is not orphaned, every uprobe
	                  that may own it, one string each, as KIND HOLDER
	                  FILE:0xOFFSET: "uprobe_multi link 12 /usr/bin/fx:0x1164",
	                  "perf_event pid 345 (bpftrace) fd 7 ..." or
	                  "tracefs GROUP/EVENT ...": BPF links first, then
	                  descriptors, then tracefs events, so that a site
	                  two tracers hold names both
	orphaned_error    of an armed site, why its owners could not be looked
	                  up (listing uprobes needs root)
	semaphore_addr    run-time address of the semaphore
	semaphore_value   its current value, which enables the probe when
	                  not 0: the kernel adds one for every site at which
	                  a uprobe with a reference counter is attached (a
	                  tracer attaching the 10 sites of a probe adds 10),
	                  and sdtsema --inc adds one; a semaphore that is not
	                  2-byte aligned (semaphore_error) has the value of
	                  its two bytes shown, though the kernel refuses it
	                  as a reference counter and sdtsema will not write it
	armed_error,      why the live state could not be read
	semaphore_value_error

With -p and neither PATTERN nor PATH:PROVIDER:NAME, one more line may
follow the sites: that of the dynamic loader's _dl_debug_state (of the
loader the kernel loaded for the process), the function it calls after
each change to its list of objects, where sdtattach -c stops its command
to follow dlopen. It is listed only when a tracer has patched it, owned
or orphaned (a tracer killed while the kernel places its uprobe can
leave a breakpoint there in every process that maps the loader, which
then traps at each dlopen and dlclose; sdtrepair restores it). It is no
probe, and its line says so:

	file              the loader, as the process maps it, or the program
	                  itself when it is its own loader (statically linked)
	provider          empty
	name              _dl_debug_state
	pc, pc_offset     the function's address and file offset in the file
	base, semaphore,  0, 0, 0
	semaphore_offset
	args, argv        "" and []
	hook              "loader", on this line alone
	pid, addr, armed, orphaned, owners, orphaned_error
	                  as for a site

Numbers are JSON numbers in decimal. The -t table shows the same sites with
addresses in hexadecimal and arguments as TYPE@LOCATION (s32@-20(%rbp),
u64@%rax, ?@RAW for one that cannot be decoded); its INSN column is insn,
or - when not known; its ARMED column reads yes, no, orphan, or ? when
the state could not be read, and the loader's _dl_debug_state has - as
PROVIDER. A file, provider, name or
argument that is empty or holds blanks, quotes, backslashes, control
bytes, invalid UTF-8 or other unprintable characters is quoted as in Go,
with those as escapes ("\x1b[31mp"), so that what a file names its probes
cannot drive the terminal; NDJSON gives the strings as they are, escaped
as JSON requires.

A FILE must be a regular file: a named pipe, a device or a directory is
reported without being opened for long (a named pipe is never waited on).
The notes are read from the .note.stapsdt sections or, in a file without
section headers, from its PT_NOTE segments, as readelf -n does.
An ar archive (a static library, such as libstdc++.a or libpython3.11.a)
is listed member by member, in archive order, as readelf -n lists it:
the members are relocatable objects, whose pc is an offset in the
probe's section and whose pc_error says why they have no pc_offset. A
member that is not an ELF file is reported as a file would be, and the
others are still listed. A thin archive, which names the files of its
members instead of holding them, is reported: list those files.

A file that cannot be read, or whose notes are damaged, is reported on
standard error; the probes that could be decoded and the other files are
still listed, and the exit status is 1. So is it, with -p, for a process
that does not exist or may not be inspected, and for a zombie, which has
exited and whose parent has not reaped it: it maps nothing left to list.
Of the malformed notes of a file, the first 10 are reported one per line,
then one line counts the others ("N more malformed stapsdt notes"). At
most 256 MiB of notes are read from a file (those of a million probe
sites take about 66 MB): a note section past that, or one that runs past
the end of its file, is reported instead of read, so that memory stays
bounded by what a file holds. Usage errors exit with status 2.
# Uprobe events

With --uprobe-events, each site is a line that the kernel's
uprobe_events file takes (package pkg/tracefs documents the translation):

	p:sdt_PROVIDER/NAME PATH:0xOFFSET[(0xSEMAPHORE_OFFSET)] arg0=FETCH ...

as perf names USDT events: the group sdt_ and the provider, the event
the probe's name, with _1, _2 and on for the second and later sites of
a probe, each made of letters, digits and '_' only. OFFSET is the site's
file offset (a pair's 1-byte nop, as insn says), SEMAPHORE_OFFSET its
semaphore's, which the kernel raises
as a reference counter while the event is enabled. Each argument the
note gives is fetched as its operand says (registers, by the names the
kernel of the file's machine gives them, memory at a register, globals
relative to the site, constants), typed sN or uN by its size and sign,
and named argN from 0 as sdtattach names them; the symbols arguments
name are resolved as sdtattach resolves them (from the debug file of a
stripped file; a static of one name in several source files, by the
site's own). An argument with no
fetch argument form (memory indexed by a register, floating-point
values, a symbol added to a register in a position-independent file, a
value in a pair of registers on a 32-bit machine) is left out of the
line, and a comment line before it says which and why:

	# fx:all at 0x1164: arg3 "8@(%rbx,%rcx,8)" left out: memory indexed by a register: fetch arguments have no such form
	p:sdt_fx/all /usr/bin/fx:0x1164 arg0=%ax:s64 arg1=+0(%bx):u64 arg2=+16(%bx):u64 arg4=+11964(%ip):u64

To trace with them as root, where tracefs is mounted:

	sdtlist --uprobe-events /usr/bin/fx >> /sys/kernel/tracing/uprobe_events
	echo 1 > /sys/kernel/tracing/events/sdt_fx/enable
	cat /sys/kernel/tracing/trace_pipe

and remove them, once disabled, with a "-:sdt_fx/all" line each. A site
that cannot be an event at all, such as one in 32-bit Arm's Thumb code,
which Arm uprobes refuse (a site whose file has no symbols that say it
is ARM code is refused too: compile with -marm, keep .symtab), is a
comment line alone:

	# fx:guarded at 0x526 left out: site at offset 0x526: Arm uprobes take ARM code, 4-byte aligned, not Thumb code
*/
package main
