package main

import (
	"debug/elf"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"syscall"

	"github.com/sdtkit/sdtkit/internal/cli"
	"github.com/sdtkit/sdtkit/internal/regfile"
	"github.com/sdtkit/sdtkit/pkg/bpf"
	"github.com/sdtkit/sdtkit/pkg/probespec"
	"github.com/sdtkit/sdtkit/pkg/process"
	"github.com/sdtkit/sdtkit/pkg/stapsdt"
)

// A target is one ELF file whose probe sites may be attached.
type target struct {
	name string // as shown: the resolved path, or the path the process maps
	path string // the file to open and attach by (through /proc/PID/root with -p)
	dev  uint64
	ino  uint64
	file *stapsdt.File

	syms    map[string]uint64
	symsErr error
	symsSet bool
}

// symbols returns the link-time addresses of the file's symbols, read on
// first use: only rip-relative and absolute-symbol arguments need them.
func (t *target) symbols() (map[string]uint64, error) {
	if !t.symsSet {
		t.symsSet = true
		// Not elf.Open: the file may have been replaced by a named
		// pipe since its notes were read.
		fd, err := regfile.Open(t.path)
		if err != nil {
			t.symsErr = err
			return nil, err
		}
		defer fd.Close()
		f, err := elf.NewFile(fd)
		if err != nil {
			t.symsErr = err
			return nil, err
		}
		t.syms, t.symsErr = bpf.Symbols(f)
	}
	return t.syms, t.symsErr
}

// targets holds the files opened so far, each once, in the order they
// were first named.
type targets struct {
	logger  *log.Logger
	list    []*target
	byID    map[[2]uint64]*target
	damaged []string // files with malformed notes, reported
}

// open returns the target for the file at path, reading its probes on the
// first call. The file is identified by device and inode, so that a
// library named twice, or through a symbolic link, is attached once.
func (ts *targets) open(name, path string) (*target, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil, fmt.Errorf("%s: no inode", name)
	}
	id := [2]uint64{uint64(st.Dev), st.Ino}
	if t := ts.byID[id]; t != nil {
		return t, nil
	}
	f, err := stapsdt.Open(path)
	if f == nil {
		return nil, err
	}
	if err != nil {
		// The probes of the notes that could be decoded are still usable.
		ts.damaged = append(ts.damaged, name)
		if ts.logger != nil {
			cli.Print(ts.logger, err)
		}
	}
	t := &target{name: name, path: path, dev: id[0], ino: id[1], file: f}
	if ts.byID == nil {
		ts.byID = make(map[[2]uint64]*target)
	}
	ts.byID[id] = t
	ts.list = append(ts.list, t)
	return t, nil
}

// fileTargets returns the target a PATH:PROVIDER:NAME specification names
// when no process is given.
func (ts *targets) fileTargets(s probespec.Spec) ([]*target, error) {
	path, err := probespec.Resolve(s.Path)
	if err != nil {
		return nil, err
	}
	t, err := ts.open(path, path)
	if err != nil {
		return nil, err
	}
	return []*target{t}, nil
}

// A procTargets finds the targets of specifications among the objects a
// process maps.
type procTargets struct {
	pid     int
	objects []process.Object
	opened  []*target // per object; nil when not an ELF file with probes
	errs    []error   // per object
	done    bool
}

func newProcTargets(pid int) (*procTargets, error) {
	if err := process.Exists(pid); err != nil {
		return nil, err
	}
	maps, err := process.ReadMaps(pid)
	if err != nil {
		return nil, err
	}
	return &procTargets{pid: pid, objects: process.Objects(pid, maps)}, nil
}

// openAll reads the probes of every mapped object once. Objects that are
// not ELF files (locale archives, fonts) are passed over.
func (p *procTargets) openAll(ts *targets) {
	if p.done {
		return
	}
	p.done = true
	p.opened = make([]*target, len(p.objects))
	p.errs = make([]error, len(p.objects))
	for i := range p.objects {
		o := &p.objects[i]
		t, err := ts.open(o.Path, o.HostPath)
		if errors.Is(err, stapsdt.ErrNotELF) {
			continue
		}
		p.opened[i], p.errs[i] = t, err
	}
}

// find returns the targets specification s names in the process: every
// mapped object with probes for PROVIDER:NAME; for PATH:PROVIDER:NAME the
// objects process.PathMatcher matches, or else the file PATH resolves to,
// which the process may map later (dlopen).
func (p *procTargets) find(ts *targets, s probespec.Spec) ([]*target, error) {
	p.openAll(ts)
	var out []*target
	if s.Path == "" {
		for _, t := range p.opened {
			if t != nil && len(t.file.Sites) > 0 {
				out = append(out, t)
			}
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("process %d maps no object with USDT probes", p.pid)
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
	for i := range p.objects {
		if !m.Match(&p.objects[i]) {
			continue
		}
		if p.errs[i] != nil {
			return nil, p.errs[i]
		}
		if t := p.opened[i]; t != nil {
			out = append(out, t)
		}
	}
	if len(out) > 0 {
		return out, nil
	}
	if resolveErr != nil {
		return nil, fmt.Errorf("process %d maps no %s, and %w", p.pid, s.Path, resolveErr)
	}
	t, err := ts.open(resolved, resolved)
	if err != nil {
		return nil, err
	}
	return []*target{t}, nil
}
