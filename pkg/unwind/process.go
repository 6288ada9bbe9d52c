package unwind

import (
	"cmp"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/sdtkit/sdtkit/internal/lru"
	"github.com/sdtkit/sdtkit/pkg/process"
)

// refreshEvery is how often at most a process's maps are read again for
// an address none of them holds.
const refreshEvery = 100 * time.Millisecond

// A Process is the Mapper of one process: it places an address in the
// mapping of /proc/PID/maps that holds it and reads the Table of the
// file mapped there through a Cache, the file opened through
// /proc/PID/root or /proc/PID/map_files as package process names it.
// Once the process has exited, its maps are those last read, and a file
// not read yet is opened by its path here, when that path names the
// same file (device and inode); a file deleted or with no path (memfd)
// is read with the maps, while it can be. A Process is not safe for concurrent
// use.
type Process struct {
	pid     int
	cache   *Cache
	maps    []process.Mapping // executable, sorted by address
	objects map[devIno]*procTable
	refresh time.Time
}

type devIno struct{ dev, ino uint64 }

type procTable struct {
	host     string
	path     string // as the process sees it
	dev, ino uint64
	t        *Table
	err      error
	read     bool
}

// NewProcess reads the maps of process pid; tables are read through
// cache as they are needed (nil: a cache of its own).
func NewProcess(pid int, cache *Cache) (*Process, error) {
	if cache == nil {
		cache = NewCache(0)
	}
	p := &Process{pid: pid, cache: cache}
	if err := p.Refresh(); err != nil {
		return nil, err
	}
	return p, nil
}

// Refresh reads the maps of the process again; tables read are kept,
// and so are the maps when the process has exited since.
func (p *Process) Refresh() error {
	maps, err := process.ReadMaps(p.pid)
	if err != nil {
		return fmt.Errorf("unwind: %w", err)
	}
	p.refresh = time.Now()
	if len(maps) == 0 && len(p.maps) > 0 {
		// A zombie, exited and not reaped yet, has no maps left.
		return fmt.Errorf("unwind: process %d has exited", p.pid)
	}
	maps = slices.DeleteFunc(maps, func(m process.Mapping) bool { return !m.Executable() })
	slices.SortFunc(maps, func(a, b process.Mapping) int { return cmp.Compare(a.Start, b.Start) })
	p.maps = maps
	old := p.objects
	p.objects = map[devIno]*procTable{}
	for _, o := range process.Objects(p.pid, maps) {
		k := devIno{o.Dev, o.Inode}
		if pt, ok := old[k]; ok && pt.host == o.HostPath {
			p.objects[k] = pt
			continue
		}
		pt := &procTable{host: o.HostPath, path: o.Path, dev: o.Dev, ino: o.Inode}
		if o.Mappings[0].Deleted() {
			// A file deleted or with no path (memfd) cannot be
			// opened once the process is gone: it is read now.
			p.open(pt)
		}
		p.objects[k] = pt
	}
	return nil
}

// Map adds m, a mapping the process has made, as a tracer learns of it
// from the kernel (a perf event's PERF_RECORD_MMAP2) rather than from
// the maps: it stays for the stacks of the process after it exits, as
// the maps read do. A mapping that cannot be executed is left out.
func (p *Process) Map(m process.Mapping) {
	if !m.Executable() {
		return
	}
	p.maps = process.Insert(p.maps, m)
	k := devIno{m.Dev, m.Inode}
	if _, ok := p.objects[k]; ok {
		return
	}
	for _, o := range process.Objects(p.pid, []process.Mapping{m}) {
		p.objects[k] = &procTable{host: o.HostPath, path: o.Path, dev: o.Dev, ino: o.Inode}
	}
}

// Lookup returns the Table of the file mapped at pc, and the bias of
// the mapping. A pc in no mapping has the maps read again, at most
// every 100 ms: the process may have loaded a library since.
func (p *Process) Lookup(pc uint64) (*Table, uint64, bool) {
	m := p.mapping(pc)
	if m == nil && time.Since(p.refresh) >= refreshEvery && p.Refresh() == nil {
		m = p.mapping(pc)
	}
	if m == nil {
		return nil, 0, false
	}
	pt := p.objects[devIno{m.Dev, m.Inode}]
	if pt == nil {
		return nil, 0, false
	}
	p.open(pt)
	if pt.t == nil {
		return nil, 0, false
	}
	addr, ok := pt.t.Addr(pc - m.Start + m.Offset)
	if !ok {
		return nil, 0, false
	}
	return pt.t, pc - addr, true
}

// open reads the table of pt the first time it is called: through the
// process or, once it has exited (/proc/PID/root is gone with it), by
// its path here when that is the same file.
func (p *Process) open(pt *procTable) {
	if pt.read {
		return
	}
	pt.read = true
	pt.t, pt.err = p.cache.Open(pt.host)
	if pt.err != nil && process.ReadAfterExit(p.pid, pt.path, pt.dev, pt.ino) {
		pt.t, pt.err = p.cache.Open(pt.path)
	}
}

func (p *Process) mapping(pc uint64) *process.Mapping {
	i, _ := slices.BinarySearchFunc(p.maps, pc+1, func(m process.Mapping, a uint64) int { return cmp.Compare(m.Start, a) })
	if i > 0 && pc < p.maps[i-1].End {
		return &p.maps[i-1]
	}
	return nil
}

// Processes unwinds the stacks of many processes, as a tracer sees
// them: each pid gets a Process at its first stack or at Refresh; at
// most n are kept, the least recently used dropped first. Processes is
// safe for concurrent use.
type Processes struct {
	mu    sync.Mutex // held while a Process is used
	procs *lru.Procs[*Process]
}

// NewProcesses returns Processes that read tables through cache (nil: a
// cache of its own) and keep at most n processes.
func NewProcesses(cache *Cache, n int) *Processes {
	if cache == nil {
		cache = NewCache(0)
	}
	return &Processes{procs: lru.NewProcs(n, func(pid int) (*Process, error) { return NewProcess(pid, cache) })}
}

// Unwind appends to dst the return addresses of the stack st of process
// pid, as Unwind does, and returns it. A process that cannot be read
// gives the probe's address alone.
func (ps *Processes) Unwind(dst []uint64, pid int, st *Stack, max int) []uint64 {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	e := ps.procs.Get(pid)
	if !e.OK {
		if max > 0 {
			dst = append(dst, st.PC)
		}
		return dst
	}
	out, err := Unwind(dst, hostMachine, st, e.P, max)
	if err != nil && max > 0 {
		return append(dst, st.PC)
	}
	return out
}

// Refresh reads the maps of process pid now, again or for the first
// time: for a caller that knows the process has just mapped files, such
// as a tracer that holds it stopped in the dynamic loader. What is read
// stays for the stacks of the process after it exits.
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

// Forget drops what is kept of process pid.
func (ps *Processes) Forget(pid int) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ps.procs.Forget(pid)
}
