package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"slices"
	"strconv"

	"github.com/sdtkit/sdtkit/internal/cli"
	"github.com/sdtkit/sdtkit/pkg/probespec"
	"github.com/sdtkit/sdtkit/pkg/process"
	"github.com/sdtkit/sdtkit/pkg/semaphore"
)

// tool carries what every step of a run needs.
type tool struct {
	c      *config
	out    *bufio.Writer
	log    *log.Logger
	failed bool
	root   bool // whether sdtsema runs as root, for hints
	// mappers is semaphore.Processes, replaced in tests.
	mappers func(path string) ([]int, error)
}

// A target is one process and the semaphores to act on in it.
type target struct {
	pid  int
	sems []semaphore.Semaphore
}

func run(args []string, stdout, stderr io.Writer) error {
	c, err := parseArgs(args, stderr)
	if err != nil {
		return err
	}
	t := &tool{c: c, out: bufio.NewWriter(stdout), log: log.New(stderr, "sdtsema: ", 0), root: os.Geteuid() == 0, mappers: semaphore.Processes}
	targets, err := t.targets()
	if err != nil {
		return err
	}
	switch c.action {
	case show:
		err = t.show(targets)
	case inc, dec:
		err = t.change(targets)
	case hold:
		err = t.hold(targets)
	}
	if ferr := t.out.Flush(); err == nil && ferr != nil {
		err = fmt.Errorf("write output: %w", ferr)
	}
	if err == nil && t.failed {
		err = cli.ErrFailed
	}
	return err
}

// targets locates the semaphores to act on. Problems with some probes are
// reported and leave their process out when it is to be written, so that a
// command that cannot do all it was asked writes nothing there.
func (t *tool) targets() ([]target, error) {
	pids, specs, err := t.processes()
	if err != nil {
		return nil, err
	}
	var targets []target
	for i, pid := range pids {
		sems, err := semaphore.Find(pid, specs[i]...)
		if t.c.all && errors.Is(err, process.ErrNoProcess) && len(sems) == 0 {
			continue // exited since the scan
		}
		if !t.c.all && len(sems) == 0 && isProcessError(err) {
			return nil, err
		}
		if err != nil {
			t.report(err)
			t.failed = true
			if t.c.action != show {
				if len(sems) > 0 {
					t.log.Printf("process %d: nothing written", pid)
				}
				continue
			}
		}
		targets = append(targets, target{pid, sems})
	}
	return targets, nil
}

// processes returns the processes to act on, each with the
// specifications that apply to it.
func (t *tool) processes() ([]int, [][]probespec.Spec, error) {
	if !t.c.all {
		if err := process.Exists(t.c.pid); err != nil {
			return nil, nil, err
		}
		return []int{t.c.pid}, [][]probespec.Spec{t.c.specs}, nil
	}
	bySpec := make(map[int][]probespec.Spec)
	for _, s := range t.c.specs {
		pids, err := t.mappers(s.Path)
		var scan *process.ScanError
		if err != nil && !errors.As(err, &scan) {
			return nil, nil, err
		}
		switch {
		case len(pids) == 0 && scan != nil:
			t.log.Printf("%s: no process sdtsema could inspect maps it; %s", s.Path, t.uninspected(scan))
			t.failed = true
		case len(pids) == 0:
			t.log.Printf("%s: no running process maps it", s.Path)
			t.failed = true
		case scan != nil:
			t.log.Printf("%s: %s", s.Path, t.uninspected(scan))
		}
		for _, pid := range pids {
			bySpec[pid] = append(bySpec[pid], s)
		}
	}
	var pids []int
	for pid := range bySpec {
		pids = append(pids, pid)
	}
	slices.Sort(pids)
	specs := make([][]probespec.Spec, len(pids))
	for i, pid := range pids {
		specs[i] = bySpec[pid]
	}
	return pids, specs, nil
}

// uninspected says how many processes a scan could not inspect, and what
// would let it when sdtsema does not run as root.
func (t *tool) uninspected(e *process.ScanError) string {
	n := "1 process"
	if e.Denied != 1 {
		n = strconv.Itoa(e.Denied) + " processes"
	}
	msg := "could not inspect " + n + ": permission denied"
	if !t.root {
		msg += "; run as root (or with CAP_SYS_PTRACE) to see them all"
	}
	return msg
}

func isProcessError(err error) bool {
	var pe *process.PermissionError
	return errors.Is(err, process.ErrNoProcess) || errors.As(err, &pe)
}

// report prints each of the errors joined in err on its own line.
func (t *tool) report(err error) {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range j.Unwrap() {
			t.report(e)
		}
		return
	}
	t.log.Print(err)
}

func (t *tool) show(targets []target) error {
	for _, tg := range targets {
		p, err := semaphore.Open(tg.pid, false)
		if err != nil {
			return err
		}
		for i := range tg.sems {
			s := &tg.sems[i]
			v, err := p.Read(s)
			if err != nil {
				t.report(err)
				t.failed = true
				continue
			}
			if err := t.write(s, v, v); err != nil {
				p.Close()
				return err
			}
		}
		p.Close()
	}
	return nil
}

// change increments or decrements the semaphores of each process, all of
// them or, when one cannot be changed, none: what was written before a
// failure part way is changed back.
func (t *tool) change(targets []target) error {
	delta := 1
	if t.c.action == dec {
		delta = -1
	}
	for _, tg := range targets {
		p, err := semaphore.Open(tg.pid, true)
		if err != nil {
			t.report(err)
			t.failed = true
			continue
		}
		changes, err := p.AddAll(tg.sems, delta)
		p.Close()
		if err != nil {
			t.failed = true
			t.reportChange(tg.pid, err)
			continue
		}
		for _, c := range changes {
			if c.Changed != nil {
				t.log.Print(c.Changed)
			}
			if err := t.write(c.Semaphore, c.Before, c.After); err != nil {
				return err
			}
		}
	}
	return nil
}

// reportChange says why the semaphores of process pid were not changed,
// and what was changed back.
func (t *tool) reportChange(pid int, err error) {
	var ue *semaphore.UndoError
	switch {
	case errors.Is(err, process.ErrNoProcess):
		t.report(err)
		t.log.Printf("process %d exited", pid)
	case errors.As(err, &ue):
		t.report(ue.Err)
		for _, c := range ue.Undone {
			s := c.Semaphore
			t.log.Printf("process %d: changed back %s:%s in %s at %#x: %d -> %d", pid, s.Provider, s.Name, s.File, s.Addr, c.Before, c.After)
		}
		for _, err := range ue.Failed {
			t.log.Printf("process %d: could not change back %v", pid, err)
		}
		if len(ue.Failed) == 0 {
			t.log.Printf("process %d: every change undone", pid)
		}
	default:
		t.report(err)
		t.log.Printf("process %d: nothing written", pid)
	}
}
