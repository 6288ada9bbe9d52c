package main

import (
	"context"
	"fmt"
	"log"
	"runtime"
	"strings"

	"github.com/sdtkit/sdtkit/pkg/bpf"
	"github.com/sdtkit/sdtkit/pkg/probespec"
)

// A selection is what the command line selects: the probes, their sites
// grouped by file for attaching, and the table events find their site in.
type selection struct {
	probes  []*probe
	atts    []attachment
	sites   []*site
	damaged damaged
}

// damaged are the files whose malformed notes were reported: their other
// probes are attached, but the exit status says so.
type damaged []string

// selectSites reads the --types file, the probes of the files and, with
// -p, the maps of the process, and plans the sites to attach. Reading can
// block (a named pipe given as --types, a process that holds its memory
// map lock, a hung network file system), so it is done aside, and
// selectSites gives up as soon as ctx is done, on SIGINT, SIGTERM or SIGHUP:
// nothing is attached yet, and what is left behind ends with the process.
func selectSites(ctx context.Context, c *config, logger *log.Logger) (*selection, error) {
	type result struct {
		sel *selection
		err error
	}
	done := make(chan result, 1)
	go func() {
		sel, err := resolve(c, logger)
		done <- result{sel, err}
	}()
	select {
	case r := <-done:
		return r.sel, r.err
	case <-ctx.Done():
		return nil, fmt.Errorf("%w before anything was attached", context.Cause(ctx))
	}
}

func resolve(c *config, logger *log.Logger) (*selection, error) {
	var types typeSource
	if c.typesFile != "" {
		var err error
		if types, err = loadTypes(c.typesFile); err != nil {
			return nil, err
		}
	}
	ts := &targets{logger: logger}
	find := ts.fileTargets
	if c.pid != 0 {
		pt, err := newProcTargets(c.pid)
		if err != nil {
			return nil, err
		}
		find = func(s probespec.Spec) ([]*target, error) { return pt.find(ts, s) }
	}
	probes, err := selectProbes(c.specs, find)
	if err != nil {
		return nil, err
	}
	n := 0
	for _, p := range probes {
		n += len(p.sites)
	}
	if n > bpf.SiteLimit {
		return nil, fmt.Errorf("%d probe sites selected, more than the %d that can be attached", n, bpf.SiteLimit)
	}
	atts, sites := plan(probes, types, logger)
	// What is planned no longer refers to the notes: their memory is
	// given back before the sites are copied to the kernel.
	for _, t := range ts.list {
		t.file = nil
	}
	if n > bigPlan {
		// Without a collection now, the notes would still take their
		// room while bpf copies the sites: a third more at the peak.
		runtime.GC()
	}
	return &selection{probes: probes, atts: atts, sites: sites, damaged: ts.damaged}, nil
}

// bigPlan is the number of sites from which the notes are collected as
// soon as they have been planned.
const bigPlan = 100000

// status returns err or, when err is nil but notes of some files were
// malformed, an error that says so: the exit status of sdtattach, like
// that of sdtlist, tells that something was wrong.
func (d damaged) status(err error) error {
	if err != nil || len(d) == 0 {
		return err
	}
	return fmt.Errorf("malformed stapsdt notes in %s (reported above); the other probes were attached", strings.Join(d, ", "))
}
