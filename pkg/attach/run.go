package attach

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"

	"github.com/sdtkit/sdtkit/pkg/probespec"
)

// ErrStop, returned by the function Run calls, ends the run without
// an error of its own: Run then closes the Tracer without waiting for
// the events left.
var ErrStop = errors.New("stop")

// Run gives fn every event, until ctx is done, Stop is called, the
// process of Options.PID exits (or Options.Until is closed), or fn
// returns an error; then it stops, gives fn the events left (unless fn
// failed), and closes the Tracer. The Event is reused between calls. The
// error is fn's (none for ErrStop), or that of reading, and that of
// detaching; an ended ctx is no error.
func (t *Tracer) Run(ctx context.Context, fn func(*Event) error) error {
	stop := context.AfterFunc(ctx, t.Stop)
	var ev Event
	var err error
	for {
		if err = t.Read(&ev); err != nil {
			break
		}
		if err = fn(&ev); err != nil {
			break
		}
	}
	stop()
	if errors.Is(err, io.EOF) || errors.Is(err, ErrStop) {
		err = nil
	}
	if cerr := t.Close(); cerr != nil {
		err = errors.Join(err, fmt.Errorf("detach: %w", cerr))
	}
	return err
}

// Events returns the events of Run as an iterator: ranging over it
// runs the Tracer until ctx is done, Stop is called or the process of
// Options.PID exits, yields the events left, and closes the Tracer.
// Leaving the loop early closes it at once. An error of reading or of
// detaching comes last, with a nil Event. The Event is reused between
// iterations.
func (t *Tracer) Events(ctx context.Context) iter.Seq2[*Event, error] {
	return func(yield func(*Event, error) bool) {
		done := false
		err := t.Run(ctx, func(ev *Event) error {
			if !yield(ev, nil) {
				done = true
				return ErrStop
			}
			return nil
		})
		if err != nil && !done {
			yield(nil, err)
		}
	}
}

// Aggregate resolves specs and aggregates the hits of their sites as a
// says: Resolve, then Plan.Aggregate.
func Aggregate(ctx context.Context, specs []probespec.Spec, a *Aggregation, opts *Options) (*Aggregator, error) {
	p, err := Resolve(ctx, specs, opts)
	if err != nil {
		return nil, err
	}
	return p.Aggregate(a)
}
