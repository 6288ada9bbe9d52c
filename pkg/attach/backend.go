package attach

import (
	"errors"
	"fmt"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/sdtkit/sdtkit/pkg/bpf"
	"github.com/sdtkit/sdtkit/pkg/process"
	"github.com/sdtkit/sdtkit/pkg/tracefs"
	"github.com/sdtkit/sdtkit/pkg/unwind"
)

// A Backend is what attaches the sites of a plan and reads their hits.
type Backend int

const (
	// BackendAuto uses the BPF program, or uprobe events where it
	// cannot be used: the kernel lacks what the program needs, or BPF
	// is not permitted (a seccomp filter, a security module) while
	// tracefs may be written, or the kernel lacks BPF cookies (Linux
	// 5.15) and the sites' addresses, which the program tells them
	// apart by then, are not known (see package bpf). Options.Warn is
	// told why, as a *Fallback; and told when the program tells the
	// sites apart by address.
	BackendAuto Backend = iota
	// BackendBPF attaches the BPF program of package bpf, which reads
	// the arguments, filters and aggregates in the kernel.
	BackendBPF
	// BackendTracefs defines uprobe events in tracefs and enables them
	// through perf events, with no BPF (package tracefs): Options.Filter
	// is evaluated and aggregations made in this process, from the
	// events, and the libraries a process loads later are not followed
	// (Options.Dlopen), which takes BPF.
	BackendTracefs
)

var backendNames = [...]string{BackendAuto: "auto", BackendBPF: "bpf", BackendTracefs: "tracefs"}

func (b Backend) String() string {
	if int(b) < len(backendNames) {
		return backendNames[b]
	}
	return fmt.Sprintf("Backend(%d)", int(b))
}

// ParseBackend returns the backend of name: auto, bpf or tracefs.
func ParseBackend(name string) (Backend, error) {
	for b, n := range backendNames {
		if n == name {
			return Backend(b), nil
		}
	}
	return 0, fmt.Errorf("%q: not auto, bpf or tracefs", name)
}

// A Fallback is what BackendAuto tells Options.Warn when it uses uprobe
// events because the BPF program cannot be used.
type Fallback struct {
	// Reason is "the kernel cannot run the BPF program", "BPF is not
	// permitted", or, on a kernel without BPF cookies, "the BPF program
	// cannot tell these probe sites apart ..." (bpf.ErrNoCookies).
	Reason string
	Err    error // of loading or attaching the BPF program
}

func (f *Fallback) Error() string {
	return fmt.Sprintf("%s (%v); tracing with the tracefs backend", f.Reason, f.Err)
}

func (f *Fallback) Unwrap() error { return f.Err }

// A TracefsError is an error of the tracefs backend.
type TracefsError struct{ Err error }

func (e *TracefsError) Error() string { return "tracefs backend: " + e.Err.Error() }
func (e *TracefsError) Unwrap() error { return e.Err }

// withBackend runs withBPF or withTracefs as the plan's Backend says, or
// with BackendAuto the second where the first fails for want of what
// BPF needs.
func withBackend[T any](p *Plan, withBPF, withTracefs func() (T, error)) (T, error) {
	switch p.opts.Backend {
	case BackendBPF:
		return withBPF()
	case BackendTracefs:
		return withTracefs()
	}
	v, err := withBPF()
	if err == nil {
		return v, nil
	}
	why := withoutBPF(err, tracefsWritable)
	if why == "" {
		return v, err
	}
	p.warn(&Fallback{Reason: why, Err: err})
	return withTracefs()
}

// withoutBPF returns why err, the error of loading or attaching the BPF
// program, shows that BPF cannot be used here, so that uprobe events
// should be tried: the kernel lacks a feature the program needs
// (ErrNotSupported, or no bpf system call), or its verifier refuses the
// program or loading is not permitted while tracefs may be written. It returns "" for any other error, which
// tracefs would not avoid: without privilege, tracefs is out of reach
// too.
func withoutBPF(err error, tracefsWritable func() error) string {
	switch {
	case errors.Is(err, bpf.ErrNoCookies):
		return "the BPF program cannot tell these probe sites apart on a kernel without BPF cookies"
	case errors.Is(err, bpf.ErrNotSupported), errors.Is(err, syscall.ENOSYS):
		return "the kernel cannot run the BPF program"
	case errors.Is(err, bpf.ErrVerifier) && tracefsWritable() == nil:
		return "this kernel's BPF verifier refuses the program"
	case errors.Is(err, bpf.ErrPermission) && tracefsWritable() == nil:
		return "BPF is not permitted"
	}
	return ""
}

// tracefsWritable returns nil when this process may define uprobe events.
func tracefsWritable() error {
	dir, err := tracefs.Mount()
	if err != nil {
		return err
	}
	return unix.Access(filepath.Join(dir, "uprobe_events"), unix.W_OK)
}

// attachTracefs attaches to every site of the plan with uprobe events.
// Their perf events take the stacks of Options.UStack: the kernel walks
// the frame pointers (PERF_SAMPLE_CALLCHAIN), or copies the stack, which
// is unwound here as the BPF backend's copies are.
func (p *Plan) attachTracefs() (*Tracer, error) {
	syms, unwinder := p.stackReaders()
	var mapped func(int, process.Mapping)
	if syms != nil {
		// Without the dynamic loader followed, which takes BPF, the
		// kernel's reports of the mappings place the frames of a
		// process that exits before its stacks are read.
		mapped = func(pid int, m process.Mapping) {
			syms.Map(pid, m)
			if unwinder != nil {
				unwinder.Map(pid, m)
			}
		}
	}
	src, err := p.openTracefs(mapped)
	if err != nil {
		return nil, err
	}
	src.unwinder = unwinder
	return &Tracer{src: src, plan: p, syms: syms}, nil
}

// openTracefs defines and enables an event for every site of the plan;
// mapped, when not nil, is told of the mappings the process makes (see
// tracefs.TraceOptions.Mapped).
func (p *Plan) openTracefs(mapped func(pid int, m process.Mapping)) (*tracefsEvents, error) {
	for _, s := range p.Waiting() {
		p.warn(fmt.Errorf("%s: not searched in the libraries the process loads later (dlopen), which takes BPF: name them by PATH:PROVIDER:NAME", s))
	}
	sites := make([]tracefs.Site, 0, len(p.Sites))
	for _, a := range p.Attachments {
		for _, bs := range a.sites {
			s := p.Sites[len(sites)]
			ts := tracefs.Site{Target: a.Target, Probe: s.Probe, ProbeIndex: s.ProbeIndex, Offset: bs.Offset, Reported: s.Reported}
			for _, arg := range s.Args {
				ts.Args = append(ts.Args, arg.Type)
			}
			sites = append(sites, ts)
		}
	}
	o := &p.opts
	t, err := tracefs.Open(sites, &tracefs.TraceOptions{
		PID:           o.PID,
		Cgroup:        o.Cgroup,
		Done:          o.Until,
		StringSize:    o.StringSize,
		RingSize:      o.RingSize,
		FlushInterval: o.FlushInterval,
		UStack:        o.UStack,
		UStackCopy:    o.UStackCopy,
		Mapped:        mapped,
		Attached:      o.OnAttached,
		Warn:          o.Warn,
	})
	if errors.Is(err, tracefs.ErrNoSites) {
		return nil, &TracefsError{fmt.Errorf("%w: %w", ErrNoSites, err)}
	}
	if err != nil {
		return nil, &TracefsError{err}
	}
	return &tracefsEvents{t: t, plan: p}, nil
}

// tracefsEvents are the events of the plan's uprobe events, as an
// source: each given its Site, and those that fail Options.Filter,
// which BPF would evaluate in the kernel, passed over; with unwinder,
// their copies of the stack unwound.
type tracefsEvents struct {
	t        *tracefs.Tracer
	plan     *Plan
	unwinder *unwind.Processes
}

func (e *tracefsEvents) Read(ev *Event) error {
	for {
		if err := e.t.Read(&ev.Event); err != nil {
			return err
		}
		if int(ev.Event.Site) >= len(e.plan.Sites) {
			return fmt.Errorf("event of unknown site %d", ev.Event.Site)
		}
		ev.Site = e.plan.Sites[ev.Event.Site]
		if !e.plan.Passes(ev) {
			continue
		}
		if e.unwinder != nil {
			e.plan.unwindCopy(e.unwinder, ev)
		}
		return nil
	}
}

func (e *tracefsEvents) Stop()                    { e.t.Stop() }
func (e *tracefsEvents) Stopped() <-chan struct{} { return e.t.Stopped() }
func (e *tracefsEvents) Close() error             { return e.t.Close() }
func (e *tracefsEvents) Lost() uint64             { return e.t.Lost() }
func (e *tracefsEvents) Skipped() uint64          { return e.t.Skipped() }

// warn gives err to Options.Warn.
func (p *Plan) warn(err error) {
	if p.opts.Warn != nil {
		p.opts.Warn(err)
	}
}
