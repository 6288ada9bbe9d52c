package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sdtkit/sdtkit/internal/cli"
	"github.com/sdtkit/sdtkit/internal/vmcheck"
)

const usageText = `usage: vmtest [-ci] [-guests LIST] [-cpus LIST] [-checks LIST] [-packages LIST] [-no-tests] [-doc FILE] [-cache DIR] [-timeout D] [-v]

Boot Debian's kernels under qemu and run sdtkit's attach checks and the
tests of the packages that attach in each; print a table of the results.

Flags:
`

// ciGuestTimeout is a CI guest's time from boot to its last check.
const ciGuestTimeout = 6 * time.Minute

func main() {
	stderr := cli.Setup("vmtest")
	cli.Exit(run(os.Args[1:], os.Stdout, stderr))
}

// config is the parsed command line.
type config struct {
	ci      bool
	guests  []guest
	checks  []string
	tests   bool
	pkgs    []string // the packages whose tests run, with tests
	scripts string   // -scripts: the script tests to run where the host's root is shared
	doc     string
	cache   string
	timeout time.Duration
	verbose bool
}

func parseArgs(args []string, stderr io.Writer) (*config, error) {
	fs := flag.NewFlagSet("vmtest", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usageText)
		fs.PrintDefaults()
	}
	c := &config{}
	var guests, cpus, checks, pkgs string
	var noTests bool
	fs.BoolVar(&c.ci, "ci", false, "run the attach checks in CI's guests ("+strings.Join(ciGuests, ", ")+"), each for at most "+ciGuestTimeout.String()+"; skip, rather than fail, when qemu or the kernels cannot be had")
	fs.StringVar(&guests, "guests", "", "boot the kernels of LIST (VERSION/ARCH, or VERSION/ARCH/VCPUS for one guest), comma-separated: "+kernelNames()+" (default all)")
	fs.StringVar(&cpus, "cpus", "2,16", "boot each kernel with each vCPU count of LIST")
	fs.StringVar(&checks, "checks", "", "run the attach checks of LIST only, comma-separated (default all)")
	fs.StringVar(&pkgs, "packages", "", "run the go test binaries of the packages of LIST only, comma-separated: "+strings.Join(testPackages, ", ")+" (default all)")
	fs.BoolVar(&noTests, "no-tests", false, "run the attach checks only, not the go test binaries")
	fs.StringVar(&c.scripts, "scripts", "", "run the script tests (testdata/script) whose names match `REGEXP` too, in the guests of the host's arch, which share its root, its go command and its compilers")
	fs.StringVar(&c.doc, "doc", "", "write the results as Markdown to FILE (docs/kernels.md)")
	fs.StringVar(&c.cache, "cache", defaultCache(), "keep the package lists, kernels and console logs in DIR")
	fs.DurationVar(&c.timeout, "timeout", 15*time.Minute, "give each guest D from boot to its last check")
	fs.BoolVar(&c.verbose, "v", false, "copy each guest's console to the standard error")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, err
		}
		return nil, cli.ErrUsage
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return nil, cli.ErrUsage
	}
	c.tests = !noTests
	c.pkgs = testPackages
	if pkgs != "" {
		c.pkgs = splitList(pkgs)
		for _, p := range c.pkgs {
			if !slices.Contains(testPackages, p) {
				return nil, fmt.Errorf("-packages: no tests of %q: %w", p, cli.ErrUsage)
			}
		}
	}
	timeoutSet := false
	fs.Visit(func(f *flag.Flag) { timeoutSet = timeoutSet || f.Name == "timeout" })
	if c.ci && !timeoutSet {
		// CI's three guests end in minutes; a stuck one must not
		// take CI's time.
		c.timeout = ciGuestTimeout
	}
	if c.ci {
		// The packages' tests lose races at times in a slow TCG guest
		// (docs/kernels.md's known failures): CI runs the attach
		// checks, which wait for what they check, and the whole
		// matrix runs the tests too.
		c.tests = false
	}
	var ncpus []int
	for _, s := range splitList(cpus) {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("-cpus %q: %w", cpus, cli.ErrUsage)
		}
		ncpus = append(ncpus, n)
	}
	names := splitList(guests)
	if c.ci {
		names = ciGuests
	}
	gs, err := selectGuests(names, ncpus)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", err, cli.ErrUsage)
	}
	c.guests, c.checks = gs, splitList(checks)
	return c, nil
}

// splitList splits a comma-separated list, "" being empty.
func splitList(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

// defaultCache is $XDG_CACHE_HOME/sdtkit-vmtest, or a directory of the
// system's cache for root, who runs the matrix.
func defaultCache() string {
	if d := os.Getenv("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "sdtkit-vmtest")
	}
	if os.Geteuid() == 0 {
		return "/var/cache/sdtkit-vmtest"
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "sdtkit-vmtest")
	}
	return filepath.Join(os.TempDir(), "sdtkit-vmtest")
}

func run(args []string, stdout io.Writer, stderr io.Writer) error {
	c, err := parseArgs(args, stderr)
	if err != nil {
		return err
	}
	reports, err := matrix(c, stdout, stderr)
	if errors.Is(err, errUnavailable) && c.ci {
		fmt.Fprintf(stderr, "vmtest: skipped: %v\n", err)
		return nil
	}
	if err != nil {
		return err
	}
	if c.doc != "" {
		f, err := os.Create(c.doc)
		if err != nil {
			return err
		}
		if err := writeDoc(f, reports); err != nil {
			f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
	}
	fmt.Fprintln(stdout)
	if err := writeTable(stdout, reports); err != nil {
		return err
	}
	pass, fail, skip := tally(reports)
	fmt.Fprintf(stdout, "vmtest: %d checks passed, %d failed, %d skipped\n", pass, fail, skip)
	if fail > 0 {
		return cli.ErrFailed
	}
	return nil
}

// tally counts the results of every guest.
func tally(reports []*guestReport) (pass, fail, skip int) {
	for _, r := range reports {
		for _, res := range r.results {
			switch res.Status {
			case vmcheck.Pass:
				pass++
			case vmcheck.Fail:
				fail++
			default:
				skip++
			}
		}
	}
	return
}
