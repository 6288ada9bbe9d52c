package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"time"

	"github.com/sdtkit/sdtkit/internal/cli"
	"github.com/sdtkit/sdtkit/pkg/aggregate"
	"github.com/sdtkit/sdtkit/pkg/attach"
	"github.com/sdtkit/sdtkit/pkg/bpf"
)

// aggConfig is --count, --hist, --stats and what goes with them.
type aggConfig struct {
	count       bool
	hist, stats string
	by          string
	interval    time.Duration
	maxKeys     int

	agg attach.Aggregation // parsed; Mode 0 streams events
}

func (a *aggConfig) flags(fs *flag.FlagSet) {
	fs.BoolVar(&a.count, "count", false, "count hits per probe (and --by key) in the kernel; write counts, not events")
	fs.StringVar(&a.hist, "hist", "", "draw a log2 histogram of `ARG` (argN or a --types field) per probe in the kernel")
	fs.StringVar(&a.stats, "stats", "", "keep the count, sum, min, max and mean of `ARG` per probe in the kernel")
	fs.StringVar(&a.by, "by", "", "group --count, --hist or --stats by `KEY[,KEY...]`: pid, tid, comm, argN, a field")
	fs.DurationVar(&a.interval, "interval", 0, "with --count, --hist or --stats: write and reset every `D`, such as 1s")
	fs.IntVar(&a.maxKeys, "max-keys", bpf.DefaultMaxKeys, "count at most `N` keys (with --hist, key and bucket pairs) per interval")
}

// parse checks the flags set and parses their keys; the error is the
// message of a usage error.
func (a *aggConfig) parse(set map[string]bool) error {
	var err error
	modes := 0
	if a.count {
		a.agg.Mode, modes = bpf.AggCount, modes+1
	}
	for _, f := range []struct {
		name, val string
		mode      bpf.AggMode
	}{{"hist", a.hist, bpf.AggHist}, {"stats", a.stats, bpf.AggStats}} {
		if !set[f.name] {
			continue
		}
		a.agg.Mode, modes = f.mode, modes+1
		if a.agg.Of, err = aggregate.ParseKey(f.val); err != nil || a.agg.Of.Kind < aggregate.KeyArg {
			return fmt.Errorf("--%s %s: want argN or a field name", f.name, cli.Shown(f.val))
		}
	}
	if set["by"] {
		if a.agg.By, err = aggregate.ParseKeys(a.by); err != nil {
			return fmt.Errorf("--by: %w", err)
		}
	}
	a.agg.MaxKeys = a.maxKeys
	switch {
	case modes > 1:
		return errors.New("--count, --hist and --stats exclude each other")
	case modes == 0 && (set["by"] || set["interval"] || set["max-keys"]):
		return errors.New("--by, --interval and --max-keys need --count, --hist or --stats")
	case set["interval"] && a.interval <= 0:
		return fmt.Errorf("--interval %v: not a positive duration", a.interval)
	case a.maxKeys < 1 || a.maxKeys > bpf.MaxKeys:
		return fmt.Errorf("--max-keys %d: not in [1, %d]", a.maxKeys, bpf.MaxKeys)
	}
	return nil
}

// aggregateRun aggregates in the kernel and writes a record per probe
// and key every --interval and at the end: on a signal, at the -d
// duration, or when the -p process exits.
func aggregateRun(ctx context.Context, c *config, plan *attach.Plan, stdout io.Writer, logger *log.Logger) error {
	ag, err := plan.Aggregate(&c.agg.agg)
	if errors.As(err, new(*attach.KeyError)) {
		logger.Print(err)
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
	err = ag.Run(ctx, c.agg.interval, func(recs []aggregate.Record) error {
		if err := rw.Write(recs); err != nil {
			return err
		}
		return bw.Flush()
	})
	logger.Printf("%d hits counted, %d lost to a full map of keys (--max-keys)", rw.Hits, rw.Lost)
	if n := ag.Skipped(); n > 0 {
		logger.Printf("%d probe hits were not counted (of an unknown site, or with no room to count them as lost)", n)
	}
	if cerr := ag.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("detach: %w", cerr)
	}
	return err
}
