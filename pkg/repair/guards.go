package repair

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"

	"github.com/sdtkit/sdtkit/pkg/journal"
	"github.com/sdtkit/sdtkit/pkg/launch"
	"github.com/sdtkit/sdtkit/pkg/process"
)

// A Continued is a process a stop guard left stopped: sdtattach stops a
// process it follows in the dynamic loader after each dlopen, and its
// guard lets it run on should sdtattach die meanwhile, but not if both
// are killed. Such a process, when stopped, is sent SIGCONT.
type Continued struct {
	PID   int
	Guard int  // the pid of the guard, gone
	Done  bool // false with Options.DryRun
}

// continueLeft lets process pid run on when it is stopped and a stop
// guard that is gone guarded it (package journal), adding it to
// rep.Continued.
func continueLeft(pid int, o *Options, rep *Report) error {
	lefts, err := journal.Lefts()
	if err != nil {
		return err
	}
	if !o.DryRun {
		forgetGuards(lefts)
	}
	if !process.Stopped(pid) {
		return nil
	}
	for i := range lefts {
		l := &lefts[i]
		if l.Guard == nil || !guards(l.Guard, pid) {
			continue
		}
		c := Continued{PID: pid, Guard: l.Attacher}
		if !o.DryRun {
			if err := unix.Kill(pid, unix.SIGCONT); err != nil {
				return fmt.Errorf("process %d: continue: %w", pid, err)
			}
			c.Done = true
			if l.Guard.Cgroup == "" {
				// The process guarded alone; a cgroup's others may
				// still be stopped.
				l.Remove()
			}
		}
		rep.Continued = append(rep.Continued, c)
		return nil
	}
	return nil
}

// guards reports whether g guards process pid: it is the process, as
// its start time tells, or it is in the cgroup.
func guards(g *journal.Guarded, pid int) bool {
	if g.Cgroup == "" {
		start, err := process.StartTime(pid)
		return g.PID == pid && err == nil && start == g.Start
	}
	dir, err := launch.CgroupOf(pid)
	return err == nil && filepath.Clean(dir) == filepath.Clean(g.Cgroup)
}

// forgetGuards removes the journals of stop guards that are gone whose
// processes are gone too, which nothing can concern any more: the
// process guarded has exited, or the cgroup guarded is empty or removed.
func forgetGuards(lefts []journal.Left) {
	for i := range lefts {
		l := &lefts[i]
		g := l.Guard
		if g == nil || len(l.Uprobes) > 0 {
			continue
		}
		if g.Cgroup != "" {
			b, err := os.ReadFile(filepath.Join(g.Cgroup, "cgroup.procs"))
			if err == nil && len(bytes.TrimSpace(b)) > 0 {
				continue
			}
		} else if start, err := process.StartTime(g.PID); err == nil && start == g.Start {
			continue
		}
		l.Remove()
	}
}
