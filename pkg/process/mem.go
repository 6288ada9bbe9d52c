package process

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
)

// Mem gives access to the memory of a process through /proc/PID/mem. It
// implements io.ReaderAt and io.WriterAt with runtime addresses as
// offsets.
//
// Accesses are not atomic with respect to the process or to the kernel
// updating a semaphore, so read-modify-write of a semaphore can lose a
// concurrent update.
type Mem struct {
	pid int
	f   *os.File
}

var (
	_ io.ReaderAt = (*Mem)(nil)
	_ io.WriterAt = (*Mem)(nil)
)

// OpenMem opens the memory of process pid, for writing too if write is
// set. Access needs CAP_SYS_PTRACE or, as the same user, a Yama
// ptrace_scope that allows attaching; failure gives a *PermissionError.
func OpenMem(pid int, write bool) (*Mem, error) {
	flag := os.O_RDONLY
	if write {
		flag = os.O_RDWR
	}
	f, err := os.OpenFile(procPath(pid, "mem"), flag, 0)
	if err != nil {
		return nil, procError(pid, "open memory", accessAttach, err)
	}
	return &Mem{pid: pid, f: f}, nil
}

// ReadAt reads len(b) bytes at address addr. Reading an address the
// process has not mapped fails with an error matching syscall.EIO; reading
// the memory of a process that has exited, with ErrNoProcess.
func (m *Mem) ReadAt(b []byte, addr int64) (int, error) {
	n, err := m.f.ReadAt(b, addr)
	if err != nil {
		err = m.error("read", len(b), addr, n, err)
	}
	return n, err
}

// WriteAt writes b at address addr. The kernel writes through page
// protections, as a debugger does, and breaks copy-on-write sharing of the
// pages it writes to. Errors are as for ReadAt.
func (m *Mem) WriteAt(b []byte, addr int64) (int, error) {
	n, err := m.f.WriteAt(b, addr)
	if err != nil {
		err = m.error("write", len(b), addr, n, err)
	}
	return n, err
}

// Close closes the memory file.
func (m *Mem) Close() error { return m.f.Close() }

func (m *Mem) error(op string, size int, addr int64, n int, err error) error {
	// The kernel returns 0 bytes, not an error, once the process has
	// released its memory.
	if n == 0 && (errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)) {
		return fmt.Errorf("process %d: %w", m.pid, ErrNoProcess)
	}
	var pe *os.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	if errors.Is(err, syscall.EIO) {
		return fmt.Errorf("process %d: %s %d bytes at %#x: %w (address not mapped)", m.pid, op, size, addr, err)
	}
	return fmt.Errorf("process %d: %s %d bytes at %#x: %w", m.pid, op, size, addr, err)
}
