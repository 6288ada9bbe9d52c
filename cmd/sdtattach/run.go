package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/sdtkit/sdtkit/internal/cli"
	"github.com/sdtkit/sdtkit/pkg/attach"
	"github.com/sdtkit/sdtkit/pkg/dtrace"
	"github.com/sdtkit/sdtkit/pkg/filter"
)

// flushInterval bounds how long an event waits, in the ring buffer and
// again in the output buffer, before a reader of stdout sees it.
const flushInterval = 100 * time.Millisecond

// run attaches to the probes the command line names and streams their
// events to stdout until a stop condition.
func run(args []string, stdout, stderr io.Writer) error {
	c, err := parseArgs(args, stderr)
	if err != nil {
		return err
	}
	logger := log.New(stderr, "sdtattach: ", 0)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	// With SIGPIPE caught, a write to a closed pipe fails with EPIPE
	// instead of killing the process, so that it still detaches cleanly.
	pipe := make(chan os.Signal, 1)
	signal.Notify(pipe, syscall.SIGPIPE)
	defer signal.Stop(pipe)

	opts := &attach.Options{
		PID:           c.pid,
		Filter:        c.filter,
		StringSize:    c.strlen,
		RingSize:      c.bufsize,
		FlushInterval: flushInterval,
		Warn:          func(err error) { cli.Print(logger, errors.New(flagWords(err))) },
	}
	opts.Backend, _ = attach.ParseBackend(c.backend) // checked by parseArgs
	if c.command != "" {
		return inFlagWords(runCommand(ctx, c, opts, stdout, logger))
	}
	return inFlagWords(trace(ctx, c, opts, stdout, logger))
}

// trace resolves, attaches and streams or aggregates until a stop
// condition.
func trace(ctx context.Context, c *config, opts *attach.Options, stdout io.Writer, logger *log.Logger) error {
	// The --types file is read aside with the probes: it may be a named
	// pipe whose writer never comes.
	plan, err := resolve(ctx, c, opts)
	if errors.As(err, new(*filter.Error)) {
		logger.Printf("--filter: %s", flagWords(err))
		return cli.ErrUsage
	}
	if err != nil {
		return err
	}
	if c.agg.agg.Mode != 0 {
		err := aggregateRun(ctx, c, opts, plan, stdout, logger)
		if errors.Is(err, syscall.EPIPE) {
			err = nil
		}
		return plan.Status(err)
	}
	var pids <-chan []int
	if c.attachOnly && c.pid == 0 {
		pids = startMappers(ctx, plan.Attachments)
	}
	t, err := plan.Attach()
	if err != nil {
		return err
	}
	defer t.Close()
	if c.attachOnly {
		return plan.Status(attachOnly(c, stdout, plan, pids))
	}
	out := newOutput(stdout, plan)
	err = stream(ctx, c, t, out)
	summary(logger, out, plan)
	if errors.Is(err, syscall.EPIPE) {
		err = nil
	}
	return plan.Status(err)
}

// resolve reads the --types file and plans the probes to attach, giving
// up as soon as ctx is done, on SIGINT, SIGTERM or SIGHUP: nothing is
// attached yet, and what is left behind ends with the process.
func resolve(ctx context.Context, c *config, opts *attach.Options) (*attach.Plan, error) {
	if c.typesFile != "" {
		types := make(chan error, 1)
		go func() {
			var err error
			opts.Types, err = loadTypes(c.typesFile)
			types <- err
		}()
		select {
		case err := <-types:
			if err != nil {
				return nil, err
			}
		case <-ctx.Done():
			return nil, fmt.Errorf("%w before anything was attached", context.Cause(ctx))
		}
	}
	return attach.Resolve(ctx, c.specs, opts)
}

// loadTypes reads a DTrace provider file for --types.
func loadTypes(name string) (*attach.Types, error) {
	src, err := os.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("--types: %w", err)
	}
	provs, err := dtrace.Parse(name, src)
	if err != nil {
		return nil, fmt.Errorf("--types: %w", err)
	}
	return &attach.Types{Source: "the --types file", Providers: provs}, nil
}

// stream copies events to out until the -n count, the -d duration, a
// signal, the exit of the -p process, or an error. On a stop other than
// the count, the probes are detached first and the events still in the
// ring buffer are written before returning.
func stream(ctx context.Context, c *config, t *attach.Tracer, out *output) error {
	if c.duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.duration)
		defer cancel()
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var mu sync.Mutex
	var tickErr error // of writing the output at a tick, which ends the trace
	ticking := make(chan struct{})
	go func() {
		defer close(ticking)
		tick := time.NewTicker(flushInterval)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			mu.Lock()
			err := out.tick(t.Lost())
			mu.Unlock()
			if err != nil {
				tickErr = err
				cancel()
				return
			}
		}
	}()
	err := t.Run(ctx, func(ev *attach.Event) error {
		mu.Lock()
		defer mu.Unlock()
		if err := out.event(ev); err != nil {
			return err
		}
		if c.count > 0 && out.events >= c.count {
			return attach.ErrStop
		}
		return nil
	})
	cancel()
	<-ticking
	if err == nil {
		err = tickErr
	}
	if lerr := out.lostEvents(t.Lost()); err == nil {
		err = lerr
	}
	out.skipped = t.Skipped()
	if ferr := out.flush(); err == nil {
		err = ferr
	}
	return err
}

// tick reports newly lost events in-band and flushes the output, so that
// a reader of a pipe sees events while the probes are idle.
func (o *output) tick(lost uint64) error {
	if err := o.lostEvents(lost); err != nil {
		return err
	}
	return o.flush()
}

// summary prints the event counts on stderr.
func summary(logger *log.Logger, out *output, plan *attach.Plan) {
	logger.Printf("%d events, %d lost", out.events, out.lost)
	if out.skipped > 0 {
		logger.Printf("%d probe hits made no event (nested more than 4 deep on a CPU, or of an unknown site)", out.skipped)
	}
	for i, p := range plan.Probes {
		var n uint64
		if i < len(out.perProbe) {
			n = out.perProbe[i]
		}
		logger.Printf("%s:%v: %d events", p.Target.Name, p, n)
	}
}
