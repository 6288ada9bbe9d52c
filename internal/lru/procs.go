package lru

import "time"

// A Refresher reads again what it holds of a process.
type Refresher interface{ Refresh() error }

// Procs keeps a value for each of at most n processes, made by open the
// first time one is asked for, the least recently used dropped first: the
// processes whose stacks a tracer symbolizes or unwinds. The values are
// not locked: a caller locks around their use.
type Procs[P Refresher] struct {
	open  func(pid int) (P, error)
	procs *Cache[int, *Proc[P]]
}

// A Proc is what Procs keeps of a process: P, when OK (open failed
// otherwise), and Refreshed, which its caller sets when it reads P again
// of its own accord (zero before).
type Proc[P any] struct {
	P         P
	OK        bool
	Refreshed time.Time
}

// NewProcs returns Procs that keep at most n processes (1 at least),
// whose values open makes.
func NewProcs[P Refresher](n int, open func(pid int) (P, error)) *Procs[P] {
	return &Procs[P]{open: open, procs: New[int, *Proc[P]](int64(max(n, 1)))}
}

// Get returns what is kept of process pid, made now if nothing is.
func (ps *Procs[P]) Get(pid int) *Proc[P] {
	if e, ok := ps.procs.Get(pid); ok {
		return e
	}
	e := &Proc[P]{}
	if p, err := ps.open(pid); err == nil {
		e.P, e.OK = p, true
	}
	ps.procs.Add(pid, e, 1)
	return e
}

// Refresh reads process pid again, or makes its value if none could be
// made before.
func (ps *Procs[P]) Refresh(pid int) error {
	e, ok := ps.procs.Get(pid)
	if ok && e.OK {
		return e.P.Refresh()
	}
	p, err := ps.open(pid)
	if err != nil {
		return err
	}
	if ok {
		e.P, e.OK = p, true
		return nil
	}
	ps.procs.Add(pid, &Proc[P]{P: p, OK: true}, 1)
	return nil
}

// Forget drops what is kept of process pid.
func (ps *Procs[P]) Forget(pid int) { ps.procs.Remove(pid) }
