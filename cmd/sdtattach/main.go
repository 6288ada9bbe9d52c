package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/sdtkit/sdtkit/internal/cli"
	"github.com/sdtkit/sdtkit/pkg/attach"
	"github.com/sdtkit/sdtkit/pkg/filter"
	"github.com/sdtkit/sdtkit/pkg/probespec"
)

const usageText = `usage: sdtattach [flags] PROBE...

Attach to USDT probes and write one JSON object per probe hit per line,
or with --count, --hist or --stats, one per probe and key, counted in
the kernel, every --interval and at exit; --listen serves them as
Prometheus metrics instead. --filter keeps the hits for
which an expression holds, such as 'arg0 > 100 && comm == "nginx"', in
the kernel too.

PROBE is [usdt:]PATH:PROVIDER:NAME[(TYPES)], or PROVIDER:NAME[(TYPES)]
with -p or -c; bpftrace's usdt:PATH:NAME and PATH:NAME, and bcc's u:PATH:NAME
and u:PATH:PROVIDER:NAME, are taken too. PROVIDER and NAME are globs,
with {a,b} alternatives; PATH may be a bare command or library name. TYPES lists per-argument types: str, strN (a string whose
length is argument N), s8..s64, u8..u64, hex, or _ to drop the argument.

-c 'CMD ARGS' runs CMD (split at blanks, without a shell) stopped before
its first instruction, attaches, lets it run, traces it as -p does (and
PROVIDER:NAME in the libraries it loads with dlopen), and
exits with its status (128+N when killed by signal N; 127 or 126 when it
cannot be run). Its standard output goes to sdtattach's standard error
(or --cmd-stdout FILE), never to the events; when the trace ends before
it does, it gets SIGTERM. With -f, its descendants are traced too, in
a cgroup of their own, until the last of them exits, and get SIGTERM too.

PATH must be a regular file; at most 256 MiB of its notes are read, and
at most 1048576 probe sites are attached. Malformed notes are
reported (the first 10 of a file, then their count) and make the exit
status 1; the other probes are still traced.

Flags:
`

func main() {
	stderr := cli.Setup("sdtattach")
	cli.Exit(run(os.Args[1:], os.Stdout, stderr))
}

// config is the parsed command line.
type config struct {
	pid        int
	command    string // -c
	cmdStdout  string
	follow     bool // -f
	count      uint64
	duration   time.Duration
	typesFile  string
	attachOnly bool
	strlen     int
	bufsize    int
	specs      []probespec.Spec
	filter     *filter.Expr
	agg        aggConfig
	backend    string // auto, bpf or tracefs
	listen     listenConfig
}

func parseArgs(args []string, stderr io.Writer) (*config, error) {
	var c config
	fs := cli.FlagSet("sdtattach", usageText, stderr)
	fs.IntVar(&c.pid, "p", 0, "trace process `PID` only; PROBE may name any object it maps")
	fs.StringVar(&c.command, "c", "", "run `CMD` (with its arguments, split at blanks) and trace it as -p does; exit with its status")
	fs.BoolVar(&c.follow, "f", false, "with -c, trace the children of the command too, and what they execute, until the last exits")
	fs.StringVar(&c.cmdStdout, "cmd-stdout", "", "write the standard output of the -c command to `FILE` (default: the standard error)")
	fs.Uint64Var(&c.count, "n", 0, "exit after `N` events")
	fs.DurationVar(&c.duration, "d", 0, "exit after `DURATION`, such as 10s")
	fs.StringVar(&c.typesFile, "types", "", "argument names and types from the DTrace provider `FILE.d`")
	fs.BoolVar(&c.attachOnly, "attach-only", false, "attach, print a summary line, detach and exit")
	fs.IntVar(&c.strlen, "strlen", attach.DefaultStringSize, "keep at most `N` bytes of a string argument")
	fs.IntVar(&c.bufsize, "bufsize", attach.DefaultRingSize, "size of the ring buffer in `BYTES`, a power of two and a multiple of the page size, at most 1 GiB")
	filterSrc := fs.String("filter", "", "keep only the hits for which `EXPR` holds, tested in the kernel: see go doc")
	c.agg.flags(fs)
	fs.StringVar(&c.backend, "backend", "auto", "trace with `BACKEND`: bpf, tracefs (uprobe_events and perf events, no BPF), or auto: tracefs when BPF cannot be used")
	c.listen.flags(fs)
	// Flags may follow the probes too: "sdtattach PROBE -n 10".
	var probes []string
	for {
		if err := cli.Parse(fs, args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			break
		}
		probes = append(probes, args[0])
		args = args[1:]
	}
	usage := func(format string, a ...any) (*config, error) {
		fmt.Fprintf(stderr, "sdtattach: "+format+"\n", a...)
		return nil, cli.ErrUsage
	}
	set := make(map[string]bool)
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if set["p"] && c.pid <= 0 {
		return usage("-p %d: not a process ID", c.pid)
	}
	if err := c.checkCommand(set); err != nil {
		return usage("%v", err)
	}
	if set["d"] && c.duration <= 0 {
		return usage("-d %v: not a positive duration", c.duration)
	}
	if c.strlen < 1 || c.strlen > attach.MaxStringSize {
		return usage("--strlen %d: not in [1, %d]", c.strlen, attach.MaxStringSize)
	}
	if page := os.Getpagesize(); c.bufsize < page || c.bufsize&(c.bufsize-1) != 0 {
		return usage("--bufsize %d: not a power of two of at least the page size, %d", c.bufsize, page)
	} else if c.bufsize > attach.MaxRingSize {
		return usage("--bufsize %d: more than the largest ring buffer, %d (1 GiB)", c.bufsize, attach.MaxRingSize)
	}
	if set["filter"] {
		var err error
		if c.filter, err = filter.Parse(*filterSrc); err != nil {
			return usage("--filter: %v", err)
		}
	}
	if err := c.agg.parse(set); err != nil {
		return usage("%v", err)
	}
	if err := c.listen.parse(set, &c.agg.agg); err != nil {
		return usage("%v", err)
	}
	if c.agg.agg.Mode != 0 && (set["n"] || c.attachOnly) {
		return usage("-n and --attach-only do not apply to --count, --hist, --stats or --latency")
	}
	if err := c.checkBackend(); err != nil {
		return usage("%v", err)
	}
	if set["latency"] {
		more, err := c.agg.latencyProbes(len(probes) > 0)
		if err != nil {
			return usage("%v", err)
		}
		probes = append(probes, more...)
	}
	if len(probes) == 0 {
		fmt.Fprint(stderr, "sdtattach: no PROBE\n")
		fs.Usage()
		return nil, cli.ErrUsage
	}
	for _, a := range probes {
		s, err := probespec.Parse(a)
		if err != nil {
			return usage("%v", err)
		}
		if s.Path == "" && c.pid == 0 && c.command == "" {
			return usage("%q: PROVIDER:NAME needs -p PID or -c CMD; without them, give PATH:PROVIDER:NAME", a)
		}
		c.specs = append(c.specs, s)
	}
	return &c, nil
}
