// Package launch starts a command for a tracer: stopped before its first
// instruction, so that probes can be attached to everything it will map,
// then released to run. It is what sdtattach -c is made of:
//
//	c, err := launch.Start([]string{"./prog", "7"}, nil)
//	...
//	opts := &attach.Options{PID: c.Pid, Libraries: c.Libraries, OnAttached: c.Release}
//	t, err := attach.Open(ctx, specs, opts) // c runs once every site is attached
//	...
//	status, err := c.Wait()
//
// # Stopped at execve
//
// Start forks, and the child asks to be traced (PTRACE_TRACEME) and
// executes the program: the kernel stops it with SIGTRAP once execve has
// succeeded, before it returns to user space. The process then maps the
// program and its interpreter, the dynamic loader, and has run none of
// their code. Its pid is that of the program from then on, so that a
// uprobe filtered by pid follows it. Release detaches (PTRACE_DETACH),
// which drops the SIGTRAP, and the program runs as if never stopped.
//
// The other way, a child that waits on a pipe before its execve, has
// the tracer attach by path before the file is mapped, and guess which
// file execve will map (a #! script runs its interpreter). Stopped after
// execve, the process shows the file the kernel chose, /proc/PID/exe,
// and an execve that fails is an error of Start, with its errno, as a
// shell reports it: StartError's Status is 127 for a command not found,
// 126 for one that cannot be run.
//
// Until Release, the command dies with the tracer (PTRACE_O_EXITKILL),
// SIGKILL included, rather than run untraced; after it, the command gets
// SIGTERM when the tracer dies (PR_SET_PDEATHSIG), as with bpftrace -c.
//
// # Libraries
//
// At the stop, the dynamic loader has not mapped the shared libraries
// yet. Libraries finds them as the loader will: the names of
// $LD_PRELOAD, then the DT_NEEDED entries of the program and of each
// library found, breadth first, each searched in the DT_RPATH of the
// object that needs it and of the program (when the object has no
// DT_RUNPATH), $LD_LIBRARY_PATH, the object's DT_RUNPATH, the
// directories of /etc/ld.so.conf and the system directories
// (probespec.LibraryDirs), with $ORIGIN expanded, passing over files of
// another ELF class or machine. Uprobes are attached by inode, so
// attaching to a library before it is mapped works: the kernel installs
// the breakpoints, and raises the semaphores, as the loader maps it.
//
// Libraries loaded later with dlopen are not among them: a tracer names
// them by path, or follows the dynamic loader as attach.Options.Dlopen
// does.
//
// # Descendants
//
// A pid filter follows one process. To trace the processes a command
// starts too, Options.Cgroup starts it in a cgroup v2 made by NewCgroup,
// a child of this process's own: the kernel puts the command there as it
// forks, and its descendants are born there. A BPF program keeps the hits
// whose bpf_get_current_cgroup_id is Cgroup.ID. Cgroup.Emptied is closed
// once the last of them has exited (cgroup.events says "populated 0"),
// the end of the trace for sdtattach -f, as for strace -f; Cgroup.Signal
// sends a signal to every process left, and Cgroup.Kill kills them all
// (cgroup.kill). Command.End, once the trace has ended, sends SIGTERM
// to every process of the cgroup, as bpftrace -c does to its command,
// and SIGKILL once told again (a second signal to sdtattach -f).
// Cgroup.Remove moves out whatever is left in it and removes it.
// Options.OwnCgroup does all of it in one: Start makes the cgroup, after
// removing those that killed tracers left, and End removes it.
package launch
