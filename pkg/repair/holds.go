package repair

import (
	"errors"
	"fmt"

	"github.com/sdtkit/sdtkit/pkg/semaphore"
)

// An Undone is an increment that sdtsema --hold, or another holder
// recording its holds with semaphore.Holds, left behind when it was
// killed: no holder of it is left, so it is undone.
type Undone struct {
	Holder        int // the pid of the holder, gone
	Hold          semaphore.Hold
	Before, After uint16
	Done          bool // false with Options.DryRun
}

// undoHolds undoes the recorded holds on process pid whose holders are
// gone, adding them to rep.Undone, and returns the increments live
// holders keep, by semaphore address.
func undoHolds(pid int, o *Options, rep *Report, sems map[uint64]*semState) (map[uint64]int, error) {
	held := make(map[uint64]int)
	holders, err := semaphore.Holders(pid)
	if err != nil {
		return held, fmt.Errorf("recorded holds: %w", err)
	}
	var errs []error
	for i := range holders {
		h := &holders[i]
		if h.Alive {
			for _, x := range h.Holds {
				held[x.Addr]++
			}
			continue
		}
		if err := undo(pid, h, o, rep, sems); err != nil {
			errs = append(errs, err)
		}
	}
	return held, errors.Join(errs...)
}

// undo undoes the holds a gone holder left on process pid.
func undo(pid int, h *semaphore.Holder, o *Options, rep *Report, sems map[uint64]*semState) error {
	var p *semaphore.Process
	if !o.DryRun {
		var err error
		if p, err = semaphore.Open(pid, true); err != nil {
			return err
		}
		defer p.Close()
	}
	var errs []error
	var done []semaphore.Hold
	for _, x := range h.Holds {
		if o.Match != nil && !o.Match(x.Provider, x.Name) {
			continue
		}
		u := Undone{Holder: h.Pid, Hold: x}
		if p != nil {
			if err := lower(p, &u, sems); err != nil {
				errs = append(errs, fmt.Errorf("undo the hold of process %d on %s:%s: %w", h.Pid, x.Provider, x.Name, err))
				continue
			}
			done = append(done, x)
		}
		rep.Undone = append(rep.Undone, u)
	}
	if len(done) > 0 {
		errs = append(errs, h.Forget(done))
	}
	return errors.Join(errs...)
}

// lower undoes the increment of u in the process of p, sets what u says
// of it, and the value sems keeps of the semaphore. A semaphore another
// writer changed meanwhile is lowered from its new value.
func lower(p *semaphore.Process, u *Undone, sems map[uint64]*semState) error {
	before, after, err := p.Add(u.Hold.Semaphore(), -1)
	if err != nil && !errors.Is(err, semaphore.ErrChanged) {
		return err
	}
	u.Before, u.After, u.Done = before, after, true
	if s := sems[u.Hold.Addr]; s != nil {
		s.value = after
	}
	return nil
}
