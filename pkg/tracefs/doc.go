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
// Operands translate as follows on x86-64 (other machines are not yet
// supported: Define returns ErrMachine):
//
//	$5             \5                   an immediate
//	%rdi, %eax     %di, %ax             a register; its size is the type's
//	%ah            %ax:b8@8/64          a high byte, as a bitfield
//	-4(%rbp)       -4(%bp)              memory at a register plus a displacement
//	sym(%rip)      +D(%ip)              a global: D is its distance from the site
//	16(%rip)       +17(%ip)             past the site's 1-byte nop
//
// Operands with no fetch argument form are left out of the definition, and
// only they: memory indexed by a register (SIB), floating-point values,
// a symbol added to a register in a position-independent file (the load
// bias is no register), a signed high byte. Definition.LeftOut says which
// and why.
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
// their records apart.
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
// the events lost when it is full (Tracer.Lost).
//
// Samples are decoded by the event's format file into the events of
// package attach, shown as with the BPF backend: same pid, tid, comm,
// cpu, arguments. The time is CLOCK_MONOTONIC, the one clock a
// tracepoint's perf event takes that converts to the Unix time. Events of
// different CPUs are in order per CPU only. Arguments Define leaves out
// are null; a number the kernel cannot read (paged-out memory) reads 0,
// since the kernel records no fault for numbers; a string it cannot read
// is null. A counted string (strN) is cut at its length argument or at
// its first NUL, whichever comes first.
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
