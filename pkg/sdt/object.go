package sdt

import (
	"bytes"
	"debug/elf"
	"fmt"

	"github.com/sdtkit/sdtkit/pkg/elfwriter"
)

// An image is the ELF object of a provider, with where its parts are.
type image struct {
	bytes  []byte
	rx, rw segment
	// sites holds, per probe, the file offsets (which are also the
	// link-time addresses) of its function and semaphore.
	sites []site
}

type segment struct{ off, size uint64 }

type site struct{ fn, sema uint64 }

// A machine describes how probes are passed on one architecture.
type machine struct {
	elf elf.Machine
	// reg names the register of argument i for an argument of size
	// bytes, as gcc writes it in a note.
	reg func(i, size int) string
	// breakpoint is what the kernel writes over the nop of a probe a
	// uprobe is attached to.
	breakpoint []byte
	// longNop, where not nil, reports whether probes are better placed
	// on x86-64's 5-byte nop than on the 1-byte one: whether the running
	// kernel turns a uprobe on it into a call.
	longNop func() bool
}

// build writes the object of the provider name with probes for machine m,
// with segments aligned to page bytes. Each probe is a global function
// NAME_PROBE holding the probe's nop and a return, 16-byte aligned, with a
// semaphore NAME_PROBE_semaphore at a 4-byte boundary. The nop is x86-64's
// 5-byte nop with long, which m must then have.
//
// The long nop is safe here, and not in code at large: a kernel that
// optimizes a uprobe on it (Linux 6.18) replaces it with a call to a
// trampoline of its own, which pushes the return address and three
// registers below the stack pointer, where code may keep data in the
// red zone without moving the pointer. A probe's function is a leaf with
// no locals, called from the trampoline of package sdt, which keeps
// nothing below its stack pointer either: what is written there is free.
func build(name string, probes []*Probe, m machine, page uint64, long bool) (*image, error) {
	if long && m.longNop == nil {
		return nil, fmt.Errorf("no long nop on %v", m.elf)
	}
	f := elfwriter.NewFor(m.elf, elfwriter.Shared)
	f.Soname = name
	f.PageSize = page
	type labels struct{ fn, sema elfwriter.Label }
	ls := make([]labels, len(probes))
	for i, pr := range probes {
		sym := name + "_" + pr.name
		ls[i].sema = f.SemaphoreAligned(sym+"_semaphore", 4)
		ls[i].fn = f.Func(sym)
		var pc elfwriter.Label
		if long {
			pc = f.AMD64().Nop5()
		} else {
			pc = f.Nop()
		}
		f.Ret()
		f.End(ls[i].fn)
		f.Align(16)
		f.AddNote(elfwriter.Note{Provider: name, Name: pr.name, Args: argString(pr.args, m.reg), PC: pc, Semaphore: ls[i].sema})
	}
	im, err := f.Link()
	if err != nil {
		return nil, err
	}
	img := &image{bytes: im.Bytes}
	for _, l := range ls {
		img.sites = append(img.sites, site{fn: im.Offset(l.fn), sema: im.Offset(l.sema)})
	}
	ef, err := elf.NewFile(bytes.NewReader(im.Bytes))
	if err != nil {
		return nil, err
	}
	var loads []segment
	for _, p := range ef.Progs {
		if p.Type == elf.PT_LOAD {
			if p.Vaddr != p.Off {
				return nil, fmt.Errorf("segment at %#x has file offset %#x", p.Vaddr, p.Off)
			}
			loads = append(loads, segment{p.Off, p.Filesz})
		}
	}
	if len(loads) != 2 {
		return nil, fmt.Errorf("object has %d loadable segments, want 2", len(loads))
	}
	img.rx, img.rw = loads[0], loads[1]
	return img, nil
}
