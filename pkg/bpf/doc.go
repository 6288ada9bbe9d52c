// Package bpf traces USDT probes with one precompiled, generic BPF
// program.
//
// The program, usdt.bpf.c, is attached as a uprobe to every probe site.
// The BPF cookie of each attachment is the number of the site, in its
// low half, which selects the site's Spec in an array map: how to fetch
// each of up to MaxArgs arguments from the traced thread's registers and
// memory. One program thus serves any probe of any binary, and no code is
// compiled at run time. The high half is the site's probe id
// (Spec.ProbeID), by which an aggregation that counts hits by probe alone
// counts one without reading its Spec.
//
// Kernels before Linux 5.15 have no BPF cookies. There the program finds
// the number of the site by its address, as libbpf does: the uprobe's
// instruction pointer is the address of the probe, which a hash map gives
// the number of (Program.ByAddress). An address is known in every
// process for an executable that is not position-independent (ET_EXEC),
// and in the process of Options.PID, from its maps, for any file it maps
// (Program.Relocate follows the files it maps later); with
// Options.Cgroup, in each process of the cgroup that
// Program.RelocateProcess is given, where it maps the file
// (Program.Retain forgets those exited). Attach refuses a
// position-independent file, an executable (PIE) or a library, in every
// process, and two executables with sites at the same address, with an
// error matching ErrNoCookies and ErrNotSupported. The choice is a
// constant the verifier knows, which makes the cookie's helper, unknown
// to those kernels, dead code. Those kernels load builds of their own
// (usdtold, usdtnumold, aggold), without what their verifier refuses
// even in dead code: the atomic operations Linux 5.12 brought, which
// plain ones replace, uprobe programs running there with preemption
// disabled, and global functions that take pointers. Their verifier
// cannot check the interpreter of filters then: Load refuses
// Options.Filters there with ErrNotSupported.
//
// NewSpec translates arguments parsed by package argspec into a Spec:
//
//	register      -4@%ebx, 1@%ah  value of the register, cut to the size
//	                              (shifted for %ah) and sign-extended;
//	              -8@%eax (i386)  %edx:%eax, the pair gcc names by its
//	                              low register
//	memory        8@-8(%rbp)      memory at register + displacement
//	SIB           8@8(%rbx,%rcx,4), 4@(,%rcx,8)
//	                              memory at base + index*scale + disp.
//	symbol        8@g(%rip)       memory at the symbol, relocated
//	global        4@arr(,%edx,4), memory at a displacement holding a
//	              -4@g@GOTOFF(%ecx) symbol's address (relocated), or in
//	                              PIC code its distance from the GOT,
//	                              whose address the register holds
//	constant      -4@$-7          the value
//
// On an x86-64 kernel the arguments of 32-bit x86 programs are read too:
// the kernel keeps the registers of such a task in the 64-bit pt_regs.
//
// An argument that cannot be read (a vector register, an unknown symbol)
// is reported by NewSpec and arrives as NotRead in every event; the other
// arguments of the site are unaffected. Arguments can also be read as
// NUL-terminated strings (SpecOptions.Strings), or as strings whose length
// another argument holds (SpecOptions.Lengths), up to Options.StringSize
// bytes, with a flag for a string that was cut. Strings are read once
// every number of the event is, so a length may come before its string
// or after it.
//
// # Builds of the program
//
// usdt.bpf.c is built four times. The default build reads strings too: since
// the length of an event is known only once its strings are read, it is
// assembled in a per-CPU scratch slot and copied into the ring buffer.
// Built for Options.NoStrings it reads numbers only: every event has the
// same size and is written in place into a ring buffer record, which
// costs less per event, and the kernel's verifier, which walks every path
// of a program as it loads, has a fraction of the paths to walk, so that
// it loads in 3 ms rather than 12. Both read the
// registers by copying them out of the uprobe's context once per event
// and check the argument-reading code as global functions, verified once
// rather than once per argument. Each is built again, sleepable, to read
// memory that is not resident (see below).
//
// # Load bias
//
// Symbol-relative arguments name link-time addresses. The program finds
// the load bias of the mapping as the run-time instruction pointer minus
// the link-time address of the site, both known at the probe: a uprobe
// program sees the instruction pointer at the probe address itself (the
// kernel rewinds it past the breakpoint before running handlers; TestBias
// checks this for both attachment kinds). So position-independent
// executables and shared libraries work in every process that maps them,
// without reading /proc.
//
// # Attaching
//
// Program.Attach attaches all sites of one file with a single
// uprobe_multi link (Linux 6.6), or one perf-event uprobe per site on
// older kernels or with Options.PerSite. Either way each site's semaphore
// is handed to the kernel as a reference counter (ref_ctr_offset), which
// raises it in every process while attached, enabling is-enabled probes,
// and lowers it on Close. Options.PID restricts tracing to one process,
// by the kernel's pid filter; Options.Cgroup to the threads of one cgroup
// v2, by a check the program makes first on every hit, which follows a
// process's descendants but leaves the breakpoints in every process that
// maps the file.
//
// The links are made, held and let go by a keeper: a child process,
// this same executable run again (the package's init serves it when the
// environment says so), in a session of its own and named
// sdtkit-keeper. The kernel registers and unregisters uprobes on behalf
// of the calling process, and a fatal signal pending there makes its
// writes to the traced processes fail: a registration interrupted so
// fails part way, its rollback fails the same way, and breakpoints and
// raised semaphores stay with no uprobe behind them; an unregistration
// interrupted so leaves them all. The keeper is not sent the tracer's
// signals; when the tracer is gone, it finishes the call in progress,
// lets the links go, which restores every site and semaphore, and exits.
// Detach waits for its exit: the program then runs no more. Close
// returns once no site is patched and no semaphore raised in any process
// any more, which for links of every process (no Options.PID, Linux 6.6's
// uprobe_multi) it sees happen before the keeper's exit, 10 to 30 ms of
// the kernel's grace periods earlier (see witness.go); the keeper then
// exits by itself. Options.InProcess makes the links in the calling
// process instead.
//
// What is guaranteed when processes are killed with SIGKILL:
//
//   - The tracer, at any point: nothing is left. Its keeper (and a
//     Stopper's guard) finish and let go.
//   - A keeper at any point but while the kernel registers its uprobes:
//     nothing is left. It never closes a link with close(2), which a
//     SIGKILL interrupts as it interrupts a registration; it lets its
//     links go by exiting, on Detach or Close or once the tracer is
//     gone, and the kernel closes the descriptors of a process that
//     exits when no signal can reach it any more. When Close returns,
//     every site and semaphore is restored.
//   - A keeper while the kernel registers its uprobes: sites may stay
//     armed and semaphores raised, in the processes the registration had
//     reached. The keeper journals each file's sites before it attaches
//     them (package journal), and sdtrepair (package repair) restores
//     the sites no uprobe owns and lowers the semaphores those sites
//     raised. The kernel itself may not survive it: on Linux 6.12 and
//     6.18, the rollback of a perf event's uprobe registration fails
//     under the fatal signal too, the kernel leaks the uprobe ("failed
//     to unregister, leaking uprobe") with the consumer of an event it
//     then frees, and the next hit dereferences it (uprobe_dispatcher).
//   - A Stopper's guard whose tracer is gone must see the uprobe gone
//     before it sends SIGCONT, and so cannot let it go by exiting: it
//     then pins the link in a bpf filesystem of its own (uprobe_multi
//     links, Linux 6.6, and CAP_SYS_ADMIN; see pinDir), whose removal
//     the kernel completes from a worker of its own. Without them, and
//     when told to Detach (it closes the link, then waits for the
//     tracer to say it let run on the stops it read), a guard killed
//     while it closes the link can leave the loader's hook patched,
//     which sdtrepair restores.
//   - A Stopper's guard killed with the tracer: a process stopped then
//     stays stopped, the guard and the tracer being the two that could
//     let it run on. The guard journals what it guards, and sdtrepair
//     sends it SIGCONT.
//
// The OOM killer passes a keeper over where it may (oom_score_adj -1000,
// which takes CAP_SYS_RESOURCE).
//
// Loading needs root, or CAP_BPF and CAP_PERFMON (errors match
// ErrPermission), and Linux 5.8 for ring buffers (errors match
// ErrNotSupported); before Linux 5.15, sites are told apart by address
// (see above). There a perf-event uprobe has no BPF link: its program
// is attached with an ioctl of the perf event, which holds it, and goes
// when the event's descriptor is closed, the keeper's exit included, as
// the link would.
//
// # Filters
//
// Options.Filters gives each probe id a program of package filter, which
// every program (streaming with or without strings, aggregating)
// interprets on each hit of the probe, right after reading the
// registers and before it takes a scratch event, reserves a ring record
// or looks up a key: a hit that fails costs the test only (aggregating,
// and the scratch slot that holds the registers) and counts nowhere. The interpreter, in usdt.h, is a loop bounded by
// filter.MaxInsns over a truth stack held in a bit mask; strings are
// compared 8 bytes at a time, read with bpf_probe_read_user_str, so
// that it needs no scratch memory, and in a function of their own, so
// that the stack of a hit is the program's and the deepest of its
// callees, within the 512 bytes BPF allows together. Without filters the program skips it
// (a constant the loader sets), and a hit costs what it did.
//
// # PID namespaces
//
// The pid and tid of events, of the PartPID and PartTID parts of
// aggregation keys and of filters are those the PID namespace of the
// process that loads the program gives the thread that hit the probe,
// as /proc there numbers processes, and as the kernel looks Options.PID
// up: in the namespace of the process that attaches, the keeper, which
// shares the loader's. Load names the
// namespace by the device and inode of /proc/self/ns/pid. In the initial
// namespace the ids are the kernel's own, from bpf_get_current_pid_tgid,
// also for a thread in a container. In any other namespace they come
// from bpf_get_ns_current_pid_tgid, which names a thread only in the
// namespace the thread itself is in: a thread outside the loader's
// namespace, or in a namespace nested in it, gets pid and tid 0, which
// no thread that hits a uprobe has. That helper costs a hit about 60 ns
// more, which is why it is not used in the initial namespace: the run
// time of the program, by BPF statistics, on Linux 6.18 in a virtual
// machine, went from 95 to 150 ns for a hit counted by pid, and from
// 210 to 280 ns for an event of three numbers, of a hit that costs the
// traced thread about 500 ns in all. Where /proc is not mounted, the
// ids are the initial namespace's.
//
// # Events
//
// Events go to user space through a BPF ring buffer as struct event of
// usdt.bpf.c, in host byte order:
//
//	offset  size  field
//	0       8     time     CLOCK_BOOTTIME, ns (bpf_ktime_get_boot_ns)
//	8       4     pid      thread group id (see PID namespaces)
//	12      4     tid      thread id
//	16      4     cpu
//	20      4     spec_id  the site number, the cookie or by address
//	24      4     probe_id of the site's Spec
//	28      2     nargs
//	30      2     failed   bit i: argument i was not read
//	32      2     strs     bit i: argument i has a string in data
//	34      2     trunc    bit i: that string was cut
//	36      2     nframes  return addresses at the start of data
//	38      2     copy     or: bytes of a stack copy at the start of data
//	40      16    comm     NUL-padded
//	56      96    args     12 values of 8 bytes, 0 when not read
//	152     ...   data     the strings, in argument order, NUL-terminated
//
// Records are as long as their strings; those of the numbers-only program
// end after the arguments of their site, rounded up to 4, 8 or 12. Read
// decodes them into Event, with the time converted to Unix time.
//
// To keep wakeups cheap under load, the program submits events with
// BPF_RB_NO_WAKEUP and forces a wakeup only when the unread data crosses a
// multiple of a quarter of the ring, not on every event past it: each
// wakeup interrupts the traced thread. Read, for its part, polls the ring every
// Options.FlushInterval, which bounds how long a lone event can wait. Read
// decodes records where they lie in the mapped ring and gives their space
// back to the kernel a sixteenth of the ring at a time, and before it
// sleeps, rather than after every record: the consumer position shares a
// cache line with what every reservation of the traced threads reads.
// Events that find the ring full are dropped and counted: see
// Program.Lost, and Program.LostByProbe for each probe's. Read does not wait for Detach, so that the probes firing
// while they are being detached do not fill the ring.
//
// bpf_probe_read_user runs with page faults disabled, so memory that the
// traced process has not touched yet (a string constant on a page of
// .rodata never read, a page of a file mapped and never read) cannot be
// read with it. Where the kernel runs sleepable uprobe programs (Linux
// 6.0; for uprobe_multi links 6.6), the program loaded is the build with
// USDT_FAULTS, sleepable, which reads such memory again with
// bpf_copy_from_user, faulting it in as the thread itself would: only
// after bpf_probe_read_user failed, so that a hit whose memory is
// resident costs what it did (benchmark part 3 measures it), and for a
// string a page at a time, as far as the string goes. Such a fault can
// block the traced thread on I/O, as its own read would; Options.NoFaults
// leaves it out. Load probes for the feature with a program of seven
// instructions, and on older kernels, or if the sleepable build is
// refused, loads the other: memory that is not resident then arrives as
// NotRead, as does a bad pointer on any kernel. The aggregating program
// never faults: its flip of generations counts on every hit running in
// an RCU read-side section, which a sleepable program does not.
//
// A sleepable program runs with migration disabled, so per-CPU scratch
// slots and counters stay those of its CPU, but another thread can run on
// that CPU while it waits for a page: its slot stays claimed meanwhile
// (four per CPU; a hit that finds none is counted by Program.Skipped),
// and the numbers-only build holds its ring record reserved, which delays
// the records after it until it is submitted. Array, per-CPU array and
// ring buffer maps, the only ones these programs use, are allowed in
// sleepable programs.
//
// # Stopping a thread
//
// A Stopper, a second and tiny program (stop.bpf.c), sends SIGSTOP to
// the thread that reaches a function of a file in one process, or in
// the processes of a cgroup (bpf_send_signal_thread), and reports it, so
// that user space can attach while the thread waits, then send SIGCONT:
// package attach stops a command so in the dynamic loader's
// _dl_debug_state after each dlopen. Detach ends the stops and lets Read
// return those already made. A guard process, a keeper, makes, holds and
// lets go the uprobe's link, so that no SIGKILL of the tracer interrupts
// the kernel while it puts breakpoints in, or takes them out of, every
// process that maps the loader: should the tracer die, the guard lets
// the link go, waits until the kernel has released it, and sends SIGCONT
// to the process, or to the stopped processes of the cgroup, so that
// none stays stopped. The uprobe goes with the guard, should the guard
// be killed.
//
// # User stacks
//
// With Options.UStack, each event carries the return addresses of the
// traced thread's user stack, innermost first, starting at the probe:
// the kernel's perf callchain code walks the frame pointers
// (bpf_get_stack with BPF_F_USER_STACK) into the event, before its
// strings. Code built without frame pointers, and a probe in a function
// that sets up no frame (gcc -O2 gives none to a function that calls
// nothing), give a stack that misses frames or ends early.
//
// An Aggregation with a PartUStack part groups by the same stack in the
// kernel: bpf_get_stackid keeps each distinct stack once in a stack map
// of MaxKeys stacks of StackDepth frames, allocated whole at load, and
// the key holds its id, which names the stack until the program is
// closed; Collect gives the addresses (AggEntry.Stack). A stack whose
// place in the map holds another (ids are buckets of a hash), or that
// finds the map full, is counted in its key with the part NotRead and
// the errno in AggEntry.StackErr, never in another stack's.
//
// With Options.UStackCopy instead, each event carries a copy of the
// top of the user stack, from the stack pointer up, after the registers
// an unwind starts from (x86-64: rip, rsp, rbp, 0; arm64: pc, sp, x29,
// x30), in Event.StackCopy; the header's copy field (the pad before
// comm) gives its bytes at the start of data. The stack is read a page
// at a time, so that a copy that would pass the top of the stack stops
// there. User space unwinds it (package unwind).
//
// # Memory
//
// Program.MapMemory says what the maps of a program take, as the kernel
// accounts them. What grows with the number of CPUs is small: per CPU,
// a streaming program keeps 4 scratch slots of 4.2 KiB, in which events
// with strings or stacks are assembled (none for Options.NoStrings; 20.2
// KiB, 81 KiB a CPU, with Options.UStackCopy, whose copies of up to
// MaxStackCopy bytes they hold, whatever the copy asked for), and an
// aggregating one 4 slots of 360 bytes, about 17 and 1.5 KiB with the
// counters. The rest is sized by what was asked: the ring buffer
// (Options.RingSize, 4 MiB by default), 304 bytes a site
// (Options.MaxSites, 1.2 MiB for the default 4096), and for an
// aggregation 16 bytes of hash buckets a key of Aggregation.MaxKeys in
// each of two generations, and the STARTs of a latency (about 100 bytes
// a key of MaxKeys, allocated as they come beyond 65536 keys). The
// entries of keys are allocated as keys are seen, not in advance: about
// 64 bytes each and 8 bytes (counts) or 32 bytes (histograms, stats and
// latencies) per CPU, so that 10,240 keys of --stats on 128 CPUs take
// 42 MiB, and 100 keys 0.4 MiB. Counts and histograms without key parts
// keep no hash: each generation is an array with a region per CPU, a
// count (8 bytes) or 67 buckets (536 bytes) a probe id, rounded up to 64
// bytes, unless that is over 1 MiB in all, which takes the hash; it
// costs a hit less than a hash (see agg.bpf.c's dense_add).
//
// # Regenerating
//
// The compiled objects and their Go bindings (usdt_x86_bpfel.*,
// usdt_arm64_bpfel.*, usdtnum_* for the build without strings,
// usdtfault_* and usdtnumfault_* for the sleepable builds, agg_* and
// stop_*) are generated by bpf2go from the .bpf.c files and
// committed, so building needs no
// clang. After changing usdt.bpf.c, run
//
//	go generate ./pkg/bpf/
//
// with clang-19 and llvm-strip-19 installed. The C file needs no kernel
// or libbpf headers.
package bpf
