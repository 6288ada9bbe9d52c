package probe

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sdtkit/sdtkit/pkg/probespec"
	"github.com/sdtkit/sdtkit/pkg/process"
)

// A Probe is one probe, a provider and a name, of one target, with the
// sites of it that were selected.
type Probe struct {
	Target   *Target
	Provider string
	Name     string
	// Spec is the specification that selected the probe: the first
	// that gives argument types for it, or else the first.
	Spec probespec.Spec
	// Sites are indexes into Target.File.Sites, in note order.
	Sites []int
}

// String returns PROVIDER:NAME.
func (p *Probe) String() string { return p.Provider + ":" + p.Name }

// Options adjust Find.
type Options struct {
	// PID, when not 0, is the process whose mapped objects
	// specifications are resolved against.
	PID int
	// Libraries, with PID, are files the process does not map yet but
	// will: the shared libraries of a program stopped at its execve,
	// before the dynamic loader maps them. They are searched as if
	// mapped.
	Libraries []string
	// Warn, when not nil, is given the error of each file whose notes
	// are malformed: its other probes are still selected.
	Warn func(error)
	// Skip, when not nil, with PID, passes over the mapped objects it
	// returns true for, unread: those a caller looked at before, when
	// the process has mapped more since.
	Skip func(*process.Object) bool
	// DebugDirs are the roots of separate debug files the symbols of a
	// stripped file are read from, for arguments that name a symbol
	// (Target.Symbols); nil means symbolize.DefaultDebugDir.
	DebugDirs []string
}

// ErrNoProbes is matched by the error of a PROVIDER:NAME specification
// when the process maps no object with probes.
var ErrNoProbes = errors.New("maps no object with USDT probes")

// A Selection is what Find selected.
type Selection struct {
	// Probes are in the order their specifications named them.
	Probes []*Probe
	// Targets are the files read, in the order they were first named.
	Targets []*Target
	// Damaged names the files whose malformed notes were given to
	// Options.Warn.
	Damaged []string
}

// Sites returns the number of sites of the probes.
func (s *Selection) Sites() int {
	n := 0
	for _, p := range s.Probes {
		n += len(p.Sites)
	}
	return n
}

// Find resolves specs to the probes of files or, with Options.PID, of
// the objects a process maps (see the package documentation). The error
// of a specification that matches nothing names it, the files it
// searched and the probes in them that come closest. opts may be nil.
func Find(specs []probespec.Spec, opts *Options) (*Selection, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	fs := &files{warn: o.Warn, debugDirs: o.DebugDirs}
	find := func(s probespec.Spec) ([]*Target, error) { return fs.fileTargets(s) }
	if o.PID != 0 {
		pt, err := newProcTargets(o.PID, fs, o.Skip)
		if err != nil {
			return nil, err
		}
		if err := pt.addLibraries(o.Libraries); err != nil {
			return nil, err
		}
		find = pt.find
	}
	probes, err := selectProbes(specs, find)
	if err != nil {
		return nil, err
	}
	return &Selection{Probes: probes, Targets: fs.list, Damaged: fs.damaged}, nil
}

// fileTargets returns the target a PATH:PROVIDER:NAME specification
// names when no process is given.
func (fs *files) fileTargets(s probespec.Spec) ([]*Target, error) {
	if s.Path == "" {
		return nil, errors.New("PROVIDER:NAME needs a process; without one, give PATH:PROVIDER:NAME")
	}
	path, err := probespec.Resolve(s.Path)
	if err != nil {
		return nil, err
	}
	t, err := fs.open(path, path, nil, nil)
	if err != nil {
		return nil, err
	}
	return []*Target{t}, nil
}

// A procTargets finds the targets of specifications among the objects a
// process maps.
type procTargets struct {
	pid    int
	fs     *files
	mapped []procObject // the ELF files the process maps
}

type procObject struct {
	obj    *process.Object
	target *Target // nil when the file could not be read
	err    error
}

func newProcTargets(pid int, fs *files, skip func(*process.Object) bool) (*procTargets, error) {
	var want func(*process.Object) bool
	if skip != nil {
		want = func(o *process.Object) bool { return !skip(o) }
	}
	files, err := Mapped(pid, want)
	if err != nil {
		return nil, err
	}
	pt := &procTargets{pid: pid, fs: fs}
	for mf, err := range files {
		po := procObject{obj: mf.Object}
		if mf.File != nil {
			po.target, po.err = fs.open(mf.Object.Path, mf.Object.HostPath, mf.File, err)
		} else {
			po.err = err
		}
		pt.mapped = append(pt.mapped, po)
	}
	return pt, nil
}

// find returns the targets specification s names in the process: every
// mapped object with probes for PROVIDER:NAME; for PATH:PROVIDER:NAME the
// objects process.PathMatcher matches, or else the file PATH resolves to,
// which the process may map later (dlopen).
func (p *procTargets) find(s probespec.Spec) ([]*Target, error) {
	var out []*Target
	if s.Path == "" {
		var unread []error
		for _, po := range p.mapped {
			switch {
			case po.target != nil && len(po.target.File.Sites) > 0:
				out = append(out, po.target)
			case po.target == nil && po.err != nil:
				unread = append(unread, po.err)
			}
		}
		switch {
		case len(out) == 0 && len(unread) > 0:
			// Say why, which is most often the right to read the
			// process's files.
			return nil, fmt.Errorf("process %d maps no object with USDT probes that could be read; of the %d that could not, the first: %w", p.pid, len(unread), unread[0])
		case len(out) == 0:
			return nil, fmt.Errorf("process %d %w", p.pid, ErrNoProbes)
		}
		return out, nil
	}
	resolved, resolveErr := probespec.Resolve(s.Path)
	if resolveErr == nil {
		if r, err := filepath.EvalSymlinks(resolved); err == nil {
			resolved = r
		}
	}
	m, err := process.NewPathMatcher(p.pid, s.Path, resolved)
	if err != nil {
		if resolveErr != nil {
			err = fmt.Errorf("process %d maps no %s, and %w", p.pid, s.Path, resolveErr)
		}
		return nil, err
	}
	for _, po := range p.mapped {
		if !m.Match(po.obj) {
			continue
		}
		if po.target == nil {
			return nil, po.err
		}
		out = append(out, po.target)
	}
	if len(out) > 0 {
		return out, nil
	}
	if resolveErr != nil {
		return nil, fmt.Errorf("process %d maps no %s, and %w", p.pid, s.Path, resolveErr)
	}
	t, err := p.fs.open(resolved, resolved, nil, nil)
	if err != nil {
		return nil, err
	}
	return []*Target{t}, nil
}

// selectProbes matches each specification against the probes of the
// targets find returns for it. Every specification must match at least
// one site; a site matched twice is selected once, with the types of the
// first specification that gives types for it.
func selectProbes(specs []probespec.Spec, find func(probespec.Spec) ([]*Target, error)) ([]*Probe, error) {
	type key struct {
		t              *Target
		provider, name string
	}
	byKey := make(map[key]*Probe)
	chosen := make(map[*Target][]bool)
	var out []*Probe
	for _, s := range specs {
		ts, err := find(s)
		if err != nil {
			return nil, fmt.Errorf("%v: %w", s, err)
		}
		matched := false
		var providers []string // of the probes an AnyProvider spec matched
		for _, t := range ts {
			if chosen[t] == nil {
				chosen[t] = make([]bool, len(t.File.Sites))
			}
			for i := range t.File.Sites {
				site := &t.File.Sites[i]
				if !s.Match(site.Provider, site.Name) {
					continue
				}
				matched = true
				if s.AnyProvider && !slices.Contains(providers, site.Provider) {
					providers = append(providers, site.Provider)
				}
				k := key{t, site.Provider, site.Name}
				if chosen[t][i] {
					// Types given for a probe win over none.
					if p := byKey[k]; p.Spec.Types == nil && s.Types != nil {
						p.Spec = s
					}
					continue
				}
				chosen[t][i] = true
				p := byKey[k]
				if p == nil {
					// Copies: the notes' strings share the memory of
					// the whole note section, which the caller may
					// let go (Target.Release).
					p = &Probe{Target: t, Provider: strings.Clone(site.Provider), Name: strings.Clone(site.Name), Spec: s}
					byKey[k] = p
					out = append(out, p)
				}
				p.Sites = append(p.Sites, i)
			}
		}
		if !matched {
			return nil, notFound(s, ts)
		}
		if len(providers) > 1 {
			slices.Sort(providers)
			return nil, fmt.Errorf("%v: %s is a probe of several providers (%s); give PROVIDER:%[2]s", s, s.Name, strings.Join(providers, ", "))
		}
	}
	return out, nil
}

// Release drops the file's sites, so that their memory can be given
// back once what the caller needs of them was copied.
func (t *Target) Release() { t.File = nil }
