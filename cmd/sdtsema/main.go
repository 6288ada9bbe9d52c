package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/sdtkit/sdtkit/internal/cli"
	"github.com/sdtkit/sdtkit/pkg/probespec"
)

const usageText = `usage: sdtsema -p PID [--inc | --dec | --hold [--for DURATION]] PROBE...
       sdtsema --all [--inc | --dec | --hold [--for DURATION]] PATH:PROVIDER:NAME...

Print, increment or decrement the semaphores of USDT probes in running
processes, one JSON object per semaphore per line. --hold increments,
waits for SIGINT, SIGTERM or SIGHUP (or DURATION), then decrements.

PROBE is [usdt:]PATH:PROVIDER:NAME or PROVIDER:NAME, with globs.

Flags:
`

func main() {
	stderr := cli.Setup("sdtsema")
	cli.Exit(run(os.Args[1:], os.Stdout, stderr))
}

// An action is what to do to each semaphore.
type action int

const (
	show action = iota
	inc
	dec
	hold
)

// config is the parsed command line.
type config struct {
	pid    int
	all    bool
	action action
	dur    time.Duration // --for; 0 holds until a signal
	specs  []probespec.Spec
}

func parseArgs(args []string, stderr io.Writer) (*config, error) {
	var c config
	var incf, decf, holdf bool
	fs := cli.FlagSet("sdtsema", usageText, stderr)
	fs.IntVar(&c.pid, "p", 0, "act on process `PID`")
	fs.BoolVar(&c.all, "all", false, "act on every process that maps the PATH of each PROBE")
	fs.BoolVar(&incf, "inc", false, "increment each semaphore")
	fs.BoolVar(&decf, "dec", false, "decrement each semaphore")
	fs.BoolVar(&holdf, "hold", false, "increment, wait for a signal, then decrement")
	fs.DurationVar(&c.dur, "for", 0, "with --hold, decrement after `DURATION` (such as 30s) unless a signal comes first")
	if err := cli.Parse(fs, args); err != nil {
		return nil, err
	}
	usage := func(format string, a ...any) (*config, error) {
		fmt.Fprintf(stderr, "sdtsema: "+format+"\n", a...)
		return nil, cli.ErrUsage
	}
	set := make(map[string]bool)
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	n := 0
	for i, on := range []bool{incf, decf, holdf} {
		if on {
			n++
			c.action = action(i + 1)
		}
	}
	switch {
	case n > 1:
		return usage("--inc, --dec and --hold exclude each other")
	case set["for"] && c.action != hold:
		return usage("--for needs --hold")
	case set["for"] && c.dur <= 0:
		return usage("--for %v: not a positive duration", c.dur)
	case set["p"] && c.pid <= 0:
		return usage("-p %d: not a process ID", c.pid)
	case set["p"] == c.all:
		fs.Usage()
		return usage("need exactly one of -p PID and --all")
	case fs.NArg() == 0:
		fs.Usage()
		return usage("no PROBE")
	}
	for _, a := range fs.Args() {
		s, err := probespec.Parse(a)
		if err != nil {
			return usage("%v", err)
		}
		if s.Types != nil {
			return usage("%q: sdtsema takes no argument types", a)
		}
		if c.all && s.Path == "" {
			return usage("%q: with --all, PROBE must name its file: PATH:PROVIDER:NAME", a)
		}
		c.specs = append(c.specs, s)
	}
	return &c, nil
}
