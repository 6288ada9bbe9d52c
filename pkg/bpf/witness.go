package bpf

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// A witness tells the tracer when the kernel has removed the breakpoints
// of the keeper's uprobes from every process, which happens well before
// the keeper's exit: closing a uprobe link first removes its breakpoints
// (uprobe_unregister_nosync), then waits for grace periods of RCU and
// SRCU (uprobe_unregister_sync, often 10 to 30 ms) so that no handler
// still runs, and only then lets the keeper exit. Close returns once the
// breakpoints are gone, and the keeper finishes the wait by itself.
//
// The witness is a private, read-only mapping of each file attached for
// every process (no Options.PID, a uprobe_multi link): the kernel installs
// the breakpoints in it as in any process that maps the file, and
// removes them from it in the same walk (register_for_each_vma) that
// removes them from every other process. What is proved, from the
// kernel's code (kernel/events/uprobes.c):
//
//   - A uprobe's breakpoints are removed by uprobe_unregister_nosync,
//     which deletes the link's consumer and then walks every process
//     that maps the file, under dup_mmap_sem held for writing. Once the
//     consumer is gone, no process that maps the file, or forks, gets
//     the breakpoint any more; those that have it lose it in the walk.
//   - The witness's copy of a site is restored by that walk only, so
//     once every site reads as in the file, every uprobe's walk has
//     begun, and the walks of a link's uprobes run one after the other
//     in the thread that closes the link.
//   - A fork takes dup_mmap_sem for reading (uprobe_start_dup_mmap in
//     dup_mmap): it returns after the walk in progress has ended.
//
// So after every site reads restored and a fork of this process has
// returned, no process has a breakpoint or a raised semaphore of the
// keeper's uprobes left. A site that does not read patched once
// attached (a kernel that does not patch such a mapping, a file replaced
// meanwhile) makes the witness unusable, and one that another tracer's
// uprobe keeps patched is never seen restored: Close then waits for the
// keeper's exit, as it does for a link with Options.PID, and for
// perf-event uprobes.
type witness struct {
	files  []witnessFile
	broken bool // some site was not seen patched: wait for the exit
}

// A witnessFile is the mapping of one file and its sites.
type witnessFile struct {
	mem   []byte
	sites []witnessSite
}

// A witnessSite is a site's offset and its bytes in the file, as many as
// a breakpoint covers.
type witnessSite struct {
	off  uint64
	orig []byte
}

// breakpointSize is how many bytes of a site a breakpoint replaces at
// most (int3 on x86, a 4-byte BRK on arm64).
const breakpointSize = 4

// add maps path, whose sites at offs are about to be attached.
func (w *witness) add(path string, offs []uint64) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	var end uint64
	sites := make([]witnessSite, len(offs))
	for i, off := range offs {
		b := make([]byte, breakpointSize)
		n, err := f.ReadAt(b, int64(off))
		if n == 0 {
			if err == nil || errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return fmt.Errorf("site %#x: %w", off, err)
		}
		sites[i] = witnessSite{off: off, orig: b[:n]}
		end = max(end, off+uint64(n))
	}
	mem, err := unix.Mmap(int(f.Fd()), 0, int(end), unix.PROT_READ, unix.MAP_PRIVATE)
	if err != nil {
		return fmt.Errorf("map %s: %w", path, err)
	}
	// The fork of forkBarrier need not map it.
	unix.Madvise(mem, unix.MADV_DONTFORK)
	w.files = append(w.files, witnessFile{mem: mem, sites: sites})
	return nil
}

// dropLast unmaps the file added last, whose attach failed.
func (w *witness) dropLast() {
	last := w.files[len(w.files)-1]
	unix.Munmap(last.mem)
	w.files = w.files[:len(w.files)-1]
}

// attached checks that every site of the file added last reads patched;
// otherwise the witness is broken.
func (w *witness) attached() {
	last := w.files[len(w.files)-1]
	for _, s := range last.sites {
		if s.restored(last.mem) {
			w.broken = true
		}
	}
}

func (s witnessSite) restored(mem []byte) bool {
	return string(mem[s.off:s.off+uint64(len(s.orig))]) == string(s.orig)
}

// usable reports whether the witness can tell the breakpoints gone.
func (w *witness) usable() bool {
	return w != nil && !w.broken && len(w.files) > 0
}

// restored reports whether every site reads as in its file.
func (w *witness) restored() bool {
	for _, f := range w.files {
		for _, s := range f.sites {
			if !s.restored(f.mem) {
				return false
			}
		}
	}
	return true
}

// await waits until every site reads restored and the walk in progress
// has ended (see witness), or until exited is closed, and reports
// whether the breakpoints were seen gone before.
func (w *witness) await(exited <-chan struct{}) bool {
	for wait := 20 * time.Microsecond; !w.restored(); wait = min(2*wait, 250*time.Microsecond) {
		select {
		case <-exited:
			return false
		case <-time.After(wait):
		}
	}
	return forkBarrier() == nil
}

// close unmaps every file.
func (w *witness) close() {
	if w == nil {
		return
	}
	for _, f := range w.files {
		unix.Munmap(f.mem)
	}
	w.files = nil
}

// forkBarrier forks this process, the child exiting at once: the fork
// returns once no uprobe (un)registration walks the processes any more
// (see witness). The child runs no Go code but the return from the
// system call and the exit, with every signal blocked; it is reaped
// aside.
func forkBarrier() error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var all, old unix.Sigset_t
	for i := range all.Val {
		all.Val[i] = ^all.Val[i]
	}
	if _, _, e := syscall.RawSyscall6(unix.SYS_RT_SIGPROCMASK, unix.SIG_SETMASK, uintptr(unsafe.Pointer(&all)), uintptr(unsafe.Pointer(&old)), unsafe.Sizeof(all.Val[0]), 0, 0); e != 0 {
		return fmt.Errorf("fork barrier: sigprocmask: %w", e)
	}
	pid, e := rawFork()
	syscall.RawSyscall6(unix.SYS_RT_SIGPROCMASK, unix.SIG_SETMASK, uintptr(unsafe.Pointer(&old)), 0, unsafe.Sizeof(old.Val[0]), 0, 0)
	if e != 0 {
		return fmt.Errorf("fork barrier: %w", e)
	}
	// The fork is the barrier: the child's exit is not waited for.
	go func() {
		for {
			if _, err := unix.Wait4(int(pid), nil, 0, nil); err != unix.EINTR {
				return
			}
		}
	}()
	return nil
}

// rawFork forks; the child exits at once.
//
//go:nosplit
//go:norace
func rawFork() (pid uintptr, errno syscall.Errno) {
	pid, _, errno = syscall.RawSyscall6(unix.SYS_CLONE, uintptr(unix.SIGCHLD), 0, 0, 0, 0, 0)
	if errno == 0 && pid == 0 {
		syscall.RawSyscall(unix.SYS_EXIT_GROUP, 0, 0, 0)
	}
	return pid, errno
}
