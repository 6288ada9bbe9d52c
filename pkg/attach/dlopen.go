package attach

import (
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
	"strconv"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/sdtkit/sdtkit/pkg/bpf"
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

// dlopenRoom is the number of sites a Tracer with Options.Dlopen keeps
// room for beyond those of its plan.
const dlopenRoom = bpf.DefaultMaxSites

// A dlopenFollower stops the process in the loader's debugState, with a
// bpf.Stopper, has the Tracer attach to the PROVIDER:NAME probes of the
// objects it maps then, and lets it run on with SIGCONT.
type dlopenFollower struct {
	pid     int
	pidfd   int // to signal the process, not another that took its pid; -1 without
	stopper *bpf.Stopper
	t       *Tracer
	done    chan struct{} // closed when run returns
	once    sync.Once

	tried  map[[2]uint64]bool // files looked at, by device and inode
	warned map[string]bool
}

// newDlopenFollower attaches to the dynamic loader of process pid. A
// program without one (static) loads nothing: the follower is nil.
func newDlopenFollower(pid int) (*dlopenFollower, error) {
	ld, err := interpreter(pid)
	if err != nil || ld == "" {
		return nil, err
	}
	s, err := bpf.NewStopper(ld, debugState, pid)
	if err != nil {
		return nil, fmt.Errorf("follow dlopen: %w", err)
	}
	fd, err := unix.PidfdOpen(pid, unix.PIDFD_NONBLOCK)
	if err != nil {
		fd = -1
	}
	return &dlopenFollower{pid: pid, pidfd: fd, stopper: s, done: make(chan struct{}), tried: make(map[[2]uint64]bool), warned: make(map[string]bool)}, nil
}

// interpreter returns the dynamic loader of process pid, as a path
// through /proc/PID/root, or "" for a static program.
func interpreter(pid int) (string, error) {
	proc := "/proc/" + strconv.Itoa(pid)
	f, err := elf.Open(proc + "/exe")
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
		return proc + "/root" + string(bytes.TrimRight(b, "\x00")), nil
	}
	return "", nil
}

// start follows the loads of the process for t.
func (f *dlopenFollower) start(t *Tracer) {
	f.t = t
	for _, a := range t.plan.Attachments {
		f.tried[[2]uint64{a.Target.Dev, a.Target.Inode}] = true
	}
	go f.run()
}

func (f *dlopenFollower) run() {
	defer close(f.done)
	for {
		st, err := f.stopper.Read()
		if err != nil {
			return
		}
		if st.Err != nil {
			f.warn(fmt.Errorf("thread %d of process %d not stopped in the dynamic loader: %w; probes of the libraries it loads now may miss their first hits", st.TID, f.pid, st.Err))
		}
		f.addLoaded()
		f.cont()
	}
}

// cont sends the process SIGCONT.
func (f *dlopenFollower) cont() {
	if f.pidfd >= 0 {
		unix.PidfdSendSignal(f.pidfd, unix.SIGCONT, nil, 0)
		return
	}
	unix.Kill(f.pid, unix.SIGCONT)
}

// stop ends the following, and lets the process run on should a stop
// not have been read. It returns once no site is being added.
func (f *dlopenFollower) stop() {
	if f == nil {
		return
	}
	f.once.Do(func() {
		f.stopper.Close()
		if f.t != nil {
			<-f.done
		}
		f.cont()
		if f.pidfd >= 0 {
			unix.Close(f.pidfd)
		}
	})
}

func (f *dlopenFollower) warn(err error) {
	w := f.t.plan.opts.Warn
	if w == nil || f.warned[err.Error()] {
		return
	}
	f.warned[err.Error()] = true
	w(err)
}

// addLoaded resolves the PROVIDER:NAME specifications of the plan
// against the objects the process maps that were not looked at yet, and
// attaches to the sites of the probes they select.
func (f *dlopenFollower) addLoaded() {
	t := f.t
	p := t.plan
	var specs []probespec.Spec
	for _, s := range p.specs {
		if s.Path == "" {
			specs = append(specs, s)
		}
	}
	if len(specs) == 0 {
		return
	}
	sel := findEach(specs, &probe.Options{PID: f.pid, Warn: f.warn})
	var probes []*probe.Probe
	seen := make(map[[2]uint64]bool)
	for _, pr := range sel.Probes {
		id := [2]uint64{pr.Target.Dev, pr.Target.Inode}
		if f.tried[id] {
			continue
		}
		seen[id] = true
		probes = append(probes, pr)
	}
	defer func() {
		for _, tg := range sel.Targets {
			tg.Release()
		}
	}()
	for id := range seen {
		f.tried[id] = true
	}
	if len(probes) == 0 {
		return
	}
	if p.opts.Filter != nil {
		for _, pr := range probes {
			f.warn(fmt.Errorf("%s: %v: not attached: a library loaded with dlopen is not traced with a filter", pr.Target.Name, pr))
		}
		return
	}
	pl := &planner{types: p.opts.Types, warn: p.opts.Warn}
	atts, sites := pl.plan(probes)
	base := len(p.Probes)
	shifted := make(map[*Site]bool)
	for _, s := range sites {
		if !shifted[s] {
			shifted[s] = true
			s.ProbeIndex += base
		}
	}
	p.Probes = append(p.Probes, probes...)
	n := 0
	for _, a := range atts {
		next := sites[n : n+len(a.Sites)]
		n += len(a.Sites)
		// Known to Read before the first event can come.
		cur := *t.sites.Load()
		grown := append(cur[:len(cur):len(cur)], next...)
		t.sites.Store(&grown)
		if err := t.prog.Attach(a.Target.Path, a.Sites); err != nil {
			t.sites.Store(&cur)
			f.warn(fmt.Errorf("%s: loaded by process %d: %w", a.Target.Name, f.pid, err))
			continue
		}
		p.Attachments = append(p.Attachments, a)
		p.Sites = append(p.Sites, next...)
	}
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
	if !p.opts.Dlopen || p.opts.PID == 0 {
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
