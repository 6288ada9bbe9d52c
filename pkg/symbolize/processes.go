package symbolize

import (
	"sync"
	"time"

	"github.com/sdtkit/sdtkit/internal/lru"
)

// refreshEvery is how often at most Processes reads a process's maps
// again for an address none of them holds.
const refreshEvery = 100 * time.Millisecond

// Processes symbolizes the stacks of many processes, as a tracer sees
// them: each pid gets a Process when it first has addresses to
// symbolize, or at Refresh, whose maps are read again, at most every
// 100 ms, when an address lies in none of them (a library loaded, or
// code compiled, since), and at every Refresh. At most n processes are
// kept, the least recently used dropped first. A process that is gone
// before its maps were first read keeps its addresses unsymbolized;
// one gone since keeps the maps last read. Processes is safe for
// concurrent use.
type Processes struct {
	cache *Cache

	mu    sync.Mutex                  // held while a Process is used
	procs *lru.Cache[int, *procEntry] // by pid
}

type procEntry struct {
	p       *Process // nil: the process could not be read
	refresh time.Time
}

// NewProcesses returns Processes that read objects through cache and
// keep at most n processes (1 at least).
func NewProcesses(cache *Cache, n int) *Processes {
	return &Processes{cache: cache, procs: lru.New[int, *procEntry](int64(max(n, 1)))}
}

// Frames appends to dst the frames of the addresses of process pid and
// returns it.
func (ps *Processes) Frames(dst []Frame, pid int, addrs []uint64) []Frame {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	e := ps.entry(pid)
	if e.p == nil {
		for _, a := range addrs {
			dst = append(dst, Frame{Addr: a})
		}
		return dst
	}
	start := len(dst)
	for _, a := range addrs {
		dst = append(dst, e.p.Frame(a))
	}
	if !unplaced(dst[start:]) || time.Since(e.refresh) < refreshEvery {
		return dst
	}
	e.refresh = time.Now()
	if e.p.Refresh() != nil {
		return dst // gone: what was placed stays
	}
	dst = dst[:start]
	for _, a := range addrs {
		dst = append(dst, e.p.Frame(a))
	}
	return dst
}

// Refresh reads the maps of process pid now, again or for the first
// time, whether or not an address lies outside them: for a caller that
// knows the process has just mapped files, such as a tracer that holds
// it stopped in the dynamic loader. What is read stays for the stacks
// of the process after it exits: its files are then read by their
// paths (see Process).
func (ps *Processes) Refresh(pid int) error {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	e, ok := ps.procs.Get(pid)
	if ok && e.p != nil {
		return e.p.Refresh()
	}
	p, err := NewProcess(pid, ps.cache)
	if err != nil {
		return err
	}
	if ok {
		e.p = p
		return nil
	}
	ps.procs.Add(pid, &procEntry{p: p}, 1)
	return nil
}

// Forget drops what is kept of process pid, which has exited.
func (ps *Processes) Forget(pid int) {
	ps.procs.Remove(pid)
}

// entry returns the entry of pid, made now if there is none.
func (ps *Processes) entry(pid int) *procEntry {
	if e, ok := ps.procs.Get(pid); ok {
		return e
	}
	e := &procEntry{}
	if p, err := NewProcess(pid, ps.cache); err == nil {
		e.p = p
	}
	ps.procs.Add(pid, e, 1)
	return e
}

// unplaced reports whether a frame lies in no mapping the process had
// when its maps were read: neither a file nor a symbol of a perf map.
func unplaced(frames []Frame) bool {
	for i := range frames {
		if frames[i].File == "" && frames[i].Sym == "" {
			return true
		}
	}
	return false
}
