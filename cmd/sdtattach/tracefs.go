package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"path/filepath"
	"slices"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/sdtkit/sdtkit/internal/cli"
	"github.com/sdtkit/sdtkit/pkg/attach"
	"github.com/sdtkit/sdtkit/pkg/bpf"
	"github.com/sdtkit/sdtkit/pkg/probespec"
	"github.com/sdtkit/sdtkit/pkg/tracefs"
)

// bpfFlags are the flags that only the BPF backend does.
var bpfFlags = []string{"count", "hist", "stats", "latency", "by", "interval", "max-keys", "filter", "attach-only"}

// checkBackend rejects what --backend tracefs does not do yet, and notes
// for --backend auto the first flag that needs BPF, c.bpfFlag: with one,
// there is nothing to fall back to.
func (c *config) checkBackend(set map[string]bool) error {
	switch c.backend {
	case "auto", "bpf", "tracefs":
	default:
		return fmt.Errorf("--backend %q: not auto, bpf or tracefs", c.backend)
	}
	for _, f := range bpfFlags {
		if !set[f] {
			continue
		}
		if c.backend == "tracefs" {
			return fmt.Errorf("--%s: not done with --backend tracefs yet", f)
		}
		if c.bpfFlag == "" {
			c.bpfFlag = f
		}
	}
	return nil
}

// withoutBPF returns why err, the error of loading or attaching the BPF
// program, shows that BPF cannot be used here, so that the tracefs
// backend should be tried: the kernel lacks a feature the program needs
// (ErrNotSupported, or no bpf system call), or loading is not permitted
// while tracefs may be written (a seccomp filter or an LSM that forbids
// BPF). It returns "" for any other error, which tracefs would not avoid:
// without privilege, tracefs is out of reach too.
func withoutBPF(err error, tracefsWritable func() error) string {
	switch {
	case errors.Is(err, bpf.ErrNotSupported), errors.Is(err, syscall.ENOSYS):
		return "the kernel cannot run the BPF program"
	case errors.Is(err, bpf.ErrPermission) && tracefsWritable() == nil:
		return "BPF is not permitted"
	}
	return ""
}

// tracefsWritable returns nil when this process may define uprobe events.
func tracefsWritable() error {
	dir, err := tracefs.Mount()
	if err != nil {
		return err
	}
	return unix.Access(filepath.Join(dir, "uprobe_events"), unix.W_OK)
}

// fallBack tells whether the BPF error err, of --backend auto, is to be
// followed by the tracefs backend, saying why on stderr; if not, it
// returns err, with a hint when only a BPF-only flag keeps tracefs from
// being tried.
func (c *config) fallBack(err error, logger *log.Logger) (bool, error) {
	if c.backend != "auto" {
		return false, err
	}
	why := withoutBPF(err, tracefsWritable)
	switch {
	case why == "":
		return false, err
	case c.bpfFlag != "":
		return false, fmt.Errorf("%w\n--%s needs BPF: without it, only streaming is done, through tracefs (--backend tracefs)", err, c.bpfFlag)
	}
	cli.Print(logger, fmt.Errorf("%s (%w); tracing with --backend tracefs", why, err))
	return true, nil
}

// traceTracefs streams the events of plan with the tracefs backend:
// uprobe_events definitions enabled by perf events (package tracefs).
func traceTracefs(ctx context.Context, c *config, opts *attach.Options, plan *attach.Plan, stdout io.Writer, logger *log.Logger) error {
	if c.command != "" && slices.ContainsFunc(c.specs, func(s probespec.Spec) bool { return s.Path == "" }) {
		// Stopping the command in the dynamic loader takes BPF.
		logger.Printf("--backend tracefs: PROVIDER:NAME is not searched in the libraries the command loads later (dlopen): name them by PATH:PROVIDER:NAME")
	}
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
