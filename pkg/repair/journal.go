package repair

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/sdtkit/sdtkit/pkg/journal"
	"github.com/sdtkit/sdtkit/pkg/process"
	"github.com/sdtkit/sdtkit/pkg/semaphore"
	"github.com/sdtkit/sdtkit/pkg/uprobes"
	"golang.org/x/sys/unix"
)

// lowerJournaled lowers the semaphores that orphaned sites of process
// pid raised, where a process that is gone journaled the site with that
// semaphore as reference counter (package journal): killed while the
// kernel registered its uprobes, or while it let them go, it left the
// breakpoint and the increment the kernel makes with it (the kernel
// changes a site's reference counter in the same step as its
// breakpoint, the counter first). Each such site lowers its semaphore by
// one, reported in rep.Undone with the process gone as Holder.
func lowerJournaled(pid int, cands []candidate, set *uprobes.Set, o *Options, rep *Report, sems map[uint64]*semState) error {
	lefts, err := journal.Lefts()
	if err != nil || len(lefts) == 0 {
		return err
	}
	var p *semaphore.Process
	var start uint64
	var errs []error
	for i := range cands {
		c := &cands[i]
		if c.sema == 0 || c.site.Hook || len(set.Owners(c.id, c.site.File, c.site.Offset)) > 0 {
			continue
		}
		attacher := journaledBy(lefts, c, pid, ctimeOf(pid, c.site.File))
		if attacher == 0 {
			continue
		}
		if start == 0 {
			if start, err = process.StartTime(pid); err != nil {
				return err
			}
		}
		h := semaphore.Hold{Pid: pid, Start: start, Addr: c.sema, File: c.site.File, Provider: c.site.Provider,
			Name: c.site.Name, Offset: c.semaO, Dev: c.id.Dev, Inode: c.id.Inode}
		u := Undone{Holder: attacher, Hold: h}
		if !o.DryRun {
			if p == nil {
				if p, err = semaphore.Open(pid, true); err != nil {
					return err
				}
				defer p.Close()
			}
			if err := lower(p, &u, sems); err != nil {
				errs = append(errs, fmt.Errorf("lower the semaphore of %s: %w", c.site.label(), err))
				continue
			}
		}
		rep.Undone = append(rep.Undone, u)
	}
	return errors.Join(errs...)
}

// journaledBy returns the pid of the process gone that journaled the
// site of c, in process pid or in every process, with the semaphore of c
// as its reference counter; 0 if none did. ctime, when not 0, is that of
// the file of c: a journal of another file that had its inode, deleted
// since, has another.
func journaledBy(lefts []journal.Left, c *candidate, pid int, ctime int64) int {
	for _, l := range lefts {
		for i := range l.Uprobes {
			u := &l.Uprobes[i]
			if u.PID != 0 && u.PID != pid {
				continue
			}
			if (u.Dev != c.id.Dev || u.Inode != c.id.Inode) && u.Path != c.site.File {
				continue
			}
			if u.Ctime != 0 && ctime != 0 && u.Ctime != ctime {
				continue
			}
			if ref, ok := u.RefCtr(c.site.Offset); ok && ref != 0 && ref == c.semaO {
				return l.Attacher
			}
		}
	}
	return 0
}

// ctimeOf returns the status change time in ns of the file process pid
// maps at path, as its root shows it; 0 if it cannot be looked at.
func ctimeOf(pid int, path string) int64 {
	var st unix.Stat_t
	if unix.Stat("/proc/"+strconv.Itoa(pid)+"/root"+path, &st) != nil {
		return 0
	}
	return st.Ctim.Nano()
}
