package attach

import (
	"github.com/sdtkit/sdtkit/pkg/hit"
	"github.com/sdtkit/sdtkit/pkg/probe"
	"github.com/sdtkit/sdtkit/pkg/symbolize"
)

// A Tracer streams the events of attached probe sites.
//
// Stopping follows a protocol that loses nothing silently: Stop detaches
// every site, so that no event is added; Read goes on returning the
// events still in the ring buffer and then io.EOF; from then on Lost and
// Skipped are final. Close may be called at any time, also to cut a
// drain short, and must be called in the end.
type Tracer struct {
	src  source
	plan *Plan
	syms *symbolize.Processes // with Options.UStack
}

// A source is what a Tracer reads: the events of a backend, each with
// its Site, following the Tracer's protocol (bpfEvents, tracefsEvents).
type source interface {
	EventSource
	// Stopped is closed when Stop is called.
	Stopped() <-chan struct{}
}

// An Event is one probe hit: the event as the backend read it, and the
// site it came from.
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
func (t *Tracer) Read(ev *Event) error { return t.src.Read(ev) }

// Plan returns what the Tracer attached.
func (t *Tracer) Plan() *Plan { return t.plan }

// Stop detaches every site, which lowers the semaphores raised for
// them, and lets Read return the events left in the ring buffer before
// io.EOF. It returns at once; the Tracer calls it itself when the
// process of Options.PID exits. Calling it again does nothing.
func (t *Tracer) Stop() { t.src.Stop() }

// Stopped returns a channel that is closed when Stop is called.
func (t *Tracer) Stopped() <-chan struct{} { return t.src.Stopped() }

// Lost returns the number of events dropped so far because the ring
// buffer was full: Read was not called often enough, or the ring is too
// small for the rate of events.
func (t *Tracer) Lost() uint64 { return t.src.Lost() }

// Skipped returns the number of probe hits that made no event for
// another reason than a full ring buffer: nested more than the program
// allows on a CPU, or of a site not known yet.
func (t *Tracer) Skipped() uint64 { return t.src.Skipped() }

// LostByProbe returns the events Lost counts by probe number (the index
// of Plan.Probes and Site.ProbeIndex), for the probes the BPF program
// has room for, or nil where the backend does not tell them apart (the
// tracefs backend's perf buffers say how many events they lost, not
// whose).
func (t *Tracer) LostByProbe() []uint64 {
	if s, ok := t.src.(probeLosses); ok {
		return s.LostByProbe()
	}
	return nil
}

// probeLosses is a source that counts its lost events by probe.
type probeLosses interface {
	LostByProbe() []uint64
}

// Close detaches every site, if Stop has not, and releases the backend;
// a Read in progress returns. The counts of Lost and Skipped are final.
// The error is that of detaching or releasing.
func (t *Tracer) Close() error { return t.src.Close() }

// maxSymbolized is the most processes whose maps a Tracer keeps to
// symbolize stacks.
const maxSymbolized = 1024

// Stack returns the frames of ev's user stack (Options.UStack),
// innermost first, symbolized in its process as package symbolize
// does: nil when the Tracer takes no stacks. The process's maps are read
// at its first stack, and again for an address in none of them; those
// of Options.PID when attached, and with Options.Dlopen at each stop in
// its dynamic loader, where it has mapped libraries (see Plan.Attach).
// A process that has exited keeps the maps last read, and one gone
// before they were read keeps its bare addresses.
func (t *Tracer) Stack(ev *Event) []symbolize.Frame {
	if t.syms == nil {
		return nil
	}
	return t.syms.Frames(make([]symbolize.Frame, 0, len(ev.Stack)), int(ev.PID), ev.Stack)
}
