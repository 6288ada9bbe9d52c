package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/sdtkit/sdtkit/internal/cli"
	"github.com/sdtkit/sdtkit/pkg/attach"
	"github.com/sdtkit/sdtkit/pkg/launch"
)

// commandArgs splits the -c command at blanks, as bpftrace does: no
// shell, so no quoting and no expansion.
func commandArgs(s string) []string { return strings.Fields(s) }

// runCommand starts the -c command stopped at its execve, traces it as
// -p traces a process, releasing it once every site is attached, and
// returns its exit status as a cli.ExitStatus.
func runCommand(ctx context.Context, c *config, opts *attach.Options, stdout io.Writer, logger *log.Logger) error {
	// Registered before the command runs, so that no second signal is
	// missed: the first ends the trace (ctx), a second kills the command.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)

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
		// Those a SIGKILL left, once empty; ours is named after our pid.
		launch.RemoveStale(cgroupPrefix)
		cg, err := launch.NewCgroup(launch.OwnerPattern(cgroupPrefix))
		if err != nil {
			return fmt.Errorf("-f: %w", err)
		}
		// Deferred first, run last: once the command is waited for.
		defer removeCgroup(cg, logger)
		lo.Cgroup = cg
		opts.Cgroup = cg.Path
	}
	cmd, err := launch.Start(commandArgs(c.command), lo)
	var se *launch.StartError
	if errors.As(err, &se) {
		logger.Printf("-c: %v", se)
		return cli.ExitStatus(se.Status())
	}
	if err != nil {
		return fmt.Errorf("-c: %w", err)
	}
	opts.PID = cmd.Pid
	opts.Libraries = cmd.Libraries
	opts.OnAttached = cmd.Release
	// PROVIDER:NAME in the libraries it loads with dlopen too, and with
	// -f in the objects of its descendants, with BPF.
	opts.Dlopen = c.backend != "tracefs"
	if lo.Cgroup != nil {
		// As strace -f: the trace ends with the last process of the
		// command, not with the command.
		opts.Until = lo.Cgroup.Emptied()
	}
	err = trace(ctx, c, opts, stdout, logger)
	return endCommand(cmd, lo.Cgroup, err, sigs, logger)
}

// cgroupPrefix begins the names of the cgroups of -f (see
// launch.OwnerPattern).
const cgroupPrefix = "sdtattach-"

// removeCgroup removes the cgroup of -f, moving out the processes the
// command left running, which sdtattach does not wait for.
func removeCgroup(cg *launch.Cgroup, logger *log.Logger) {
	moved, err := cg.Remove()
	if moved > 0 {
		logger.Printf("-f: %d processes of the command still run, untraced; moved out of %s", moved, cg.Path)
	}
	if err != nil {
		logger.Printf("-f: %v; left %s", err, cg.Path)
	}
}

// endCommand ends the command once the trace has ended (launch.End: a
// command that never ran is killed, one that runs gets SIGTERM, and
// SIGKILL on a further signal to sdtattach, and with -f every process
// left in its cgroup), and returns the error of the trace or else the
// command's exit status.
func endCommand(cmd *launch.Command, cg *launch.Cgroup, traceErr error, sigs <-chan os.Signal, logger *log.Logger) error {
	// The signal that ended the trace is not a further one.
	select {
	case <-sigs:
	default:
	}
	again := make(chan struct{})
	go func() {
		<-sigs
		close(again)
	}()
	flag := "-c"
	if cg != nil {
		flag = "-f"
	}
	status, err := cmd.End(cg, again, func(err error) { logger.Printf("%s: %v", flag, err) })
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

// checkCommand checks the flags that go with -c; the error is the
// message of a usage error.
func (c *config) checkCommand(set map[string]bool) error {
	switch {
	case set["c"] && len(commandArgs(c.command)) == 0:
		return errors.New("-c: empty command")
	case set["c"] && set["p"]:
		return errors.New("-c and -p exclude each other")
	case set["c"] && c.attachOnly:
		return errors.New("-c and --attach-only exclude each other")
	case set["cmd-stdout"] && !set["c"]:
		return errors.New("--cmd-stdout needs -c")
	case set["f"] && !set["c"]:
		return errors.New("-f needs -c")
	}
	return nil
}
