package symbolize

import (
	"sync"
	"time"

	"github.com/sdtkit/sdtkit/internal/lru"
	"github.com/sdtkit/sdtkit/pkg/process"
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
	mu    sync.Mutex // held while a Process is used
	procs *lru.Procs[*Process]
}

// NewProcesses returns Processes that read objects through cache and
// keep at most n processes (1 at least).
func NewProcesses(cache *Cache, n int) *Processes {
	return &Processes{procs: lru.NewProcs(n, func(pid int) (*Process, error) { return NewProcess(pid, cache) })}
}

// Frames appends to dst the frames of the addresses of process pid and
// returns it.
func (ps *Processes) Frames(dst []Frame, pid int, addrs []uint64) []Frame {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	e := ps.procs.Get(pid)
	if !e.OK {
		for _, a := range addrs {
			dst = append(dst, Frame{Addr: a})
		}
		return dst
	}
	start := len(dst)
	for _, a := range addrs {
		dst = append(dst, e.P.Frame(a))
	}
	if !unplaced(dst[start:]) || time.Since(e.Refreshed) < refreshEvery {
		return dst
	}
	e.Refreshed = time.Now()
	if e.P.Refresh() != nil {
		return dst // gone: what was placed stays
	}
	dst = dst[:start]
	for _, a := range addrs {
		dst = append(dst, e.P.Frame(a))
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
	return ps.procs.Refresh(pid)
}

// Map adds m, a mapping process pid has made, to what is kept of it (see
// Process.Map), when the process is known or can be read now.
func (ps *Processes) Map(pid int, m process.Mapping) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if e := ps.procs.Get(pid); e.OK {
		e.P.Map(m)
	}
}

// Forget drops what is kept of process pid, which has exited.
func (ps *Processes) Forget(pid int) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ps.procs.Forget(pid)
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
