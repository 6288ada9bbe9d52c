// Package semaphore reads and changes the USDT semaphores of running
// processes.
//
// An is-enabled probe (sys/sdt.h with _SDT_HAS_SEMAPHORES, DTrace's
// PROVIDER_PROBE_ENABLED() from dtrace -h, folly's FOLLY_SDT_IS_ENABLED)
// only fires while its semaphore, a 16-bit counter the program keeps in its
// .probes section, is non-zero. The kernel increments it for every uprobe
// with a reference counter that is attached, one per probe site, so that a
// tracer attaching the 10 sites of a probe raises it by 10; tracers that do
// not go through the kernel (ftrace without ref_ctr_offset, gdb, a custom
// tracer) use this package instead.
//
// Find locates the semaphores of the probes matching a set of
// probespec.Spec in a process: it finds the objects in /proc/PID/maps
// (executable or shared library, PIE or not, opened through /proc/PID/root
// so that processes in containers work), and computes the runtime address
// of each semaphore from the file offset stapsdt gives and the mapping, as
// the kernel does for a uprobe's reference counter. Several sites of one
// probe share one semaphore; Find returns each distinct semaphore once.
//
// Open gives access to the memory of the process. Process.Add changes a
// semaphore by read-modify-write of exactly its two bytes, in the byte
// order of the file, through /proc/PID/mem. Before it writes, it checks
// against a fresh copy of /proc/PID/maps that the semaphore's file offset
// still maps to its address, by the rule process.SemaphoreAddr gives (a
// private writable mapping of the same file, by device and inode, that
// holds both bytes), and that it is 2-byte aligned, as the kernel wants a
// reference counter; otherwise it refuses with a *RefusedError and writes
// nothing. It never takes a semaphore below 0 or
// past 65535 (ErrUnderflow, ErrOverflow).
//
// Process.AddAll changes several semaphores of a process, all or none: it
// checks and reads every one before it writes any, and when a write fails
// part way it changes back those it wrote and says so in an *UndoError.
//
// The read and the write are two system calls, so an update the kernel
// makes in between (a uprobe with ref_ctr_offset being attached or
// detached at that moment) is lost, and the write undoes it. Add keeps the
// window to the two calls and reads the value back afterwards; a value that
// changed is reported as a *ChangedError. Nothing prevents the race:
// /proc/PID/mem has no atomic operations.
//
// Processes finds the processes that map a file, for acting on every
// process of a program at once.
//
// Access needs CAP_SYS_PTRACE, or the same user as the process and a Yama
// ptrace_scope that allows attaching; failures are *process.PermissionError
// with a hint, and a process that does not exist or exits mid-way gives an
// error matching process.ErrNoProcess.
package semaphore
