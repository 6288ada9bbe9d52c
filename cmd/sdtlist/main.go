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

const usageText = `usage: sdtlist [-t | --uprobe-events] FILE... [PATTERN...]
       sdtlist [-t | --uprobe-events] [usdt:]PATH:[PROVIDER:]NAME...
       sdtlist [-t] -p PID [PATTERN | usdt:PATH:[PROVIDER:]NAME]...

List the USDT probe sites of ELF files, or of every object a running
process maps, as one JSON object per site per line. With -p and no
PATTERN, the dynamic loader's _dl_debug_state is listed too once a
tracer has patched it.

PATTERN is a glob on PROVIDER:NAME, such as 'node:http__*', '*:gc*' or
'python:gc__{start,done}'; a pattern without ':' matches the probe name.
A pattern that matches no probe of the files listed is an error that
names the closest ones. A FILE that is no file here is looked up as a
command or a library, as sdtattach does; a bare name that is neither is
a pattern. bpftrace's usdt:PATH:* and [usdt:]PATH:PROVIDER:NAME list the
probes of PATH that match (with -p, of the objects PATH names).

A FILE must be a regular file; an ar archive (lib*.a) is listed member
by member, each as ARCHIVE(MEMBER). At most 256 MiB of notes are read
from a file; of its malformed notes, the first 10 are reported, then
their count.

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
	table  bool
	events bool // --uprobe-events
	// debugDirs are where --uprobe-events finds the debug files of
	// stripped files (--debug-dir); nil for symbolize's default.
	debugDirs []string
	pid       int
	files     []fileArg
	patterns  []probespec.Spec
	// specs name their files (usdt:PATH:PROVIDER:NAME): with -p, the
	// objects of the process PATH names.
	specs []probespec.Spec
}

// A fileArg is a file to list: a FILE, or the PATH of a specification,
// whose probes alone it lists.
type fileArg struct {
	name string
	spec *probespec.Spec
}

func parseArgs(args []string, stderr io.Writer) (*config, error) {
	var c config
	fs := cli.FlagSet("sdtlist", usageText, stderr)
	fs.BoolVar(&c.table, "t", false, "print an aligned table instead of NDJSON")
	fs.IntVar(&c.pid, "p", 0, "list the probes of every object process `PID` maps")
	fs.BoolVar(&c.events, "uprobe-events", false, "print a uprobe_events definition per site instead of NDJSON")
	fs.Func("debug-dir", "with --uprobe-events, look for the debug files of stripped files under `DIR` (repeatable; default /usr/lib/debug)", func(dir string) error {
		c.debugDirs = append(c.debugDirs, dir)
		return nil
	})
	if err := cli.Parse(fs, args); err != nil {
		return nil, err
	}
	pidSet := false
	fs.Visit(func(f *flag.Flag) { pidSet = pidSet || f.Name == "p" })
	if pidSet && c.pid <= 0 {
		fmt.Fprintf(stderr, "sdtlist: -p %d: not a process ID\n", c.pid)
		return nil, cli.ErrUsage
	}
	if c.events && (pidSet || c.table) {
		fmt.Fprint(stderr, "sdtlist: --uprobe-events lists files: it does not go with -p or -t\n")
		return nil, cli.ErrUsage
	}
	var bare []string // arguments that are a file or a NAME pattern
	for _, a := range fs.Args() {
		if s, ok := listingSpec(a); ok {
			if pidSet {
				c.specs = append(c.specs, s)
			} else {
				c.files = append(c.files, fileArg{name: s.Path, spec: &s})
			}
			continue
		}
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
			if !strings.ContainsAny(a, ":*?[{") {
				bare = append(bare, a)
			}
			continue
		}
		c.files = append(c.files, fileArg{name: a})
	}
	if !pidSet && len(c.files) == 0 && len(bare) > 0 {
		for _, a := range bare {
			fmt.Fprintf(stderr, "sdtlist: %s: no such file, command or library, and no FILE to list its probes\n", a)
		}
		return nil, cli.ErrFailed
	}
	if !pidSet && len(c.files) == 0 {
		fmt.Fprint(stderr, "sdtlist: no FILE and no -p PID\n")
		fs.Usage()
		return nil, cli.ErrUsage
	}
	return &c, nil
}
