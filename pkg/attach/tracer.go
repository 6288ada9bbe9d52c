package attach

import (
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sdtkit/sdtkit/pkg/bpf"
	"github.com/sdtkit/sdtkit/pkg/hit"
	"github.com/sdtkit/sdtkit/pkg/probe"
)

// drainPoll is how often a stopping Tracer checks whether its reader has
// emptied the ring buffer.
const drainPoll = 10 * time.Millisecond

// A Tracer streams the events of attached probe sites.
//
// Stopping follows a protocol that loses nothing silently: Stop detaches
// every site, so that no event is added; Read goes on returning the
// events still in the ring buffer and then io.EOF; from then on Lost and
// Skipped are final. Close may be called at any time, also to cut a
// drain short, and must be called in the end.
type Tracer struct {
	prog *bpf.Program
	// events, in place of prog, are those of uprobe events
	// (BackendTracefs), which follow the same protocol themselves.
	events *tracefsEvents
	plan   *Plan
	sites  atomic.Pointer[[]*Site] // grows as libraries are loaded (Options.Dlopen)
	// dlopen, when not nil, follows the libraries the process loads;
	// Stop ends it before detaching.
	dlopen *dlopenFollower
	// noted are, by site number, the arguments whose being unreadable
	// was given to Options.Warn.
	noted []hit.ArgMask

	stopOnce  sync.Once
	stopping  chan struct{} // closed by Stop
	drained   chan struct{} // closed when the counters are final
	closing   chan struct{} // closed by Close
	closeOnce sync.Once
	detachErr error
	closeErr  error

	mu      sync.Mutex // guards the final counters
	final   bool
	lost    uint64
	skipped uint64
}

func newTracer(prog *bpf.Program, p *Plan, follow *dlopenFollower) *Tracer {
	t := newTracerState(p)
	t.prog = prog
	if follow != nil {
		t.dlopen = follow
		follow.start(p, prog, t)
	}
	stopOnExit(&p.opts, t.closing, t.Stop)
	return t
}

// newTracerState returns a Tracer of plan p with no program yet.
func newTracerState(p *Plan) *Tracer {
	noted := make([]hit.ArgMask, len(p.Sites))
	for i, s := range p.Sites {
		noted[i] = s.Reported
	}
	t := &Tracer{
		plan:     p,
		noted:    noted,
		stopping: make(chan struct{}),
		drained:  make(chan struct{}),
		closing:  make(chan struct{}),
	}
	sites := p.Sites
	t.sites.Store(&sites)
	return t
}

// prepare gives the program the filter of probe id, whose sites are
// like s, before they are attached (see grower).
func (t *Tracer) prepare(id int, s *Site) error {
	e := t.plan.opts.Filter
	if e == nil {
		return nil
	}
	f, err := compileFor(e, s)
	if err != nil {
		return err
	}
	return t.prog.AddProbe(id, nil, f)
}

// publish makes sites known to Read before their first event can come.
func (t *Tracer) publish(sites []*Site) {
	cur := *t.sites.Load()
	grown := append(cur[:len(cur):len(cur)], sites...)
	t.sites.Store(&grown)
}

// unpublish forgets the sites publish added last.
func (t *Tracer) unpublish(sites []*Site) {
	cur := *t.sites.Load()
	cur = cur[:len(cur)-len(sites)]
	t.sites.Store(&cur)
}

// An Event is one probe hit: the event as the BPF program read it, and
// the site it came from.
type Event struct {
	hit.Event
	Site *Site
}

// Probe returns the probe that fired.
func (e *Event) Probe() *probe.Probe { return e.Site.Probe }

// Read waits for the next event and stores it in ev, reusing its memory.
// The first time an argument of a site could not be read (its memory was
// paged out, or the address was bad), Options.Warn is told.
// After Stop, it returns io.EOF once the ring buffer is empty, and after
// Close at once. Read must not be called concurrently with itself.
func (t *Tracer) Read(ev *Event) error {
	if t.events != nil {
		return t.events.Read(ev)
	}
	if err := t.prog.Read(&ev.Event); err != nil {
		if errors.Is(err, bpf.ErrClosed) && t.isDrained() {
			return io.EOF
		}
		return err
	}
	sites := *t.sites.Load()
	if int(ev.Event.Site) >= len(sites) {
		return fmt.Errorf("event of unknown site %d", ev.Event.Site)
	}
	ev.Site = sites[ev.Event.Site]
	for len(t.noted) <= int(ev.Event.Site) {
		t.noted = append(t.noted, sites[len(t.noted)].Reported)
	}
	if w := t.plan.opts.Warn; w != nil {
		t.noteUnread(ev, w)
	}
	return nil
}

// noteUnread gives warn the arguments of the event that could not be
// read, the first time each argument of its site is not read.
func (t *Tracer) noteUnread(ev *Event, warn func(error)) {
	noted := &t.noted[ev.Event.Site]
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

func (t *Tracer) isDrained() bool {
	select {
	case <-t.drained:
		return true
	default:
		return false
	}
}

// Plan returns what the Tracer attached.
func (t *Tracer) Plan() *Plan { return t.plan }

// Stop detaches every site, which lowers the semaphores raised for
// them, and lets Read return the events left in the ring buffer before
// io.EOF. It returns at once; the Tracer calls it itself when the
// process of Options.PID exits. Calling it again does nothing.
func (t *Tracer) Stop() {
	if t.events != nil {
		t.events.Stop()
		return
	}
	t.stopOnce.Do(func() {
		// No site is added once detached.
		t.dlopen.stop()
		t.detachErr = t.prog.Detach()
		close(t.stopping)
		go t.drain()
	})
}

// Stopped returns a channel that is closed when Stop is called.
func (t *Tracer) Stopped() <-chan struct{} {
	if t.events != nil {
		return t.events.Stopped()
	}
	return t.stopping
}

// drain waits for the reader to empty the ring buffer, takes the final
// counts and releases the program, which ends Read.
func (t *Tracer) drain() {
	tick := time.NewTicker(drainPoll)
	defer tick.Stop()
	for t.prog.Pending() > 0 {
		select {
		case <-tick.C:
		case <-t.closing:
			return
		}
	}
	t.finish()
}

// finish takes the final counts, which live in a map the program's
// release frees, and releases it.
func (t *Tracer) finish() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.final {
		return
	}
	if n, err := t.prog.Lost(); err == nil {
		t.lost = n
	}
	if n, err := t.prog.Skipped(); err == nil {
		t.skipped = n
	}
	t.final = true
	close(t.drained)
	t.closeErr = t.prog.Close()
}

// Lost returns the number of events dropped so far because the ring
// buffer was full: Read was not called often enough, or the ring is too
// small for the rate of events.
func (t *Tracer) Lost() uint64 {
	if t.events != nil {
		return t.events.Lost()
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.final {
		return t.lost
	}
	n, _ := t.prog.Lost()
	return n
}

// Skipped returns the number of probe hits that made no event for
// another reason than a full ring buffer (see the Skipped of package bpf's Program).
func (t *Tracer) Skipped() uint64 {
	if t.events != nil {
		return t.events.Skipped()
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.final {
		return t.skipped
	}
	n, _ := t.prog.Skipped()
	return n
}

// Close detaches every site, if Stop has not, and releases the program;
// a Read in progress returns. The counts of Lost and Skipped are final.
// The error is that of detaching or releasing.
func (t *Tracer) Close() error {
	if t.events != nil {
		return t.events.Close()
	}
	// A Stop in progress elsewhere is waited for; none comes after.
	t.stopOnce.Do(func() {})
	t.closeOnce.Do(func() {
		t.dlopen.stop()
		close(t.closing)
		t.finish()
	})
	return errors.Join(t.detachErr, t.closeErr)
}
