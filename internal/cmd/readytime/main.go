package main

import (
	"encoding/json"
	"fmt"
	"io"
	"log"
	"os"
	"regexp"

	"github.com/sdtkit/sdtkit/internal/cli"
)

const usageText = `usage: readytime [-runs N] [-warmup N] [-match REGEXP] [-stderr] COMMAND [ARG...]

Time COMMAND from exec to its first output line matching REGEXP, and to
its exit, over several runs; print min, median and max as JSON.

Flags:
`

func main() {
	log.SetFlags(0)
	log.SetPrefix("readytime: ")
	cli.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// config is the parsed command line.
type config struct {
	runs, warmup int
	match        *regexp.Regexp
	stderr       bool
	argv         []string
}

func parseArgs(args []string, stderr io.Writer) (*config, error) {
	c := config{}
	fs := cli.FlagSet("readytime", usageText, stderr)
	fs.IntVar(&c.runs, "runs", 10, "timed runs")
	fs.IntVar(&c.warmup, "warmup", 1, "untimed runs before the timed ones")
	match := fs.String("match", "", "the ready line: a regular expression (default: any line)")
	fs.BoolVar(&c.stderr, "stderr", false, "wait for the ready line on standard error instead of standard output")
	if err := cli.Parse(fs, args); err != nil {
		return nil, err
	}
	var err error
	if c.match, err = regexp.Compile(*match); err != nil {
		fmt.Fprintf(stderr, "readytime: -match: %v\n", err)
		return nil, cli.ErrUsage
	}
	if c.runs < 1 || c.warmup < 0 {
		fmt.Fprintf(stderr, "readytime: -runs must be at least 1 and -warmup at least 0\n")
		return nil, cli.ErrUsage
	}
	if c.argv = fs.Args(); len(c.argv) == 0 {
		fs.Usage()
		return nil, cli.ErrUsage
	}
	return &c, nil
}

// result is the JSON object readytime prints.
type result struct {
	Runs  int    `json:"runs"`
	Ready stats  `json:"ready"`
	Exit  stats  `json:"exit"`
	Line  string `json:"line"`
}

func run(args []string, stdout, stderr io.Writer) error {
	c, err := parseArgs(args, stderr)
	if err != nil {
		return err
	}
	for i := 0; i < c.warmup; i++ {
		if _, err := measure(c); err != nil {
			return fmt.Errorf("warmup run %d: %w", i+1, err)
		}
	}
	var ready, exit []float64
	var line string
	for i := 0; i < c.runs; i++ {
		m, err := measure(c)
		if err != nil {
			return fmt.Errorf("run %d: %w", i+1, err)
		}
		ready = append(ready, m.ready.Seconds())
		exit = append(exit, m.exit.Seconds())
		line = m.line
	}
	r := result{Runs: c.runs, Ready: summarize(ready), Exit: summarize(exit), Line: line}
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	if _, err := stdout.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	return nil
}
