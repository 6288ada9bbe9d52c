package repair

import (
	"errors"
	"fmt"
	"io"

	"github.com/sdtkit/sdtkit/pkg/probe"
	"github.com/sdtkit/sdtkit/pkg/process"
	"github.com/sdtkit/sdtkit/pkg/uprobes"
)

// memory is the memory of a process, with run-time addresses as offsets:
// a *process.Mem.
type memory interface {
	io.ReaderAt
	io.WriterAt
}

// candidate is a site holding a breakpoint, before its owners are known.
type candidate struct {
	site  Site
	id    process.FileID
	orig  []byte // the file's instruction, as long as the breakpoint
	live  []byte // the breakpoint
	sema  uint64 // run-time address of the semaphore, 0 if none
	semaO uint64 // its file offset
}

// scan adds the sites of one mapped object that hold a tracer's
// breakpoint, as process.SiteReader tells them, and its semaphores.
func scan(mf *probe.MappedFile, mem *process.Mem, match func(string, string) bool, cands *[]candidate, sems map[uint64]*semState) error {
	obj, f := mf.Object, mf.File
	id := process.FileID{Dev: obj.Dev, Inode: obj.Inode}
	r := process.SiteReader{Mem: mem, Object: obj, File: f, Data: mf.Data}
	for i := range f.Sites {
		p := &f.Sites[i]
		if match != nil && !match(p.Provider, p.Name) || p.PCOffsetErr != nil {
			continue
		}
		st := r.Read(p)
		var sema uint64
		if s := st.Semaphore; s != nil && s.Counter() {
			sema = s.Addr
			addSemaphore(sems, obj.Path, p, s)
		}
		if st.Addr == 0 {
			continue // not mapped
		}
		if st.ArmedErr != nil {
			return fmt.Errorf("%s: %s:%s: %w", obj.Path, p.Provider, p.Name, st.ArmedErr)
		}
		if st.Breakpoint != nil {
			site := Site{PID: obj.Pid, File: obj.Path, Provider: p.Provider, Name: p.Name, Addr: st.Addr, Offset: p.PCOffset}
			*cands = append(*cands, candidate{site: site, id: id, orig: st.Insn, live: st.Breakpoint, sema: sema, semaO: p.SemaphoreOffset})
		}
	}
	return nil
}

// restoreOrphans writes the file's instruction back at the candidates
// that no uprobe of set owns, and adds them to rep.Sites. Once it has
// written, it lists the uprobes again and gives their breakpoint back to
// the sites a tracer took meanwhile.
func restoreOrphans(mem memory, cands []candidate, set *uprobes.Set, dryRun bool, rep *Report) error {
	var errs []error
	first := len(rep.Sites)
	var restored []*candidate // of rep.Sites[first:], in step
	for i := range cands {
		c := &cands[i]
		if len(set.Owners(c.id, c.site.File, c.site.Offset)) > 0 {
			continue
		}
		if !dryRun {
			if err := restore(mem, c.site.Addr, c.live, c.orig); err != nil {
				errs = append(errs, fmt.Errorf("%s at %#x: %w", c.site.label(), c.site.Addr, err))
				continue
			}
			c.site.Restored = true
		}
		rep.Sites = append(rep.Sites, c.site)
		restored = append(restored, c)
	}
	if !dryRun && len(restored) > 0 {
		errs = append(errs, giveBack(mem, rep.Sites[first:], restored))
	}
	return errors.Join(errs...)
}

// label names the site in errors: PROVIDER:NAME, or the hook's function.
func (s *Site) label() string {
	if s.Hook {
		return s.Name
	}
	return s.Provider + ":" + s.Name
}

// restore writes orig over the breakpoint at addr, if it is still there.
func restore(mem memory, addr uint64, bp, orig []byte) error {
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
func giveBack(mem memory, sites []Site, cands []*candidate) error {
	set := listUprobes()
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
