package usdt

import (
	"errors"
	"fmt"
	"sync"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/features"

	"github.com/sdtkit/sdtkit/pkg/argspec"
	"github.com/sdtkit/sdtkit/pkg/bpf"
	"github.com/sdtkit/sdtkit/pkg/dlopen"
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
	// Dlopen, with PID and an empty path, follows the libraries the
	// process loads with dlopen, as sdtattach does: the process is
	// stopped in the dynamic loader each time it has mapped one, before
	// the library runs, and the probes of the library attached (see
	// package dlopen). A probe in no object the process maps yet is then
	// no error: it is waited for.
	Dlopen bool
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
	follow *dlopen.Follower // nil when not following
	specs  *ebpf.Map        // nil when the program reads no spec
	mapID  ebpf.MapID
	ids    []idRange // spec ids reserved in specs
	cookie uint64
	warn   func(error)
	sites  int
}

// An idRange is n spec ids from first.
type idRange struct{ first, n int }

// Sites returns the number of probe sites attached, those of the
// libraries loaded since included.
func (l *Link) Sites() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.sites
}

// Attach attaches prog, a uprobe program (section usdt, uprobe or
// uprobe.multi) that reads its arguments through include/bpf/usdt.bpf.h,
// to every site of the probe provider:name of the ELF file path, as
// libbpf's bpf_program__attach_usdt does. provider and name may be globs
// (path.Match, with bpftrace's brace alternatives); path is found as a
// shell finds a command, or the dynamic loader a library, when it has no
// slash; with Options.PID, path may be empty to look in every object the
// process maps, and in those it loads later with Options.Dlopen. Every
// site's semaphore is raised while attached. prog stays the caller's:
// the Link holds a descriptor of its own.
func Attach(prog *ebpf.Program, path, provider, name string, opts *Options) (*Link, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Warn == nil {
		o.Warn = func(error) {}
	}
	if path == "" && o.PID == 0 {
		return nil, errors.New("attach: no file and no process")
	}
	if err := checkKernel(); err != nil {
		return nil, fmt.Errorf("attach: %w", err)
	}
	l := &Link{cookie: o.Cookie, warn: o.Warn}
	if err := l.open(prog, path, provider, name, &o); err != nil {
		l.Close()
		return nil, fmt.Errorf("attach: %w", err)
	}
	return l, nil
}

// open finds the probe's sites, stores their specs and attaches prog to
// them, following the libraries loaded with o.Dlopen.
func (l *Link) open(prog *ebpf.Program, path, provider, name string, o *Options) error {
	r, err := l.resolve(path, provider, name, o)
	if err != nil {
		return err
	}
	return l.start(prog, r, o.Specs, o.Specs == nil, o)
}

// A resolution is the sites of a probe that open found, planned.
type resolution struct {
	sel   *probe.Selection
	plans []filePlan
	n     int
}

// resolve finds and plans the sites of the probe, and starts following
// the libraries loaded with o.Dlopen: the processes followed stop in
// the loader until start.
func (l *Link) resolve(path, provider, name string, o *Options) (*resolution, error) {
	specs := []probespec.Spec{{Path: path, Provider: provider, Name: name}}
	var err error
	if o.Dlopen && o.PID != 0 && path == "" {
		// Made first, so that no library is loaded unseen between
		// the search below and the start of the following.
		l.follow, err = dlopen.New(&dlopen.Options{PID: o.PID, Specs: specs, Warn: o.Warn})
		if err != nil {
			return nil, err
		}
	}
	sel, err := probe.Find(specs, &probe.Options{PID: o.PID, Libraries: o.Libraries, Warn: o.Warn})
	switch {
	case err != nil && l.follow != nil && (errors.As(err, new(*probe.NotFoundError)) || errors.Is(err, probe.ErrNoProbes)):
		o.Warn(fmt.Errorf("%w; attached if the process loads a library that has it", err))
		sel = &probe.Selection{}
	case err != nil:
		return nil, err
	}
	plans, n, err := plan(sel, o.Cookie, o.Warn)
	if err != nil {
		return nil, err
	}
	return &resolution{sel, plans, n}, nil
}

// start stores the specs of r in the map of specs, specs or, with
// lookup, the one found among prog's, and attaches prog to the sites.
func (l *Link) start(prog *ebpf.Program, r *resolution, specs *ebpf.Map, lookup bool, o *Options) error {
	var err error
	switch {
	case specs != nil:
		l.specs, err = specs.Clone()
	case lookup:
		l.specs, err = specMap(prog)
	}
	if err != nil {
		return err
	}
	if l.specs != nil {
		info, err := l.specs.Info()
		if err != nil {
			return fmt.Errorf("map info: %w", err)
		}
		l.mapID, _ = info.ID()
	}
	l.linker, err = bpf.NewLinker(prog, &bpf.LinkerOptions{PID: o.PID, PerSite: o.PerSite, InProcess: o.InProcess})
	if err != nil {
		return err
	}
	if err := l.attach(r.plans, r.n); err != nil {
		return err
	}
	if l.follow != nil {
		l.follow.Start(r.sel.Probes, l.grow)
	}
	return nil
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
	if n == 0 && len(sel.Probes) > 0 {
		return nil, 0, fmt.Errorf("%s:%s: no site can be attached", sel.Probes[0].Provider, sel.Probes[0].Name)
	}
	return plans, n, nil
}

// attach reserves spec ids for the n sites of plans, stores their specs
// and attaches the program to them.
func (l *Link) attach(plans []filePlan, n int) error {
	if n == 0 {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	first := 0
	if l.specs != nil {
		var err error
		if first, err = allocIDs(l.mapID, n, int(l.specs.MaxEntries())); err != nil {
			return err
		}
		l.ids = append(l.ids, idRange{first, n})
		id := first
		for _, fp := range plans {
			for i := range fp.specs {
				if err := l.specs.Put(uint32(id), &fp.specs[i]); err != nil {
					return fmt.Errorf("store spec: %w", err)
				}
				id++
			}
		}
	}
	id := first
	for _, fp := range plans {
		if err := l.linker.Attach(fp.path, id, fp.sites); err != nil {
			return err
		}
		id += len(fp.sites)
		l.sites += len(fp.sites)
	}
	return nil
}

// grow attaches to probes, found in the libraries process pid loaded
// (Options.Dlopen), while the process is stopped; a file that cannot be
// attached is left out with a warning.
func (l *Link) grow(pid int, probes []*probe.Probe) {
	if len(probes) == 0 {
		return
	}
	plans, n, err := plan(&probe.Selection{Probes: probes}, l.cookie, l.follow.Warn)
	if err == nil {
		err = l.attach(plans, n)
	}
	if err != nil {
		l.follow.Warn(fmt.Errorf("library loaded by process %d: %w", pid, err))
	}
}

// Close detaches the program from every site, which lowers the
// semaphores it raised, and returns once they are all restored.
func (l *Link) Close() error {
	// No site is added once stopped; the process runs on.
	l.follow.Stop()
	l.mu.Lock()
	defer l.mu.Unlock()
	var errs []error
	if l.linker != nil {
		errs = append(errs, l.linker.Close())
		l.linker = nil
	}
	if l.specs != nil {
		for _, r := range l.ids {
			freeIDs(l.mapID, r.first, r.n)
		}
		l.ids = nil
		errs = append(errs, l.specs.Close())
		l.specs = nil
	}
	return errors.Join(errs...)
}

// checkKernel reports that the kernel lacks BPF cookies (Linux 5.15), by
// which the header finds the spec of a site.
func checkKernel() error {
	switch err := features.HaveProgramHelper(ebpf.Kprobe, asm.FnGetAttachCookie); {
	case errors.Is(err, ErrNotSupported):
		return fmt.Errorf("kernel without BPF cookies (Linux 5.15): %w", err)
	case err != nil:
		return fmt.Errorf("probe BPF cookies: %w", err)
	}
	return nil
}
