package bpf

import (
	"fmt"
)

// A Site is a probe site to attach to.
type Site struct {
	// Offset is the file offset of the probe's instruction
	// (stapsdt.Site.PCOffset).
	Offset uint64
	// RefCtrOffset is the file offset of the probe's semaphore
	// (stapsdt.Site.SemaphoreOffset), 0 if it has none. The kernel
	// raises the semaphore while the uprobe is attached, which enables
	// the is-enabled code the probe guards.
	RefCtrOffset uint64
	Spec         Spec
}

// Attach attaches the program to sites of the ELF file path, an
// executable or shared library: in every process that maps it, or in
// Options.PID only. Sites are numbered from 0 in the order they are
// attached, across calls; events carry the number as Site. On error,
// none of the sites is attached.
func (p *Program) Attach(path string, sites []Site) (err error) {
	if len(sites) == 0 {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.prog == nil {
		return fmt.Errorf("attach %s: %w", path, ErrClosed)
	}
	var old []Spec
	if s := p.specs.Load(); s != nil {
		old = *s
	}
	first := len(old)
	if first+len(sites) > int(p.maps.Sites.MaxEntries()) {
		return fmt.Errorf("attach %s: more than %d sites", path, p.maps.Sites.MaxEntries())
	}
	if p.noStrings {
		for i := range sites {
			if m := sites[i].Spec.Strings(); m != 0 {
				return fmt.Errorf("attach %s: site at %#x reads strings (arguments %#x): %w", path, sites[i].Offset, m, ErrNoStrings)
			}
		}
	}
	if p.byIP {
		undo, err := p.place(path, first, sites)
		if err != nil {
			return fmt.Errorf("attach %s: %w", path, err)
		}
		defer func() {
			if err != nil {
				undo()
			}
		}()
	}
	for i := range sites {
		if err := p.maps.Sites.Put(uint32(first+i), &sites[i].Spec.raw); err != nil {
			return fmt.Errorf("attach %s: store spec: %w", path, err)
		}
	}
	// Known to Read before the first event can arrive. A new slice,
	// since Read may be looking at the old one.
	specs := make([]Spec, 0, first+len(sites))
	specs = append(specs, old...)
	req := &attachRequest{
		Path:          path,
		PID:           p.pid,
		Multi:         p.multi,
		First:         first,
		NoCookies:     p.byIP,
		Offsets:       make([]uint64, len(sites)),
		RefCtrOffsets: make([]uint64, len(sites)),
	}
	if !p.byIP {
		req.High = make([]uint32, len(sites))
	}
	for i, s := range sites {
		specs = append(specs, s.Spec)
		req.Offsets[i] = s.Offset
		req.RefCtrOffsets[i] = s.RefCtrOffset
		if req.High != nil {
			req.High[i] = s.Spec.ProbeID()
		}
	}
	p.specs.Store(&specs)
	if err := p.links.attach(req); err != nil {
		p.specs.Store(&old)
		return permission(fmt.Errorf("attach %s: %w", path, err))
	}
	return nil
}
