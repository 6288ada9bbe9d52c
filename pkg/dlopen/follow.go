package dlopen

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"

	"github.com/sdtkit/sdtkit/pkg/bpf"
	"github.com/sdtkit/sdtkit/pkg/probe"
	"github.com/sdtkit/sdtkit/pkg/probespec"
	"github.com/sdtkit/sdtkit/pkg/process"
)

// Options say whose loads a Follower follows, and what it looks for.
type Options struct {
	// PID is the process followed.
	PID int
	// Cgroup, the id of a cgroup v2, has every process of that cgroup
	// that shares the loader of PID followed; CgroupDir is its
	// directory (see bpf.StopperOptions).
	Cgroup    uint64
	CgroupDir string
	// Specs are the probe specifications looked for in the objects
	// loaded: those without a path (PROVIDER:NAME); the others are
	// passed over.
	Specs []probespec.Spec
	// Warn, when not nil, is told what could not be followed: a thread
	// not stopped, a file whose probes cannot be read, the guard of the
	// stops gone. It is called from the Follower's goroutine.
	Warn func(error)
	// DebugDirs are where the debug files of stripped objects are
	// looked for, for the symbols probe arguments name (see
	// probe.Options.DebugDirs).
	DebugDirs []string
}

// A Handler attaches to probes, found in the objects process pid loaded
// since the last stop, while pid is stopped. It is called at every
// stop, with no probe when nothing was loaded (a dlclose, the loader's
// first call of a dlopen), for a caller that needs to know the maps
// changed. The targets of the probes are released once it returns
// (probe.Target.Release).
type Handler func(pid int, probes []*probe.Probe)

// A Follower follows the libraries a process loads (see the package
// documentation).
type Follower struct {
	o       Options
	specs   []probespec.Spec // of o.Specs, those without a path
	pidfd   int              // of o.PID, to signal it and not another that took its pid; -1 without
	stopper *bpf.Stopper
	handle  Handler
	started bool
	done    chan struct{} // closed when run returns
	once    sync.Once
	ending  atomic.Bool // set by Stop, before the guard is let go

	attached map[probeID]bool   // probes handed over, or attached before Start
	mapped   map[[2]uint64]bool // files mapped when objects were last read, by device and inode as the maps show them
	mu       sync.Mutex         // guards warned
	warned   map[string]bool
}

// New attaches to the dynamic loader of process o.PID (Loader) and,
// with o.Cgroup, of the processes of that cgroup that share it. The
// processes are stopped in it from then on, until Start reads the
// stops. It returns nil and no error where the process has no loader to
// follow: a static program without DebugState.
func New(o *Options) (*Follower, error) {
	ld, err := Loader(o.PID)
	if ld == "" || err != nil {
		return nil, err
	}
	so := &bpf.StopperOptions{PID: o.PID}
	if o.Cgroup != 0 {
		so = &bpf.StopperOptions{Cgroup: o.Cgroup, CgroupDir: o.CgroupDir}
	}
	s, err := bpf.NewStopper(ld, DebugState, so)
	if err != nil {
		return nil, fmt.Errorf("follow dlopen: %w", err)
	}
	fd, err := unix.PidfdOpen(o.PID, unix.PIDFD_NONBLOCK)
	if err != nil {
		fd = -1
	}
	f := &Follower{o: *o, pidfd: fd, stopper: s, done: make(chan struct{}),
		attached: make(map[probeID]bool), mapped: make(map[[2]uint64]bool), warned: make(map[string]bool)}
	for _, sp := range o.Specs {
		if sp.Path == "" {
			f.specs = append(f.specs, sp)
		}
	}
	return f, nil
}

// Start follows the loads, calling h at each stop, in a goroutine of its
// own. The probes of attached, already attached by the caller, are not
// handed over again.
func (f *Follower) Start(attached []*probe.Probe, h Handler) {
	for _, pr := range attached {
		f.attached[idOf(pr)] = true
	}
	f.handle, f.started = h, true
	go f.run()
	go f.watchGuard()
}

// Warn gives err to Options.Warn unless an error of the same text was
// given before: for a Handler, whose stops may repeat an error.
func (f *Follower) Warn(err error) {
	if f.o.Warn == nil {
		return
	}
	f.mu.Lock()
	seen := f.warned[err.Error()]
	f.warned[err.Error()] = true
	f.mu.Unlock()
	if !seen {
		f.o.Warn(err)
	}
}

// watchGuard warns when the Stopper's guard process exits while the
// process is followed: the uprobe in the dynamic loader goes with it, and
// the libraries loaded after are not searched.
func (f *Follower) watchGuard() {
	select {
	case <-f.stopper.GuardExited():
	case <-f.done:
		return
	}
	if w := f.o.Warn; w != nil && !f.ending.Load() {
		w(fmt.Errorf("follow dlopen: the guard process of the stops in the dynamic loader exited, and the uprobe with it: the libraries process %d loads from now on are not searched", f.o.PID))
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

func (f *Follower) run() {
	defer close(f.done)
	for {
		st, err := f.stopper.Read()
		if err != nil {
			return
		}
		pid := st.PID
		if f.o.Cgroup == 0 {
			pid = f.o.PID // st.PID as the initial namespace numbers it
		}
		if st.Err != nil {
			f.Warn(fmt.Errorf("thread %d of process %d not stopped in the dynamic loader: %w; probes of the libraries it loads now may miss their first hits", st.TID, pid, st.Err))
		}
		if pid == 0 {
			continue // in a PID namespace below this one: not stopped
		}
		f.loaded(pid)
		f.cont(pid)
	}
}

// cont sends process pid SIGCONT.
func (f *Follower) cont(pid int) {
	fd := f.pidfd
	if pid != f.o.PID || fd < 0 {
		var err error
		if fd, err = unix.PidfdOpen(pid, 0); err != nil {
			unix.Kill(pid, unix.SIGCONT)
			return
		}
		defer unix.Close(fd)
	}
	unix.PidfdSendSignal(fd, unix.SIGCONT, nil, 0)
}

// Stop ends the following, and lets the processes run on should a stop
// not have been read. It returns once no Handler runs. A nil Follower
// follows nothing.
func (f *Follower) Stop() {
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
		if f.started {
			<-f.done
		}
		f.stopper.Close()
		if f.o.Cgroup == 0 {
			f.cont(f.o.PID)
		}
		if f.pidfd >= 0 {
			unix.Close(f.pidfd)
		}
	})
}

// gone reports whether every process followed has exited: the process,
// or with a cgroup every process of it.
func (f *Follower) gone() bool {
	if f.o.Cgroup != 0 {
		b, err := os.ReadFile(filepath.Join(f.o.CgroupDir, "cgroup.procs"))
		return err == nil && len(bytes.TrimSpace(b)) == 0
	}
	if f.pidfd < 0 {
		return false
	}
	n, err := unix.Poll([]unix.PollFd{{Fd: int32(f.pidfd), Events: unix.POLLIN}}, 0)
	return err == nil && n == 1
}

// loaded resolves the specifications against the objects process pid
// maps that were not read yet, and hands the probes they select in
// files not handed over yet to the Handler.
func (f *Follower) loaded(pid int) {
	if len(f.specs) == 0 {
		f.handle(pid, nil)
		return
	}
	// Most stops map nothing new (dlclose, the loader's first stop of a
	// dlopen): the maps alone tell.
	files, fresh := f.mappedFiles(pid)
	if !fresh {
		f.handle(pid, nil)
		return
	}
	defer func() {
		for _, id := range files {
			f.mapped[id] = true
		}
	}()
	// An object mapped at the last read was read then.
	skip := func(o *process.Object) bool { return f.mapped[[2]uint64{o.Dev, o.Inode}] }
	sel := findEach(f.specs, &probe.Options{PID: pid, Warn: f.Warn, Skip: skip, DebugDirs: f.o.DebugDirs})
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
	f.handle(pid, probes)
}

// mappedFiles returns the files process pid maps, by device and inode,
// and whether one was not mapped when objects were last read; true when
// the maps cannot be read.
func (f *Follower) mappedFiles(pid int) ([][2]uint64, bool) {
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
