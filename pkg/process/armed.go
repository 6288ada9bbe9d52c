package process

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"io"
)

// Armed reports whether a tracer has patched the probe site at run-time
// address addr, whose instruction is at offset off of file, an object of
// machine m the process maps: the instruction in memory is the kernel's
// uprobe breakpoint (IsBreakpoint), or differs from the file's (some
// kernels rewrite a probed instruction into a call after its first hit).
func (mem *Mem) Armed(m elf.Machine, file io.ReaderAt, off, addr uint64) (bool, error) {
	var live, orig [4]byte
	if _, err := mem.ReadAt(live[:], int64(addr)); err != nil {
		return false, err
	}
	if IsBreakpoint(live[:], m) {
		return true, nil
	}
	n, err := file.ReadAt(orig[:], int64(off))
	if n < len(orig) && err != nil {
		return false, fmt.Errorf("read site at file offset %#x: %w", off, err)
	}
	return patched(m, live[:], orig[:]), nil
}

// patched reports whether the instruction live, read from a process, is a
// breakpoint or differs from orig, the file's, over the shortest
// instruction of machine m.
func patched(m elf.Machine, live, orig []byte) bool {
	if IsBreakpoint(live, m) {
		return true
	}
	k := min(nopLen(m), len(live), len(orig))
	return !bytes.Equal(live[:k], orig[:k])
}

// nopLen is the length of the nop sys/sdt.h places at a probe site, so
// that a probe on the next instruction is not taken for one on this site.
func nopLen(m elf.Machine) int {
	switch m {
	case elf.EM_X86_64, elf.EM_386:
		return 1
	case elf.EM_RISCV:
		return 2 // c.nop with the C extension
	}
	return 4
}

// Semaphore returns the value of the probe semaphore at run-time address
// addr. The kernel and the probed program update the counter in the
// machine's own byte order, which is this program's when it inspects a
// process of its machine.
func (mem *Mem) Semaphore(addr uint64) (uint16, error) {
	var b [2]byte
	if _, err := mem.ReadAt(b[:], int64(addr)); err != nil {
		return 0, err
	}
	return binary.NativeEndian.Uint16(b[:]), nil
}
