package attach

import (
	"context"
	"errors"
	"io"

	"github.com/sdtkit/sdtkit/pkg/probespec"
)

// Run gives fn every event, until ctx is done, Stop is called, the
// process of Options.PID exits (or Options.Done is closed), or fn
// returns an error; then it stops, gives fn the events left (unless fn
// failed), and closes the Tracer. The Event is reused between calls. The
// error is fn's, or that of reading or detaching; an ended ctx is no
// error.
func (t *Tracer) Run(ctx context.Context, fn func(*Event) error) error {
	stop := context.AfterFunc(ctx, t.Stop)
	defer stop()
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
	if errors.Is(err, io.EOF) {
		err = nil
	}
	return errors.Join(err, t.Close())
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
