package repair

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/sdtkit/sdtkit/pkg/probe"
	"github.com/sdtkit/sdtkit/pkg/process"
	"github.com/sdtkit/sdtkit/pkg/semaphore"
	"github.com/sdtkit/sdtkit/pkg/uprobes"
)

// ErrUnseen is matched by the error of Process when not every uprobe of
// the system could be looked at, so that no site can be proven orphaned.
var ErrUnseen = errors.New("cannot prove that no uprobe owns a site")

// A Site is an orphaned probe site: a breakpoint no uprobe owns.
type Site struct {
	PID            int
	File           string // as the process maps it
	Provider, Name string
	Addr           uint64 // run-time address
	Offset         uint64 // file offset
	// Restored reports that the file's instruction was written back.
	// It is false with Options.DryRun, and when a tracer took the site
	// while it was repaired (Taken names it).
	Restored bool
	Taken    string
}

// An Excess is a semaphore higher than the sites live uprobes arm.
type Excess struct {
	PID            int
	File           string
	Provider, Name string // of the first probe it guards
	Addr           uint64
	Value          uint16
	Armed          int // its sites armed by a uprobe with a reference counter
	Held           int // increments recorded by live holders
}

// Options select what Process repairs. The zero value repairs every site.
type Options struct {
	// DryRun finds the orphaned sites and writes nothing.
	DryRun bool
	// Match selects probes by provider and name; nil selects all.
	Match func(provider, name string) bool
}

// An Undone is an increment that sdtsema --hold, or another holder
// recording its holds with semaphore.Holds, left behind when it was
// killed: no holder of it is left, so it is undone.
type Undone struct {
	Holder        int // the pid of the holder, gone
	Hold          semaphore.Hold
	Before, After uint16
	Done          bool // false with Options.DryRun
}

// A Report is what Process found in one process.
type Report struct {
	Sites  []Site
	Undone []Undone
	Excess []Excess
}

// candidate is an armed site before its owners are known.
type candidate struct {
	site  Site
	id    process.FileID
	orig  []byte // the file's instruction, as long as the breakpoint
	live  []byte // the breakpoint
	sema  uint64 // run-time address of the semaphore, 0 if none
	semaO uint64 // its file offset
}

// Process repairs the orphaned probe sites of process pid.
func Process(pid int, opts *Options) (*Report, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	files, err := probe.Mapped(pid, nil)
	if err != nil {
		return nil, err
	}
	mem, err := process.OpenMem(pid, !o.DryRun)
	if err != nil {
		return nil, err
	}
	defer mem.Close()
	var cands []candidate
	sems := make(map[uint64]*semState)
	var errs []error
	for mf, err := range files {
		if mf.File == nil {
			errs = append(errs, err)
			continue
		}
		if err := scan(mf, mem, o.Match, &cands, sems); err != nil {
			errs = append(errs, err)
		}
	}
	rep := &Report{}
	holders, err := semaphore.Holders(pid)
	if err != nil {
		errs = append(errs, fmt.Errorf("recorded holds: %w", err))
	}
	held := make(map[uint64]int) // by live holders
	for i := range holders {
		h := &holders[i]
		if h.Alive {
			for _, x := range h.Holds {
				held[x.Addr]++
			}
			continue
		}
		if err := undo(pid, h, &o, rep, sems); err != nil {
			errs = append(errs, err)
		}
	}
	if len(cands) == 0 && !anyRaised(sems) {
		return rep, errors.Join(errs...)
	}
	set := uprobes.List()
	if !set.Complete() {
		return nil, fmt.Errorf("process %d: %w: %w", pid, ErrUnseen, errors.Join(set.Unseen...))
	}
	var restored []*candidate // of rep.Sites, in step
	for i := range cands {
		c := &cands[i]
		owners := set.Owners(c.id, c.site.File, c.site.Offset)
		if c.sema != 0 {
			for _, u := range owners {
				if u.RefCtrOffset == c.semaO {
					sems[c.sema].armed++
					break
				}
			}
		}
		if len(owners) > 0 {
			continue
		}
		if !o.DryRun {
			if err := restore(mem, c.site.Addr, c.live, c.orig); err != nil {
				errs = append(errs, fmt.Errorf("%s:%s at %#x: %w", c.site.Provider, c.site.Name, c.site.Addr, err))
				continue
			}
			c.site.Restored = true
		}
		rep.Sites = append(rep.Sites, c.site)
		restored = append(restored, c)
	}
	if !o.DryRun && len(rep.Sites) > 0 {
		errs = append(errs, giveBack(mem, rep.Sites, restored))
	}
	for _, addr := range slices.Sorted(maps.Keys(sems)) {
		s := sems[addr]
		if int(s.value) > s.armed+held[addr] {
			rep.Excess = append(rep.Excess, Excess{PID: pid, File: s.file, Provider: s.provider, Name: s.name, Addr: addr, Value: s.value, Armed: s.armed, Held: held[addr]})
		}
	}
	return rep, errors.Join(errs...)
}

// undo undoes the holds a gone holder left on process pid.
func undo(pid int, h *semaphore.Holder, o *Options, rep *Report, sems map[uint64]*semState) error {
	var p *semaphore.Process
	if !o.DryRun {
		var err error
		if p, err = semaphore.Open(pid, true); err != nil {
			return err
		}
		defer p.Close()
	}
	var errs []error
	var done []semaphore.Hold
	for _, x := range h.Holds {
		if o.Match != nil && !o.Match(x.Provider, x.Name) {
			continue
		}
		u := Undone{Holder: h.Pid, Hold: x}
		if p != nil {
			before, after, err := p.Add(x.Semaphore(), -1)
			if err != nil && !errors.Is(err, semaphore.ErrChanged) {
				errs = append(errs, fmt.Errorf("undo the hold of process %d on %s:%s: %w", h.Pid, x.Provider, x.Name, err))
				continue
			}
			u.Before, u.After, u.Done = before, after, true
			done = append(done, x)
			if s := sems[x.Addr]; s != nil {
				s.value = after
			}
		}
		rep.Undone = append(rep.Undone, u)
	}
	if len(done) > 0 {
		errs = append(errs, h.Forget(done))
	}
	return errors.Join(errs...)
}

// semState is one semaphore of the matched probes.
type semState struct {
	file, provider, name string
	value                uint16
	armed                int
}

func anyRaised(sems map[uint64]*semState) bool {
	for _, s := range sems {
		if s.value > 0 {
			return true
		}
	}
	return false
}

// scan adds the armed sites of one mapped object, and its semaphores.
func scan(mf *probe.MappedFile, mem *process.Mem, match func(string, string) bool, cands *[]candidate, sems map[uint64]*semState) error {
	obj, f, fd := mf.Object, mf.File, mf.Data
	id := process.FileID{Dev: obj.Dev, Inode: obj.Inode}
	for i := range f.Sites {
		p := &f.Sites[i]
		if match != nil && !match(p.Provider, p.Name) || p.PCOffsetErr != nil {
			continue
		}
		var sema uint64
		if p.HasSemaphore() && p.SemaphoreOffsetErr == nil {
			if addr, ok := obj.WritableAddr(p.SemaphoreOffset); ok {
				sema = addr
				if sems[addr] == nil {
					s := &semState{file: obj.Path, provider: p.Provider, name: p.Name}
					if v, err := mem.Semaphore(addr); err == nil {
						s.value = v
					}
					sems[addr] = s
				}
			}
		}
		addr, ok := obj.Addr(p.PCOffset)
		if !ok {
			continue
		}
		live := make([]byte, 4)
		if _, err := mem.ReadAt(live, int64(addr)); err != nil {
			return fmt.Errorf("%s: %s:%s: %w", obj.Path, p.Provider, p.Name, err)
		}
		n := process.BreakpointSize(live, f.Machine)
		if n == 0 {
			continue
		}
		orig := make([]byte, n)
		if _, err := fd.ReadAt(orig, int64(p.PCOffset)); err != nil {
			return fmt.Errorf("%s: read site at file offset %#x: %w", obj.Path, p.PCOffset, err)
		}
		if process.BreakpointSize(orig, f.Machine) == n {
			continue // the file's own breakpoint, not a tracer's
		}
		*cands = append(*cands, candidate{
			site:  Site{PID: obj.Pid, File: obj.Path, Provider: p.Provider, Name: p.Name, Addr: addr, Offset: p.PCOffset},
			id:    id,
			orig:  orig,
			live:  live[:n],
			sema:  sema,
			semaO: p.SemaphoreOffset,
		})
	}
	return nil
}

// restore writes orig over the breakpoint at addr, if it is still there.
func restore(mem *process.Mem, addr uint64, bp, orig []byte) error {
	now := make([]byte, len(bp))
	if _, err := mem.ReadAt(now, int64(addr)); err != nil {
		return err
	}
	if string(now) != string(bp) {
		return nil // changed since: a tracer detached
	}
	_, err := mem.WriteAt(orig, int64(addr))
	return err
}

// giveBack lists the uprobes again and puts the breakpoint back at the
// restored sites a tracer took while they were being restored; cands are
// the candidates of sites, in step.
func giveBack(mem *process.Mem, sites []Site, cands []*candidate) error {
	set := uprobes.List()
	var errs []error
	for i := range sites {
		s, c := &sites[i], cands[i]
		if owners := set.Owners(c.id, s.File, s.Offset); len(owners) > 0 {
			if _, err := mem.WriteAt(c.live, int64(s.Addr)); err != nil {
				errs = append(errs, err)
			}
			s.Restored, s.Taken = false, owners[0].String()
		}
	}
	return errors.Join(errs...)
}
