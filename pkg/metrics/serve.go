package metrics

import (
	"cmp"
	"context"
	"fmt"
	"net"
	"time"

	"github.com/sdtkit/sdtkit/pkg/aggregate"
)

// A Source is what Serve serves: an aggregation whose interval each
// collection ends, such as an attach.Aggregator.
type Source interface {
	Collect(now time.Time) ([]aggregate.Record, error)
	// Empty returns a record of no hits for each series there will be,
	// so that a scrape before the first hit shows them at 0.
	Empty() []aggregate.Record
	// Stop detaches; Stopped is closed when it is called, also by the
	// source itself (the process traced exited).
	Stop()
	Stopped() <-chan struct{}
}

// ServeOptions adjust Serve.
type ServeOptions struct {
	// By and MaxSeries are those of Options.
	By        []aggregate.Key
	MaxSeries int
	// Interval, when not 0, ends an interval that often too, between
	// scrapes.
	Interval time.Duration
	// Emit, when not nil, is given the records of every interval, in
	// order, as the totals the metrics show get them: each hit is in
	// both once.
	Emit func([]aggregate.Record) error
	// Server bounds the clients (see NewServer).
	Server ServerOptions
}

// shutdownTimeout bounds how long a scrape in progress delays the end of
// Serve.
const shutdownTimeout = 5 * time.Second

// Serve serves the aggregates of src as Prometheus metrics on ln until
// ctx is done, src stops, Emit fails or the server fails. Every scrape,
// and every Interval, ends an interval. On the way out it stops src,
// waits for the scrapes in progress, and ends the last interval, whose
// records hold every hit until src was stopped.
func Serve(ctx context.Context, ln net.Listener, src Source, o *ServeOptions) error {
	if o == nil {
		o = &ServeOptions{}
	}
	failed := make(chan error, 1)
	exp := New(&Options{
		Collect: func(now time.Time) ([]aggregate.Record, error) {
			recs, err := src.Collect(now)
			if err != nil {
				return nil, err
			}
			if o.Emit != nil {
				if err := o.Emit(recs); err != nil {
					select {
					case failed <- err:
					default:
					}
				}
			}
			return recs, nil
		},
		By:        o.By,
		MaxSeries: o.MaxSeries,
	})
	exp.Add(src.Empty())
	srv, err := NewServer(exp, &o.Server)
	if err != nil {
		return err
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	var tick <-chan time.Time
	if o.Interval > 0 {
		t := time.NewTicker(o.Interval)
		defer t.Stop()
		tick = t.C
	}
	for done := false; !done; {
		select {
		case now := <-tick:
			_, err = exp.Update(now)
			done = err != nil
		case err = <-failed:
			done = true
		case err = <-served:
			err, done = fmt.Errorf("serve: %w", err), true
		case <-ctx.Done():
			done = true
		case <-src.Stopped():
			done = true
		}
	}
	src.Stop()
	sctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	if serr := srv.Shutdown(sctx); serr != nil {
		srv.Close()
	}
	if _, uerr := exp.Update(time.Now()); err == nil {
		err = uerr
	}
	select {
	case ferr := <-failed:
		if err == nil {
			err = ferr
		}
	default:
	}
	return err
}

// ListenAddress returns addr, HOST:PORT or :PORT, with the loopback
// address 127.0.0.1 in place of an empty HOST: an exporter of a
// process's probes is served to other machines only when asked.
func ListenAddress(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || port == "" {
		return "", fmt.Errorf("%q: want HOST:PORT or :PORT", addr)
	}
	return net.JoinHostPort(cmp.Or(host, "127.0.0.1"), port), nil
}
