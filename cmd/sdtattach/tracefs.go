package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"syscall"

	"github.com/sdtkit/sdtkit/pkg/attach"
	"github.com/sdtkit/sdtkit/pkg/tracefs"
)

// checkBackend rejects what --backend tracefs does not do yet.
func (c *config) checkBackend(set map[string]bool) error {
	switch c.backend {
	case "bpf":
		return nil
	case "tracefs":
	default:
		return fmt.Errorf("--backend %q: not bpf or tracefs", c.backend)
	}
	for _, f := range []string{"count", "hist", "stats", "latency", "by", "interval", "max-keys", "filter", "attach-only"} {
		if set[f] {
			return fmt.Errorf("--%s: not done with --backend tracefs yet", f)
		}
	}
	return nil
}

// traceTracefs streams the events of plan with the tracefs backend:
// uprobe_events definitions enabled by perf events (package tracefs).
func traceTracefs(ctx context.Context, c *config, opts *attach.Options, plan *attach.Plan, stdout io.Writer, logger *log.Logger) error {
	t, err := tracefs.Open(plan, &tracefs.TraceOptions{
		PID:           opts.PID,
		StringSize:    c.strlen,
		RingSize:      c.bufsize,
		FlushInterval: flushInterval,
		Attached:      opts.Attached,
		Warn:          opts.Warn,
	})
	if err != nil {
		return fmt.Errorf("--backend tracefs: %w", err)
	}
	defer t.Close()
	out := newOutput(stdout, plan)
	err = stream(ctx, c, t, out)
	summary(logger, out, plan)
	if errors.Is(err, syscall.EPIPE) {
		err = nil
	}
	return err
}
