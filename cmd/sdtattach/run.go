package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"

	"github.com/sdtkit/sdtkit/internal/cli"
	"github.com/sdtkit/sdtkit/pkg/attach"
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

	ctx, further, stop := cli.Interrupts()
	defer stop()
	c.opts.Warn = func(err error) { cli.Print(logger, errors.New(flagWords(err))) }
	if c.command != "" {
		return inFlagWords(runCommand(ctx, further, c, stdout, logger))
	}
	return inFlagWords(trace(ctx, c, stdout, logger))
}

// trace resolves, attaches and streams or aggregates until a stop
// condition.
func trace(ctx context.Context, c *config, stdout io.Writer, logger *log.Logger) error {
	// The --types file is read aside with the probes: it may be a named
	// pipe whose writer never comes.
	plan, err := resolve(ctx, c)
	if errors.As(err, new(*filter.Error)) {
		logger.Printf("--filter: %s", flagWords(err))
		return cli.ErrUsage
	}
	if err != nil {
		return err
	}
	if c.agg.agg.Mode != 0 {
		return plan.Status(cli.NoEPIPE(aggregateRun(ctx, c, plan, stdout, logger)))
	}
	mappers := make(chan []int, 1)
	if c.attachOnly && c.opts.PID == 0 {
		go func() {
			if pids, err := plan.Mappers(ctx); err == nil {
				mappers <- pids
			}
			close(mappers)
		}()
	}
	t, err := plan.Attach()
	if err != nil {
		return err
	}
	defer t.Close()
	if c.attachOnly {
		return plan.Status(attachOnly(c, stdout, plan, mappers))
	}
	ctx, cancel := c.until(ctx)
	defer cancel()
	n, err := t.Stream(ctx, stdout, c.count)
	summary(logger, n, plan)
	return plan.Status(cli.NoEPIPE(err))
}

// resolve reads the --types file and plans the probes to attach, giving
// up as soon as ctx is done, on SIGINT, SIGTERM or SIGHUP: nothing is
// attached yet, and what is left behind ends with the process.
func resolve(ctx context.Context, c *config) (*attach.Plan, error) {
	if c.typesFile != "" {
		types, err := attach.ReadTypes(ctx, c.typesFile)
		switch {
		case err != nil && ctx.Err() != nil:
			return nil, fmt.Errorf("%w before anything was attached", context.Cause(ctx))
		case err != nil:
			return nil, fmt.Errorf("--types: %w", err)
		}
		types.Source = "the --types file"
		c.opts.Types = types
	}
	return attach.Resolve(ctx, c.specs, &c.opts)
}

// summary prints the event counts on stderr.
func summary(logger *log.Logger, n *attach.Streamed, plan *attach.Plan) {
	logger.Printf("%d events, %d lost", n.Events, n.Lost)
	if n.Skipped > 0 {
		logger.Printf("%d probe hits made no event (nested more than 4 deep on a CPU, or of an unknown site)", n.Skipped)
	}
	for i, p := range plan.Probes {
		logger.Printf("%s:%v: %d events", p.Target.Name, p, n.ByProbe[i])
	}
}
