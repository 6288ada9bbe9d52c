// Package tracefs writes USDT probe sites as the kernel's uprobe_events
// definitions, the oldest way to trace them on Linux: no BPF, only ftrace;
// and traces them that way (Open).
//
// Define turns one probe site of an ELF file into a Definition: a probe
// event at the site's file offset, its semaphore as the reference counter
// the kernel raises while the event is enabled, and one fetch argument
// per probe argument, read as the note's operand says with the type its
// size and sign give:
//
//	p:sdt_demo/tick /usr/bin/demo:0x1139(0x4010) arg0=%di:s64 arg1=-4(%bp):s32
//
// Operands translate as follows on x86-64:
//
//	$5             \5                   an immediate
//	%rdi, %eax     %di, %ax             a register; its size is the type's
//	%ah            %ax:b8@8/64          a high byte, as a bitfield
//	-4(%rbp)       -4(%bp)              memory at a register plus a displacement
//	sym(%rip)      +D(%ip)              a global: D is its distance from the site
//	16(%rip)       +17(%ip)             past the site's 1-byte nop
//
// The kernel's %ip is the site's address when the event fires, wherever
// the file is loaded. On the other machines package argspec parses,
// registers go by the names of the architecture's
// regs_query_register_offset table, memory is +D(%REG), and an unsized
// operand is as wide as a general register:
//
//	i386       %eax, %esp, %ah        %ax, %sp, %ax:b8@8/32  the names of i386 and x86-64 kernels
//	           sym, sym@GOTOFF(%ebx)  +D(%ip)                a global, absolute or GOT-relative
//	aarch64    x0, w3, [x29, -16]     %x0, %x3, -16(%x29)
//	arm        r0, fp, [fp, #-8]      %r0, %fp, -8(%fp)      r11 to r14 as fp, ip, sp, lr
//	riscv      a0, x10, fp, -8(s0)    %a0, %a0, %s0, -8(%s0) the ABI names
//	ppc64, ppc 3, -8(31), i5          %gpr3, -8(%gpr31), \5
//	s390x      %r2, 160(%r15)         %r2, +160(%r15)
//	loongarch  $a0, $sp, $r3,8        %r4, %r3, +8(%r3)      rN, not the ABI names
//
// The zero registers (xzr, zero, $r0) read as \0. i386, 32-bit Arm and
// 32-bit Power files are traced by 32-bit kernels (i386 files by x86-64
// kernels too), whose immediates hold 32 bits, widened without their
// sign, and whose registers hold 4 bytes. Arm uprobes take ARM code only,
// their breakpoint being another instruction in Thumb code: Define
// refuses a site that is not 4-byte aligned, and one that Options.ARM
// does not vouch for as ARM code, which ARMCode tells from the file's
// mapping symbols ($a, $t), or from the Thumb bit of its function
// symbols: a stripped file's sites are refused (compile with -marm, keep
// .symtab). EM_RISCV is taken to be RV64 and EM_S390 s390x.
//
// Operands with no fetch argument form are left out of the definition, and
// only they: memory indexed by a register (SIB, [x1, x2], 9,10,
// 8(%r1,%r2)), floating-point values, a symbol added to a register in a
// position-independent file (the load bias is no register), a signed high
// byte, a value of more than 8 bytes; on 32-bit machines, a value in a
// pair of registers (gcc's 8-byte values) and a constant that 32 bits do
// not hold; Arm's pc, which the kernel gives as the site's address and an
// instruction reads as its own plus 8. Definition.LeftOut says which and
// why.
//
// Globals are fetched relative to the register holding the site's
// address, not as @+OFFSET, which the kernel reads at the address of
// OFFSET in the mapping of the site's segment (not the global's) and
// which kernels since 4.20 read at twice OFFSET unless they have the fix
// "tracing/probes: Fix double addition of offset for @+FOFFSET".
//
// Event names are what the kernel accepts: letters, digits and '_',
// starting with a letter or '_', at most MaxName bytes. A Namer makes them
// unique within their group: a probe with several sites gets NAME, then
// NAME_1, NAME_2, in note order, as perf names them.
//
// # Tracing
//
// Open traces the sites of an attach.Plan with no BPF: what sdtattach
// --backend tracefs does. Tracefs is found in /proc/self/mountinfo, or
// mounted (Mount). The sites are defined in a group of the process's own,
// OwnerGroup ("sdtkit_" and its PID), after the groups of that form whose
// process is gone have been removed (RemoveStale; other groups are never
// touched, and uprobe_events is read whole before anything is removed
// from it, since a read while events are removed skips some). Each
// definition also fetches the thread's command name, string-typed
// arguments as the string the operand points to, and its site number as
// an immediate, field site. The sites share one event per layout of
// their fields (Definition.Layout), whatever their probes: the first
// site of a layout defines the event, the others are appended to it as
// further probes of the same event (Linux 5.7), and the site field tells
// their records apart. On older kernels, which have neither, every site
// is an event of its own (TraceOptions.PerSite).
//
// The events are enabled by perf events (PERF_TYPE_TRACEPOINT, the
// event's id), not by ftrace's enable file: a uprobe lives as long as a
// perf event on it, so that the sites are restored and the semaphores
// lowered when the process ends, also by SIGKILL; only the definitions
// stay, for the next Open to remove. Without a PID there is a perf event
// per event and CPU, each sampling every process. With one, there is one
// per event, CPU and thread of the process, inherited by the threads it
// creates later: the kernel installs the uprobes in that process only
// (the uprobe's perf filter is by memory map), and samples of processes
// it forks, which inherit them too, are dropped by pid. The records of
// each CPU go to one ring buffer, read with epoll; PERF_RECORD_LOST counts
// the events lost when it is full (Tracer.Lost). A ring writes that
// record only once it has room again, with its next sample, so that the
// losses at the end of a burst that filled it are never reported: once
// the events are disabled and the rings read, Tracer.Lost is the hits the
// perf events counted (read(2) of each) less the samples the rings held.
//
// Samples are decoded by the event's format file into the events of
// package attach, shown as with the BPF backend: same pid, tid, comm,
// cpu, arguments. The time is CLOCK_MONOTONIC, the one clock a
// tracepoint's perf event takes that converts to the Unix time. Events of
// different CPUs are in order per CPU only. Arguments Define leaves out
// are null; a number the kernel cannot read (paged-out memory) reads 0,
// since the kernel records no fault for numbers; a string it cannot read
// is null. A counted string (strN) is cut at its length argument or at
// its first NUL, whichever comes first. A 64-bit kernel reads a pointer
// in memory as 8 bytes, and no fetch argument reads 4: a 32-bit
// program's string whose pointer is in memory (4@8(%ebp)) is read at the
// pointer only when the 4 bytes after it are 0, which Define fetches
// too (Options.KernelWord); when they are not, the string is null, with
// a warning once per argument of each site.
//
// The perf events take the thread's user stack too, as perf record does
// (TraceOptions.UStack, UStackCopy): the user part of the callchain the
// kernel walks by the frame pointers (PERF_SAMPLE_CALLCHAIN with
// exclude_callchain_kernel, at most sample_max_stack frames, which
// kernel.perf_event_max_stack bounds), as hit.Event.Stack; or a copy of
// the top of the stack with the registers an unwind starts from
// (PERF_SAMPLE_STACK_USER and PERF_SAMPLE_REGS_USER, as --call-graph
// dwarf), as hit.Event.StackCopy, for the caller to unwind. With a PID,
// the first event's perf events report the executable mappings the
// process makes (PERF_RECORD_MMAP2, as perf record has them) to
// TraceOptions.Mapped, before the samples that follow them are read,
// whichever CPU's ring holds them: a process that exits before its
// stacks are read has its libraries' frames placed all the same.
//
// The perf events are opened by a keeper, a child process (this same
// executable run again, named sdtkit-keeper) that hands them over and
// holds copies until the tracer is gone. The first perf event of an event
// registers the uprobes of all its probes; a SIGKILL arriving meanwhile
// would make the kernel's writes to the traced process fail, and the
// rollback too, leaving breakpoints and raised semaphores behind. The
// keeper is not sent the tracer's signals: the uprobes are registered and
// unregistered in a process with no fatal signal pending.
//
// Closing the last perf event of an event waits for an RCU grace period,
// once per event, not per site: ending a trace of 2,000 sites of one
// layout takes about as long as one site.
package tracefs
