/*
Sdtrepair restores the probe sites of a running process that a tracer
left patched.

A tracer arms a USDT probe site by having the kernel replace its nop with a
breakpoint (int3 on x86), which the kernel removes when the tracer
detaches. A tracer killed while the kernel registers its uprobes (any
tracer that makes the uprobes in its own process: bpftrace, bcc, libbpf
programs) can leave breakpoints that no uprobe owns: the kernel's
rollback cannot write to the process then. Such an orphaned breakpoint
stays for the life of the process, and the process is killed by SIGTRAP
the first time it runs it. sdtlist -p shows such a site as orphaned.

Usage:

	sdtrepair [-n] -p PID [PROVIDER:NAME...]

Sdtrepair looks at every probe site of every object the process maps (or
of the probes PROVIDER:NAME selects, with globs) and, where the site holds
a breakpoint and no uprobe of the system owns it, writes back the
instruction the file holds there. Without PROVIDER:NAME it does the same
for the dynamic loader's _dl_debug_state (the program's own, for a
statically linked one), where sdtattach -c stops its command to follow
dlopen: a tracer killed while the kernel places its uprobe there can
leave a breakpoint in every process that maps the loader, which then
traps at each dlopen and dlclose. It first lists every uprobe the kernel
holds (BPF uprobe_multi and perf_event links, perf-event descriptors of
every process, tracefs uprobe events); if any of them cannot be looked at,
it restores nothing and says why. A site that a tracer takes while it is
being restored gets its breakpoint back. It needs root.

	-n
		Report the orphaned sites and write nothing.

Each orphaned site is one JSON object per line on standard output:

	pid        the process
	file       the object, as the process maps it
	provider   the probe's provider; empty for the loader's hook
	name       the probe's name, or _dl_debug_state
	hook       "loader" for the loader's _dl_debug_state, which is no
	           probe; absent for a probe site
	addr       run-time address of the site
	pc_offset  its file offset
	restored   whether the file's instruction was written back: false
	           with -n, and when a tracer took the site meanwhile
	taken_by   in the latter case, the uprobe that took it

sdtsema --hold records each increment it holds in /run/sdtkit/holds. An
increment whose holder is gone (sdtsema killed with SIGKILL, which cannot
undo it) is proven to have no holder left and is undone. So is the
increment of an orphaned site that sdtattach's keeper journaled in
/run/sdtkit/uprobes with that semaphore as its reference counter, before
it attached it, and that is gone without removing its journal (killed
while the kernel made or removed its uprobes: the kernel raises a site's
semaphore with its breakpoint, and leaves both then). One line each:

	pid             the process
	file            the object whose semaphore it is
	provider, name  the probe
	semaphore_addr  run-time address of the semaphore
	holder          the pid of the holder (or keeper) that is gone
	before, after   the semaphore's value before and after
	undone          true, or false with -n

Other semaphores are not lowered. The kernel raises a probe's semaphore
once per site it arms; a semaphore above the sites that live uprobes arm
and the live holds recorded is reported on standard error, since it may
be held by a tracer that raises semaphores from user space without a
record (bcc, bpftrace without reference counters), which leaves nothing
the kernel shows. Once sure that no such tracer runs, lower it with
sdtsema -p PID --dec PROVIDER:NAME. A semaphore left raised costs the
process the is-enabled code of its probes, not its correctness.

sdtattach -c and -f stop the processes they follow in the dynamic
loader after each dlopen, and a guard process lets them run on should
sdtattach die meanwhile; the guard records what it guards in
/run/sdtkit/uprobes. A process left stopped by both being killed,
which a guard that is gone recorded, is sent SIGCONT (when no
PROVIDER:NAME is given), one line:

	pid        the process
	guard      the pid of the guard that is gone
	continued  true, or false with -n

Sdtattach itself never leaves a process patched: its uprobes are made and
removed by a keeper process that none of its signals reach. What a
keeper killed itself can leave is in sdtattach's documentation. The
uprobe events of a sdtattach --backend tracefs that is gone (group
sdtkit_PID) are removed first, with a line on standard error, since
while defined they would count as owners of the sites they name.

The exit status is 0 when every orphaned site and hold is restored (or,
with -n, when none was found), 1 on failure or, with -n, when some were
found, and 2 for usage errors.
*/
package main
