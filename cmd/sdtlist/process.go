package main

import (
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
	checks := make([]*probe.PatternCheck, len(c.specs))
	for i, s := range c.specs {
		resolved, _ := probespec.Resolve(s.Path)
		if matchers[i], err = process.NewPathMatcher(c.pid, s.Path, resolved); err != nil {
			return fmt.Errorf("%v: %w", s, err)
		}
		checks[i] = probe.NewPatternCheck(s)
	}
	all := probe.NewPatternCheck(c.patterns...)
	var mem io.ReaderAt
	m, memErr := process.OpenMem(c.pid, false)
	if memErr == nil {
		mem = m
		defer m.Close()
	} else {
		mem = unreadable{memErr}
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
					checks[i].Add(mf.Object.Path, mf.File.Sites)
				}
			}
		}
		if mf.File != nil && len(mf.File.Sites) > 0 && (len(pats) > 0 || len(c.specs) == 0) {
			all.Add(mf.Object.Path, mf.File.Sites)
			o := mf.Object
			live := func(p *stapsdt.Site) *liveState {
				return liveSite(c.pid, &process.SiteReader{Mem: mem, Object: o, File: mf.File, Data: mf.Data}, p)
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
		if check.Files() == 0 {
			cli.Print(logger, fmt.Errorf("%v: process %d maps no %s", c.specs[i], c.pid, c.specs[i].Path))
			failed = true
		}
	}
	var errs []error
	// The hook is no probe: listed when nothing selects probes.
	if len(c.patterns) == 0 && len(c.specs) == 0 && memErr == nil {
		if err := listHook(c.pid, mem, out); err != nil {
			errs = append(errs, err)
		}
	}
	for _, check := range append(checks, all) {
		errs = append(errs, check.Errs()...)
	}
	if failed {
		errs = append(errs, fmt.Errorf("process %d: some mapped objects could not be listed", c.pid))
	}
	return errors.Join(errs...)
}

// liveSite reads the run-time state of one site through r: its address,
// whether a tracer patched it, and its semaphore's address and value.
func liveSite(pid int, r *process.SiteReader, p *stapsdt.Site) *liveState {
	st := r.Read(p)
	l := &liveState{pid: pid, addr: st.Addr, armed: st.Armed, armedErr: st.ArmedErr}
	if l.armed {
		l.owners, l.orphaned, l.ownerErr = owners(r.Object, p.PCOffset)
	}
	// A misaligned semaphore's bytes are shown as those of any other:
	// semaphore_error says it is no counter.
	if s := st.Semaphore; s != nil {
		l.semaphoreAddr, l.semaphoreValue, l.semaphoreErr = s.Addr, s.Value, s.Err
	}
	return l
}

// unreadable is the memory of a process that could not be opened: each
// read fails with why.
type unreadable struct{ err error }

func (u unreadable) ReadAt([]byte, int64) (int, error) { return 0, u.err }

// liveUprobes lists the uprobes of the system once, when the first armed
// site is found.
var liveUprobes = sync.OnceValue(uprobes.List)

// owners returns every uprobe that may own the breakpoint at offset off
// of the object, or reports that none does: the site is orphaned.
func owners(o *process.Object, off uint64) ([]string, bool, error) {
	set := liveUprobes()
	if us := set.Owners(process.FileID{Dev: o.Dev, Inode: o.Inode}, o.Path, off); len(us) > 0 {
		names := make([]string, len(us))
		for i := range us {
			names[i] = us[i].String()
		}
		return names, false, nil
	}
	if !set.Complete() {
		return nil, false, fmt.Errorf("cannot tell whether a uprobe owns it: %w", errors.Join(set.Unseen...))
	}
	return nil, true, nil
}

// listHook writes the line of the loader's hook of process pid when a
// tracer has patched it: armed by a live uprobe, or orphaned.
func listHook(pid int, mem io.ReaderAt, out sink) error {
	h, err := process.LoaderHook(pid)
	if errors.Is(err, process.ErrNoHook) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("loader hook: %w", err)
	}
	st := h.Read(mem)
	if st.ArmedErr != nil {
		return fmt.Errorf("loader hook: %s: %w", h.Object.Path, st.ArmedErr)
	}
	if !st.Armed {
		return nil
	}
	o := h.Object
	l := &liveState{pid: pid, addr: h.Addr, armed: true, hook: true}
	l.owners, l.orphaned, l.ownerErr = owners(o, h.Offset)
	p := &stapsdt.Site{Name: process.DebugState, PC: h.Value, NotePC: h.Value, PCOffset: h.Offset}
	if err := out.write(&site{file: o.Path, probe: p, machine: h.Machine, live: l}); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	return nil
}
