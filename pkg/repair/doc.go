// Package repair restores the probe sites of a process that a tracer
// left patched: a breakpoint that no uprobe owns any more, left by a
// tracer killed while the kernel was registering its uprobes (the
// kernel's rollback cannot write to the process then), is replaced by
// the instruction the file holds there.
//
// A site is restored only when every uprobe of the system could be
// looked at (package uprobes) and none owns it; otherwise nothing is
// written and the error says what could not be seen. After writing, the
// uprobes are listed again, and a site that a tracer took meanwhile gets
// its breakpoint back, so that the tracer is not silently disarmed.
//
// The dynamic loader's _dl_debug_state (process.DebugState), where
// sdtattach stops the processes it follows for dlopen, is restored by the
// same rules when Options.Match selects no probes: a stopper killed while
// the kernel registers its uprobe can leave a breakpoint there, in every
// process that maps the loader, and each dlopen and dlclose then traps.
//
// A semaphore is lowered where it is proven to have no holder left: an
// increment sdtsema --hold recorded (package semaphore, Holds) whose
// holder is gone, and the increment an orphaned site made when the
// process that attached it journaled the site with that semaphore as
// reference counter and is gone (package journal: sdtkit's keepers,
// killed while the kernel registered or removed their uprobes). Each is
// reported in Report.Undone. Other semaphores are reported, not
// lowered: the kernel raises a semaphore once per site it arms, so a
// value above the sites that live uprobes arm may be left behind by a
// tracer that is gone, or held by a tracer that raises semaphores from
// user space (bcc, bpftrace without reference counters), which leaves no
// trace the kernel shows. Process reports such a semaphore as Excess for
// a person to judge.
package repair
