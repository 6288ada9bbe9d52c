/*
Sdtattach attaches to USDT probes and writes one JSON object per probe hit
per line (NDJSON) on standard output, or with --count, --hist, --stats or
--latency, one per probe and key, counted in the kernel.

Usage:

	sdtattach [flags] PROBE...
	sdtattach [flags] -c 'CMD ARGS' PROBE...

PROBE is

	[usdt:]PATH:PROVIDER:NAME[(TYPES)]
	PROVIDER:NAME[(TYPES)]                 (with -p or -c only)

and, as bpftrace and bcc users type them:

	sdtkit                  bpftrace                    bcc (trace, argdist)
	PATH:PROVIDER:NAME      usdt:PATH:PROVIDER:NAME     u:PATH:PROVIDER:NAME
	PATH:PROVIDER:NAME      usdt:PATH:NAME, /PATH:NAME  u:PATH:NAME
	PATH:PROVIDER:{a,b}     usdt:PATH:PROVIDER:{a,b}
	-p PID PROVIDER:NAME    -p PID usdt:*:PROVIDER:NAME

A form without PROVIDER selects the one provider with a probe NAME; when
several have one, it is an error that lists them. A first part with '/'
is always a PATH (with -p too: /usr/bin/python3.11:gc__start).

PROVIDER and NAME are globs (as in path.Match), with brace alternatives
({start,done}). Glob characters in PATH are literal. PATH names an executable or
shared library; a bare name without '/' is looked up as a shell finds a
command ($PATH) or the dynamic loader a library ($LD_LIBRARY_PATH,
/etc/ld.so.conf, the system directories); a library's .so that is not an
ELF file (a -dev package's linker script) is passed over for the versioned
file the loader maps, and a command that is a #! script is an error that
names its interpreter. Without -p, a PATH probe is
traced in every process that runs the file or maps it, also processes
started and libraries loaded with dlopen after sdtattach attached.

TYPES lists one type per argument, separated by commas: str (the argument
points to a NUL-terminated string, shown as a JSON string), strN (a string
of the length that argument N holds, counting from 0, for runtimes that
pass a pointer and a length: hotspot:class__loaded(str1,u32,hex,u8) for
the JVM), s8, s16, s32,
s64, u8, u16, u32, u64 (the low bytes of the value, as a signed or unsigned
integer), hex (the value as an unsigned integer of the argument's size, in
a JSON string such as "0x7f"), or _ (the argument is left out). Arguments
past the end of the list are shown as the probe's note describes them: an
integer of the note's size and sign.

Every site of every matching probe is attached, with one uprobe_multi link
per file (Linux 6.6) or one uprobe per site, at the address its note
gives (sdtlist's pc_offset). That is the 1-byte nop of libbpf's pairs,
a 1-byte nop then a 5-byte or 10-byte one (sdtlist's insn nop+nop5 and
nop+nop10), also where the kernel optimizes uprobes on the 5-byte nop:
Linux 6.18 turns such a uprobe into a call, which writes below the
stack pointer, over data that the code around the site may keep there
(the x86-64 red zone); on the 1-byte nop the kernel traps, touching
nothing of the process's memory. A site that is a 5-byte nop alone
(insn nop5), as package sdt places its probes where the kernel
optimizes them, is attached there: a probe's function keeps nothing
below its stack pointer. The kernel raises the
semaphore of an is-enabled probe while it is attached, in every process
that maps the file, and lowers it when sdtattach exits, also when it is
killed. Flags may come before or after the probes:

	-p PID
		Trace process PID only. PROVIDER:NAME searches every object the
		process maps; PATH:PROVIDER:NAME an object it maps that is the
		file PATH resolves to (also seen from inside the process's mount
		namespace), whose path is PATH, or, for a bare name, whose base
		name is PATH with or without a version suffix (libwork and
		libwork.so match libwork.so.1), as sdtsema -p matches it; or
		else the file PATH resolves to, which the process may load
		later. sdtattach exits when the process exits.
	-c 'CMD ARGS'
		Run CMD with ARGS and trace it from its first instruction, as -p
		traces a process (see Commands below). CMD ARGS is split at
		blanks, as bpftrace -c splits it, without a shell: no quoting,
		no expansion. CMD without '/' is looked up in $PATH.
	-f
		With -c, trace the processes the command starts too, forked
		or run, and what they execute, as strace -f follows them, until
		the last of them has exited (see Commands below).
	--cmd-stdout FILE
		Write the standard output of the -c command to FILE, created or
		truncated, instead of sdtattach's standard error.
	-n N
		Exit after writing N events. Every event written counts,
		whichever probe and process it comes from: without -p, that is
		the events of every process that runs or maps the files, not
		only of the first one to fire.
	-d DURATION
		Exit after DURATION, such as 500ms or 1m.
	--types FILE.d
		Read argument names and types from a DTrace provider file, as
		used by dtrace -h and -G (see package pkg/dtrace). Arguments
		declared char * are shown as strings, integers with the size and
		sign of their C type, other pointers in hex; types given in the
		PROBE take precedence. Events then carry "fields".
	--attach-only
		Attach everything, print one summary line, detach and exit.
	--strlen N
		Keep at most N bytes of a string argument (default 64, at most
		254).
	--ustack
		Put the user stack of the thread at the probe in each event, as
		"ustack", symbolized (see below). The kernel walks the stack by
		its frame pointers, as bpftrace's ustack and perf's default
		call graph do: code built without them (most distributions'
		binaries and libraries, gcc -O2 on x86-64) gives stacks that
		miss frames or end early, and so does a probe in a function
		that sets up no frame, whose caller is left out. With either
		backend (with --backend tracefs, the kernel walks them for the
		perf events, as perf record -g does); with --count, --hist,
		--stats or --latency, only with --by ustack, whose stacks it
		takes (see --by).
	--ustack=dwarf
		Take the stacks as perf's --call-graph dwarf does: copy the
		registers and the top of the user stack at each hit, and unwind
		the copy here by the .eh_frame (or .debug_frame) of the code,
		falling back to frame pointers for a frame no FDE covers
		(package unwind). Code built without frame pointers unwinds
		right; frames whose return address lies above the copy are left
		out. It costs more: on a loaded 2-core virtual machine whose
		uprobe trap costs about 7 us, a hit took 1.2 to 2.8 times as
		long as with --ustack (an 8 KiB copy per event), and sdtattach
		about 6 times the CPU per event, so --ustack walks frame
		pointers by default. --ustack=fp names the default. With
		--backend tracefs the perf events copy the registers and the
		stack (x86-64 and arm64), unwound here the same way. With
		--by ustack, the kernel cannot group by these stacks: each hit
		is streamed with its copy, and its stack unwound and counted
		here (see --by).
	--ustack-size BYTES
		With --ustack=dwarf, copy at most BYTES of the stack at each hit
		(default 8192, perf's default; at most 16384). The frames
		whose return address lies above the copy are left out:
		python3.11's probes fire 7.5 to 10 KiB below _start, and
		about 1 KiB further for each call back into the interpreter
		from C, which --ustack-size 16384 holds.
	--ustack-depth N
		Keep at most N frames of a stack (default and most 127); alone,
		it implies --ustack; with --by ustack, it bounds those stacks.
	--debug-dir DIR
		Look for the separate debug files of stripped files under DIR
		instead of /usr/lib/debug, as gdb's debug-file-directory: by
		build-id, DIR/.build-id/xx/rest.debug, then by the name and CRC
		that .gnu_debuglink gives, in DIR followed by the file's
		directory. Repeated, each DIR is searched in turn. Their
		symbols serve the arguments that name a symbol (a static,
		such as glibc's 8@32+mp_(%rip)) and the frames of --ustack.
	--bufsize BYTES
		Size the ring buffer that carries events from the kernel at
		BYTES, a power of two of at least the page size and at
		most 1073741824, 1 GiB (default
		4194304, 4 MiB: about 30 ms of a probe firing 2 million times
		a second, for when sdtattach is kept off the CPU; with
		--ustack=dwarf, whose events carry their copies of the stack,
		room for 4096 of them, rounded up to a power of two, and at
		most 64 MiB: 64 MiB for the default --ustack-size). A probe
		that fires faster than sdtattach writes fills it; events that
		find it full are lost and counted. With --backend tracefs each
		CPU has a ring buffer of BYTES.
	--filter EXPR
		Keep only the hits for which EXPR holds, tested in the kernel
		before anything else, streaming or counting (see Filters below),
		such as 'arg0 >= 400 && comm == "nginx"'.
	--count
		Count the hits of each probe (and --by key) in the kernel, and
		write counts instead of events (see Aggregations below).
	--hist ARG
		Draw a log2 histogram of ARG, argN or a --types field, per probe
		(and --by key) in the kernel, with the buckets of bpftrace's
		hist().
	--stats ARG
		Keep the count, sum, least, greatest and mean of ARG per probe
		(and --by key) in the kernel.
	--latency START,END[,KEY]
		Pair each hit of a START probe with the next hit of an END probe
		that has the same KEY (pid, tid, comm, argN or a --types field,
		a number or a string; the thread if not given), in the kernel,
		and draw a log2 histogram and stats of the nanoseconds between
		per END probe (and --by key, read at the END), as bpftrace's
		@s[tid] = nsecs; ... hist(nsecs - @s[tid]) does. Without PROBEs,
		START and END are the PROBEs to attach, in PROBE's syntax; with
		PROBEs, they are patterns over the probes attached, PROVIDER:NAME
		or NAME, and each probe must be START, END or both (see
		Latencies below).
	--by KEY[,KEY...]
		Group --count, --hist, --stats or --latency by up to 8 keys: pid, tid,
		comm, argN, or a --types field; an argument typed str (or
		declared char * in the --types file) is grouped by its string,
		cut at --strlen bytes. ustack groups by the thread's user stack
		(with --latency, the END's), in the kernel, as bpftrace's
		@[ustack] = count() does: the kernel walks it by its frame
		pointers (see --ustack) and keeps each distinct stack in a map
		of --max-keys stacks of --ustack-depth frames, allocated whole
		when attached (10240 stacks of 127 frames: 10 MiB), which holds
		the stacks of the whole trace; the pid is then a key too,
		hidden unless given, to symbolize each stack in its process, and
		records of the same symbolized stack are one. A stack that
		cannot be taken (another in its place in the map, the map full,
		no user stack) is counted under a null ustack, and said so at
		exit. Not with --listen. With the tracefs backend, the perf
		events take the stacks and sdtattach groups the hits by them.
		A field named ustack is grouped by as its argN.

		With --ustack=dwarf (sdtattach --count --by ustack
		--ustack=dwarf, as perf record --call-graph dwarf), the stacks
		are unwound by .eh_frame instead, right for code built without
		frame pointers, and the hits are counted here: each is streamed
		as an event with its copy of the stack (see --ustack=dwarf),
		whose stack is unwound and grouped by its addresses and process,
		up to --max-keys stacks for the whole trace, as in the kernel;
		the records are the same. A hit whose event found the ring
		buffer full is counted in its probe's lost, as a hit that
		finds the map of keys full is, and the number of those is said
		at exit (a larger --bufsize, a smaller --ustack-size or fewer
		hits).
	--interval D
		With --count, --hist, --stats or --latency: write the records
		and start anew every D, such as 1s. Without it, they are written
		once, at exit.
	--max-keys N
		With --count, --hist, --stats or --latency: count at most N keys
		per interval (default 10240; with --hist and --latency a key
		takes one entry per bucket that holds values), and with
		--latency let at most N STARTs wait for their END. Hits of a new
		key that find the map full, and STARTs that find no room to
		wait, are counted, per probe, and reported as lost.
	--listen HOST:PORT
		With --count, --hist, --stats or --latency: serve them as
		Prometheus metrics on http://HOST:PORT/metrics (see Metrics
		below). An empty HOST, as in :9435, is the loopback 127.0.0.1,
		not every interface: give 0.0.0.0:9435 or [::]:9435 to serve
		other hosts.
	--max-series N
		With --listen: keep at most N --by key values, all probes
		together (default 10000); what the others count goes to the
		probe's series whose key labels are empty.
	-h
		Print the usage and exit.

Each event is a line with these fields, in this order:

	ts         time of the hit, in nanoseconds since the Unix epoch
	pid        the process (thread group) ID
	tid        the thread ID
	comm       the thread's command name
	cpu        the CPU the probe fired on
	provider   the probe's provider
	name       the probe's name, as in its note ("__" is kept)
	args       the arguments in order, without those typed _: integers as
	           JSON numbers, strings and hex values as JSON strings,
	           floating-point values as numbers; null for an argument
	           that could not be read
	fields     with --types, for probes the file declares: an object of
	           the same values by argument name (argN for an unnamed
	           argument), in argument order
	truncated  present only when a string was cut at --strlen bytes: the
	           positions in args of the cut strings, from 0
	ustack     with --ustack: the thread's user stack, innermost first,
	           starting at the probe, an array of frames:
	           {"addr":N,"sym":"inner","off":12,"file":"/usr/bin/prog",
	           "file_offset":N,"build_id":"5e1f..."}: addr, the run-time
	           address; sym and off when a symbol is known (from the
	           file's symbol tables, its MiniDebugInfo, a debug file
	           found by build-id or debuglink, Go's pclntab, or a JIT's
	           perf map); file and file_offset when a file is mapped
	           there (as /proc/PID/maps names it); build_id when it has
	           one. Stacks reach sdtattach up to 100 ms after the hit,
	           and are symbolized by the maps of their process read at
	           its first stack, when an address lies outside them, at
	           attach for -p and -c, and, for -c, at each stop in the
	           dynamic loader (see Commands): a process that has exited
	           by then keeps the maps last read, its files read by
	           their paths, so that the stacks of a -c command's last
	           hits are whole, its libraries' frames included; those of
	           a process seen first after its exit keep bare addresses.

ts has 19 digits, more than a double holds exactly: jq 1.6 (Debian 12,
Ubuntu 22.04) rounds it silently to a multiple of 256 ns, even in the
events it only passes on, and later versions subtract in doubles.
docs/ci.md shows how to order events and subtract their times exactly
with jq: split ts, as text, into seconds and nanoseconds.

The pid and tid of events, of --by keys and of --filter are those of
sdtattach's own PID namespace, as -p takes them and as its /proc shows
them: in a container, the container's, and from the host, the host's,
also for a process in a container. A thread that has no pid in
sdtattach's namespace, or whose own namespace is nested in it (a
container started from inside sdtattach's), shows pid and tid 0: outside
the initial namespace the kernel gives a BPF program the ids of a
thread only in the namespace the thread is in. Where /proc is not
mounted, sdtattach cannot tell its namespace and shows the host's ids.
-c refuses to start its command where /proc is that of another PID
namespace (unshare --fork --pid without --mount-proc), in which the
command's pid names another process.

When events are dropped because the ring buffer was full, a line
{"lost":N} says how many, where the loss was noticed, at most every 100ms
and once more before exiting. The N of all such lines add up to the
number of lost events in the summary: until sdtattach stops, every hit of
an attached probe is either written or counted as lost.

# Backends

--backend auto, the default, traces with BPF where it can be used, and
with tracefs where it cannot: when the kernel lacks what the BPF program
needs (BPF, ring buffers), or its verifier refuses the program (a limit
of that kernel's verifier), or loading it is not permitted (a seccomp
filter or a security module that forbids bpf(2) to root), while
uprobe_events may be written. It then says so on stderr, with the cause:

	sdtattach: BPF is not permitted (load: ...); tracing with --backend tracefs

Before Linux 5.15, which brought BPF cookies, the BPF program tells the
probe sites apart by their address, which is known for an executable
that is not position-independent, and for every file of a process traced
with -p or -c, and with -f of each of the command's descendants, whose
addresses are read as each stops in the dynamic loader after it executes
a program or loads a library; it is not for a position-independent
executable (PIE) or a library traced by PATH in every process, which
--backend auto then traces with tracefs, saying why, and --backend bpf
refuses; so is --filter, whose interpreter the verifier of those kernels
cannot check. Where auto traces with BPF by address, it
says so:

	sdtattach: kernel without BPF cookies (Linux 5.15): tracing with the BPF backend, which tells the probe sites apart by their address

Without privilege no backend is tried but BPF: tracefs needs it too.
--backend bpf and --backend tracefs force one.

--backend tracefs traces without BPF, through the kernel's uprobe_events
(package tracefs): each site is defined as a uprobe probe in a group of
sdtattach's own, sdtkit_PID, the sites whose fields are laid out alike
sharing one event, and enabled by perf events, which end with the
process; a keeper process opens them and holds them too, so that after
any exit, SIGKILL included, the sites are their original instructions
again and the semaphores lowered. The
definitions left by a SIGKILL are removed by the next run. Events are
the same as with BPF, with these differences: an argument with no fetch
argument form (memory indexed by a register, a floating-point value, a
symbol plus a register in a PIE) is null, with a warning; a number in
memory that cannot be read is 0; a strN string also ends at its first
NUL; a 32-bit program's string whose pointer is in memory is null, with
a warning, when the 4 bytes after the pointer are not 0 (a 64-bit kernel
reads a pointer in memory as 8 bytes, and no fetch argument reads 4);
events are in time order per CPU only; PROVIDER:NAME is not
searched in the libraries a -c command loads later. -p, -c, -f, -n, -d,
--types, the argument types, --filter, --attach-only, --ustack (the
user part of the perf events' callchain, PERF_SAMPLE_CALLCHAIN) and
--ustack=dwarf (their copy of the stack and registers,
PERF_SAMPLE_STACK_USER and PERF_SAMPLE_REGS_USER, with the mappings
the process makes, PERF_RECORD_MMAP2, by which the frames of a command
that exits before its stacks are read are placed) work as with BPF, and so do --count, --hist, --stats and --latency, with --by,
--interval, --max-keys and --listen: the same records, counted in
sdtattach from every event rather than in the kernel (each hit costs its
event, a ring buffer that overflows loses hits, which the summary
counts, and --filter drops events in sdtattach, not in the kernel),
--by ustack included, grouped by the stacks the perf events take. A
--latency pairs STARTs and ENDs in time order across CPUs: events are
held back for 150 ms and sorted before they are paired.

# Commands

With -c, sdtattach starts the command stopped before it runs any
instruction of its own: the child asks to be traced (ptrace) and
executes CMD, and the kernel stops it once execve has succeeded, with
the program and the dynamic loader mapped (see package pkg/launch).
sdtattach then resolves the probes as for -p, in the program, the
dynamic loader and the shared libraries the loader will map (those of
$LD_PRELOAD and the DT_NEEDED entries of the program and of its
libraries, found as the loader finds them: DT_RPATH, $LD_LIBRARY_PATH,
DT_RUNPATH, /etc/ld.so.conf, the system directories), attaches to all of
them with a filter on the command's pid, and lets the command run. The
kernel puts the breakpoints in, and raises the semaphores of, each
library as the loader maps it, so that probes fired in the first
instructions of main, behind a semaphore or not, are traced. A
PATH:PROVIDER:NAME probe may name a library the command loads later
with dlopen. PROVIDER:NAME searches such libraries too, with the BPF
backend, streaming, aggregating or filtering: sdtattach stops the
command with SIGSTOP in the
dynamic loader's _dl_debug_state, which the loader calls for debuggers
once dlopen has mapped and relocated a library, before its
constructors run and before dlopen returns (a uprobe there runs a BPF
program that sends the signal). It attaches to the matching probes of
the objects mapped since, and lets the command run on with SIGCONT; a
probe fired by a constructor or right after dlopen returns is traced.
A statically linked command, its own dynamic loader, is stopped so in
its own _dl_debug_state, when its symbols name it; one whose symbols
do not (stripped, or built without a libc that has dlopen) has no
loader to follow, and is traced without a word about dlopen.
Each change to the loader's list of objects (two at its start, two for
each dlopen and dlclose) stops the command while sdtattach reads the
notes of the objects mapped since the last stop (a stop that maps
nothing new reads the maps alone): a dlopen and dlclose of a small
library took 0.5 ms here, against 36 µs untraced and 49 µs traced with a
PATH:PROVIDER:NAME probe of the library, which does not stop the command
(scripts/bench, part launch). A PROVIDER:NAME probe that
no object of the command has at its start is then no error, but a
warning:

	sdtattach: plug:fire: no probe plug:fire in /work/prog; near matches: main:start; attached if the process loads a library that has it

A sdtattach killed by SIGKILL while the command is stopped so leaves
it stopped no more than it leaves a site patched: a guard process
(named sdtkit-keeper, as the keeper of the uprobes) makes and holds the
uprobe that stops it, in every process that maps the loader with -f,
and once sdtattach has exited it lets the uprobe go and sends the
command SIGCONT (with -f, every stopped process of the cgroup). Should
the guard itself be killed, the uprobe goes with it: sdtattach says so,
and traces on without following dlopen.

With --ustack or --by ustack, sdtattach -c follows the dynamic loader
so, with the BPF backend, even when every probe names its file: at
each stop it reads the command's maps for its stacks, before the
command runs on. The loader's stop once it has mapped the libraries of
the command's start (libc among them) reads theirs, and each dlopen
those of the libraries it maps, so that a command that exits within
the time its last stacks take to reach sdtattach, as a short command
does, has them symbolized whole. Code mapped otherwise than by the
loader (a JIT's, a file the program maps itself) is symbolized only
while the process lives. --backend tracefs, which does not follow the
loader, reads the command's maps at its start and again for an address
in none of them: the frames of the libraries of a command that has
exited before its stacks are read stay bare addresses.

A probe of such a library gets --filter compiled for it, and its keys
and value (--by, --hist ARG...) checked, when the library is loaded: a
probe that lacks an argument or field they name is not attached, with a
warning:

	sdtattach: /usr/lib/libplug.so: plug:fire: loaded by process 4242, not attached: arg2: the probe has 1 arguments (arg0 to arg0)

A --by key that a PROVIDER:NAME probe types str (plug:name(str)), or
that --types declares a string, has room for a string from the start.

--backend tracefs does not follow dlopen, for stopping a thread in the
dynamic loader takes a BPF program: with it, a PROVIDER:NAME probe must
be in the command's objects at its start (sdtattach says so); name the
libraries it loads later by PATH:PROVIDER:NAME.

Without -f, only the command's process is traced, not the processes it
starts: the kernel filters the uprobes by its pid, as with -p.

With -f, its descendants are traced too. sdtattach makes a cgroup v2,
sdtattach-NS-PID-N (NS the inode of its PID namespace, PID its pid), a
child of its own cgroup (on a hybrid system in the cgroup2 file system
at /sys/fs/cgroup/unified), and the kernel starts
the command in it (CLONE_INTO_CGROUP, Linux 5.7); every process it
forks is born there, whatever it executes. The uprobes are attached
without the pid filter, and the BPF program drops, first thing, every
hit of a thread outside that cgroup (bpf_get_current_cgroup_id). A
child that executes another program is traced in it when a probe names
it by PATH:PROVIDER:NAME, or when it is the program or a library of the
command. PROVIDER:NAME searches, with the BPF backend, the objects of
every process of the command: each descendant that runs a dynamically
linked program is stopped, as the command is for dlopen, when the
dynamic loader has mapped the program and its libraries, before main,
and again for each library it loads later, so that the probes of what
it runs are attached before they can fire. (The uprobe that stops them
is on the dynamic loader: it fires in every process that loads or
unloads a library while sdtattach runs, for about a microsecond, and
stops only those of the command.) A descendant that moves itself to
another cgroup is no longer traced.

With --backend tracefs, -f enables the events for every process, as
the BPF backend attaches without the pid filter, with the same cost to
the other processes that map the files; each record carries the cgroup
of its thread (PERF_SAMPLE_CGROUP), and those of other cgroups are
dropped. That cgroup is the one of the thread's perf_event controller,
which cgroup v2 gives every cgroup implicitly, but which a kernel gives
the cgroups below its root only once something (systemd, at boot) has
written the root's cgroup.subtree_control: where nothing has, sdtattach
enables a controller there and disables it again, and says so; where
perf_event is on a cgroup v1 hierarchy, -f fails. A descendant that executes a statically linked program is
searched for PROVIDER:NAME by neither backend (it has no dynamic
loader to stop it in): name its probes by PATH:PROVIDER:NAME.

That costs the other processes on the system: without the pid filter,
the kernel puts the breakpoints in every process that maps the files
while sdtattach is attached (for a probe of libc, every process), and
raises the semaphores of is-enabled probes there; each of their hits
traps into the kernel, about a microsecond, before the program drops
it. Name the program's own files rather than a busy shared library
where that matters.

As strace -f does, the trace ends when the last process of the cgroup
has exited, the command or a descendant that outlived it, not when the
command exits: sdtattach watches the cgroup's cgroup.events file, which
says "populated 0" once it is empty. The exit status is still the
command's. When the trace ends first (a signal, -n, -d), every process
left in the cgroup gets SIGTERM, the command and its descendants, and
sdtattach waits until none is left; a further SIGINT, SIGTERM or SIGHUP
kills them all with SIGKILL (cgroup.kill, Linux 5.14). The cgroup is
then removed. A process that could not be removed from it in time (one
forking faster than it is moved) is moved to sdtattach's own cgroup,
where it would have run without -f, and sdtattach says how many:

	sdtattach: -f: 2 processes of the command still run, untraced; moved out of /sys/fs/cgroup/sdtattach-4026531836-4242-1951

A sdtattach killed by SIGKILL leaves the cgroup, which the next
sdtattach -f of the same PID namespace removes once its processes have
ended (the cgroups whose sdtattach is gone and that are empty); the
command then gets
SIGTERM, and its descendants run on. -f needs a writable cgroup2 file system (root, or a
delegated cgroup); a cgroup that cannot be made is an error before the
command runs.

The command inherits sdtattach's standard input, standard error and
environment; its standard output is sdtattach's standard error, so that
standard output carries events only, or the --cmd-stdout FILE (give
/dev/stdout to mix them).

sdtattach exits when the command exits (with -f, when the last process
of its cgroup exits), after writing every event, with
the command's exit status, or 128+N when signal N killed it, as a shell
reports it and strace does; an error of sdtattach's own gives 1 or 2 as
usual. When the trace ends first (SIGINT, SIGTERM or SIGHUP, -n, -d),
sdtattach detaches, writes the events still in the ring buffer, sends
the command SIGTERM, as bpftrace -c does, and waits for it: a further
SIGINT, SIGTERM or SIGHUP kills it with SIGKILL. If sdtattach is killed
before the command was let run, the command is killed (it never runs
untraced); after, it gets SIGTERM. The probes are removed in either case,
as always.

A command that cannot be run is an error before anything is attached:
not found, exit status 127; found but not executable, or not a program
the kernel can run, 126, as in a shell:

	sdtattach: -c: nosuchcommand: command not found
	sdtattach: -c: ./notes.txt: permission denied

# Aggregations

With --count, --hist, --stats or --latency no event leaves the kernel: every hit
adds to the entry of its probe and key in a map, and at the end of
every --interval, and at exit (on SIGINT, SIGTERM or SIGHUP, at the -d
duration, or when the -p process exits, after detaching), sdtattach
writes one line per probe and key that counted something, and empties
the map. There are two maps, and the hits go to one while the other is
read, switched so that every hit is in exactly one interval's records:
none is lost or counted twice. The lines are the records of package
pkg/aggregate (see its documentation), with these fields in this order:

	ts        the end of the interval, in nanoseconds since the Unix epoch
	provider  the probe's provider
	name      the probe's name
	hist      with --hist, its ARG
	stats     with --stats, its ARG
	by        with --by, an object of the keys in the order given and
	          their values: numbers as events show them, comm and string
	          arguments as strings, ustack as the frames of "ustack" in
	          events (innermost first), null for a value that could not be
	          read (a stack, taken)
	count     the hits; with --hist and --stats, the values counted
	unread    hits whose ARG could not be read, when there are some
	buckets   with --hist, the buckets that hold values, in order:
	          {"lo":..,"hi":..,"count":..}, lo inclusive, hi exclusive
	sum, min, max, mean
	          with --stats, of the values (mean rounded toward zero)

and for --latency (see Latencies below) these, after name:

	latency   the KEY STARTs and ENDs pair by
	from      in the record of an END probe: START as PROVIDER:NAME, or NAME when START names no provider
	to        in the record of a START probe: END, the same way
	by        in the record of an END probe, with --by
	count     END: the pairs it ended; START: its hits
	unread    hits whose KEY (or --by key) could not be read
	pending   START: the STARTs waiting for their END when the
	          interval ended
	unmatched END: the hits that found no START waiting
	buckets   END: the latencies in nanoseconds, as for --hist
	sum, min, max, mean
	          END: of the latencies, when count > 0

For example:

	{"ts":1718000000123456789,"provider":"fire","name":"hit","by":{"pid":42},"count":1000000}
	{"ts":...,"provider":"fire","name":"hit","hist":"arg0","count":3,"buckets":[{"lo":0,"hi":1,"count":1},{"lo":2,"hi":4,"count":2}]}
	{"ts":...,"provider":"app","name":"begin","latency":"tid","to":"app:end","count":6,"pending":1}
	{"ts":...,"provider":"app","name":"end","latency":"tid","from":"app:begin","count":5,"unmatched":1,
	 "buckets":[{"lo":4194304,"hi":8388608,"count":5}],"sum":23000000,"min":4400000,"max":4800000,"mean":4600000}

Hits of a new key that find the map full (see --max-keys) are counted,
and written as {"ts":..,"provider":..,"name":..,"lost":N} after the
probe's other records; so are, with --by ustack --ustack=dwarf, the hits
whose events found the ring buffer full (see --bufsize). The summary on
standard error gives the hits counted and lost. sdtfmt renders these
lines as it renders its -c, --hist and --latency summaries. A key or ARG that a probe does not have (an argN past
its last argument, a field its --types declaration lacks), or a string
as ARG, is an error before anything is attached, which names the key
and the probe, with exit status 2. A key takes at most 184 bytes: 8
per number, 16 for comm, and --strlen plus one, rounded up to 8, per
string; so does the KEY of --latency.

# Latencies

--latency START,END[,KEY] keeps, in the kernel, the time of each START
hit in a map under its KEY, which replaces a START of the same KEY still
waiting. An END hit takes the START waiting under its own KEY out of the
map and adds the time between, in nanoseconds, to the histogram of the
END probe and --by key; an END that finds none is counted as unmatched,
unless its probe is a START too, which then only waits. A START waits
across intervals, so a pair is counted in the interval of its END; the
STARTs still waiting at exit are the pending of the last records. Two
ENDs of one KEY on two CPUs at once take a START once; a START of a KEY
that comes between an END's taking of the START of that KEY and its
removal from the map (a few instructions, on another CPU) is lost to it,
which pairing by thread, the default, rules out.

	sdtattach -p 4242 --latency postgresql:query__start,postgresql:query__done
	sdtattach --latency ./server:app:begin,./server:app:end,arg0 --by comm
	sdtattach -p 4242 --latency begin,end,id --types app.d 'app:*'

# Metrics

--listen serves the aggregations on an HTTP endpoint, /metrics, in the
Prometheus text format, or OpenMetrics for a client that asks for it
(Accept: application/openmetrics-text), for a Prometheus server, or
anything that scrapes either, to collect. Every scrape reads and empties
the kernel's maps, as the end of an --interval does, and adds what they
counted to totals kept since attaching: counters only grow while the
probes stay attached, processes that run the files come and go (without
-p, sdtattach stays up), and each hit is counted once. Reading the maps
at the scrape is why this is a flag of sdtattach rather than a tool fed
by its NDJSON: a scrape sees every hit until it, and nothing runs
between scrapes.

	sdtattach --listen :9435 --count --by comm /usr/bin/python3.11:python:function__entry
	sdtattach --listen :9435 --latency ./server:app:begin,./server:app:end

The metric families, their labels, the buckets and the limits are those
of package pkg/metrics: sdt_probe_hits_total (--count),
sdt_probe_value (--hist), sdt_probe_value_stats, _min and _max (--stats),
sdt_probe_latency_seconds, sdt_probe_latency_unmatched_total,
sdt_probe_latency_starts_total and sdt_probe_latency_pending (--latency),
sdt_probe_lost_total and sdt_probe_unread_total, with the labels provider,
probe, binary (the file as sdtattach shows it: give absolute PATHs for a
fleet), arg (the value of --hist and --stats) and one per --by key, named
as the key is, but key_NAME for a NAME that the labels above take, that
Prometheus gives a meaning (le, quantile, and those that begin with __),
or that begins with a digit: a --types field le is the label key_le. Two
keys that would have the same label, such as the fields le and key_le,
are a usage error. The series of a pid or tid key goes once the process
or thread has exited and a scrape has shown its last hits, however many
--interval end between two scrapes.

With --listen, standard output stays empty unless --interval is given;
then it has the records of every interval as usual, where a scrape also
ends an interval, so that each hit is in exactly one record there too.
An address that cannot be listened on is an error before anything is
attached. At most 16 connections are served at once: the one idle the
longest is closed to make room for the next, or when none is idle, more
wait to be accepted; a request must come within 10s, its response go
within 1m, and a connection that sends no request for 30s is closed. A
scrape that fails is answered with status 500 and the error, which is
logged on the standard error too. On SIGINT, SIGTERM or SIGHUP, at the
-d duration, or when the -p process exits, sdtattach detaches, lets the
scrapes in progress end (at most 5s), and exits; see docs/fleet.md for
running one per host.

# Filters

--filter EXPR is the expression language of package pkg/filter (see its
documentation), checked against every probe before anything is
attached. A comparison sets a key against a literal: pid, tid, comm,
argN (from 0) or a --types field name, compared with ==, !=, <, <=, >
and >= to an integer, signed when the argument's type (TYPES, --types,
or else its note) says so; comm and string arguments (str, strN, char *
in --types) compared with == and != to a string in double quotes, which
is a prefix when it ends with *, as probe names are globs:

	arg1 == "GET"        the string is GET
	arg1 == "GE*"        it begins with GE ("\*" is a star)
	comm != "postgres"
	pid == 42 && (arg0 < 0 || !(arg2 == "/health*"))

Comparisons combine with && and || (&& binds tighter), ! and
parentheses; a comparison on an argument that cannot be read is false.
The expression is compiled to a short program (at most 32 comparisons
and operators) that the BPF program runs on every hit, right after the
registers are read and before an event is made or a key counted: a hit
that fails costs the test only, is not written, is not counted and is
not lost. A malformed expression, a key a probe does not have, or a
string compared with a number is an error that gives the column of the
offending token and the probe, before anything is attached, with exit
status 2:

	sdtattach: --filter: column 13: arg9: ./app:p:n: the probe has 3 arguments (arg0 to arg2)

The --attach-only line has:

	probes      the number of probes (provider and name in one file)
	sites       the number of probe sites attached
	semaphores  the number of distinct semaphores the kernel raised
	files       the files attached to
	pids        the processes that map one of the files, as found while
	            attaching (with -p, that process)

An argument whose operand cannot be read (a floating-point register, a
symbol that neither the file nor its debug file defines, a static of one
name in several source files that the site's own file does not tell
apart) is shown as null in every event,
and reported once on standard error. So is an argument that cannot be read
at run time: a bad pointer, or, on kernels before 6.0 (no sleepable uprobe
programs) and when aggregating, memory the process has not touched yet (a
string constant on a page never read), which the BPF program reads with
page faults disabled; elsewhere it faults such memory in, as the tracefs
backend does.
Messages name arguments argN, counting from 0 as TYPES and args do: arg0
is the first.

Output is buffered and flushed at least every 100ms, so that a consumer on
a pipe sees events promptly. On SIGINT, SIGTERM or SIGHUP, at the -n count or the -d
duration, or when the -p or -c process exits, sdtattach detaches, writes the
events still in the ring buffer (not past the -n count), prints a summary
on standard error (the number of events written and lost, the probe hits
that made no event for another reason than a full ring buffer if there
were any, and the events of each probe) and exits 0 (with -c, with the
command's status: see Commands). Hits while the probes
are being detached are written like any other.

The uprobes are made, held and removed by a child process named
sdtkit-keeper, which no signal of sdtattach's reaches: whenever sdtattach
ends, SIGKILL included and at any point of attaching, the keeper finishes
what it was doing, removes the uprobes, and exits, so that every probe
site is its original instruction again and every semaphore its previous
value. When sdtattach has exited (status 0 or 1, not killed), no site it
patched is still patched and no semaphore it raised is still raised, in
any process: it waits until the kernel has removed the breakpoints, but
not for the kernel's grace periods after that (10 to 30 ms), which the
keeper waits out alone before it exits, where it can see the removal
(probes attached in every process that maps their files, on Linux 6.6 or
later); elsewhere it waits for the keeper's exit.

The keepers may be killed too (kill -9 of every process named sdt*). A
keeper killed once its uprobes are made, or while it removes them,
leaves nothing either: it removes them by exiting, which the kernel
completes whatever signal comes. A keeper killed while the kernel makes
its uprobes can leave sites armed and semaphores raised in the processes
the kernel had reached: it journals each file's sites in
/run/sdtkit/uprobes before it attaches them, and sdtrepair -p PID
restores the sites and lowers the semaphores they raised. Killed
together with sdtattach -c or -f, the guard that lets run on the
processes stopped in the dynamic loader can leave one stopped: its
journal names what it guards, and sdtrepair -p PID sends it SIGCONT. As root, the
keepers are passed over by the OOM killer. The tracefs backend's keeper
holds perf events, which a kill of it while it opens them (or of
sdtattach as it closes its own copies, once the keeper is gone) can
leave the same way; it journals its sites too, and sdtrepair also
removes the event definitions of a sdtattach that is gone, as the next
sdtattach --backend tracefs does. Worse, on Linux 6.12 and 6.18 at
least, a kill of the tracefs backend's keeper while the kernel
registers the uprobe of a perf event can crash the kernel: the
registration's rollback fails under the fatal signal, the kernel leaks
the uprobe ("failed to unregister, leaking uprobe") with a consumer it
then frees, and the next hit of the site dereferences it
(uprobe_dispatcher). Kill sdtattach, not its keepers.

Every operand form that compilers give probe arguments is read:
registers, memory, base+index*scale, constants, and globals, whether
rip-relative, at an absolute address (non-PIC code, arr(,%eax,4)) or
relative to the GOT (PIC code, g@GOTOFF(%ecx)), relocated for each
process. The symbols come from the file's .symtab and .dynsym, or, in
a file stripped of .symtab (Debian's libc.so.6), from its debug file
(--debug-dir), its MiniDebugInfo and .dynsym; a static defined in
several source files, static long counter in a.c and in b.c, is the one
of the source file whose local function holds the site, as the STT_FILE
entries of the symbol table group them. On x86-64,
32-bit x86 programs are traced too.

When no argument is read as a string, sdtattach loads a smaller BPF
program that reads numbers only: it attaches faster and costs the traced
process less per hit.

PATH must be a regular file: a named pipe or a device is an error, at
once. The notes are read as sdtlist reads them: at most 256 MiB of notes
from a file, and of a file's malformed notes the first 10 are reported
on standard error, then their count. The probes of the
notes that could be decoded are attached and traced as usual, but
sdtattach then exits with status 1, after its summary, as sdtlist does
and as a tracer that refuses such a file would: the trace may lack
probes the file meant to have. At most 1,048,576 probe sites are
attached; more is an error before anything is attached.

SIGINT and SIGTERM end sdtattach at any time: while it still reads files,
a --types file (which may be a named pipe, as bash's <(...) gives) or
the maps of processes, it exits with status 1 without attaching (with -c,
after killing the command, which never ran).

Tracing needs root, or CAP_BPF and CAP_PERFMON, and Linux 5.8 (BPF ring
buffers) built with uprobes (CONFIG_UPROBE_EVENTS), 5.15 (BPF cookies) for
position-independent files traced by PATH in every process or with -f, and
for --filter (see Backends); --backend
tracefs needs no BPF but root, or CAP_PERFMON and write access to tracefs
(its files are root's), and Linux 4.20 for semaphores (reference
counters); before Linux 5.7 (events of several probes, immediate fetch
arguments) each site is an event of its own, and ending takes longer,
the kernel waiting for an RCU grace period per event; -p needs the right to read the process's maps. A kernel that lacks a feature gives an
error that names it and the Linux version that added it. A probe that
matches nothing is an error that lists the probes closest to it. Errors
exit with status 1, usage errors with status 2.
*/
package main
