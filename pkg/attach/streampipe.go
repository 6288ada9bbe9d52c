package attach

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sdtkit/sdtkit/pkg/hit"
	"github.com/sdtkit/sdtkit/pkg/ndjson"
	"github.com/sdtkit/sdtkit/pkg/symbolize"
)

// Stream spreads its work over several cores where the source says
// when its next Read may wait (a BPF ring buffer): the Tracer's reader
// copies events into batches, encoders make their NDJSON lines in
// parallel, and a writer writes the batches in the order they were
// read. One traced thread produces fewer events than one core encodes;
// many produce more, and then the reader alone, which copies an event
// in a fraction of the time its line takes, bounds the rate.
const (
	// streamBatch is the most events a batch holds: the reader sends a
	// batch once it is full, or when the source has no event ready.
	streamBatch = 256
	// maxEncoders bounds the encoders, beyond which the reader is the
	// bottleneck.
	maxEncoders = 3
)

// A buffering source says whether its next Read returns at once.
type buffering interface {
	Buffered() bool
}

// encoders returns the number of encoders Stream runs for src: 0 for
// one core, or a source that cannot say when its next Read waits.
func encoders(src source) int {
	if _, ok := src.(buffering); !ok {
		return 0
	}
	return min(runtime.GOMAXPROCS(0)-1, maxEncoders)
}

// A batch is a run of events copied out of the Tracer, and their NDJSON
// lines once encoded.
type batch struct {
	evs    []Event     // Args and Stack nil: see ends
	args   []hit.Value // the arguments of every event
	ends   []int       // evs[i]'s arguments are args[ends[i-1]:ends[i]]
	stack  []uint64    // the stacks of every event
	stacks []int       // evs[i]'s stack is stack[stacks[i-1]:stacks[i]]
	out    []byte
	done   chan struct{} // closed once out is made
}

// add copies ev into b.
func (b *batch) add(ev *Event) {
	b.args = append(b.args, ev.Args...)
	b.ends = append(b.ends, len(b.args))
	b.stack = append(b.stack, ev.Stack...)
	b.stacks = append(b.stacks, len(b.stack))
	b.evs = append(b.evs, Event{Event: ev.Event, Site: ev.Site})
	b.evs[len(b.evs)-1].Args, b.evs[len(b.evs)-1].Stack = nil, nil
}

// encode makes the lines of b's events, using rec and st as scratch
// space, with stacks symbolized by syms when not nil.
func (b *batch) encode(rec *ndjson.Event, st *stacker, syms *symbolize.Processes) {
	args, stack := 0, 0
	for i := range b.evs {
		ev := &b.evs[i]
		ev.Args = b.args[args:b.ends[i]:b.ends[i]]
		ev.Stack = b.stack[stack:b.stacks[i]:b.stacks[i]]
		args, stack = b.ends[i], b.stacks[i]
		st.record(syms, ev, rec)
		b.out = ndjson.AppendEvent(b.out, rec)
	}
	close(b.done)
}

// reset empties b for reuse.
func (b *batch) reset() {
	clear(b.evs) // drop the references to Sites and strings
	b.evs, b.args, b.ends, b.out = b.evs[:0], b.args[:0], b.ends[:0], b.out[:0]
	b.stack, b.stacks = b.stack[:0], b.stacks[:0]
}

// streamParallel is Stream's loop with n encoders, for a source that
// is buffering.
func (t *Tracer) streamParallel(ctx context.Context, s *streamer, max uint64, n int) error {
	src := t.src.(buffering)
	inflight := 2*n + 2
	work := make(chan *batch, inflight)
	order := make(chan *batch, inflight) // never full: there are inflight batches
	free := make(chan *batch, inflight)
	for range inflight {
		free <- &batch{}
	}
	var encoding sync.WaitGroup
	for range n {
		encoding.Go(func() {
			var rec ndjson.Event
			var st stacker
			for b := range work {
				b.encode(&rec, &st, s.syms)
			}
		})
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var failed atomic.Pointer[error] // the writer's error, which ends the run
	writing := make(chan struct{})
	go func() {
		defer close(writing)
		tick := time.NewTicker(t.flushInterval())
		defer tick.Stop()
		fail := func(err error) {
			if err != nil && failed.Load() == nil {
				failed.Store(&err)
				cancel()
			}
		}
		for {
			select {
			case b, ok := <-order:
				if !ok {
					return
				}
				<-b.done
				if failed.Load() == nil {
					fail(s.batch(b))
				}
				b.reset()
				free <- b
			case <-tick.C:
				if failed.Load() == nil {
					fail(s.tick(t.Lost()))
				}
			}
		}
	}()
	send := func(b *batch) {
		b.done = make(chan struct{})
		order <- b
		work <- b
	}
	cur := <-free
	var sent uint64
	err := t.Run(ctx, func(ev *Event) error {
		if e := failed.Load(); e != nil {
			return *e
		}
		cur.add(ev)
		sent++
		if max > 0 && sent >= max {
			send(cur)
			cur = nil
			return ErrStop
		}
		if len(cur.evs) >= streamBatch || !src.Buffered() {
			send(cur)
			cur = <-free
		}
		return nil
	})
	if cur != nil && len(cur.evs) > 0 {
		send(cur)
	}
	close(order)
	close(work)
	<-writing
	encoding.Wait()
	if e := failed.Load(); e != nil && err == nil {
		err = *e
	}
	return err
}

// batch writes the lines of b, an encoded batch, and counts its events.
func (s *streamer) batch(b *batch) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range b.evs {
		s.count(b.evs[i].Site.ProbeIndex)
	}
	_, err := s.bw.Write(b.out)
	return err
}
