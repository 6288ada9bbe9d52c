package main

import (
	"bufio"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"log"

	"github.com/sdtkit/sdtkit/internal/cli"
	"github.com/sdtkit/sdtkit/pkg/probe"
	"github.com/sdtkit/sdtkit/pkg/probespec"
	"github.com/sdtkit/sdtkit/pkg/stapsdt"
	"github.com/sdtkit/sdtkit/pkg/symbolize"
)

// run lists the probes the command line asks for. Problems with single
// files are reported on stderr and turn into cli.ErrFailed at the end.
func run(args []string, stdout, stderr io.Writer) error {
	c, err := parseArgs(args, stderr)
	if err != nil {
		return err
	}
	logger := log.New(stderr, "sdtlist: ", 0)
	bw := bufio.NewWriterSize(stdout, 64<<10)
	var out sink = newNDJSON(bw)
	switch {
	case c.table:
		out = newTable(bw, c.pid != 0)
	case c.events:
		out = newUprobeEvents(bw, &symbolize.Options{DebugDirs: c.debugDirs})
	}
	failed := false
	if c.pid != 0 {
		if failed, err = listProcess(c, out, logger); err != nil {
			return err
		}
	} else {
		failed = listFiles(c, out, logger)
	}
	if err := out.flush(); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	if failed {
		return cli.ErrFailed
	}
	return nil
}

// A site is one probe site ready for output: the probe, the machine
// whose syntax its argument string is in and, when listing a process, its
// live state. Sinks parse the argument string as they need.
type site struct {
	file    string
	probe   *stapsdt.Site
	machine elf.Machine
	live    *probe.LiveSite
	// data is the file's, where file is no path: an archive member's.
	data io.ReaderAt
}

// A sink writes sites in one output format.
type sink interface {
	write(s *site) error
	flush() error
}

// listFiles writes the matching probes of each file, reports the files
// that could not be read and the patterns that matched no probe, and
// reports whether there were any.
func listFiles(c *config, out sink, logger *log.Logger) (failed bool) {
	all := probe.NewPatternCheck(c.patterns...)
	var checks []*probe.PatternCheck
	for _, fa := range c.files {
		pats, check := c.patterns, all
		if fa.spec != nil {
			pats = []probespec.Spec{*fa.spec}
			check = probe.NewPatternCheck(pats...)
			checks = append(checks, check)
		}
		name, err := resolveFile(fa.name)
		if err == nil {
			err = listFile(name, pats, out, check)
		}
		if err != nil {
			cli.Print(logger, err)
			failed = true
		}
	}
	for _, check := range append(checks, all) {
		for _, err := range check.Errs() {
			cli.Print(logger, err)
			failed = true
		}
	}
	return failed
}

// listFile writes the matching probes of one file, or of each member of
// an archive, and adds them to check. A file with some bad notes still
// has its good probes listed before the error is returned.
func listFile(name string, pats []probespec.Spec, out sink, check *probe.PatternCheck) error {
	var errs []error
	for nf, ferr := range stapsdt.Files(name) {
		if nf != nil {
			check.Add(name, nf.File.Sites)
			var err error
			if nd, ok := out.(*jsonLines); ok && len(nf.File.Sites) >= parallelMin {
				err = nd.writeParallel(nf.Name, nf.File, pats)
			} else {
				err = writeProbes(nf.Name, nf.File, pats, nf.Data, out)
			}
			if err != nil {
				return errors.Join(append(errs, err, ferr)...)
			}
		}
		if ferr != nil {
			errs = append(errs, ferr)
		}
	}
	return errors.Join(errs...)
}

// writeProbes writes the matching probes of f; data, when not nil, reads
// the file, which its name does not (an archive member).
func writeProbes(name string, f *stapsdt.File, pats []probespec.Spec, data io.ReaderAt, out sink) error {
	// One site is reused: sinks are done with it when write returns.
	s := &site{file: name, machine: f.Machine, data: data}
	for i := range f.Sites {
		p := &f.Sites[i]
		if !probe.MatchAny(pats, p.Provider, p.Name) {
			continue
		}
		s.probe = p
		if err := out.write(s); err != nil {
			return fmt.Errorf("write: %w", err)
		}
	}
	return nil
}
