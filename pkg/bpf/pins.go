package bpf

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/link"
	"golang.org/x/sys/unix"
)

// A pinDir is a bpf filesystem of a stop guard's own, mounted nowhere
// (fsopen and fsmount, Linux 5.2; CAP_SYS_ADMIN), in which, once its
// tracer is gone, it pins its link and then closes the link's
// descriptor: the pin is then the link's only reference, and no close(2)
// of a descriptor can release it.
//
// That matters because the kernel removes a uprobe's breakpoints from
// the process that drops the link's last reference, and a process sent
// SIGKILL while in close(2) makes every write of that removal fail (a
// fatal signal interrupts each page access): the sites stay patched
// with no uprobe behind them. A keeper lets its links go by exiting,
// which no signal interrupts, but a guard whose tracer is gone must see
// the uprobe gone before it sends SIGCONT, and so outlive the release. A
// pin's reference is dropped when the pin is removed, or when the mount
// goes with the last descriptor of it (the guard's exit, however it
// dies), and the kernel drops it from a worker of its own (bpf_link_put
// defers the release), which no signal reaches: the removal then always
// completes, and waitGone tells when.
type pinDir struct {
	fd   int // the mount's root
	next int // the name of the next pin
	pins []string
}

// openPinDir mounts a bpf filesystem of this process's own.
func openPinDir() (*pinDir, error) {
	fs, err := unix.Fsopen("bpf", unix.FSOPEN_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("fsopen bpf: %w", err)
	}
	defer unix.Close(fs)
	if err := unix.FsconfigCreate(fs); err != nil {
		return nil, fmt.Errorf("create bpf filesystem: %w", err)
	}
	m, err := unix.Fsmount(fs, unix.FSMOUNT_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("fsmount bpf: %w", err)
	}
	return &pinDir{fd: m}, nil
}

// hold pins l and closes it, leaving the pin its only reference; on
// error l is left as it was.
func (d *pinDir) hold(l link.Link) error {
	name := strconv.Itoa(d.next)
	// The mount has no path but its descriptor's.
	if err := l.Pin("/proc/self/fd/" + strconv.Itoa(d.fd) + "/" + name); err != nil {
		return err
	}
	d.next++
	d.pins = append(d.pins, name)
	l.Close()
	return nil
}

// release removes every pin: the kernel releases each link in the
// background.
func (d *pinDir) release() error {
	var errs []error
	for _, name := range d.pins {
		if err := unix.Unlinkat(d.fd, name, 0); err != nil && !errors.Is(err, unix.ENOENT) {
			errs = append(errs, fmt.Errorf("unpin link: %w", err))
		}
	}
	d.pins = nil
	return errors.Join(errs...)
}

// close removes the mount: the kernel releases the links still pinned
// in the background.
func (d *pinDir) close() error {
	d.pins = nil
	return unix.Close(d.fd)
}

// releaseWait bounds how long a keeper waits for the kernel to release
// the links of a program.
const releaseWait = 30 * time.Second

// waitGone waits until the program of id is gone from the kernel, which
// it is once every link to it was released (a link drops its reference
// to the program after its uprobes are removed) and no descriptor of it
// is left: the program is no longer run, and its uprobes' breakpoints
// and semaphores are undone.
func waitGone(id ebpf.ProgramID, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for wait := 100 * time.Microsecond; ; wait = min(2*wait, time.Millisecond) {
		p, err := ebpf.NewProgramFromID(id)
		if errors.Is(err, unix.ENOENT) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("program %d: %w", id, err)
		}
		p.Close()
		if time.Now().After(deadline) {
			return fmt.Errorf("program %d: still loaded %v after its links were let go", id, limit)
		}
		time.Sleep(wait)
	}
}
