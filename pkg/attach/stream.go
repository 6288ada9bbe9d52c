package attach

import (
	"bufio"
	"cmp"
	"context"
	"io"
	"sync"
	"time"

	"github.com/sdtkit/sdtkit/pkg/ndjson"
	"github.com/sdtkit/sdtkit/pkg/symbolize"
)

// Streamed counts what Stream wrote.
type Streamed struct {
	// Events is the number of events written, and ByProbe that of each
	// probe of the plan, by index (Plan.Probes, as many).
	Events  uint64
	ByProbe []uint64
	// Lost is the number of events lost in a full ring buffer, each
	// reported in-band as a {"lost":N} record.
	Lost uint64
	// Skipped is the number of probe hits that made no event for
	// another reason (Tracer.Skipped).
	Skipped uint64
}

// Stream writes the events of t to w as NDJSON, one line per event as
// Event.Record and package ndjson make it, until ctx is done, Stop is
// called, the process of Options.PID exits, max events are written
// (max 0 sets no limit) or writing fails; then it closes t. On a stop
// other than max, the events left in the ring buffer are written first.
// Every flush interval (Options.FlushInterval) it writes a {"lost":N}
// record for the events lost since the last, and flushes w's buffer, so
// that a reader of a pipe sees the events while the probes are idle.
// The error is that of writing, reading or detaching; an ended ctx is
// no error. With the BPF backend on more than one core (GOMAXPROCS), the
// lines are made by up to three goroutines besides the reader's, and
// written in the order the events were read, so that many traced
// threads firing at once lose fewer events to a full ring buffer.
func (t *Tracer) Stream(ctx context.Context, w io.Writer, max uint64) (*Streamed, error) {
	s := &streamer{bw: bufio.NewWriterSize(w, 64<<10), n: Streamed{ByProbe: make([]uint64, len(t.plan.Probes))}, syms: t.syms}
	var err error
	if n := encoders(t.src); n > 0 {
		err = t.streamParallel(ctx, s, max, n)
	} else {
		err = t.streamSerial(ctx, s, max)
	}
	if lerr := s.tick(t.Lost()); err == nil {
		err = lerr
	}
	s.n.Skipped = t.Skipped()
	for len(s.n.ByProbe) < len(t.plan.Probes) { // probes added with no event
		s.n.ByProbe = append(s.n.ByProbe, 0)
	}
	return &s.n, err
}

// streamSerial is Stream's loop on one core: the Tracer's reader
// encodes and writes each event.
func (t *Tracer) streamSerial(ctx context.Context, s *streamer, max uint64) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var tickErr error // of writing at a tick, which ends the stream
	ticking := make(chan struct{})
	go func() {
		defer close(ticking)
		tick := time.NewTicker(t.flushInterval())
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			if tickErr = s.tick(t.Lost()); tickErr != nil {
				cancel()
				return
			}
		}
	}()
	err := t.Run(ctx, func(ev *Event) error {
		if err := s.event(ev); err != nil {
			return err
		}
		if max > 0 && s.n.Events >= max {
			return ErrStop
		}
		return nil
	})
	cancel()
	<-ticking
	if err == nil {
		err = tickErr
	}
	return err
}

// flushInterval is how often Stream reports lost events and flushes.
func (t *Tracer) flushInterval() time.Duration {
	return cmp.Or(t.plan.opts.FlushInterval, DefaultFlushInterval)
}

// A streamer writes events as NDJSON through a buffered writer and
// counts them, from the Tracer's reader and its ticker.
type streamer struct {
	mu   sync.Mutex
	bw   *bufio.Writer
	buf  []byte       // the line being written
	rec  ndjson.Event // the record of the event being written
	st   stacker
	syms *symbolize.Processes // of the Tracer: nil without stacks
	n    Streamed
}

// A stacker fills in the stacks of records, reusing its memory.
type stacker struct {
	frames []symbolize.Frame
	stack  []ndjson.Frame
}

// record fills rec with ev as Event.Record does, and with its stack
// symbolized by syms when that is not nil.
func (st *stacker) record(syms *symbolize.Processes, ev *Event, rec *ndjson.Event) {
	ev.Record(rec)
	if syms == nil {
		return
	}
	st.frames = syms.Frames(st.frames[:0], int(ev.PID), ev.Stack)
	st.stack = st.stack[:0]
	for _, f := range st.frames {
		st.stack = append(st.stack, ndjson.Frame(f))
	}
	if st.stack == nil {
		st.stack = []ndjson.Frame{}
	}
	rec.UStack = st.stack
}

// event writes one event.
func (s *streamer) event(ev *Event) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.st.record(s.syms, ev, &s.rec)
	s.buf = ndjson.AppendEvent(s.buf[:0], &s.rec)
	s.count(ev.Site.ProbeIndex)
	_, err := s.bw.Write(s.buf)
	return err
}

// count counts an event of the probe of index i.
func (s *streamer) count(i int) {
	// Probes are added as the process loads libraries.
	for len(s.n.ByProbe) <= i {
		s.n.ByProbe = append(s.n.ByProbe, 0)
	}
	s.n.ByProbe[i]++
	s.n.Events++
}

// tick writes {"lost":N} for the events dropped since the last report,
// given the total so far, and flushes the output.
func (s *streamer) tick(lost uint64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if lost > s.n.Lost {
		s.buf = ndjson.AppendLost(s.buf[:0], lost-s.n.Lost)
		s.n.Lost = lost
		if _, err := s.bw.Write(s.buf); err != nil {
			return err
		}
	}
	return s.bw.Flush()
}
