package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"syscall"

	"github.com/sdtkit/sdtkit/internal/cli"
	"github.com/sdtkit/sdtkit/pkg/attach"
	"github.com/sdtkit/sdtkit/pkg/dtrace"
	"github.com/sdtkit/sdtkit/pkg/filter"
)

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
		PID:        c.pid,
		Filter:     c.filter,
		StringSize: c.strlen,
		RingSize:   c.bufsize,
		Warn:       func(err error) { cli.Print(logger, errors.New(flagWords(err))) },
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
	if c.duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.duration)
		defer cancel()
	}
	n, err := t.Stream(ctx, stdout, c.count)
	summary(logger, n, plan)
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

// summary prints the event counts on stderr.
func summary(logger *log.Logger, n *attach.Streamed, plan *attach.Plan) {
	logger.Printf("%d events, %d lost", n.Events, n.Lost)
	if n.Skipped > 0 {
		logger.Printf("%d probe hits made no event (nested more than 4 deep on a CPU, or of an unknown site)", n.Skipped)
	}
	for i, p := range plan.Probes {
		var k uint64
		if i < len(n.ByProbe) {
			k = n.ByProbe[i]
		}
		logger.Printf("%s:%v: %d events", p.Target.Name, p, k)
	}
}
