package usdt

import (
	"errors"
	"fmt"
	"sync"

	"github.com/cilium/ebpf"

	"github.com/sdtkit/sdtkit/pkg/argspec"
	"github.com/sdtkit/sdtkit/pkg/bpf"
	"github.com/sdtkit/sdtkit/pkg/probe"
	"github.com/sdtkit/sdtkit/pkg/probespec"
)

var (
	// ErrTooManySites is matched by the error of Attach when the sites
	// do not fit in the program's map of specs.
	ErrTooManySites = errors.New("more sites than the program has specs for")

	// ErrNotSupported is matched by errors about a missing kernel
	// feature. It is ebpf.ErrNotSupported.
	ErrNotSupported = ebpf.ErrNotSupported

	// ErrPermission is matched by errors caused by missing privilege.
	ErrPermission = bpf.ErrPermission
)

// Options adjust Attach. The zero value attaches in every process that
// maps the file, with cookie 0.
type Options struct {
	// PID, when not 0, limits the uprobes to that process; with an
	// empty path, the probes are looked for in every object it maps.
	PID int
	// Libraries, with PID, are files the process does not map yet but
	// will, searched as if mapped: the shared libraries of a command
	// that package launch started stopped at its execve
	// (launch.Command.Libraries), which Attach then traces from its
	// first instruction.
	Libraries []string
	// Cookie is what bpf_usdt_cookie returns at the sites of this
	// attachment.
	Cookie uint64
	// PerSite attaches one perf-event uprobe per site even where the
	// program could take a uprobe_multi link.
	PerSite bool
	// InProcess makes and lets go the uprobes in this process rather
	// than in a keeper process (see package bpf), for programs that
	// cannot run their own executable again: a SIGKILL of this process
	// while the kernel registers them can then leave breakpoints and
	// raised semaphores in the traced processes.
	InProcess bool
	// Specs, when not nil, is the program's map of specs, SpecMap of its
	// collection. Without it Attach finds the map among the program's by
	// their ids, which takes CAP_SYS_ADMIN.
	Specs *ebpf.Map
	// Warn, when not nil, is given each argument that usdt.bpf.h cannot
	// read (bpf_usdt_arg returns -EOPNOTSUPP for it), and each site left
	// out or whose semaphore cannot be raised.
	Warn func(error)
}

// A Link is the attachment of a program to the sites of a probe. Close
// detaches it.
type Link struct {
	mu     sync.Mutex
	linker *bpf.Linker
	specs  *ebpf.Map // nil when the program reads no spec
	mapID  ebpf.MapID
	first  int
	n      int
	sites  int
}

// Sites returns the number of probe sites attached.
func (l *Link) Sites() int { return l.sites }

// Attach attaches prog, a uprobe program (section usdt, uprobe or
// uprobe.multi) that reads its arguments through include/bpf/usdt.bpf.h,
// to every site of the probe provider:name of the ELF file path, as
// libbpf's bpf_program__attach_usdt does. provider and name may be globs
// (path.Match, with bpftrace's brace alternatives); path is found as a
// shell finds a command, or the dynamic loader a library, when it has no
// slash; with Options.PID, path may be empty to look in every object the
// process maps. Every site's semaphore is raised while attached. prog
// stays the caller's: the Link holds a descriptor of its own.
func Attach(prog *ebpf.Program, path, provider, name string, opts *Options) (*Link, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	warn := o.Warn
	if warn == nil {
		warn = func(error) {}
	}
	if path == "" && o.PID == 0 {
		return nil, errors.New("attach: no file and no process")
	}
	sel, err := probe.Find([]probespec.Spec{{Path: path, Provider: provider, Name: name}}, &probe.Options{PID: o.PID, Libraries: o.Libraries, Warn: warn})
	if err != nil {
		return nil, fmt.Errorf("attach: %w", err)
	}
	plans, n, err := plan(sel, o.Cookie, warn)
	if err != nil {
		return nil, fmt.Errorf("attach: %w", err)
	}
	l := &Link{n: n}
	if o.Specs != nil {
		l.specs, err = o.Specs.Clone()
	} else {
		l.specs, err = specMap(prog)
	}
	if err != nil {
		return nil, fmt.Errorf("attach: %w", err)
	}
	if l.specs != nil {
		info, err := l.specs.Info()
		if err != nil {
			l.specs.Close()
			return nil, fmt.Errorf("attach: map info: %w", err)
		}
		l.mapID, _ = info.ID()
		if l.first, err = allocIDs(l.mapID, n, int(l.specs.MaxEntries())); err != nil {
			l.specs.Close()
			return nil, fmt.Errorf("attach: %w", err)
		}
	}
	if err := l.attach(prog, plans, &o); err != nil {
		l.Close()
		return nil, fmt.Errorf("attach: %w", err)
	}
	return l, nil
}

// A filePlan is what Attach attaches in one file.
type filePlan struct {
	path  string
	sites []bpf.LinkSite
	specs []cSpec
}

// plan works out the sites of sel, file by file, and their specs.
func plan(sel *probe.Selection, cookie uint64, warn func(error)) ([]filePlan, int, error) {
	var plans []filePlan
	n := 0
	byTarget := make(map[*probe.Target]int)
	for _, p := range sel.Probes {
		t := p.Target
		i, ok := byTarget[t]
		if !ok {
			i = len(plans)
			byTarget[t] = i
			plans = append(plans, filePlan{path: t.Path})
		}
		fp := &plans[i]
		for _, si := range p.Sites {
			note := &t.File.Sites[si]
			if note.PCOffsetErr != nil {
				warn(fmt.Errorf("%s: %s:%s: site at %#x left out: %w", t.Name, p.Provider, p.Name, note.PC, note.PCOffsetErr))
				continue
			}
			args := argspec.ParseArgs(note.Args, t.File.Machine)
			so := bpf.SpecOptions{Symbols: t}
			spec, errs := bpf.NewSpec(0, note.PC, args, &so)
			for _, err := range errs {
				warn(fmt.Errorf("%s: %s:%s: site at %#x: %w", t.Name, p.Provider, p.Name, note.PC, err))
			}
			ls := bpf.LinkSite{Offset: note.PCOffset}
			switch {
			case !note.HasSemaphore():
			case note.SemaphoreOffsetErr != nil:
				warn(fmt.Errorf("%s: %s:%s: semaphore not raised: %w", t.Name, p.Provider, p.Name, note.SemaphoreOffsetErr))
			default:
				ls.RefCtrOffset = note.SemaphoreOffset
			}
			fp.sites = append(fp.sites, ls)
			fp.specs = append(fp.specs, newCSpec(&spec, args, cookie))
			n++
		}
	}
	if n == 0 {
		return nil, 0, fmt.Errorf("%s:%s: no site can be attached", sel.Probes[0].Provider, sel.Probes[0].Name)
	}
	return plans, n, nil
}

// attach stores the specs and attaches prog to the sites of plans.
func (l *Link) attach(prog *ebpf.Program, plans []filePlan, o *Options) error {
	id := l.first
	if l.specs != nil {
		for _, fp := range plans {
			for i := range fp.specs {
				if err := l.specs.Put(uint32(id), &fp.specs[i]); err != nil {
					return fmt.Errorf("store spec: %w", err)
				}
				id++
			}
		}
	}
	var err error
	l.linker, err = bpf.NewLinker(prog, &bpf.LinkerOptions{PID: o.PID, PerSite: o.PerSite, InProcess: o.InProcess})
	if err != nil {
		return err
	}
	id = l.first
	for _, fp := range plans {
		if err := l.linker.Attach(fp.path, id, fp.sites); err != nil {
			return err
		}
		id += len(fp.sites)
		l.sites += len(fp.sites)
	}
	return nil
}

// Close detaches the program from every site, which lowers the
// semaphores it raised, and returns once they are all restored.
func (l *Link) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	var errs []error
	if l.linker != nil {
		errs = append(errs, l.linker.Close())
		l.linker = nil
	}
	if l.specs != nil {
		freeIDs(l.mapID, l.first, l.n)
		errs = append(errs, l.specs.Close())
		l.specs = nil
	}
	return errors.Join(errs...)
}
