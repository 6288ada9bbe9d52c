package attach

import (
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"

	"github.com/sdtkit/sdtkit/pkg/bpf"
	"github.com/sdtkit/sdtkit/pkg/filter"
	"github.com/sdtkit/sdtkit/pkg/probe"
	"github.com/sdtkit/sdtkit/pkg/probespec"
	"github.com/sdtkit/sdtkit/pkg/process"
)

// debugState is the function the dynamic loader calls after each change
// to its list of loaded objects, for debuggers (r_debug.r_brk): dlopen
// calls it once the new objects are mapped and relocated, before their
// constructors run and before it returns. Every glibc has it, also one
// built without its own SDT probes (rtld:map_complete).
const debugState = "_dl_debug_state"

// dlopenRoom is the number of sites a Tracer or Aggregator with
// Options.Dlopen keeps room for beyond those of its plan, and
// dlopenProbes the number of probes.
const (
	dlopenRoom   = bpf.DefaultMaxSites
	dlopenProbes = 1024
)

// A dlopenFollower stops the processes followed in the loader's
// debugState, with a bpf.Stopper, has the probes of the PROVIDER:NAME
// specifications in the objects they mapped since attached, and lets
// them run on with SIGCONT. It follows the process of Options.PID or,
// with Options.Cgroup, every process of that cgroup: the sites are then
// attached by file, for all of them.
type dlopenFollower struct {
	pid       int
	pidfd     int // of pid, to signal it and not another that took its pid; -1 without
	cgroup    uint64
	cgroupDir string
	stopper   *bpf.Stopper
	plan      *Plan
	prog      *bpf.Program
	g         grower
	done      chan struct{} // closed when run returns
	once      sync.Once
	ending    atomic.Bool // set by stop, before the guard is let go

	attached map[probeID]bool   // probes attached or refused
	mapped   map[[2]uint64]bool // files mapped when objects were last read, by device and inode as the maps show them
	warned   map[string]bool
}

// A grower is what follows the libraries loaded: the events of a Tracer
// (bpfEvents) or an Aggregator.
type grower interface {
	// prepare readies probe number id, whose sites are like s, before
	// they are attached: its filter, how it is aggregated. An error
	// leaves the probe out.
	prepare(id int, s *Site) error
	// publish makes the sites about to be attached known, numbered from
	// the next site number, before their first event; on failure to
	// attach, unpublish forgets them.
	publish(sites []*Site)
	unpublish(sites []*Site)
}

// newDlopenFollower attaches to the dynamic loader of the process of o
// and, with o.Cgroup, whose id is cgroup, of the processes of that
// cgroup that share it. It returns nil and no error where the process
// has no loader to follow (see loader).
func newDlopenFollower(o *Options, cgroup uint64) (*dlopenFollower, error) {
	ld, err := loader(o.PID)
	if ld == "" || err != nil {
		return nil, err
	}
	so := &bpf.StopperOptions{PID: o.PID}
	if cgroup != 0 {
		so = &bpf.StopperOptions{Cgroup: cgroup, CgroupDir: o.Cgroup}
	}
	s, err := bpf.NewStopper(ld, debugState, so)
	if err != nil {
		return nil, fmt.Errorf("follow dlopen: %w", err)
	}
	fd, err := unix.PidfdOpen(o.PID, unix.PIDFD_NONBLOCK)
	if err != nil {
		fd = -1
	}
	return &dlopenFollower{pid: o.PID, pidfd: fd, cgroup: cgroup, cgroupDir: o.Cgroup, stopper: s, done: make(chan struct{}),
		attached: make(map[probeID]bool), mapped: make(map[[2]uint64]bool), warned: make(map[string]bool)}, nil
}

// loader returns the file whose debugState process pid calls on
// dlopen: its dynamic loader, as a path through /proc/PID/root, or, for
// a statically linked program, which is its own loader, the program
// when its symbols name debugState (a libc that has dlopen in static
// programs). It returns "" for a static program without: it loads no
// library, or none that can be followed (stripped).
func loader(pid int) (string, error) {
	exe := "/proc/" + strconv.Itoa(pid) + "/exe"
	f, err := elf.Open(exe)
	if err != nil {
		return "", fmt.Errorf("follow dlopen: %w", err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type != elf.PT_INTERP {
			continue
		}
		b := make([]byte, p.Filesz)
		if _, err := p.ReadAt(b, 0); err != nil {
			return "", fmt.Errorf("follow dlopen: interpreter: %w", err)
		}
		return "/proc/" + strconv.Itoa(pid) + "/root" + string(bytes.TrimRight(b, "\x00")), nil
	}
	if hasSymbol(f, debugState) {
		return exe, nil
	}
	return "", nil
}

// hasSymbol reports whether the symbol table of f, or its dynamic one,
// names a function called name.
func hasSymbol(f *elf.File, name string) bool {
	for _, read := range []func() ([]elf.Symbol, error){f.Symbols, f.DynamicSymbols} {
		syms, _ := read()
		for _, s := range syms {
			if s.Name == name && elf.ST_TYPE(s.Info) == elf.STT_FUNC {
				return true
			}
		}
	}
	return false
}

// start follows the loads of the processes for g, which attaches with
// prog the sites of plan p.
func (f *dlopenFollower) start(p *Plan, prog *bpf.Program, g grower) {
	f.plan, f.prog, f.g = p, prog, g
	for _, pr := range p.Probes {
		f.attached[idOf(pr)] = true
	}
	go f.run()
	go f.watchGuard()
}

// watchGuard warns when the Stopper's guard process exits while the
// process is followed: the uprobe in the dynamic loader goes with it, and
// the libraries loaded after are not searched.
func (f *dlopenFollower) watchGuard() {
	select {
	case <-f.stopper.GuardExited():
	case <-f.done:
		return
	}
	if w := f.plan.opts.Warn; w != nil && !f.ending.Load() {
		w(fmt.Errorf("follow dlopen: the guard process of the stops in the dynamic loader exited, and the uprobe with it: the libraries process %d loads from now on are not searched", f.pid))
	}
}

// A probeID is a probe of a file, by the file's device and inode.
type probeID struct {
	dev, inode     uint64
	provider, name string
}

func idOf(p *probe.Probe) probeID {
	return probeID{p.Target.Dev, p.Target.Inode, p.Provider, p.Name}
}

func (f *dlopenFollower) run() {
	defer close(f.done)
	for {
		st, err := f.stopper.Read()
		if err != nil {
			return
		}
		pid := st.PID
		if f.cgroup == 0 {
			pid = f.pid // st.PID as the initial namespace numbers it
		}
		if st.Err != nil {
			f.warn(fmt.Errorf("thread %d of process %d not stopped in the dynamic loader: %w; probes of the libraries it loads now may miss their first hits", st.TID, pid, st.Err))
		}
		if pid == 0 {
			continue // in a PID namespace below this one: not stopped
		}
		if err := f.prog.Relocate(); err != nil {
			f.warn(fmt.Errorf("process %d: %w; the probes of the files it maps anew may miss hits", pid, err))
		}
		f.addLoaded(pid)
		f.cont(pid)
	}
}

// cont sends process pid SIGCONT.
func (f *dlopenFollower) cont(pid int) {
	fd := f.pidfd
	if pid != f.pid || fd < 0 {
		var err error
		if fd, err = unix.PidfdOpen(pid, 0); err != nil {
			unix.Kill(pid, unix.SIGCONT)
			return
		}
		defer unix.Close(fd)
	}
	unix.PidfdSendSignal(fd, unix.SIGCONT, nil, 0)
}

// stop ends the following, and lets the process run on should a stop
// not have been read. It returns once no site is being added.
func (f *dlopenFollower) stop() {
	if f == nil {
		return
	}
	f.once.Do(func() {
		f.ending.Store(true)
		if f.gone() {
			// No stop can concern a process that is gone: the
			// uprobe is let go without waiting for the kernel.
			f.stopper.Abandon()
		} else {
			// The stops made until the uprobe is gone are read, and
			// their processes let run on.
			f.stopper.Detach()
		}
		if f.g != nil {
			<-f.done
		}
		f.stopper.Close()
		if f.cgroup == 0 {
			f.cont(f.pid)
		}
		if f.pidfd >= 0 {
			unix.Close(f.pidfd)
		}
	})
}

// gone reports whether every process followed has exited: the process,
// or with a cgroup every process of it.
func (f *dlopenFollower) gone() bool {
	if f.cgroup != 0 {
		b, err := os.ReadFile(filepath.Join(f.cgroupDir, "cgroup.procs"))
		return err == nil && len(bytes.TrimSpace(b)) == 0
	}
	if f.pidfd < 0 {
		return false
	}
	n, err := unix.Poll([]unix.PollFd{{Fd: int32(f.pidfd), Events: unix.POLLIN}}, 0)
	return err == nil && n == 1
}

func (f *dlopenFollower) warn(err error) {
	w := f.plan.opts.Warn
	if w == nil || f.warned[err.Error()] {
		return
	}
	f.warned[err.Error()] = true
	w(err)
}

// addLoaded resolves the PROVIDER:NAME specifications of the plan
// against the objects process pid maps that were not read yet, and
// attaches to the sites of the probes they select in files not attached
// yet.
func (f *dlopenFollower) addLoaded(pid int) {
	var specs []probespec.Spec
	for _, s := range f.plan.specs {
		if s.Path == "" {
			specs = append(specs, s)
		}
	}
	if len(specs) == 0 {
		return
	}
	// Most stops map nothing new (dlclose, the loader's first stop of a
	// dlopen): the maps alone tell.
	files, fresh := f.mappedFiles(pid)
	if !fresh {
		return
	}
	defer func() {
		for _, id := range files {
			f.mapped[id] = true
		}
	}()
	// An object mapped at the last read was read then.
	skip := func(o *process.Object) bool { return f.mapped[[2]uint64{o.Dev, o.Inode}] }
	sel := findEach(specs, &probe.Options{PID: pid, Warn: f.warn, Skip: skip, DebugDirs: f.plan.opts.DebugDirs})
	defer func() {
		for _, tg := range sel.Targets {
			tg.Release()
		}
	}()
	// A probe of a file a PATH:PROVIDER:NAME specification named is
	// new to the others.
	var probes []*probe.Probe
	for _, pr := range sel.Probes {
		if id := idOf(pr); !f.attached[id] {
			f.attached[id] = true
			probes = append(probes, pr)
		}
	}
	if len(probes) > 0 {
		f.plan.grow(f.prog, probes, f.g, pid, f.warn)
	}
}

// mappedFiles returns the files process pid maps, by device and inode,
// and whether one was not mapped when objects were last read; true when
// the maps cannot be read.
func (f *dlopenFollower) mappedFiles(pid int) ([][2]uint64, bool) {
	maps, err := process.ReadMaps(pid)
	if err != nil {
		return nil, true
	}
	var ids [][2]uint64
	fresh := false
	for _, m := range maps {
		if m.Inode == 0 {
			continue
		}
		id := [2]uint64{m.Dev, m.Inode}
		fresh = fresh || !f.mapped[id]
		ids = append(ids, id)
	}
	return ids, fresh
}

// grow plans the sites of probes, new to the plan, has g prepare each
// probe, attaches them with prog and adds them to the plan. A probe g
// refuses (a filter or a key it lacks) is left out with a warning, as
// are the files that cannot be attached.
func (p *Plan) grow(prog *bpf.Program, probes []*probe.Probe, g grower, pid int, warn func(error)) {
	base := len(p.Probes) // only grow adds to them
	var kept []*probe.Probe
	for _, pr := range probes {
		var errs []error
		quiet := &planner{types: p.opts.Types, warn: func(err error) { errs = append(errs, err) }}
		_, sites := quiet.plan([]*probe.Probe{pr})
		if len(sites) == 0 {
			for _, err := range errs {
				warn(err)
			}
			continue
		}
		if err := g.prepare(base+len(kept), sites[0]); err != nil {
			warn(fmt.Errorf("%s: %v: loaded by process %d, not attached: %w", pr.Target.Name, pr, pid, unnamed(err)))
			continue
		}
		kept = append(kept, pr)
	}
	if len(kept) == 0 {
		return
	}
	pl := &planner{types: p.opts.Types, warn: warn, base: base}
	atts, sites := pl.plan(kept)
	p.mu.Lock()
	p.Probes = append(p.Probes, kept...)
	p.mu.Unlock()
	n := 0
	for _, a := range atts {
		next := sites[n : n+len(a.sites)]
		n += len(a.sites)
		g.publish(next)
		if err := prog.Attach(a.Target.Path, a.sites); err != nil {
			g.unpublish(next)
			warn(fmt.Errorf("%s: loaded by process %d: %w", a.Target.Name, pid, err))
			continue
		}
		p.mu.Lock()
		p.Attachments = append(p.Attachments, a)
		p.Sites = append(p.Sites, next...)
		p.mu.Unlock()
	}
}

// unnamed returns err without the name of the probe it is of, for a
// message that names it first: the error of a key or of a filter.
func unnamed(err error) error {
	var ke *KeyError
	if errors.As(err, &ke) {
		c := *ke
		c.Probe = nil
		return &c
	}
	var fe *filter.Error
	if errors.As(err, &fe) {
		c := *fe
		c.Probe = ""
		return fmt.Errorf("filter: %w", &c)
	}
	return err
}

// findEach selects the probes of specs as probe.Find does, and, should
// a specification match nothing (its library unloaded), those of the
// others.
func findEach(specs []probespec.Spec, o *probe.Options) *probe.Selection {
	sel, err := probe.Find(specs, o)
	if err == nil {
		return sel
	}
	all := &probe.Selection{}
	if errors.Is(err, process.ErrNoProcess) {
		return all
	}
	for _, s := range specs {
		sel, err := probe.Find([]probespec.Spec{s}, o)
		if err != nil {
			continue
		}
		all.Probes = append(all.Probes, sel.Probes...)
		all.Targets = append(all.Targets, sel.Targets...)
	}
	return all
}

// mayReadStrings reports whether sites added for Options.Dlopen may read
// strings: a PROVIDER:NAME specification gives str, or Options.Types,
// whose char * arguments are strings, is given.
func (p *Plan) mayReadStrings() bool {
	if !p.following() {
		return false
	}
	if p.opts.Types != nil {
		return true
	}
	for _, s := range p.specs {
		if s.Path != "" {
			continue
		}
		for _, t := range s.Types {
			if t.Kind == probespec.String {
				return true
			}
		}
	}
	return false
}
