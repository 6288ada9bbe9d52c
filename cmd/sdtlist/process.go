package main

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log"
	"sync"

	"github.com/sdtkit/sdtkit/internal/cli"
	"github.com/sdtkit/sdtkit/pkg/probe"
	"github.com/sdtkit/sdtkit/pkg/probespec"
	"github.com/sdtkit/sdtkit/pkg/process"
	"github.com/sdtkit/sdtkit/pkg/stapsdt"
	"github.com/sdtkit/sdtkit/pkg/uprobes"
)

// listProcess writes the probes of every object process c.pid maps, with
// their live state. An object that cannot be read is reported and the
// others are still listed.
func listProcess(c *config, out sink, logger *log.Logger) error {
	files, err := probe.Mapped(c.pid, nil)
	if err != nil {
		return err
	}
	matchers := make([]*process.PathMatcher, len(c.specs))
	checks := make([]*matchCheck, len(c.specs))
	for i, s := range c.specs {
		resolved, _ := probespec.Resolve(s.Path)
		if matchers[i], err = process.NewPathMatcher(c.pid, s.Path, resolved); err != nil {
			return fmt.Errorf("%v: %w", s, err)
		}
		checks[i] = newMatchCheck(s)
	}
	all := newMatchCheck(c.patterns...)
	mem, memErr := process.OpenMem(c.pid, false)
	if memErr == nil {
		defer mem.Close()
	}
	failed := false
	for mf, ferr := range files {
		// The probes of an object pass the patterns, or a specification
		// whose PATH names the object; with specifications alone, only
		// the objects they name are listed.
		pats := c.patterns
		if mf.File != nil {
			for i, s := range c.specs {
				if matchers[i].Match(mf.Object) {
					pats = append(pats[:len(pats):len(pats)], s)
					checks[i].add(mf.Object.Path, mf.File.Sites)
				}
			}
		}
		if mf.File != nil && len(mf.File.Sites) > 0 && (len(pats) > 0 || len(c.specs) == 0) {
			all.add(mf.Object.Path, mf.File.Sites)
			o := mf.Object
			live := func(p *stapsdt.Site) *liveState {
				return liveSite(c.pid, o, mf.File.Machine, mf.Data, mem, memErr, p)
			}
			if err := writeProbes(o.Path, mf.File, pats, live, out); err != nil {
				ferr = errors.Join(err, ferr)
			}
		}
		if ferr != nil {
			cli.Print(logger, ferr)
			failed = true
		}
	}
	for i, check := range checks {
		if len(check.files) == 0 {
			cli.Print(logger, fmt.Errorf("%v: process %d maps no %s", c.specs[i], c.pid, c.specs[i].Path))
			failed = true
		}
	}
	var errs []error
	for _, check := range append(checks, all) {
		errs = append(errs, check.errs()...)
	}
	if failed {
		errs = append(errs, fmt.Errorf("process %d: some mapped objects could not be listed", c.pid))
	}
	return errors.Join(errs...)
}

// liveSite reads the run-time state of one site: its address, whether a
// tracer patched it, and its semaphore's address and value.
func liveSite(pid int, o *process.Object, m elf.Machine, file io.ReaderAt, mem *process.Mem, memErr error, p *stapsdt.Site) *liveState {
	l := &liveState{pid: pid}
	if p.PCOffsetErr != nil {
		l.armedErr = p.PCOffsetErr
	} else if addr, ok := o.Addr(p.PCOffset); !ok {
		l.armedErr = fmt.Errorf("pc offset %#x is not mapped by the process", p.PCOffset)
	} else {
		l.addr = addr
		l.armed, l.armedErr = armed(m, file, mem, memErr, p.PCOffset, addr)
		if l.armed {
			l.owner, l.orphaned, l.ownerErr = owner(o, p.PCOffset)
		}
	}
	if !p.HasSemaphore() {
		return l
	}
	// A misaligned semaphore cannot work as one, but its bytes can still
	// be shown.
	if p.SemaphoreOffsetErr != nil && !errors.Is(p.SemaphoreOffsetErr, stapsdt.ErrMisaligned) {
		l.semaphoreErr = p.SemaphoreOffsetErr
		return l
	}
	addr, ok := o.WritableAddr(p.SemaphoreOffset)
	if !ok {
		l.semaphoreErr = fmt.Errorf("semaphore offset %#x is not in a private writable mapping of the process", p.SemaphoreOffset)
		return l
	}
	l.semaphoreAddr = addr
	if memErr != nil {
		l.semaphoreErr = memErr
		return l
	}
	var b [2]byte
	if _, err := mem.ReadAt(b[:], int64(addr)); err != nil {
		l.semaphoreErr = err
		return l
	}
	// The kernel and the probed program update the counter in the
	// machine's own byte order, which is ours: sdtlist -p runs on the
	// machine of the process.
	l.semaphoreValue = binary.NativeEndian.Uint16(b[:])
	return l
}

// liveUprobes lists the uprobes of the system once, when the first armed
// site is found.
var liveUprobes = sync.OnceValue(uprobes.List)

// owner returns what owns the breakpoint at offset off of the object, or
// reports that nothing does: the site is orphaned.
func owner(o *process.Object, off uint64) (string, bool, error) {
	set := liveUprobes()
	if owners := set.Owners(process.FileID{Dev: o.Dev, Inode: o.Inode}, o.Path, off); len(owners) > 0 {
		return owners[0].String(), false, nil
	}
	if !set.Complete() {
		return "", false, fmt.Errorf("cannot tell whether a uprobe owns it: %w", errors.Join(set.Unseen...))
	}
	return "", true, nil
}

// armed reports whether a tracer has patched the site: the instruction in
// memory is the kernel's uprobe breakpoint, or differs from the file (some
// kernels rewrite a probed instruction into a call after the first hit).
func armed(m elf.Machine, file io.ReaderAt, mem *process.Mem, memErr error, off, addr uint64) (bool, error) {
	if memErr != nil {
		return false, memErr
	}
	var live, orig [4]byte
	if _, err := mem.ReadAt(live[:], int64(addr)); err != nil {
		return false, err
	}
	if process.IsBreakpoint(live[:], m) {
		return true, nil
	}
	n, err := file.ReadAt(orig[:], int64(off))
	if n < len(orig) && err != nil {
		return false, fmt.Errorf("read site at file offset %#x: %w", off, err)
	}
	k := insnLen(m)
	return !bytes.Equal(live[:k], orig[:k]), nil
}

// insnLen is the length of the nop sys/sdt.h places at a probe site, so
// that a probe on the next instruction is not taken for one on this site.
func insnLen(m elf.Machine) int {
	switch m {
	case elf.EM_X86_64, elf.EM_386:
		return 1
	case elf.EM_RISCV:
		return 2 // c.nop with the C extension
	}
	return 4
}
