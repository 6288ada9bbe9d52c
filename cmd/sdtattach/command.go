package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"strings"

	"github.com/sdtkit/sdtkit/internal/cli"
	"github.com/sdtkit/sdtkit/pkg/attach"
	"github.com/sdtkit/sdtkit/pkg/launch"
)

// runCommand starts the -c command stopped at its execve, traces it as
// -p traces a process, releasing it once every site is attached, and
// returns its exit status as a cli.ExitStatus.
func runCommand(ctx context.Context, further func() <-chan struct{}, c *config, stdout io.Writer, logger *log.Logger) error {
	lo := &launch.Options{Stdout: os.Stderr}
	if c.cmdStdout != "" {
		f, err := os.Create(c.cmdStdout)
		if err != nil {
			return fmt.Errorf("--cmd-stdout: %w", err)
		}
		defer f.Close()
		lo.Stdout = f
	}
	if c.follow {
		// Named after our pid; those a SIGKILL left are removed.
		lo.OwnCgroup = cgroupPrefix
	}
	// Split at blanks, as bpftrace does: no shell, no quoting, no expansion.
	cmd, err := launch.Start(strings.Fields(c.command), lo)
	var se *launch.StartError
	if errors.As(err, &se) {
		logger.Printf("-c: %v", se)
		return cli.ExitStatus(se.Status())
	}
	if err != nil {
		return fmt.Errorf("-c: %w", err)
	}
	c.opts.Command = cmd
	// PROVIDER:NAME in the libraries it loads with dlopen too, and with
	// -f in the objects of its descendants, with BPF.
	c.opts.Dlopen = c.opts.Backend != attach.BackendTracefs
	traceErr := trace(ctx, c, stdout, logger)
	// The command ends once the trace has (launch.End): killed if it
	// never ran, else SIGTERM to it, with -f to every process left in
	// its cgroup, and SIGKILL on a signal to sdtattach meanwhile.
	flag := map[bool]string{false: "-c", true: "-f"}[cmd.Cgroup != nil]
	status, err := cmd.End(further(), func(err error) { logger.Printf("%s: %v", flag, err) })
	switch {
	case traceErr != nil:
		return traceErr
	case err != nil:
		return fmt.Errorf("-c: %w", err)
	case status != 0:
		return cli.ExitStatus(status)
	}
	return nil
}

// cgroupPrefix begins the names of the cgroups of -f (see
// launch.OwnerPattern).
const cgroupPrefix = "sdtattach-"
