package symbolize

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/sdtkit/sdtkit/pkg/process"
)

// A Process symbolizes the run-time addresses of one process: each address
// is placed in the mapping of /proc/PID/maps that holds it, the file
// mapped there is read through /proc/PID/root, or /proc/PID/map_files for
// a file deleted since or with no path (memfd), and its symbols looked up
// at the file offset; anonymous memory is looked up in the perf map a JIT
// compiler writes, /tmp/perf-PID.map in the process's own mount
// namespace and with its PID in its own PID namespace.
//
// The maps and the perf map are read by NewProcess and by Refresh, which
// a caller calls again when the process may have loaded libraries or
// compiled code since. Files are read when first needed, but for those
// deleted or with no path, which cannot be read once the process is
// gone: those are read with the maps. A Process is not safe for
// concurrent use.
type Process struct {
	pid   int
	cache *Cache

	maps    []process.Mapping // sorted by address
	objects map[devIno]*procObject
	perf    *PerfMap
	perfErr error // why the perf map could not be read
}

type devIno struct{ dev, ino uint64 }

type procObject struct {
	process.Object
	obj *Object
	err error
}

// NewProcess reads the maps of process pid. Objects are read through
// cache, when they are first needed; nil means a cache of its own.
func NewProcess(pid int, cache *Cache) (*Process, error) {
	if cache == nil {
		cache = NewCache(nil, 0)
	}
	p := &Process{pid: pid, cache: cache}
	if err := p.Refresh(); err != nil {
		return nil, err
	}
	return p, nil
}

// Refresh reads the maps of the process and its perf map again. Objects
// already read are kept, and so are the maps when the process has exited
// since.
func (p *Process) Refresh() error {
	maps, err := process.ReadMaps(p.pid)
	if err != nil {
		return fmt.Errorf("symbolize: %w", err)
	}
	if len(maps) == 0 && len(p.maps) > 0 {
		// A process that has exited and is not reaped yet, a zombie,
		// has no memory left, nor maps: those read before stay.
		return fmt.Errorf("symbolize: process %d has exited", p.pid)
	}
	slices.SortFunc(maps, func(a, b process.Mapping) int { return cmp.Compare(a.Start, b.Start) })
	p.maps = maps
	old := p.objects
	p.objects = make(map[devIno]*procObject)
	for _, o := range process.Objects(p.pid, maps) {
		k := devIno{o.Dev, o.Inode}
		if po, ok := old[k]; ok && po.HostPath == o.HostPath {
			p.objects[k] = po
			continue
		}
		po := &procObject{Object: o}
		if len(o.Mappings) > 0 && o.Mappings[0].Deleted() {
			// A file deleted or with no path (memfd) cannot be
			// opened once the process is gone: it is read now.
			p.open(po)
		}
		p.objects[k] = po
	}
	p.perf, p.perfErr = p.readPerfMap()
	return nil
}

// Map adds m, a mapping the process has made, as a tracer learns of it
// from the kernel (a perf event's PERF_RECORD_MMAP2) rather than from
// the maps: it stays for the stacks of the process after it exits, as
// the maps read do.
func (p *Process) Map(m process.Mapping) {
	p.maps = process.Insert(p.maps, m)
	k := devIno{m.Dev, m.Inode}
	if _, ok := p.objects[k]; ok {
		return
	}
	for _, o := range process.Objects(p.pid, []process.Mapping{m}) {
		p.objects[k] = &procObject{Object: o}
	}
}

// open reads the object of po, the first time it is called.
func (p *Process) open(po *procObject) {
	if po.obj != nil || po.err != nil {
		return
	}
	po.obj, po.err = p.cache.open(ref{host: po.HostPath, path: po.Path, root: fmt.Sprintf("/proc/%d/root", p.pid)})
	if po.err != nil && process.ReadAfterExit(p.pid, po.Path, po.Dev, po.Inode) {
		// The process exited since its maps were read; its file
		// is the one at the same path here.
		po.obj, po.err = p.cache.open(ref{host: po.Path, path: po.Path})
	}
}

// PerfMapPath returns the path of the process's perf map as the process
// sees it, "/tmp/perf-PID.map" with its PID in its own PID namespace.
func (p *Process) PerfMapPath() string {
	return fmt.Sprintf("/tmp/perf-%d.map", nsPid(p.pid))
}

// PerfMapErr says why the perf map could not be read, nil when it was
// read or the process has none.
func (p *Process) PerfMapErr() error { return p.perfErr }

func (p *Process) readPerfMap() (*PerfMap, error) {
	path := fmt.Sprintf("/proc/%d/root%s", p.pid, p.PerfMapPath())
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("perf map: %w", err)
	}
	defer f.Close()
	return ReadPerfMap(f)
}

// nsPid returns the PID of process pid in its own PID namespace, the
// last field of NSpid in /proc/PID/status, or pid where that is not known.
func nsPid(pid int) int {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return pid
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "NSpid:"); ok {
			f := strings.Fields(rest)
			if len(f) == 0 {
				return pid
			}
			if n, err := strconv.Atoi(f[len(f)-1]); err == nil {
				return n
			}
			return pid
		}
	}
	return pid
}

// Frame symbolizes one run-time address. Where no symbol is known, the
// frame keeps the file and offset mapped there.
func (p *Process) Frame(addr uint64) Frame {
	f := Frame{Addr: addr}
	i, _ := slices.BinarySearchFunc(p.maps, addr+1, func(m process.Mapping, a uint64) int { return cmp.Compare(m.Start, a) })
	var m *process.Mapping
	if i > 0 && addr < p.maps[i-1].End {
		m = &p.maps[i-1]
	}
	var po *procObject
	if m != nil {
		f.File = m.Path
		po = p.objects[devIno{m.Dev, m.Inode}]
	}
	if po == nil {
		// Anonymous memory, or no mapping: JIT-compiled code, if the
		// process says so.
		if s, off, ok := p.perf.Lookup(addr); ok {
			f.Sym, f.Off = s.Name, off
		}
		return f
	}
	f.FileOffset = addr - m.Start + m.Offset
	p.open(po)
	if po.obj == nil {
		return f
	}
	f.BuildID = po.obj.BuildID
	if s, off, ok := po.obj.LookupOffset(f.FileOffset); ok {
		f.Sym, f.Off = s.Demangled(), off
	}
	return f
}

// Frames symbolizes a stack of run-time addresses, innermost first.
func (p *Process) Frames(addrs []uint64) []Frame {
	frames := make([]Frame, len(addrs))
	for i, a := range addrs {
		frames[i] = p.Frame(a)
	}
	return frames
}

// ObjectErr returns why the file mapped at addr could not be read, nil
// when it was read or none is mapped there.
func (p *Process) ObjectErr(addr uint64) error {
	for _, po := range p.objects {
		for _, m := range po.Mappings {
			if addr >= m.Start && addr < m.End {
				return po.err
			}
		}
	}
	return nil
}
