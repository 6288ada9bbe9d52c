package semaphore

import (
	"debug/elf"
	"encoding/binary"
	"fmt"

	"github.com/sdtkit/sdtkit/pkg/process"
	"github.com/sdtkit/sdtkit/pkg/stapsdt"
)

// A Semaphore is the semaphore of one probe in one file mapped by one
// process.
type Semaphore struct {
	Pid            int
	File           string // the file as the process maps it
	Provider, Name string
	// Sites is the number of probe sites that share the semaphore.
	Sites int
	// Offset is the file offset of the semaphore (a uprobe's
	// ref_ctr_offset), Addr its runtime address in the process.
	Offset, Addr uint64
	// Dev and Inode identify the file, as in /proc/PID/maps.
	Dev, Inode uint64
	// ByteOrder is the byte order of the file, which the counter is kept
	// in.
	ByteOrder binary.ByteOrder
}

// Locate returns the runtime address of the semaphore of probe p, a probe
// of the file of object o, and checks that it may be written: it has a
// file offset, and lies where process.SemaphoreAddr places it, both
// bytes in a private writable mapping of the file, 2-byte aligned. A
// probe without a semaphore gives an error matching ErrNoSemaphore; one
// that fails the checks a *RefusedError.
func Locate(o *process.Object, p *stapsdt.Site) (uint64, error) {
	if !p.HasSemaphore() {
		return 0, fmt.Errorf("%s: probe %s:%s: %w", o.Path, p.Provider, p.Name, ErrNoSemaphore)
	}
	refuse := func(addr uint64, reason string) error {
		return &RefusedError{Pid: o.Pid, File: o.Path, Probe: p.Provider + ":" + p.Name, Addr: addr, Reason: reason}
	}
	if p.SemaphoreOffsetErr != nil {
		return 0, refuse(p.Semaphore, p.SemaphoreOffsetErr.Error())
	}
	addr, err := o.SemaphoreAddr(p.SemaphoreOffset)
	if err != nil {
		return 0, refuse(addr, err.Error())
	}
	return addr, nil
}

// check says why the 2 bytes at addr may not be written as the semaphore
// at file offset off of the file dev, inode, given the mappings of the
// process; it returns "" when they may: process.SemaphoreAddr places it
// there still.
func check(maps []process.Mapping, dev, inode, off, addr uint64) string {
	now, err := process.SemaphoreAddr(maps, process.FileID{Dev: dev, Inode: inode}, off)
	switch {
	case err != nil:
		return err.Error()
	case now != addr:
		return fmt.Sprintf("the file offset %#x of the semaphore at %#x is at %#x now", off, addr, now)
	}
	return ""
}

func byteOrder(d elf.Data) binary.ByteOrder {
	if d == elf.ELFDATA2MSB {
		return binary.BigEndian
	}
	return binary.LittleEndian
}
