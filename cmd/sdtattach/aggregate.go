package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"strings"
	"time"

	"github.com/sdtkit/sdtkit/internal/cli"
	"github.com/sdtkit/sdtkit/pkg/aggregate"
	"github.com/sdtkit/sdtkit/pkg/attach"
	"github.com/sdtkit/sdtkit/pkg/filter"
	"github.com/sdtkit/sdtkit/pkg/probespec"
)

// aggConfig is --count, --hist, --stats, --latency and what goes with
// them.
type aggConfig struct {
	count       bool
	hist, stats string
	latency     string
	pair        aggregate.LatencySpec // --latency parsed
	by          string
	interval    time.Duration
	maxKeys     int

	agg attach.Aggregation // parsed; Mode 0 streams events
}

func (a *aggConfig) flags(fs *flag.FlagSet) {
	fs.BoolVar(&a.count, "count", false, "count hits per probe (and --by key) in the kernel; write counts, not events")
	fs.StringVar(&a.hist, "hist", "", "draw a log2 histogram of `ARG` (argN or a --types field) per probe in the kernel")
	fs.StringVar(&a.stats, "stats", "", "keep the count, sum, min, max and mean of `ARG` per probe in the kernel")
	fs.StringVar(&a.latency, "latency", "", "draw a log2 histogram of the ns from each START hit to the next END hit of the same KEY (the thread if not given), `START,END[,KEY]`, in the kernel")
	fs.StringVar(&a.by, "by", "", "group --count, --hist, --stats or --latency by `KEY[,KEY...]`: pid, tid, comm, argN, a field")
	fs.DurationVar(&a.interval, "interval", 0, "with --count, --hist, --stats or --latency: write and reset every `D`, such as 1s")
	fs.IntVar(&a.maxKeys, "max-keys", attach.DefaultMaxKeys, "count at most `N` keys (with --hist and --latency, key and bucket pairs) per interval; with --latency, at most N STARTs wait")
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
		if a.agg.Of, err = aggregate.ParseKey(f.val); err != nil || a.agg.Of.Kind < aggregate.KeyArg {
			return fmt.Errorf("--%s %s: want argN or a field name", f.name, cli.Shown(f.val))
		}
	}
	if set["latency"] {
		a.agg.Mode, modes = attach.Latency, modes+1
		if a.pair, err = aggregate.ParseLatency(a.latency); err != nil {
			return fmt.Errorf("--latency %s: %w", cli.Shown(a.latency), err)
		}
		a.agg.Pair = a.pair.Pair
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
	}
	return nil
}

// latencyProbes parses START and END of --latency. With PROBEs given,
// they are patterns over the probes attached, PROVIDER:NAME or NAME;
// without, they are the PROBEs to attach, which it returns (one when
// they are the same).
func (a *aggConfig) latencyProbes(probes bool) ([]string, error) {
	parse := probespec.Parse
	if probes {
		parse = probespec.ParsePattern
	}
	parts := []string{a.pair.Start, a.pair.End}
	specs := make([]probespec.Spec, 2)
	for i, p := range parts {
		var err error
		if specs[i], err = parse(p); err != nil {
			return nil, fmt.Errorf("--latency %s: %w", cli.Shown(a.latency), err)
		}
	}
	a.agg.Start, a.agg.End = specs[0], specs[1]
	switch {
	case probes:
		return nil, nil
	case parts[0] == parts[1]:
		return parts[:1], nil
	}
	return parts, nil
}

// aggregateRun aggregates in the kernel, or with tracefs in this process
// as the events come, and writes a record per probe and key every
// --interval and at the end: on a signal, at the -d duration, or when the
// -p process exits.
func aggregateRun(ctx context.Context, c *config, opts *attach.Options, plan *attach.Plan, stdout io.Writer, logger *log.Logger) error {
	// --listen: an address taken fails before anything is attached.
	var ln net.Listener
	if c.listen.addr != "" {
		var err error
		if ln, err = net.Listen("tcp", c.listen.addr); err != nil {
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
	if c.duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.duration)
		defer cancel()
	}
	bw := bufio.NewWriterSize(stdout, 64<<10)
	rw := aggregate.NewRecordWriter(bw)
	emit := func(recs []aggregate.Record) error {
		if err := rw.Write(recs); err != nil {
			return err
		}
		return bw.Flush()
	}
	if ln != nil {
		err = serve(ctx, c, ag, ln, emit, logger)
	} else {
		err = ag.Run(ctx, c.agg.interval, emit)
	}
	logger.Printf("%d hits counted, %d lost to a full map of keys (--max-keys)", rw.Hits, rw.Lost)
	switch n := ag.Skipped(); {
	case n > 0 && !ag.InKernel():
		logger.Printf("%d probe hits were not counted (lost in a full ring buffer: see --bufsize)", n)
	case n > 0:
		logger.Printf("%d probe hits were not counted (of an unknown site, or with no room to count them as lost)", n)
	}
	if cerr := ag.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("detach: %w", cerr)
	}
	return err
}

// flagWords returns the message of err, an error of the attach engine,
// in the words of sdtattach's flags.
func flagWords(err error) string {
	msg := err.Error()
	var ke *attach.KeyError
	if errors.As(err, &ke) && errors.Is(ke.Err, attach.ErrNeitherStartNorEnd) {
		// The key is START,END of --latency.
		msg = strings.Replace(msg, ke.Key+": ", "--latency "+ke.Key+": ", 1)
	}
	if errors.Is(err, filter.ErrNoFields) {
		msg += " (--types does not declare it)"
	}
	var fb *attach.Fallback
	if errors.As(err, &fb) {
		msg = strings.Replace(msg, "; tracing with the tracefs backend", "; tracing with --backend tracefs", 1)
	}
	if errors.As(err, new(*attach.TracefsError)) {
		msg = strings.Replace(msg, "tracefs backend: ", "--backend tracefs: ", 1)
	}
	return msg
}

// A flagError is an error of a package, told in sdtattach's words.
type flagError struct{ err error }

func (e *flagError) Error() string { return flagWords(e.err) }
func (e *flagError) Unwrap() error { return e.err }

// inFlagWords returns err told in sdtattach's words.
func inFlagWords(err error) error {
	if err == nil {
		return nil
	}
	return &flagError{err}
}
