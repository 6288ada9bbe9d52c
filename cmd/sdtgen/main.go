package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"

	"github.com/sdtkit/sdtkit/internal/cli"
	"github.com/sdtkit/sdtkit/pkg/elfwriter"
)

const usageText = `usage: sdtgen -o PROG [--pie] [--semaphores] [--forms LIST] [--sites N] [--manifest FILE] SPEC.d

Write an x86-64 Linux executable that fires every probe of the DTrace
provider file SPEC.d with known argument values, with no compiler.
Run it as PROG [ITERATIONS [INTERVAL_MS]].

Flags:
`

func main() {
	log.SetFlags(0)
	log.SetPrefix("sdtgen: ")
	cli.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// config is the parsed command line.
type config struct {
	out      string
	manifest string
	spec     string
	opts     options
}

func parseArgs(args []string, stderr io.Writer) (*config, error) {
	var c config
	var pie bool
	forms := "reg"
	fs := flag.NewFlagSet("sdtgen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.out, "o", "", "write the program to `PROG`")
	fs.BoolVar(&pie, "pie", false, "write a static PIE (ET_DYN) instead of an ET_EXEC at 0x400000")
	fs.BoolVar(&c.opts.semaphores, "semaphores", false, "give every probe a semaphore; fire and report only enabled probes")
	fs.StringVar(&forms, "forms", forms, "place arguments in the operand forms of `LIST` in turn (reg,mem,sib,rip,imm)")
	fs.IntVar(&c.opts.sites, "sites", 1, "give each probe `N` sites")
	fs.StringVar(&c.manifest, "manifest", "", "write the JSON manifest to `FILE`")
	fs.Usage = func() {
		fmt.Fprint(stderr, usageText)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, err
		}
		return nil, cli.ErrUsage
	}
	usage := func(format string, a ...any) (*config, error) {
		fmt.Fprintf(stderr, "sdtgen: "+format+"\n", a...)
		fs.Usage()
		return nil, cli.ErrUsage
	}
	if fs.NArg() != 1 {
		return usage("want one SPEC.d, have %d arguments", fs.NArg())
	}
	c.spec = fs.Arg(0)
	if c.out == "" {
		return usage("no -o PROG")
	}
	if c.opts.sites < 1 {
		return usage("--sites %d: want at least 1", c.opts.sites)
	}
	var err error
	if c.opts.forms, err = parseForms(forms); err != nil {
		return usage("--forms: %v", err)
	}
	if pie {
		c.opts.typ = elfwriter.PIE
	}
	return &c, nil
}

func run(args []string, stdout, stderr io.Writer) error {
	c, err := parseArgs(args, stderr)
	if err != nil {
		return err
	}
	probes, err := loadSpec(c.spec)
	if err != nil {
		return err
	}
	im, man, err := generate(probes, c.opts)
	if err != nil {
		return fmt.Errorf("%s: %w", c.spec, err)
	}
	if err := os.WriteFile(c.out, im.Bytes, 0o755); err != nil {
		return err
	}
	if c.manifest == "" {
		return nil
	}
	return writeManifest(c.manifest, man)
}

func writeManifest(name string, man *manifest) error {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	if err := man.write(f); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", name, err)
	}
	return f.Close()
}
