package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"

	"github.com/sdtkit/sdtkit/internal/cli"
	"github.com/sdtkit/sdtkit/pkg/aggregate"
	"github.com/sdtkit/sdtkit/pkg/attach"
	"github.com/sdtkit/sdtkit/pkg/metrics"
)

// listenConfig is --listen and --max-series.
type listenConfig struct {
	addr      string
	maxSeries int
}

func (l *listenConfig) flags(fs *flag.FlagSet) {
	fs.StringVar(&l.addr, "listen", "", "with --count, --hist, --stats or --latency: serve them as Prometheus metrics on http://`HOST:PORT`/metrics (an empty HOST is 127.0.0.1)")
	fs.IntVar(&l.maxSeries, "max-series", metrics.DefaultMaxSeries, "with --listen: keep at most `N` --by key values; the hits of others go to the series whose key labels are empty")
}

// parse checks --listen, --max-series and the label names of the --by
// keys, and puts the loopback address in an empty host; the error is the
// message of a usage error.
func (l *listenConfig) parse(set map[string]bool, agg *attach.Aggregation) error {
	switch {
	case set["listen"] && agg.Mode == 0:
		return errors.New("--listen needs --count, --hist, --stats or --latency")
	case set["max-series"] && !set["listen"]:
		return errors.New("--max-series needs --listen")
	case l.maxSeries < 1:
		return fmt.Errorf("--max-series %d: not a positive number", l.maxSeries)
	case !set["listen"]:
		return nil
	}
	host, port, err := net.SplitHostPort(l.addr)
	if err != nil || port == "" {
		return fmt.Errorf("--listen %s: want HOST:PORT or :PORT", cli.Shown(l.addr))
	}
	if host == "" {
		host = "127.0.0.1"
	}
	l.addr = net.JoinHostPort(host, port)
	// Keys whose labels would be the same (the field le is the label
	// key_le, as is a field key_le) fail here rather than every scrape.
	if _, err := metrics.LabelNames(agg.By); err != nil {
		return fmt.Errorf("--by: %w; give one of them as argN", err)
	}
	return nil
}

// serve serves the aggregates of ag as Prometheus metrics on ln until
// ctx is done, the -p process exits or emit fails (metrics.Serve): every
// scrape, and every --interval, ends an interval, whose records emit
// writes.
func serve(ctx context.Context, c *config, ag *attach.Aggregator, ln net.Listener, emit func([]aggregate.Record) error, logger *log.Logger) error {
	logger.Printf("serving metrics on http://%s/metrics", ln.Addr())
	return metrics.Serve(ctx, ln, ag, &metrics.ServeOptions{
		By:        c.agg.agg.By,
		MaxSeries: c.listen.maxSeries,
		Interval:  c.agg.interval,
		Emit:      emit,
		Server:    metrics.ServerOptions{ErrorLog: logger},
	})
}
