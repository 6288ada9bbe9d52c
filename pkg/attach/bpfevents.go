package attach

import (
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sdtkit/sdtkit/pkg/bpf"
	"github.com/sdtkit/sdtkit/pkg/dlopen"
	"github.com/sdtkit/sdtkit/pkg/hit"
	"github.com/sdtkit/sdtkit/pkg/symbolize"
	"github.com/sdtkit/sdtkit/pkg/unwind"
)

// drainPoll is how often a stopping Tracer checks whether its reader has
// emptied the ring buffer.
const drainPoll = 10 * time.Millisecond

// bpfEvents are the events of the BPF program's ring buffer, read as
// the Tracer's protocol says: Stop detaches, the ring buffer is drained,
// and the counts taken before the program is released.
type bpfEvents struct {
	prog  *bpf.Program
	plan  *Plan
	sites atomic.Pointer[[]*Site] // grows as libraries are loaded (Options.Dlopen)
	// dlopen, when not nil, follows the libraries the process loads;
	// Stop ends it before detaching.
	dlopen *dlopen.Follower
	// noted are, by site number, the arguments whose being unreadable
	// was given to Options.Warn.
	noted []hit.ArgMask
	// syms, with Options.UStack, symbolizes the stacks (see
	// Tracer.Stack); unwinder, with Options.UStackCopy, unwinds the
	// stacks copied. Nil without.
	syms     *symbolize.Processes
	unwinder *unwind.Processes
	// fold, when not nil, is the aggregation the events are folded
	// into: prepare refuses a probe that lacks its keys.
	fold *Aggregation

	stopOnce  sync.Once
	stopping  chan struct{} // closed by Stop
	drained   chan struct{} // closed when the counters are final
	closing   chan struct{} // closed by Close
	closeOnce sync.Once
	detachErr error
	closeErr  error

	mu         sync.Mutex // guards the final counters
	final      bool
	lost       uint64
	skipped    uint64
	probesLost []uint64
}

// newBPFTracer returns the Tracer of the program prog attached to the
// sites of p, whose stacks syms symbolizes and unwinder unwinds when
// not nil, which follows the libraries loaded with follow when not nil
// and stops by itself when the process of Options.PID exits (or
// Options.Until is closed); fold, when not nil, is the aggregation its
// events are folded into.
func newBPFTracer(prog *bpf.Program, p *Plan, follow *dlopen.Follower, syms *symbolize.Processes, unwinder *unwind.Processes, fold *Aggregation) *Tracer {
	e := newBPFEvents(p)
	e.prog, e.syms, e.unwinder, e.fold = prog, syms, unwinder, fold
	if follow != nil {
		e.dlopen = follow
		p.follow(follow, prog, e)
	}
	stopOnExit(&p.opts, e.closing, e.Stop)
	return &Tracer{src: e, plan: p, syms: syms}
}

// newBPFEvents returns the events of plan p with no program yet.
func newBPFEvents(p *Plan) *bpfEvents {
	noted := make([]hit.ArgMask, len(p.Sites))
	for i, s := range p.Sites {
		noted[i] = s.Reported
	}
	e := &bpfEvents{
		plan:     p,
		noted:    noted,
		stopping: make(chan struct{}),
		drained:  make(chan struct{}),
		closing:  make(chan struct{}),
	}
	sites := p.Sites
	e.sites.Store(&sites)
	return e
}

// prepare gives the program the filter of probe id, whose sites are
// like s, before they are attached (see grower).
func (e *bpfEvents) prepare(id int, s *Site) error {
	if e.fold != nil {
		if _, err := e.fold.probeArgs(s); err != nil {
			return err
		}
	}
	x := e.plan.opts.Filter
	if x == nil {
		return nil
	}
	f, err := compileFor(x, s)
	if err != nil {
		return err
	}
	return e.prog.AddProbe(id, nil, f)
}

// publish makes sites known to Read before their first event can come.
func (e *bpfEvents) publish(sites []*Site) {
	cur := *e.sites.Load()
	grown := append(cur[:len(cur):len(cur)], sites...)
	e.sites.Store(&grown)
}

// remapped reads the maps of process pid again for its stacks (see
// grower).
func (e *bpfEvents) remapped(pid int) {
	if e.syms != nil {
		e.syms.Refresh(pid)
	}
	if e.unwinder != nil {
		e.unwinder.Refresh(pid)
	}
}

// unpublish forgets the sites publish added last.
func (e *bpfEvents) unpublish(sites []*Site) {
	cur := *e.sites.Load()
	cur = cur[:len(cur)-len(sites)]
	e.sites.Store(&cur)
}

func (e *bpfEvents) Read(ev *Event) error {
	if err := e.prog.Read(&ev.Event); err != nil {
		if errors.Is(err, bpf.ErrClosed) && e.isDrained() {
			return io.EOF
		}
		return err
	}
	sites := *e.sites.Load()
	if int(ev.Event.Site) >= len(sites) {
		return fmt.Errorf("event of unknown site %d", ev.Event.Site)
	}
	ev.Site = sites[ev.Event.Site]
	if e.unwinder != nil {
		e.plan.unwindCopy(e.unwinder, ev)
	}
	for len(e.noted) <= int(ev.Event.Site) {
		e.noted = append(e.noted, sites[len(e.noted)].Reported)
	}
	if w := e.plan.opts.Warn; w != nil {
		e.noteUnread(ev, w)
	}
	return nil
}

// noteUnread gives warn the arguments of the event that could not be
// read, the first time each argument of its site is not read.
func (e *bpfEvents) noteUnread(ev *Event, warn func(error)) {
	noted := &e.noted[ev.Event.Site]
	for i := range ev.Args {
		if ev.Args[i].Kind != hit.NotRead || noted.Has(i) {
			continue
		}
		*noted |= 1 << i
		var raw string
		if i < len(ev.Site.Args) {
			raw = ev.Site.Args[i].Raw
		}
		p := ev.Site.Probe
		warn(fmt.Errorf("%s: %v: arg%d %q could not be read (pid %d); shown as null", p.Target.Name, p, i, raw, ev.PID))
	}
}

func (e *bpfEvents) isDrained() bool {
	select {
	case <-e.drained:
		return true
	default:
		return false
	}
}

func (e *bpfEvents) Stop() {
	e.stopOnce.Do(func() {
		// No site is added once detached.
		e.dlopen.Stop()
		e.detachErr = e.prog.Detach()
		close(e.stopping)
		go e.drain()
	})
}

func (e *bpfEvents) Stopped() <-chan struct{} { return e.stopping }

// drain waits for the reader to empty the ring buffer, takes the final
// counts and releases the program, which ends Read.
func (e *bpfEvents) drain() {
	tick := time.NewTicker(drainPoll)
	defer tick.Stop()
	for e.prog.Pending() > 0 {
		select {
		case <-tick.C:
		case <-e.closing:
			return
		}
	}
	e.finish()
}

// finish takes the final counts, which live in a map the program's
// release frees, and releases it.
func (e *bpfEvents) finish() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.final {
		return
	}
	if n, err := e.prog.Lost(); err == nil {
		e.lost = n
	}
	if n, err := e.prog.Skipped(); err == nil {
		e.skipped = n
	}
	if n, err := e.prog.LostByProbe(); err == nil {
		e.probesLost = n
	}
	e.final = true
	close(e.drained)
	e.closeErr = e.prog.Close()
}

func (e *bpfEvents) Lost() uint64    { return e.count(&e.lost, e.prog.Lost) }
func (e *bpfEvents) Skipped() uint64 { return e.count(&e.skipped, e.prog.Skipped) }

// LostByProbe returns what Lost counts by probe number, read from the
// program or, once it is released, as finish took it.
func (e *bpfEvents) LostByProbe() []uint64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.final {
		return e.probesLost
	}
	n, _ := e.prog.LostByProbe()
	return n
}

// count returns a counter of the program, read from it, or the value
// finish took, final, once the program is released.
func (e *bpfEvents) count(final *uint64, read func() (uint64, error)) uint64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.final {
		return *final
	}
	n, _ := read()
	return n
}

func (e *bpfEvents) Close() error {
	// A Stop in progress elsewhere is waited for; none comes after.
	e.stopOnce.Do(func() {})
	e.closeOnce.Do(func() {
		e.dlopen.Stop()
		close(e.closing)
		e.finish()
	})
	return errors.Join(e.detachErr, e.closeErr)
}

// Buffered reports whether Read returns an event without waiting (see
// bpf.Program.Buffered).
func (e *bpfEvents) Buffered() bool { return e.prog.Buffered() }
