package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/sdtkit/sdtkit/internal/cli"
	"github.com/sdtkit/sdtkit/pkg/probespec"
)

const usageText = `usage: sdtrepair [-n] -p PID [PROVIDER:NAME...]

Restore the probe sites of process PID that hold a breakpoint no uprobe
owns any more, left by a tracer that is gone, and without PROVIDER:NAME
the dynamic loader's _dl_debug_state too; one JSON object per orphaned
site per line. PROVIDER and NAME are globs.

Flags:
`

func main() {
	stderr := cli.Setup("sdtrepair")
	cli.Exit(run(os.Args[1:], os.Stdout, stderr))
}

// config is the parsed command line.
type config struct {
	pid    int
	dryRun bool
	specs  []probespec.Spec
}

func parseArgs(args []string, stderr io.Writer) (*config, error) {
	var c config
	fs := cli.FlagSet("sdtrepair", usageText, stderr)
	fs.IntVar(&c.pid, "p", 0, "repair process `PID`")
	fs.BoolVar(&c.dryRun, "n", false, "report the orphaned sites, write nothing")
	if err := cli.Parse(fs, args); err != nil {
		return nil, err
	}
	usage := func(format string, a ...any) (*config, error) {
		fmt.Fprintf(stderr, "sdtrepair: "+format+"\n", a...)
		return nil, cli.ErrUsage
	}
	set := make(map[string]bool)
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if !set["p"] {
		fs.Usage()
		return usage("no -p PID")
	}
	if c.pid <= 0 {
		return usage("-p %d: not a process ID", c.pid)
	}
	for _, a := range fs.Args() {
		s, err := probespec.Parse(a)
		if err != nil {
			return usage("%v", err)
		}
		if s.Path != "" || s.Types != nil {
			return usage("%q: give PROVIDER:NAME, without a path or types", a)
		}
		c.specs = append(c.specs, s)
	}
	return &c, nil
}
