package semaphore

import (
	"errors"
	"fmt"

	"github.com/sdtkit/sdtkit/pkg/probe"
	"github.com/sdtkit/sdtkit/pkg/probespec"
	"github.com/sdtkit/sdtkit/pkg/process"
	"github.com/sdtkit/sdtkit/pkg/stapsdt"
)

// Find returns the semaphores of the probes of process pid that match one
// of specs, each distinct semaphore once, in the order of the objects in
// the address space and of the probes' notes. A specification without a
// file is matched against every object the process maps; one with a file
// only against that file.
//
// Problems are joined into the error, and the semaphores that could be
// located are returned with it: a probe without a semaphore (ErrNoSemaphore),
// one whose semaphore may not be written (*RefusedError), a specification
// that matches no probe (ErrNoProbe) or names a file the process does not
// map (ErrNotMapped). A process that does not exist gives ErrNoProcess,
// one that may not be inspected a *process.PermissionError, and no
// semaphores.
func Find(pid int, specs ...probespec.Spec) ([]Semaphore, error) {
	files := make([]*process.PathMatcher, len(specs))
	for i, s := range specs {
		if s.Path == "" {
			continue
		}
		var err error
		if files[i], err = pathMatcher(pid, s.Path); err != nil {
			return nil, err
		}
	}
	var (
		sems    []Semaphore
		errs    []error
		matched = make([]bool, len(specs))
		mapped  = make([]bool, len(specs))
		use     []int // the specifications of the object visited
	)
	want := func(o *process.Object) bool {
		use = use[:0]
		for i, s := range specs {
			if s.Path == "" || files[i].Match(o) {
				use = append(use, i)
				mapped[i] = mapped[i] || s.Path != ""
			}
		}
		return len(use) > 0
	}
	objects, err := probe.Mapped(pid, want)
	if err != nil {
		return nil, err
	}
	for mf, err := range objects {
		found, oerrs := findObject(mf, err, specs, use, matched)
		sems = append(sems, found...)
		errs = append(errs, oerrs...)
	}
	for i, s := range specs {
		switch {
		case s.Path != "" && !mapped[i]:
			errs = append(errs, fmt.Errorf("process %d: %s: %w", pid, s.Path, ErrNotMapped))
		case !matched[i]:
			errs = append(errs, fmt.Errorf("process %d: %s: %w", pid, s, ErrNoProbe))
		}
	}
	return sems, errors.Join(errs...)
}

// findObject returns the semaphores of the probes of the mapped file mf,
// read with error ferr, that match one of specs[use], and marks the
// specifications that matched.
func findObject(mf *probe.MappedFile, ferr error, specs []probespec.Spec, use []int, matched []bool) ([]Semaphore, []error) {
	named := false
	for _, i := range use {
		named = named || specs[i].Path != ""
	}
	o, f := mf.Object, mf.File
	if f == nil {
		// An unreadable object is only an error when it was asked for
		// by name or for lack of permission, which may hide probes.
		var pe *process.PermissionError
		if named || errors.As(ferr, &pe) || errors.Is(ferr, process.ErrNoProcess) {
			return nil, []error{ferr}
		}
		return nil, nil
	}
	var errs []error
	if ferr != nil && named {
		errs = append(errs, ferr)
	}
	type key struct{ provider, name string }
	seen := make(map[uint64]int) // semaphore offset to index in sems
	reported := make(map[key]bool)
	var sems []Semaphore
	for i := range f.Sites {
		p := &f.Sites[i]
		if !matchAny(specs, use, matched, p) {
			continue
		}
		if j, ok := seen[p.SemaphoreOffset]; ok && p.HasSemaphore() && p.SemaphoreOffsetErr == nil {
			sems[j].Sites++
			continue
		}
		addr, err := Locate(o, p)
		if err != nil {
			if k := (key{p.Provider, p.Name}); !reported[k] {
				reported[k] = true
				errs = append(errs, err)
			}
			continue
		}
		seen[p.SemaphoreOffset] = len(sems)
		sems = append(sems, Semaphore{
			Pid: o.Pid, File: o.Path, Provider: p.Provider, Name: p.Name, Sites: 1,
			Offset: p.SemaphoreOffset, Addr: addr, Dev: o.Dev, Inode: o.Inode,
			ByteOrder: byteOrder(f.ByteOrder),
		})
	}
	return sems, errs
}

func matchAny(specs []probespec.Spec, use []int, matched []bool, p *stapsdt.Site) bool {
	ok := false
	for _, i := range use {
		if specs[i].Match(p.Provider, p.Name) {
			matched[i] = true
			ok = true
		}
	}
	return ok
}

// pathMatcher returns the matcher of the PATH name for process pid. A
// bare name that is not found here may still match the base name of an
// object the process maps.
func pathMatcher(pid int, name string) (*process.PathMatcher, error) {
	path, rerr := probespec.Resolve(name)
	m, err := process.NewPathMatcher(pid, name, path)
	if err != nil && rerr != nil {
		return nil, rerr
	}
	return m, err
}
