// Package process inspects the USDT probe state of a running process: the
// files it maps, where their probe sites and semaphores live in its address
// space, and the memory at those addresses.
//
// ReadMaps parses /proc/PID/maps. Objects groups the file-backed mappings
// by file (device and inode) into one Object per mapped file, with a
// HostPath through which the file can be opened from outside the process:
// /proc/PID/root/PATH, which also works for a process in another mount
// namespace (a container), or /proc/PID/map_files/START-END for a file that
// was deleted or has no path (memfd), which needs CAP_SYS_ADMIN or
// CAP_CHECKPOINT_RESTORE.
//
// Package stapsdt gives the file offsets of probe sites and semaphores.
// Object.Addr turns such an offset into a runtime address the way the
// kernel does for uprobes (vma start + offset - vma file offset), and
// SemaphoreAddr does the same for semaphores, by the kernel's rule for a
// uprobe's reference counter: in a private writable mapping of the file,
// and 2-byte aligned (a misaligned semaphore is placed, so that its bytes
// can be shown, but it is no counter: the kernel refuses it).
//
// Mem reads and writes the memory of a process through /proc/PID/mem. A
// SiteReader reads the state of the probe sites of one mapped object
// through it, as every sdtkit tool reads them: a site is armed when a
// tracer patched it, the kernel having replaced the nop by a breakpoint
// (IsBreakpoint) as it attached a uprobe, and incremented the semaphore,
// if the probe has one.
//
// LoaderHook finds the dynamic loader's DebugState in a process (the
// loader the auxiliary vector names, or a static program itself): a
// tracer that follows dlopen patches it as it patches a probe site.
//
// Reading maps needs the same user as the process or CAP_SYS_PTRACE;
// opening its memory also needs a Yama ptrace_scope that allows attaching
// (/proc/sys/kernel/yama/ptrace_scope). Such failures are reported as
// *PermissionError, and a process that does not exist as ErrNoProcess;
// Exists tells a zombie, which has exited but not been reaped, by
// ErrZombie, and a process whose main thread has exited while others run
// on, which maps nothing through its pid, by ErrLeaderExited.
package process
