package probe

import (
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"iter"
	"sync"

	"github.com/sdtkit/sdtkit/pkg/probespec"
	"github.com/sdtkit/sdtkit/pkg/process"
	"github.com/sdtkit/sdtkit/pkg/stapsdt"
	"github.com/sdtkit/sdtkit/pkg/uprobes"
)

// A LiveSite is a probe site of an object a process maps, with its state
// in the process, as Live yields it.
type LiveSite struct {
	Object  *process.Object
	Machine elf.Machine
	// Site is one of the object's probe sites or, on the line of the
	// loader's hook (Hook), one made for it: named process.DebugState,
	// with no provider, its address in the file as PC and NotePC, and
	// its file offset as PCOffset.
	Site *stapsdt.Site
	Hook bool
	process.SiteState
	// Of an armed site: Owners are every uprobe that may own it
	// (uprobes.Uprobe.String), Orphaned reports that none does, and
	// OwnersErr says why that could not be told.
	Owners    []string
	Orphaned  bool
	OwnersErr error
}

// LiveOptions select the sites Live yields. The zero value selects every
// probe site, and the loader's hook.
type LiveOptions struct {
	// Patterns select probes by provider and name in every object the
	// process maps.
	Patterns []probespec.Spec
	// Files select probes by provider and name in the objects their
	// PATH names (process.PathMatcher); with Files and no Patterns, the
	// other objects are passed over.
	Files []probespec.Spec
}

// Live returns an iterator over the probe sites of the objects process
// pid maps that opts select, in the order of Mapped and of their notes,
// each with its state (process.SiteReader) and, when armed, the uprobes
// that may own it. With neither Patterns nor Files, the loader's hook
// (process.LoaderHook) follows them once a tracer has patched it.
//
// When the memory of the process cannot be opened, the sites are still
// yielded, with that error in place of what it holds. An object that
// cannot be read, or whose notes are malformed, is yielded as an error
// with a nil site, after the sites of it that could be read. The other
// errors come last: a Files specification whose PATH the process does not
// map, the loader's hook that could not be read, a pattern or
// specification that matched no probe (*NotFoundError), and, when an
// object could not be read or a PATH is not mapped, one error that says
// the listing is incomplete.
//
// The error of Live itself is that of Mapped, or of a Files
// specification whose PATH cannot be matched.
func Live(pid int, opts *LiveOptions) (iter.Seq2[*LiveSite, error], error) {
	var o LiveOptions
	if opts != nil {
		o = *opts
	}
	files, err := Mapped(pid, nil)
	if err != nil {
		return nil, err
	}
	matchers := make([]*process.PathMatcher, len(o.Files))
	for i, s := range o.Files {
		resolved, _ := probespec.Resolve(s.Path)
		if matchers[i], err = process.NewPathMatcher(pid, s.Path, resolved); err != nil {
			return nil, fmt.Errorf("%v: %w", s, err)
		}
	}
	return func(yield func(*LiveSite, error) bool) {
		l := &lister{pid: pid, opts: o, matchers: matchers, yield: yield}
		l.owners.set = sync.OnceValue(listUprobes)
		mem, err := process.OpenMem(pid, false)
		if err != nil {
			l.mem = unreadable{err}
		} else {
			l.mem = mem
			defer mem.Close()
		}
		l.list(files, err == nil)
	}, nil
}

// listUprobes lists the uprobes of the system; tests replace it.
var listUprobes = uprobes.List

// unreadable is the memory of a process that could not be opened: each
// read fails with why.
type unreadable struct{ err error }

func (u unreadable) ReadAt([]byte, int64) (int, error) { return 0, u.err }

// A lister does the work of one iteration of Live.
type lister struct {
	pid      int
	opts     LiveOptions
	matchers []*process.PathMatcher
	mem      io.ReaderAt
	yield    func(*LiveSite, error) bool
	stopped  bool
	owners   owners
}

// send yields what the caller is given, unless it stopped.
func (l *lister) send(s *LiveSite, err error) {
	if !l.stopped && !l.yield(s, err) {
		l.stopped = true
	}
}

// list yields the sites of files, then the hook when memOK, and the
// errors that come last.
func (l *lister) list(files iter.Seq2[*MappedFile, error], memOK bool) {
	checks := make([]*PatternCheck, len(l.opts.Files))
	for i, s := range l.opts.Files {
		checks[i] = NewPatternCheck(s)
	}
	all := NewPatternCheck(l.opts.Patterns...)
	incomplete := false
	for mf, ferr := range files {
		// The probes of an object pass the patterns, or a specification
		// whose PATH names the object.
		pats := l.opts.Patterns
		if mf.File != nil {
			for i, s := range l.opts.Files {
				if l.matchers[i].Match(mf.Object) {
					pats = append(pats[:len(pats):len(pats)], s)
					checks[i].Add(mf.Object.Path, mf.File.Sites)
				}
			}
		}
		if mf.File != nil && len(mf.File.Sites) > 0 && (len(pats) > 0 || len(l.opts.Files) == 0) {
			all.Add(mf.Object.Path, mf.File.Sites)
			l.sites(mf, pats)
		}
		if ferr != nil {
			l.send(nil, ferr)
			incomplete = true
		}
		if l.stopped {
			return
		}
	}
	for i, check := range checks {
		if check.Files() == 0 {
			s := l.opts.Files[i]
			l.send(nil, fmt.Errorf("%v: process %d maps no %s", s, l.pid, s.Path))
			incomplete = true
		}
	}
	// The hook is no probe: listed when nothing selects probes.
	if len(l.opts.Patterns) == 0 && len(l.opts.Files) == 0 && memOK {
		if err := l.hook(); err != nil {
			l.send(nil, err)
		}
	}
	for _, check := range append(checks, all) {
		for _, err := range check.Errs() {
			l.send(nil, err)
		}
	}
	if incomplete {
		l.send(nil, fmt.Errorf("process %d: some mapped objects could not be listed", l.pid))
	}
}

// sites yields the sites of mf that match one of pats, or every site
// when there are none.
func (l *lister) sites(mf *MappedFile, pats []probespec.Spec) {
	r := process.SiteReader{Mem: l.mem, Object: mf.Object, File: mf.File, Data: mf.Data}
	for i := range mf.File.Sites {
		p := &mf.File.Sites[i]
		if !MatchAny(pats, p.Provider, p.Name) {
			continue
		}
		s := &LiveSite{Object: mf.Object, Machine: mf.File.Machine, Site: p, SiteState: r.Read(p)}
		if s.Armed {
			s.Owners, s.Orphaned, s.OwnersErr = l.owners.of(mf.Object, p.PCOffset)
		}
		if l.send(s, nil); l.stopped {
			return
		}
	}
}

// hook yields the loader's hook when a tracer has patched it: armed by
// a live uprobe, or orphaned.
func (l *lister) hook() error {
	h, err := process.LoaderHook(l.pid)
	if errors.Is(err, process.ErrNoHook) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("loader hook: %w", err)
	}
	st := h.Read(l.mem)
	if st.ArmedErr != nil {
		return fmt.Errorf("loader hook: %s: %w", h.Object.Path, st.ArmedErr)
	}
	if !st.Armed {
		return nil
	}
	s := &LiveSite{Object: h.Object, Machine: h.Machine, Hook: true, SiteState: st,
		Site: &stapsdt.Site{Name: process.DebugState, PC: h.Value, NotePC: h.Value, PCOffset: h.Offset}}
	s.Owners, s.Orphaned, s.OwnersErr = l.owners.of(h.Object, h.Offset)
	l.send(s, nil)
	return nil
}

// owners looks up the owners of armed sites in the uprobes of the
// system, listed once, when the first is looked up.
type owners struct {
	set func() *uprobes.Set
}

// of returns every uprobe that may own the breakpoint at offset off of
// object o, or reports that none does: the site is orphaned.
func (w *owners) of(o *process.Object, off uint64) ([]string, bool, error) {
	set := w.set()
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
