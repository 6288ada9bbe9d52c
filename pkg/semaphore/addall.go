package semaphore

import (
	"errors"
	"fmt"

	"github.com/sdtkit/sdtkit/pkg/process"
)

// A Change is what AddAll did to one semaphore.
type Change struct {
	Semaphore     *Semaphore
	Before, After uint16
	// Changed is not nil when the value read back was not the one
	// written: something else changed the semaphore at the same time.
	// The write happened.
	Changed *ChangedError
}

// An UndoError reports that AddAll failed part way through: Err is the
// failure, Undone the semaphores it had written before and changed back
// (Before is the value the undo found, After the one it wrote), and
// Failed the errors of those it could not change back.
type UndoError struct {
	Pid    int
	Err    error
	Undone []Change
	Failed []error
}

func (e *UndoError) Error() string {
	n := len(e.Undone) + len(e.Failed)
	if len(e.Failed) > 0 {
		return fmt.Sprintf("%v; %d of the %d semaphores written before could not be changed back: %v", e.Err, len(e.Failed), n, e.Failed[0])
	}
	return fmt.Sprintf("%v; the %d semaphores written before were changed back", e.Err, n)
}

// Unwrap gives the failure, then the errors of the undo.
func (e *UndoError) Unwrap() []error { return append([]error{e.Err}, e.Failed...) }

// AddAll adds delta to every semaphore of sems, all of them or none.
//
// It first checks every semaphore against the current /proc/PID/maps, as
// Add does, and reads its value; when one is refused, cannot be read, or
// would go below 0 or past 65535, it writes nothing and returns the errors
// of all such semaphores joined. It then changes them one after the other
// as Add does. When a change fails part way (the write fails, or the value
// changed in the meantime so that the change no longer fits), it changes
// the semaphores it already wrote back, in reverse order, and returns an
// *UndoError; when the failure is that the process exited, there is
// nothing left to change back and the error, which matches
// process.ErrNoProcess, is returned alone.
//
// On success it returns one Change per semaphore, in the order of sems.
func (p *Process) AddAll(sems []Semaphore, delta int) ([]Change, error) {
	for i := range sems {
		if err := p.same(&sems[i]); err != nil {
			return nil, err
		}
	}
	maps, err := p.readMaps(p.pid)
	if err != nil {
		return nil, err
	}
	var errs []error
	for i := range sems {
		s := &sems[i]
		if err := p.check(maps, s); err != nil {
			errs = append(errs, err)
			continue
		}
		v, err := p.read(s)
		if err != nil {
			return nil, err
		}
		if _, err := add(v, delta); err != nil {
			errs = append(errs, p.rangeError(s, v, err))
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	changes := make([]Change, 0, len(sems))
	for i := range sems {
		s := &sems[i]
		before, after, written, err := p.apply(s, delta)
		c := Change{Semaphore: s, Before: before, After: after}
		if errors.As(err, &c.Changed) {
			err = nil
		}
		if err != nil {
			if written {
				changes = append(changes, c)
			}
			if errors.Is(err, process.ErrNoProcess) {
				return nil, err
			}
			return nil, p.undo(changes, delta, err)
		}
		changes = append(changes, c)
	}
	return changes, nil
}

// undo takes delta back from the semaphores of done, last first, after
// AddAll failed with err.
func (p *Process) undo(done []Change, delta int, err error) error {
	if len(done) == 0 {
		return err
	}
	e := &UndoError{Pid: p.pid, Err: err}
	for i := len(done) - 1; i >= 0; i-- {
		s := done[i].Semaphore
		before, after, written, err := p.apply(s, -delta)
		var changed *ChangedError
		if err != nil && !(written && errors.As(err, &changed)) {
			e.Failed = append(e.Failed, fmt.Errorf("%s:%s in %s at %#x: %w", s.Provider, s.Name, s.File, s.Addr, err))
			continue
		}
		e.Undone = append(e.Undone, Change{Semaphore: s, Before: before, After: after, Changed: changed})
	}
	return e
}
