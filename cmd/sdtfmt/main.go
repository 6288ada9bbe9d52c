package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/sdtkit/sdtkit/internal/cli"
	"github.com/sdtkit/sdtkit/pkg/aggregate"
	"github.com/sdtkit/sdtkit/pkg/eventtext"
)

const usageText = `usage: sdtfmt [-f 'PROBE=FORMAT']... [--time abs|rel|none] [FILE...]
       sdtfmt -c [--by KEY] [--interval D] [FILE...]
       sdtfmt --hist KEY [--by KEY] [--interval D] [FILE...]
       sdtfmt --latency START,END[,KEY] [--interval D] [FILE...]
       sdtfmt [--folded] [--pprof FILE] [FILE...]

Format the NDJSON events of sdtattach (standard input when no FILE) for
people: one line per event (and its stack, with sdtattach --ustack),
or counts, histograms and latencies; stacks (of events, or records of
--by ustack) as folded stacks for flame graphs, or a pprof profile. Probe sites listed by
sdtlist are shown as sdtlist -t shows them.

KEY is pid, tid, comm, ustack, argN (from 0) or the name of a --types field.
Lines that hold no record, or are longer than 1 MiB, are reported and
skipped.

Flags:
`

func main() {
	stderr := cli.Setup("sdtfmt")
	cli.Exit(run(os.Args[1:], os.Stdin, os.Stdout, stderr))
}

// config is the parsed command line.
type config struct {
	templates []template
	count     bool
	hist      aggregate.Key
	latency   *latencySpec
	folded    bool   // --folded
	pprof     string // --pprof
	by        aggregate.Key
	time      eventtext.TimeStyle
	interval  time.Duration
	files     []string
}

// summarizes reports whether the output is a summary rather than one
// line per event.
func (c *config) summarizes() bool {
	return c.count || c.hist != (aggregate.Key{}) || c.latency != nil || c.folded || c.pprof != ""
}

func parseArgs(args []string, stderr io.Writer) (*config, error) {
	var c config
	var hist, latency, by, timeFlag string
	fs := cli.FlagSet("sdtfmt", usageText, stderr)
	fs.Func("f", "format the arguments of the probes `PROVIDER:NAME` matches with FORMAT (repeatable)", func(s string) error {
		t, err := parseTemplate(s)
		if err == nil {
			c.templates = append(c.templates, t)
		}
		return err
	})
	fs.BoolVar(&c.count, "c", false, "count events per probe (and --by key)")
	fs.BoolVar(&c.count, "count", false, "same as -c")
	fs.StringVar(&hist, "hist", "", "draw a log2 histogram of `KEY` per probe")
	fs.StringVar(&latency, "latency", "", "pair `START,END[,KEY]` events and show their latency")
	fs.StringVar(&by, "by", "", "group counts or histograms by `KEY` too")
	fs.StringVar(&timeFlag, "time", "rel", "time column: `abs`, rel or none")
	fs.BoolVar(&c.folded, "folded", false, "count events by stack and write folded stacks, as flame graph tools read")
	fs.StringVar(&c.pprof, "pprof", "", "count events by stack and write a gzipped pprof profile to `FILE`")
	fs.DurationVar(&c.interval, "interval", 0, "print and reset the summary every `D`, such as 1s")
	if err := cli.Parse(fs, args); err != nil {
		return nil, err
	}
	c.files = fs.Args()
	usage := func(format string, a ...any) (*config, error) {
		fmt.Fprintf(stderr, "sdtfmt: "+format+"\n", a...)
		return nil, cli.ErrUsage
	}
	// A flag given an empty value is checked like any other value, not
	// taken for the flag left out.
	set := make(map[string]bool)
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	var err error
	if c.time, err = eventtext.ParseTimeStyle(timeFlag); err != nil {
		return usage("--time %s: %v", cli.Shown(timeFlag), err)
	}
	if set["hist"] {
		if c.hist, err = aggregate.ParseKey(hist); err != nil {
			return usage("--hist %s: %v", cli.Shown(hist), err)
		}
	}
	if set["by"] {
		if c.by, err = aggregate.ParseKey(by); err != nil {
			return usage("--by %s: %v", cli.Shown(by), err)
		}
	}
	if set["latency"] {
		if c.latency, err = parseLatency(latency); err != nil {
			return usage("--latency %s: %v", cli.Shown(latency), err)
		}
	}
	modes := 0
	for _, on := range []bool{c.count, c.hist != (aggregate.Key{}), c.latency != nil, c.folded || c.pprof != ""} {
		if on {
			modes++
		}
	}
	switch {
	case modes > 1:
		return usage("-c, --hist, --latency and --folded or --pprof exclude each other")
	case c.by != (aggregate.Key{}) && (c.folded || c.pprof != ""):
		return usage("--by does not apply to --folded or --pprof")
	case set["pprof"] && c.pprof == "":
		return usage("--pprof: no FILE")
	case c.by != (aggregate.Key{}) && c.latency != nil:
		return usage("--by does not apply to --latency: give the pairing KEY as START,END,KEY")
	case c.by != (aggregate.Key{}) && modes == 0:
		c.count = true
	}
	switch {
	case set["interval"] && c.interval <= 0:
		return usage("--interval %v: not a positive duration", c.interval)
	case c.interval > 0 && (!c.summarizes() || c.folded || c.pprof != ""):
		return usage("--interval needs -c, --hist or --latency")
	case len(c.templates) > 0 && c.summarizes():
		return usage("-f formats the per-event view; it does not apply to -c, --hist, --latency, --folded or --pprof")
	}
	return &c, nil
}
