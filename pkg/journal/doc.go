// Package journal records the uprobes a process attaches, before it
// attaches them, and finds the records of processes that are gone
// without removing theirs.
//
// The kernel registers a uprobe on behalf of the calling process, and a
// fatal signal pending there makes its writes to the processes that map
// the file fail: a process killed with SIGKILL while the kernel
// registers its uprobes leaves the registration half made, and its
// rollback fails the same way, leaving breakpoints and raised semaphores
// with no uprobe behind them. sdtkit's keepers journal each file's sites
// and reference counters first; a repair (package repair) then knows
// which of the orphaned sites it finds were such a process's, and that
// each raised its semaphore once.
//
// Only the uprobes being made are recorded: once made, a process that
// holds them by descriptor lets them go as it exits, which no signal
// interrupts. A stop guard records the processes it guards, which a
// repair lets run on should the guard and its tracer both be killed
// while one is stopped.
//
// Records live in Dir, one JSON file per process, named after its pid
// and start time, written whole through a rename, removed once the
// process has nothing to record.
package journal
