package attach

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/sdtkit/sdtkit/pkg/bpf"
	"github.com/sdtkit/sdtkit/pkg/dlopen"
	"github.com/sdtkit/sdtkit/pkg/filter"
	"github.com/sdtkit/sdtkit/pkg/launch"
	"github.com/sdtkit/sdtkit/pkg/probe"
	"github.com/sdtkit/sdtkit/pkg/probespec"
	"github.com/sdtkit/sdtkit/pkg/symbolize"
	"github.com/sdtkit/sdtkit/pkg/unwind"
	"golang.org/x/sys/unix"
)

// DefaultFlushInterval bounds how long an event waits in the ring buffer
// before Read returns it, when Options.FlushInterval is 0.
const DefaultFlushInterval = 100 * time.Millisecond

// Options configure Resolve and Open. The zero value traces every
// process that runs the files, with the defaults of package bpf.
type Options struct {
	// Command, when not nil, is a command launch.Start started stopped
	// at its execve, to trace from its first instruction: it stands for
	// PID and Libraries, and once every site is attached it is released
	// (after OnAttached). When it started in a cgroup (launch's
	// Options.Cgroup or OwnCgroup), that is Cgroup, and the Tracer stops
	// once the cgroup is empty (Until), as strace -f does.
	Command *launch.Command
	// PID, when not 0, traces that process only: specifications without
	// a PATH are resolved against every object it maps, and the Tracer
	// stops by itself when it exits.
	PID int
	// Libraries, with PID, are files the process does not map yet but
	// will, searched as if it mapped them (see probe.Options): the
	// shared libraries of a command stopped at its execve.
	Libraries []string
	// Cgroup, when not "", is the directory of a cgroup v2 whose
	// threads are traced, whatever their process: with PID, a process
	// started in a cgroup of its own and its descendants, also after
	// they execute other programs (see launch.Options.Cgroup). The sites
	// are then attached without the kernel's pid filter, in every
	// process that maps their files, and the hits of other cgroups
	// dropped first thing (in the BPF program; with uprobe events, as
	// each record is read). PID still says what PROVIDER:NAME resolves
	// against and when the Tracer stops, unless Until is given. Should
	// the tracer die while it holds a process of the cgroup stopped to
	// follow its dlopen (Dlopen), those stopped are let run on.
	Cgroup string
	// Until, when not nil, stops the Tracer or Aggregator once it is
	// closed, instead of the exit of PID: such as launch.Cgroup.Emptied,
	// the end of the last process of a cgroup.
	Until <-chan struct{}
	// Dlopen, with PID, has a Tracer or Aggregator follow the libraries
	// the process loads with dlopen, and with Cgroup every process of
	// the cgroup and the programs they execute: it stops the process in
	// the dynamic loader after each change to the loader's list of
	// objects, attaches to the sites of the PROVIDER:NAME specifications
	// in the objects mapped since, and lets it run on (see the package
	// documentation). The Plan grows while the Tracer runs: read it once
	// the Tracer is stopped. With UStack, or an Aggregation by the user
	// stack, it follows the loader even when every specification names
	// its file, and reads the process's maps at each stop for its
	// stacks, so that a process that exits before its last stacks are
	// read (a short command) has them symbolized, its libraries' frames
	// included (see Tracer.Stack).
	Dlopen bool
	// Types, when not nil, names and types the arguments of the probes
	// it describes; events of those probes carry named fields.
	Types *Types
	// StringSize is the most bytes kept of a string argument
	// (DefaultStringSize if 0).
	StringSize int
	// UStack, when not 0, is the most frames of the thread's user stack
	// each event carries (Event.Stack), up to MaxStack: walked in the
	// kernel by the frame pointers, by the BPF program (see package bpf)
	// or for the perf events of uprobe events (see package tracefs),
	// when streaming. Tracer.Stack and Stream symbolize them. With
	// UStackCopy, an Aggregation by the user stack groups by the stacks
	// of the events (see Plan.Aggregate).
	UStack int
	// UStackCopy, with UStack, takes the stacks by copying, at each
	// hit, up to UStackCopy bytes of the user stack (MaxStackCopy at
	// most) with the registers, and unwinding the copy in user space by
	// the call-frame information of the code (.eh_frame), as perf's
	// --call-graph dwarf does (see package unwind): code built without
	// frame pointers unwinds right. A frame above the copy is left out.
	// Both backends copy the stack; uprobe events on x86-64 and arm64.
	UStackCopy int
	// DebugDirs are the roots of separate debug files, searched for the
	// symbols of stripped files as gdb searches them (see package
	// symbolize): those that arguments name, and those of stacks. Nil
	// means symbolize.DefaultDebugDir.
	DebugDirs []string
	// RingSize is the size of the ring buffer in bytes, at most
	// MaxRingSize; if 0, DefaultRingSize, or with UStackCopy and the BPF
	// backend room for CopyRingEvents events with their copies, up to
	// MaxCopyRingSize (see bpf.RingSizeFor).
	RingSize int
	// FlushInterval bounds how long an event waits before Read returns
	// it (DefaultFlushInterval if 0).
	FlushInterval time.Duration
	// InProcess makes and removes the uprobes from this process rather
	// than from a keeper process; see package bpf.
	InProcess bool
	// Filter, when not nil, is evaluated in the kernel on every hit
	// before anything else: hits that fail it make no event and are not
	// counted. Resolve compiles it for each probe, and fails with a
	// *filter.Error naming the probe when a probe lacks what it names.
	Filter *filter.Expr
	// OnAttached, when not nil, is called once every site is attached,
	// before Attach or Aggregate returns; an error detaches everything
	// and is theirs: such as launch.Command.Release, which lets a
	// command stopped at its execve run once it is traced.
	OnAttached func() error
	// Backend is what attaches the sites and reads their hits: the BPF
	// program, uprobe events (package tracefs), or the one of them that
	// can be used (BackendAuto, the zero value).
	Backend Backend
	// Warn, when not nil, is given what does not stop attaching but
	// leaves something out: malformed notes, sites left out, arguments
	// that cannot be read, semaphores not raised, probes Types does not
	// describe. Each error names the file and the probe.
	Warn func(error)
}

// A Plan is what Resolve selected and how it will be attached.
type Plan struct {
	// Probes are the selected probes, in the order the specifications
	// named them.
	Probes []*probe.Probe
	// Attachments are the sites to attach, by file.
	Attachments []Attachment
	// Sites are all sites, by site number: the order of Attachments.
	Sites []*Site
	// Damaged names the files with malformed notes (given to
	// Options.Warn): their other probes are attached.
	Damaged []string

	opts    Options
	specs   []probespec.Spec
	filters []*filter.Program // by probe number; nil without Options.Filter
	waiting []probespec.Spec  // see Waiting
	cgroup  uint64            // the id of Options.Cgroup, 0 without

	// mu guards the growth of Probes, Attachments and Sites as libraries
	// loaded later add to them (Options.Dlopen), for an Aggregator that
	// reads them meanwhile.
	mu sync.Mutex
}

// bigPlan is the number of sites from which the notes are collected as
// soon as they have been planned.
const bigPlan = 100000

// ErrNoSites is returned by Resolve when the probes selected have no
// site that can be attached.
var ErrNoSites = errors.New("no probe site can be attached")

// Resolve finds the probes specs select (see probe.Find) and plans how
// each of their sites is attached and its arguments read. Reading can
// block (a process that holds its memory map lock, a hung network file
// system, a named pipe), so it is done aside: Resolve returns the cause
// of ctx as soon as ctx is done, leaving the reading behind. Unless
// Options.Backend is BackendTracefs or Options.InProcess is set, Resolve
// also starts the keeper process that the BPF backend attaches through
// (see bpf.Prestart), so that it is ready when Plan.Attach or
// Plan.Aggregate needs it; one that no attach takes exits within 10
// seconds.
func Resolve(ctx context.Context, specs []probespec.Spec, opts *Options) (*Plan, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	o.withCommand()
	if o.Backend != BackendTracefs && !o.InProcess {
		// The keeper starts while the probes are read.
		bpf.Prestart()
	}
	return aside(ctx, "anything was attached", func() (*Plan, error) {
		p, err := resolve(specs, &o)
		return p, exitedError(o.PID, err)
	})
}

// withCommand sets the options Command stands for.
func (o *Options) withCommand() {
	c := o.Command
	if c == nil {
		return
	}
	o.PID, o.Libraries = c.Pid, c.Libraries
	if then := o.OnAttached; then != nil {
		o.OnAttached = func() error {
			if err := then(); err != nil {
				return err
			}
			return c.Release()
		}
	} else {
		o.OnAttached = c.Release
	}
	if c.Cgroup != nil {
		o.Cgroup = c.Cgroup.Path
		if o.Until == nil {
			o.Until = c.Cgroup.Emptied()
		}
	}
}

func resolve(specs []probespec.Spec, o *Options) (*Plan, error) {
	sel, waiting, err := find(specs, o)
	if err != nil {
		return nil, err
	}
	if n := sel.Sites(); n > bpf.SiteLimit {
		return nil, fmt.Errorf("%d probe sites selected, more than the %d that can be attached", n, bpf.SiteLimit)
	}
	pl := &planner{types: o.Types, warn: o.Warn}
	atts, sites := pl.plan(sel.Probes)
	if len(sites) == 0 && !(o.Dlopen && len(sel.Probes) == 0) {
		return nil, ErrNoSites
	}
	filters, err := compileFilter(o.Filter, len(sel.Probes), sites)
	if err != nil {
		return nil, err
	}
	// What is planned no longer refers to the notes: their memory is
	// given back before the sites are copied to the kernel.
	for _, t := range sel.Targets {
		t.Release()
	}
	if len(sites) > bigPlan {
		// Without a collection now, the notes would still take their
		// room while bpf copies the sites: a third more at the peak.
		runtime.GC()
	}
	p := &Plan{Probes: sel.Probes, Attachments: atts, Sites: sites, Damaged: sel.Damaged, opts: *o, specs: specs, filters: filters, waiting: waiting}
	if o.Cgroup != "" {
		if p.cgroup, err = cgroupID(o.Cgroup); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// find selects the probes of specs. With Options.Dlopen, a PROVIDER:NAME
// specification that matches no probe of the objects the process maps
// is given to Options.Warn and left to the libraries it will load: it
// is returned as waiting.
func find(specs []probespec.Spec, o *Options) (sel *probe.Selection, waiting []probespec.Spec, err error) {
	po := &probe.Options{PID: o.PID, Libraries: o.Libraries, Warn: o.Warn, DebugDirs: o.DebugDirs}
	sel, err = probe.Find(specs, po)
	if err == nil || !o.Dlopen || o.PID == 0 || !notFound(err) {
		return sel, nil, err
	}
	var now []probespec.Spec
	for _, s := range specs {
		if s.Path != "" {
			now = append(now, s)
			continue
		}
		_, err := probe.Find([]probespec.Spec{s}, po)
		switch {
		case notFound(err):
			if o.Warn != nil {
				o.Warn(fmt.Errorf("%w; attached if the process loads a library that has it", err))
			}
			waiting = append(waiting, s)
		case err != nil:
			return nil, nil, err
		default:
			now = append(now, s)
		}
	}
	if len(now) == 0 {
		return &probe.Selection{}, waiting, nil
	}
	sel, err = probe.Find(now, po)
	return sel, waiting, err
}

// Waiting returns the PROVIDER:NAME specifications that matched no probe
// of the process when resolved, left to the libraries it loads later
// (Options.Dlopen): a backend that does not follow them traces none of
// their probes.
func (p *Plan) Waiting() []probespec.Spec { return p.waiting }

// notFound reports whether err is that of a specification that matched
// no probe of the objects searched.
func notFound(err error) bool {
	return errors.As(err, new(*probe.NotFoundError)) || errors.Is(err, probe.ErrNoProbes)
}

// Status returns err or, when err is nil but the notes of some files
// were malformed, an error that says so, so that a command's exit status
// tells that something was left out.
func (p *Plan) Status(err error) error {
	if err != nil || len(p.Damaged) == 0 {
		return err
	}
	return fmt.Errorf("malformed stapsdt notes in %s (reported above); the other probes were attached", strings.Join(p.Damaged, ", "))
}

// Attach attaches to every site of the plan with the backend of
// Options.Backend (see Backend) and returns the Tracer that streams
// their events. On error nothing stays attached.
func (p *Plan) Attach() (*Tracer, error) {
	return withBackend(p, func() (*Tracer, error) { return p.attachBPF(nil) }, p.attachTracefs)
}

// attachBPF loads the BPF program and attaches it to every site of the
// plan. With fold, the events are folded into that aggregation (see
// aggregateUnwound): a probe of a library loaded later that lacks its
// keys is not attached.
func (p *Plan) attachBPF(fold *Aggregation) (*Tracer, error) {
	o := &p.opts
	maxSites, maxProbes := p.room()
	kernelStack := o.UStack
	if o.UStackCopy > 0 {
		kernelStack = 0 // copied and unwound here instead
	}
	prog, err := bpf.Load(&bpf.Options{
		RingSize:      o.RingSize,
		MaxSites:      maxSites,
		StringSize:    o.StringSize,
		FlushInterval: cmp.Or(o.FlushInterval, DefaultFlushInterval),
		PID:           o.pidFilter(),
		Cgroup:        p.cgroup,
		NoStrings:     !readsStrings(p.Attachments) && !p.mayReadStrings() && o.UStack == 0,
		UStack:        kernelStack,
		UStackCopy:    o.UStackCopy,
		Filters:       p.filters,
		MaxProbes:     maxProbes,
		Filtering:     o.Filter != nil,
		InProcess:     o.InProcess,
	})
	if err != nil {
		return nil, err
	}
	syms, unwinder := p.stackReaders()
	follow := p.newFollower(prog, o.UStack > 0)
	if err := p.attachTo(prog); err != nil {
		follow.Stop()
		return nil, err
	}
	p.noteByAddress(prog, follow)
	return newBPFTracer(prog, p, follow, syms, unwinder, fold), nil
}

// stackReaders returns, with Options.UStack, what symbolizes the stacks
// and, with Options.UStackCopy, what unwinds the copies of the stacks;
// nil without.
func (p *Plan) stackReaders() (*symbolize.Processes, *unwind.Processes) {
	o := &p.opts
	if o.UStack == 0 {
		return nil, nil
	}
	syms := symbolize.NewProcesses(symbolize.NewCache(&symbolize.Options{DebugDirs: o.DebugDirs}, symbolize.DefaultCacheBytes), maxSymbolized)
	var unwinder *unwind.Processes
	if o.UStackCopy > 0 {
		unwinder = unwind.NewProcesses(nil, maxSymbolized)
	}
	if o.PID != 0 {
		// Its maps now: it may be gone by the time its first stack is
		// read. A command stopped at its execve maps its program and
		// the dynamic loader; with the BPF backend, its libraries are
		// read at the loader's stops (see newFollower), and with
		// uprobe events, the kernel reports them (see attachTracefs).
		syms.Refresh(o.PID)
		if unwinder != nil {
			unwinder.Refresh(o.PID)
		}
	}
	return syms, unwinder
}

// unwindCopy sets the stack of ev, with the BPF backend or uprobe
// events, from the copy of the user stack it carries, unwound by u, at
// most Options.UStack frames.
func (p *Plan) unwindCopy(u *unwind.Processes, ev *Event) {
	c := &ev.StackCopy
	st := unwind.Stack{Regs: unwind.Regs{PC: c.Regs[0], SP: c.Regs[1], FP: c.Regs[2], LR: c.Regs[3]}, Bytes: c.Bytes}
	ev.Stack = u.Unwind(ev.Stack[:0], int(ev.PID), &st, p.opts.UStack)
}

// following reports whether the plan follows the libraries its process
// loads (Options.Dlopen): a PROVIDER:NAME specification may find probes
// there.
func (p *Plan) following() bool {
	return p.opts.Dlopen && p.opts.PID != 0 && slices.ContainsFunc(p.specs, func(s probespec.Spec) bool { return s.Path == "" })
}

// room returns the most sites and probes the program is loaded for:
// those of the plan and, when following, room for more.
func (p *Plan) room() (sites, probes int) {
	sites, probes = len(p.Sites), len(p.Probes)
	if p.following() {
		sites, probes = min(sites+dlopenRoom, bpf.SiteLimit), probes+dlopenProbes
	}
	return sites, probes
}

// relocating reports whether prog, which tells the sites apart by their
// address, needs to follow the libraries the process of a command loads
// to learn their addresses: the command, stopped at its execve, has not
// mapped its libraries yet, and with a cgroup each of its processes maps
// them at addresses of its own (see bpf.Program.Relocate).
func (p *Plan) relocating(prog *bpf.Program) bool {
	return prog.ByAddress() && p.opts.Dlopen && p.opts.PID != 0
}

// remapping reports whether the plan follows the dynamic loader of its
// process for the maps its stacks are symbolized by, when it takes
// stacks: with Options.Dlopen, a command stopped at its execve maps its
// libraries once it runs, as libc and the others at its start, and may
// exit within the time its last events take to be read, when its maps
// can no longer be: those are read while the loader holds it stopped,
// at each change to the loader's list of objects.
func (p *Plan) remapping() bool {
	return p.opts.Dlopen && p.opts.PID != 0
}

// noteByAddress tells Options.Warn that BackendAuto chose the BPF
// program on a kernel without BPF cookies, where it tells the sites
// apart by their address, and, with any backend, of the files whose
// addresses are not known, unless followed: their hits are skipped.
func (p *Plan) noteByAddress(prog *bpf.Program, follow *dlopen.Follower) {
	if p.opts.Backend == BackendAuto && prog.ByAddress() {
		p.warn(errors.New("kernel without BPF cookies (Linux 5.15): tracing with the BPF backend, which tells the probe sites apart by their address"))
	}
	if follow != nil {
		return
	}
	for _, path := range prog.Unmapped() {
		p.warn(fmt.Errorf("%s: not mapped by process %d yet: on a kernel without BPF cookies, which tells the probe sites apart by their address, its probes are not traced", path, p.opts.PID))
	}
}

// newFollower returns the follower of the libraries the process loads,
// or nil when not following, when the process has no dynamic loader to
// follow (a static program without _dl_debug_state), or when following
// fails, which takes nothing away from the sites planned (Options.Warn
// says why). It follows them also when prog needs their addresses (see
// relocating), and when stacks are taken (see remapping). It is made
// before the command of Options.OnAttached runs.
func (p *Plan) newFollower(prog *bpf.Program, stacks bool) *dlopen.Follower {
	o := &p.opts
	if !p.following() && !p.relocating(prog) && !(stacks && p.remapping()) {
		return nil
	}
	f, err := newDlopenFollower(p)
	switch {
	case err == nil:
	case !p.following() && stacks:
		p.warn(fmt.Errorf("%w; the frames of the libraries process %d maps keep bare addresses should it exit before its stacks are read", err, o.PID))
	default:
		p.warn(fmt.Errorf("%w; PROVIDER:NAME is not searched in the libraries process %d loads later", err, o.PID))
	}
	return f
}

// pidFilter is the pid the kernel filters the uprobes by: none when
// the cgroup does.
func (o *Options) pidFilter() int {
	if o.Cgroup != "" {
		return 0
	}
	return o.PID
}

// attachTo attaches prog to every site of the plan; on error it closes
// prog, which detaches what was attached.
func (p *Plan) attachTo(prog *bpf.Program) error {
	for _, a := range p.Attachments {
		if err := prog.Attach(a.Target.Path, a.sites); err != nil {
			prog.Close()
			return exitedError(p.opts.PID, attachError(err, hasSemaphores(a.sites)))
		}
	}
	if f := p.opts.OnAttached; f != nil {
		if err := f(); err != nil {
			prog.Close()
			return err
		}
	}
	return nil
}

// Open resolves specs and attaches to their sites: Resolve, then
// Plan.Attach.
func Open(ctx context.Context, specs []probespec.Spec, opts *Options) (*Tracer, error) {
	p, err := Resolve(ctx, specs, opts)
	if err != nil {
		return nil, err
	}
	return p.Attach()
}

// cgroupID returns the id of the cgroup v2 at dir: the inode of its
// directory.
func cgroupID(dir string) (uint64, error) {
	var st unix.Stat_t
	if err := unix.Stat(dir, &st); err != nil {
		return 0, fmt.Errorf("cgroup %s: %w", dir, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return 0, fmt.Errorf("cgroup %s: not a directory", dir)
	}
	return st.Ino, nil
}
