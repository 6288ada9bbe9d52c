package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/sdtkit/sdtkit/internal/cli"
	"github.com/sdtkit/sdtkit/pkg/attach"
	"github.com/sdtkit/sdtkit/pkg/bpf"
	"github.com/sdtkit/sdtkit/pkg/tracefs"
)

// checkBackend rejects a --backend that is none of the backends.
func (c *config) checkBackend() error {
	switch c.backend {
	case "auto", "bpf", "tracefs":
		return nil
	}
	return fmt.Errorf("--backend %q: not auto, bpf or tracefs", c.backend)
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
	if why == "" {
		return false, err
	}
	cli.Print(logger, fmt.Errorf("%s (%w); tracing with --backend tracefs", why, err))
	return true, nil
}

// openTracefs defines and enables the sites of plan with the tracefs
// backend: uprobe_events definitions enabled by perf events (package
// tracefs).
func openTracefs(c *config, opts *attach.Options, plan *attach.Plan, logger *log.Logger) (*tracefs.Tracer, error) {
	for _, s := range plan.Waiting() {
		// Stopping the command in the dynamic loader takes BPF.
		logger.Printf("--backend tracefs: %s: not searched in the libraries the command loads later (dlopen), which takes BPF: name them by PATH:PROVIDER:NAME", cli.Shown(s.String()))
	}
	t, err := tracefs.Open(plan, &tracefs.TraceOptions{
		PID:           opts.PID,
		Cgroup:        opts.Cgroup,
		Done:          opts.Done,
		StringSize:    c.strlen,
		RingSize:      c.bufsize,
		FlushInterval: flushInterval,
		Attached:      opts.Attached,
		Warn:          opts.Warn,
	})
	if err != nil {
		return nil, fmt.Errorf("--backend tracefs: %w", err)
	}
	return t, nil
}

// traceTracefs streams the events of plan with the tracefs backend, or
// with --attach-only prints what it attached; pids are as attachOnly
// takes them.
func traceTracefs(ctx context.Context, c *config, opts *attach.Options, plan *attach.Plan, pids <-chan []int, stdout io.Writer, logger *log.Logger) error {
	t, err := openTracefs(c, opts, plan, logger)
	if err != nil {
		return err
	}
	defer t.Close()
	if c.attachOnly {
		return attachOnly(c, stdout, plan, pids)
	}
	out := newOutput(stdout, plan)
	err = stream(ctx, c, t, out)
	summary(logger, out, plan)
	if errors.Is(err, syscall.EPIPE) {
		err = nil
	}
	return err
}
