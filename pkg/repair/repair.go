package repair

import (
	"errors"
	"fmt"

	"github.com/sdtkit/sdtkit/pkg/probe"
	"github.com/sdtkit/sdtkit/pkg/process"
	"github.com/sdtkit/sdtkit/pkg/uprobes"
)

// ErrUnseen is matched by the error of Process when not every uprobe of
// the system could be looked at, so that no site can be proven orphaned.
var ErrUnseen = errors.New("cannot prove that no uprobe owns a site")

// A Site is an orphaned probe site, or the loader's hook: a breakpoint
// no uprobe owns.
type Site struct {
	PID            int
	File           string // as the process maps it
	Provider, Name string
	// Hook marks the dynamic loader's process.DebugState, which is no
	// probe: Provider is empty and Name the function.
	Hook   bool
	Addr   uint64 // run-time address
	Offset uint64 // file offset
	// Restored reports that the file's instruction was written back.
	// It is false with Options.DryRun, and when a tracer took the site
	// while it was repaired (Taken names it).
	Restored bool
	Taken    string
}

// Options select what Process repairs. The zero value repairs every site
// and the loader's hook.
type Options struct {
	// DryRun finds the orphaned sites and writes nothing.
	DryRun bool
	// Match selects probes by provider and name; nil selects all, and
	// the loader's hook, which no Match selects.
	Match func(provider, name string) bool
}

// A Report is what Process found in one process.
type Report struct {
	Sites  []Site
	Undone []Undone
	Excess []Excess
	// RemovedGroups are the tracefs groups of uprobe events removed,
	// left by a sdtattach that is gone (see tracefs.RemoveStale).
	RemovedGroups []string
	// Continued is the process, when a stop guard that is gone left it
	// stopped.
	Continued []Continued
}

// listUprobes lists the uprobes of the system; tests replace it.
var listUprobes = uprobes.List

// Process repairs the orphaned probe sites of process pid, and the
// loader's hook when it is orphaned.
func Process(pid int, opts *Options) (*Report, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	files, err := probe.Mapped(pid, nil)
	if err != nil {
		return nil, err
	}
	mem, err := process.OpenMem(pid, !o.DryRun)
	if err != nil {
		return nil, err
	}
	defer mem.Close()
	var cands []candidate
	sems := make(map[uint64]*semState)
	var errs []error
	for mf, err := range files {
		if mf.File == nil {
			errs = append(errs, err)
			continue
		}
		if err := scan(mf, mem, o.Match, &cands, sems); err != nil {
			errs = append(errs, err)
		}
	}
	if o.Match == nil {
		c, err := hookCandidate(pid, mem)
		switch {
		case err != nil:
			errs = append(errs, err)
		case c != nil:
			cands = append(cands, *c)
		}
	}
	rep := &Report{}
	if !o.DryRun {
		groups, err := removeStaleEvents()
		if err != nil {
			errs = append(errs, fmt.Errorf("uprobe events left by processes gone: %w", err))
		}
		rep.RemovedGroups = groups
	}
	held, err := undoHolds(pid, &o, rep, sems)
	if err != nil {
		errs = append(errs, err)
	}
	if o.Match == nil {
		if err := continueLeft(pid, &o, rep); err != nil {
			errs = append(errs, fmt.Errorf("stop guards gone: %w", err))
		}
	}
	if len(cands) == 0 && !anyRaised(sems) {
		return rep, errors.Join(errs...)
	}
	set := listUprobes()
	if !set.Complete() {
		return nil, fmt.Errorf("process %d: %w: %w", pid, ErrUnseen, errors.Join(set.Unseen...))
	}
	countArmed(cands, set, sems)
	if err := lowerJournaled(pid, cands, set, &o, rep, sems); err != nil {
		errs = append(errs, fmt.Errorf("journaled semaphores: %w", err))
	}
	if err := restoreOrphans(mem, cands, set, o.DryRun, rep); err != nil {
		errs = append(errs, err)
	}
	rep.Excess = excess(pid, sems, held)
	return rep, errors.Join(errs...)
}
