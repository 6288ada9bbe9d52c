package semaphore

import (
	"fmt"
	"io"

	"github.com/sdtkit/sdtkit/pkg/process"
)

// A Process gives access to the semaphores of one process.
type Process struct {
	pid int
	mem memory
	// readMaps is process.ReadMaps, replaced in tests.
	readMaps func(pid int) ([]process.Mapping, error)
}

// memory is a *process.Mem, or in tests one that fails or changes
// values between accesses.
type memory interface {
	io.ReaderAt
	io.WriterAt
	io.Closer
}

// Open opens the memory of process pid, for writing too if write is set.
// Errors are those of process.OpenMem.
func Open(pid int, write bool) (*Process, error) {
	mem, err := process.OpenMem(pid, write)
	if err != nil {
		return nil, err
	}
	return &Process{pid: pid, mem: mem, readMaps: process.ReadMaps}, nil
}

// Close closes the memory of the process.
func (p *Process) Close() error { return p.mem.Close() }

// Read returns the value of semaphore s.
func (p *Process) Read(s *Semaphore) (uint16, error) {
	if err := p.same(s); err != nil {
		return 0, err
	}
	var b [2]byte
	if _, err := p.mem.ReadAt(b[:], int64(s.Addr)); err != nil {
		return 0, fmt.Errorf("read semaphore: %w", err)
	}
	return s.ByteOrder.Uint16(b[:]), nil
}

// Add adds delta to semaphore s and returns its value before and after.
//
// It first checks against the current /proc/PID/maps that the address may
// be written, as Locate does, and refuses with a *RefusedError otherwise. It
// then reads the two bytes, writes the new value right away, and reads it
// back: a value read back that differs gives a *ChangedError along with
// before and after, and means that the write happened. A change that would
// take the value below 0 or past 65535 gives ErrUnderflow or ErrOverflow and
// writes nothing.
func (p *Process) Add(s *Semaphore, delta int) (before, after uint16, err error) {
	if err := p.same(s); err != nil {
		return 0, 0, err
	}
	maps, err := p.readMaps(p.pid)
	if err != nil {
		return 0, 0, err
	}
	if err := p.check(maps, s); err != nil {
		return 0, 0, err
	}
	before, after, _, err = p.apply(s, delta)
	return before, after, err
}

// check refuses s unless maps, the process's mappings, allow writing it.
func (p *Process) check(maps []process.Mapping, s *Semaphore) error {
	if reason := check(maps, s.Dev, s.Inode, s.Offset, s.Addr); reason != "" {
		return &RefusedError{Pid: p.pid, File: s.File, Probe: s.Provider + ":" + s.Name, Addr: s.Addr, Reason: reason}
	}
	return nil
}

// read returns the value of s, which the caller has checked.
func (p *Process) read(s *Semaphore) (uint16, error) {
	var b [2]byte
	if _, err := p.mem.ReadAt(b[:], int64(s.Addr)); err != nil {
		return 0, fmt.Errorf("read semaphore: %w", err)
	}
	return s.ByteOrder.Uint16(b[:]), nil
}

// apply adds delta to s, which the caller has checked, as Add does once
// the mappings allow it: read, write at once, read back. written says
// whether the write happened, whatever err says.
func (p *Process) apply(s *Semaphore, delta int) (before, after uint16, written bool, err error) {
	if before, err = p.read(s); err != nil {
		return 0, 0, false, err
	}
	after, err = add(before, delta)
	if err != nil {
		return before, before, false, p.rangeError(s, before, err)
	}
	var b [2]byte
	s.ByteOrder.PutUint16(b[:], after)
	if _, err := p.mem.WriteAt(b[:], int64(s.Addr)); err != nil {
		return before, before, false, fmt.Errorf("write semaphore: %w", err)
	}
	if _, err := p.mem.ReadAt(b[:], int64(s.Addr)); err != nil {
		return before, after, true, fmt.Errorf("read back semaphore: %w", err)
	}
	if v := s.ByteOrder.Uint16(b[:]); v != after {
		return before, after, true, &ChangedError{Pid: p.pid, Addr: s.Addr, Wrote: after, Read: v}
	}
	return before, after, true, nil
}

// rangeError reports that s, at value v, cannot take the change.
func (p *Process) rangeError(s *Semaphore, v uint16, err error) error {
	return fmt.Errorf("process %d: %s: %s:%s is %d: %w", p.pid, s.File, s.Provider, s.Name, v, err)
}

func (p *Process) same(s *Semaphore) error {
	if s.Pid != p.pid {
		return fmt.Errorf("semaphore of process %d used with process %d", s.Pid, p.pid)
	}
	return nil
}

// add returns v+delta, or an error when it does not fit in 16 bits.
func add(v uint16, delta int) (uint16, error) {
	n := int(v) + delta
	switch {
	case n < 0:
		return v, ErrUnderflow
	case n > 0xffff:
		return v, ErrOverflow
	}
	return uint16(n), nil
}
