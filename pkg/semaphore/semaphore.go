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
// of the file of object o, and checks that it may be written: it lies in a
// private writable mapping of the file, both of its bytes do, and it is
// 2-byte aligned. A probe without a semaphore gives an error matching
// ErrNoSemaphore; an address that fails the checks a *RefusedError.
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
	addr, ok := o.WritableAddr(p.SemaphoreOffset)
	if !ok {
		return 0, refuse(0, fmt.Sprintf("file offset %#x is in no private writable mapping of the file", p.SemaphoreOffset))
	}
	if reason := check(o.Mappings, o.Dev, o.Inode, p.SemaphoreOffset, addr); reason != "" {
		return 0, refuse(addr, reason)
	}
	return addr, nil
}

// check says why the 2 bytes at addr may not be written as the semaphore
// at file offset off of the file dev, inode, given the mappings of the
// process; it returns "" when they may.
func check(maps []process.Mapping, dev, inode, off, addr uint64) string {
	if addr%2 != 0 {
		return "address is not 2-byte aligned"
	}
	for _, m := range maps {
		if addr < m.Start || addr >= m.End {
			continue
		}
		switch {
		case m.Dev != dev || m.Inode != inode:
			return fmt.Sprintf("address is mapped from another file (%s, inode %d)", m.Path, m.Inode)
		case !m.Writable() || !m.Private():
			return fmt.Sprintf("address is in a %s mapping, not a private writable one", m.Perms)
		case m.Offset+(addr-m.Start) != off:
			return fmt.Sprintf("address maps file offset %#x, not the semaphore's %#x", m.Offset+(addr-m.Start), off)
		case m.End-addr < 2:
			return "semaphore straddles the end of its mapping"
		}
		return ""
	}
	return "address is not mapped"
}

func byteOrder(d elf.Data) binary.ByteOrder {
	if d == elf.ELFDATA2MSB {
		return binary.BigEndian
	}
	return binary.LittleEndian
}
