package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/sdtkit/sdtkit/internal/cli"
	"github.com/sdtkit/sdtkit/pkg/attach"
	"github.com/sdtkit/sdtkit/pkg/filter"
	"github.com/sdtkit/sdtkit/pkg/probespec"
)

const usageText = `usage: sdtattach [flags] PROBE...

Attach to USDT probes and write one JSON object per probe hit per line,
or with --count, --hist, --stats or --latency one per probe and key,
aggregated in the kernel, every --interval and at exit; --listen serves
them as Prometheus metrics. --filter 'arg0 > 100 && comm == "nginx"'
keeps the hits for which the expression holds, in the kernel too.

PROBE is [usdt:]PATH:PROVIDER:NAME[(TYPES)], or PROVIDER:NAME[(TYPES)]
with -p or -c; bpftrace's and bcc's forms are taken too. PROVIDER and
NAME are globs with {a,b} alternatives; PATH may be a bare command or
library name. TYPES lists per-argument types: str, strN (a string whose
length is argument N), s8..s64, u8..u64, hex, or _ to drop the argument.

-c 'CMD ARGS' runs CMD (split at blanks, no shell) stopped at its first
instruction, traces it as -p does, in the libraries it loads with dlopen
too, and exits with its status; its standard output goes to standard
error (or --cmd-stdout). -f traces its descendants too, until the last
exits. The rest: go doc github.com/sdtkit/sdtkit/cmd/sdtattach.

Flags:
`

func main() {
	stderr := cli.Setup("sdtattach")
	cli.Exit(run(os.Args[1:], os.Stdout, stderr))
}

// config is the parsed command line.
type config struct {
	opts       attach.Options // -p, --strlen, --bufsize, --debug-dir, --filter, --backend
	ustack     cli.UStack
	command    string // -c
	cmdStdout  string
	follow     bool // -f
	count      uint64
	duration   time.Duration
	typesFile  string
	attachOnly bool
	specs      []probespec.Spec
	agg        aggConfig
}

func parseArgs(args []string, stderr io.Writer) (*config, error) {
	c := config{opts: attach.Options{StringSize: attach.DefaultStringSize}}
	o := &c.opts
	fs := cli.FlagSet("sdtattach", usageText, stderr)
	fs.IntVar(&o.PID, "p", 0, "trace process `PID` only; PROBE may name any object it maps")
	fs.StringVar(&c.command, "c", "", "run `CMD` (with its arguments, split at blanks) and trace it as -p does; exit with its status")
	fs.BoolVar(&c.follow, "f", false, "with -c, trace the children of the command too, and what they execute, until the last exits")
	fs.StringVar(&c.cmdStdout, "cmd-stdout", "", "write the standard output of the -c command to `FILE` (default: the standard error)")
	fs.Uint64Var(&c.count, "n", 0, "exit after `N` events")
	fs.DurationVar(&c.duration, "d", 0, "exit after `DURATION`, such as 10s")
	fs.StringVar(&c.typesFile, "types", "", "argument names and types from the DTrace provider `FILE.d`")
	fs.BoolVar(&c.attachOnly, "attach-only", false, "attach, print a summary line, detach and exit")
	fs.IntVar(&o.StringSize, "strlen", o.StringSize, "keep at most `N` bytes of a string argument")
	fs.IntVar(&o.RingSize, "bufsize", 0, fmt.Sprintf("size of the ring buffer in `BYTES`, a power of two and a multiple of the page size, at most 1 GiB (default %d; with --ustack=dwarf, room for %d events with their copies, at most %d)", attach.DefaultRingSize, attach.CopyRingEvents, attach.MaxCopyRingSize))
	c.ustack.Flags(fs, attach.MaxStack, attach.DefaultStackCopy, attach.MaxStackCopy)
	fs.Func("debug-dir", "look for the debug files of stripped files under `DIR` (repeatable; default /usr/lib/debug)", func(dir string) error {
		o.DebugDirs = append(o.DebugDirs, dir)
		return nil
	})
	filterSrc := fs.String("filter", "", "keep only the hits for which `EXPR` holds, tested in the kernel: see go doc")
	c.agg.flags(fs)
	backend := fs.String("backend", "auto", "trace with `BACKEND`: bpf, tracefs (uprobe_events and perf events, no BPF), or auto: tracefs when BPF cannot be used")
	// Flags may follow the probes too: "sdtattach PROBE -n 10".
	var probes []string
	for {
		if err := cli.Parse(fs, args); err != nil {
			return nil, err
		}
		if args = fs.Args(); len(args) == 0 {
			break
		}
		probes, args = append(probes, args[0]), args[1:]
	}
	usage := func(format string, a ...any) (*config, error) {
		fmt.Fprintf(stderr, "sdtattach: "+format+"\n", a...)
		return nil, cli.ErrUsage
	}
	set := make(map[string]bool)
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	var err error
	switch page := os.Getpagesize(); {
	case set["p"] && o.PID <= 0:
		return usage("-p %d: not a process ID", o.PID)
	case set["d"] && c.duration <= 0:
		return usage("-d %v: not a positive duration", c.duration)
	case o.StringSize < 1 || o.StringSize > attach.MaxStringSize:
		return usage("--strlen %d: not in [1, %d]", o.StringSize, attach.MaxStringSize)
	case set["bufsize"] && (o.RingSize < page || o.RingSize&(o.RingSize-1) != 0):
		return usage("--bufsize %d: not a power of two of at least the page size, %d", o.RingSize, page)
	case o.RingSize > attach.MaxRingSize:
		return usage("--bufsize %d: more than the largest ring buffer, %d (1 GiB)", o.RingSize, attach.MaxRingSize)
	case set["c"] && len(strings.Fields(c.command)) == 0:
		return usage("-c: empty command")
	case set["c"] && set["p"]:
		return usage("-c and -p exclude each other")
	case set["c"] && c.attachOnly:
		return usage("-c and --attach-only exclude each other")
	case set["cmd-stdout"] && !set["c"]:
		return usage("--cmd-stdout needs -c")
	case set["f"] && !set["c"]:
		return usage("-f needs -c")
	}
	if o.UStack, o.UStackCopy, err = c.ustack.Check(set); err != nil {
		return usage("%v", err)
	}
	if set["filter"] {
		if o.Filter, err = filter.Parse(*filterSrc); err != nil {
			return usage("--filter: %v", err)
		}
	}
	if err := c.agg.parse(set); err != nil {
		return usage("%v", err)
	}
	if c.agg.agg.Mode != 0 && (set["n"] || c.attachOnly) {
		return usage("-n and --attach-only do not apply to --count, --hist, --stats or --latency")
	} else if c.agg.agg.Mode != 0 && o.UStack > 0 && !c.agg.agg.ByStack() {
		return usage("--ustack, --ustack-depth: no --by ustack")
	} else if c.agg.agg.Mode != 0 {
		c.agg.agg.StackDepth = o.UStack // of --by ustack: unwound here with --ustack=dwarf
	}
	if o.Backend, err = attach.ParseBackend(*backend); err != nil {
		return usage("--backend %v", err)
	}
	for _, a := range probes {
		s, err := probespec.Parse(a)
		if err != nil {
			return usage("%v", err)
		}
		c.specs = append(c.specs, s)
	}
	if set["latency"] {
		if c.specs, err = c.agg.latencyProbes(c.specs); err != nil {
			return usage("%v", err)
		}
	}
	if len(c.specs) == 0 {
		fmt.Fprint(stderr, "sdtattach: no PROBE\n")
		fs.Usage()
		return nil, cli.ErrUsage
	}
	for _, s := range c.specs {
		if s.Path == "" && o.PID == 0 && c.command == "" {
			return usage("%q: PROVIDER:NAME needs -p PID or -c CMD; without them, give PATH:PROVIDER:NAME", s)
		}
	}
	return &c, nil
}

// until returns ctx, ended after the -d duration too.
func (c *config) until(ctx context.Context) (context.Context, context.CancelFunc) {
	if c.duration > 0 {
		return context.WithTimeout(ctx, c.duration)
	}
	return context.WithCancel(ctx)
}
