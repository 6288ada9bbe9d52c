package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/sdtkit/sdtkit/internal/cli"
	"github.com/sdtkit/sdtkit/pkg/probespec"
)

const usageText = `usage: sdtlist [-t] FILE... [PATTERN...]
       sdtlist [-t] -p PID [PATTERN...]

List the USDT probe sites of ELF files, or of every object a running
process maps, as one JSON object per site per line.

PATTERN is a glob on PROVIDER:NAME, such as 'node:http__*' or '*:gc*';
a pattern without ':' matches the probe name.

A FILE must be a regular file. At most 256 MiB of notes are read from
a file; of its malformed notes, the first 10 are reported, then their
count.

Flags:
`

func main() {
	stderr := cli.Setup("sdtlist")
	// The heap is the probes of the file being listed, which stay live
	// until the process exits a few milliseconds later, and the output
	// buffers. With the default GOGC a large file is collected once or
	// twice while being encoded, and on two CPUs the collector takes one
	// of them from the encoders: 30% of the wall time of listing 20,000
	// sites. Collecting at 5x the live heap instead costs a few MiB.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	cli.Exit(run(os.Args[1:], os.Stdout, stderr))
}

// config is the parsed command line.
type config struct {
	table    bool
	pid      int
	files    []string
	patterns []probespec.Spec
}

func parseArgs(args []string, stderr io.Writer) (*config, error) {
	var c config
	fs := cli.FlagSet("sdtlist", usageText, stderr)
	fs.BoolVar(&c.table, "t", false, "print an aligned table instead of NDJSON")
	fs.IntVar(&c.pid, "p", 0, "list the probes of every object process `PID` maps")
	if err := cli.Parse(fs, args); err != nil {
		return nil, err
	}
	pidSet := false
	fs.Visit(func(f *flag.Flag) { pidSet = pidSet || f.Name == "p" })
	if pidSet && c.pid <= 0 {
		fmt.Fprintf(stderr, "sdtlist: -p %d: not a process ID\n", c.pid)
		return nil, cli.ErrUsage
	}
	for _, a := range fs.Args() {
		if pidSet && strings.Contains(a, "/") {
			fmt.Fprintf(stderr, "sdtlist: %q: with -p, arguments are PROVIDER:NAME patterns\n", a)
			return nil, cli.ErrUsage
		}
		if isPattern(a, pidSet) {
			pat, err := probespec.ParsePattern(a)
			if se := (*probespec.SyntaxError)(nil); errors.As(err, &se) {
				fmt.Fprintf(stderr, "sdtlist: %q: %s\n", a, se.Msg)
				return nil, cli.ErrUsage
			}
			c.patterns = append(c.patterns, pat)
			continue
		}
		c.files = append(c.files, a)
	}
	if !pidSet && len(c.files) == 0 {
		fmt.Fprint(stderr, "sdtlist: no FILE and no -p PID\n")
		fs.Usage()
		return nil, cli.ErrUsage
	}
	return &c, nil
}
