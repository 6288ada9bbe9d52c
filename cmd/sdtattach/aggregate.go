package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"time"

	"github.com/sdtkit/sdtkit/internal/cli"
	"github.com/sdtkit/sdtkit/pkg/aggregate"
	"github.com/sdtkit/sdtkit/pkg/attach"
	"github.com/sdtkit/sdtkit/pkg/metrics"
	"github.com/sdtkit/sdtkit/pkg/probespec"
)

// aggConfig is --count, --hist, --stats, --latency, --listen and what
// goes with them.
type aggConfig struct {
	count              bool
	hist, stats, by    string
	latency            string
	pair               aggregate.LatencySpec // --latency parsed
	interval           time.Duration
	listen             string
	maxSeries, maxKeys int
	agg                attach.Aggregation // parsed; Mode 0 streams events
}

func (a *aggConfig) flags(fs *flag.FlagSet) {
	fs.BoolVar(&a.count, "count", false, "count hits per probe (and --by key) in the kernel; write counts, not events")
	fs.StringVar(&a.hist, "hist", "", "draw a log2 histogram of `ARG` (argN or a --types field) per probe in the kernel")
	fs.StringVar(&a.stats, "stats", "", "keep the count, sum, min, max and mean of `ARG` per probe in the kernel")
	fs.StringVar(&a.latency, "latency", "", "draw a log2 histogram of the ns from each START hit to the next END hit of the same KEY (the thread if not given), `START,END[,KEY]`, in the kernel")
	fs.StringVar(&a.by, "by", "", "group --count, --hist, --stats or --latency by `KEY[,KEY...]`: pid, tid, comm, ustack (the user stack: frame pointers, or unwound here with --ustack=dwarf), argN, a field")
	fs.DurationVar(&a.interval, "interval", 0, "with --count, --hist, --stats or --latency: write and reset every `D`, such as 1s")
	fs.IntVar(&a.maxKeys, "max-keys", attach.DefaultMaxKeys, "count at most `N` keys (with --hist and --latency, key and bucket pairs) per interval; with --latency, at most N STARTs wait")
	fs.StringVar(&a.listen, "listen", "", "with --count, --hist, --stats or --latency: serve them as Prometheus metrics on http://`HOST:PORT`/metrics (an empty HOST is 127.0.0.1)")
	fs.IntVar(&a.maxSeries, "max-series", metrics.DefaultMaxSeries, "with --listen: keep at most `N` --by key values; the hits of others go to the series whose key labels are empty")
}

// parse checks the flags set and parses their keys; the error is the
// message of a usage error.
func (a *aggConfig) parse(set map[string]bool) error {
	var err error
	modes := 0
	if a.count {
		a.agg.Mode, modes = attach.Count, modes+1
	}
	for _, f := range []struct {
		name, val string
		mode      attach.Mode
	}{{"hist", a.hist, attach.Hist}, {"stats", a.stats, attach.Stats}} {
		if !set[f.name] {
			continue
		}
		a.agg.Mode, modes = f.mode, modes+1
		if a.agg.Of, err = aggregate.ParseKey(f.val); err != nil || a.agg.Of.Kind != aggregate.KeyArg && a.agg.Of.Kind != aggregate.KeyField {
			return fmt.Errorf("--%s %s: want argN or a field name", f.name, cli.Shown(f.val))
		}
	}
	if set["latency"] {
		// Parsed once the PROBEs are known (latencyProbes).
		a.agg.Mode, modes = attach.Latency, modes+1
	}
	if set["by"] {
		if a.agg.By, err = aggregate.ParseKeys(a.by); err != nil {
			return fmt.Errorf("--by: %w", err)
		}
	}
	a.agg.MaxKeys = a.maxKeys
	switch {
	case modes > 1:
		return errors.New("--count, --hist, --stats and --latency exclude each other")
	case modes == 0 && (set["by"] || set["interval"] || set["max-keys"]):
		return errors.New("--by, --interval and --max-keys need --count, --hist, --stats or --latency")
	case set["interval"] && a.interval <= 0:
		return fmt.Errorf("--interval %v: not a positive duration", a.interval)
	case a.maxKeys < 1 || a.maxKeys > attach.MaxKeys:
		return fmt.Errorf("--max-keys %d: not in [1, %d]", a.maxKeys, attach.MaxKeys)
	case set["listen"] && modes == 0:
		return errors.New("--listen needs --count, --hist, --stats or --latency")
	case set["max-series"] && !set["listen"]:
		return errors.New("--max-series needs --listen")
	case a.maxSeries < 1:
		return fmt.Errorf("--max-series %d: not a positive number", a.maxSeries)
	case !set["listen"]:
		return nil
	}
	addr, err := metrics.ListenAddress(a.listen)
	if err != nil {
		return fmt.Errorf("--listen %s: want HOST:PORT or :PORT", cli.Shown(a.listen))
	}
	a.listen = addr
	// Keys whose labels would be the same (the field le is the label
	// key_le, as is a field key_le) fail here rather than every scrape.
	if _, err := metrics.LabelNames(a.agg.By); err != nil {
		return fmt.Errorf("--by: %w", err)
	}
	return nil
}

// latencyProbes parses --latency: START and END are patterns over the probes
// of specs, or without, the probes to attach, which it adds to them.
func (a *aggConfig) latencyProbes(specs []probespec.Spec) ([]probespec.Spec, error) {
	more, err := a.agg.SetLatency(a.latency, len(specs) > 0)
	if err != nil {
		return nil, fmt.Errorf("--latency %s: %w", cli.Shown(a.latency), err)
	}
	return append(specs, more...), nil
}

// aggregateRun aggregates in the kernel, or with tracefs in this process
// as the events come, and writes a record per probe and key every
// --interval and at the end: on a signal, at the -d duration, or when the
// -p process exits. With --listen, it serves them as metrics too, and
// every scrape ends an interval.
func aggregateRun(ctx context.Context, c *config, plan *attach.Plan, stdout io.Writer, logger *log.Logger) error {
	// --listen: an address taken fails before anything is attached.
	var ln net.Listener
	if c.agg.listen != "" {
		var err error
		if ln, err = net.Listen("tcp", c.agg.listen); err != nil {
			return fmt.Errorf("--listen: %w", err)
		}
		defer ln.Close()
		if c.agg.interval == 0 {
			stdout = io.Discard
		}
	}
	ag, err := plan.Aggregate(&c.agg.agg)
	if errors.As(err, new(*attach.KeyError)) {
		logger.Print(flagWords(err))
		return cli.ErrUsage
	}
	if err != nil {
		return err
	}
	defer ag.Close()
	ctx, cancel := c.until(ctx)
	defer cancel()
	rw := aggregate.NewRecordWriter(stdout)
	if ln != nil {
		logger.Printf("serving metrics on http://%s/metrics", ln.Addr())
		err = metrics.Serve(ctx, ln, ag, &metrics.ServeOptions{
			By:        c.agg.agg.By,
			MaxSeries: c.agg.maxSeries,
			Interval:  c.agg.interval,
			Emit:      rw.Write,
			Server:    metrics.ServerOptions{ErrorLog: logger},
		})
	} else {
		err = ag.Run(ctx, c.agg.interval, rw.Write)
	}
	for _, line := range ag.Summary(rw.Hits, rw.Lost) {
		logger.Print(line)
	}
	if cerr := ag.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("detach: %w", cerr)
	}
	return err
}
