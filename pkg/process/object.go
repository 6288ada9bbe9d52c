package process

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/sdtkit/sdtkit/internal/regfile"
)

// An Object is one file mapped by a process: all the mappings of the same
// file (device and inode), in address order.
type Object struct {
	Pid  int
	Path string // as the process sees it, from its maps
	// HostPath is the path to open the file by from here: /proc/PID/root
	// followed by Path, or /proc/PID/map_files/START-END for a file that
	// is deleted, a memfd, or not reachable by its path.
	HostPath   string
	Dev, Inode uint64
	Mappings   []Mapping
}

// Objects groups the file-backed mappings of process pid by file, in order
// of first mapping address. Anonymous memory, [heap], [stack], [vdso] and
// the like are left out, and so are files that are known not to be regular
// files, such as devices. Objects are not necessarily ELF files: a process
// may map any file.
func Objects(pid int, maps []Mapping) []Object {
	objs := groupObjects(pid, maps, func(m Mapping) string { return hostPath(pid, m) })
	return slices.DeleteFunc(objs, func(o Object) bool {
		// Opening a device can have side effects; a failed Stat (no
		// access to map_files) is left for Open to explain.
		st, err := os.Stat(o.HostPath)
		return err == nil && !st.Mode().IsRegular()
	})
}

// groupObjects does the work of Objects with the host path given by
// hostPath for the first mapping of each file.
func groupObjects(pid int, maps []Mapping, hostPath func(Mapping) string) []Object {
	type key struct{ dev, inode uint64 }
	index := make(map[key]int)
	var objs []Object
	for _, m := range maps {
		if !m.fileBacked() {
			continue
		}
		k := key{m.Dev, m.Inode}
		i, ok := index[k]
		if !ok {
			i = len(objs)
			index[k] = i
			objs = append(objs, Object{Pid: pid, Path: m.Path, Dev: m.Dev, Inode: m.Inode})
		}
		objs[i].Mappings = append(objs[i].Mappings, m)
	}
	for i := range objs {
		o := &objs[i]
		slices.SortStableFunc(o.Mappings, func(a, b Mapping) int { return cmp.Compare(a.Start, b.Start) })
		o.HostPath = hostPath(o.Mappings[0])
	}
	slices.SortStableFunc(objs, func(a, b Object) int { return cmp.Compare(a.Mappings[0].Start, b.Mappings[0].Start) })
	return objs
}

// hostPath chooses the path to open the file of m by.
func hostPath(pid int, m Mapping) string {
	if m.Deleted() || strings.HasPrefix(m.Path, "/memfd:") {
		return mapFilesPath(pid, m)
	}
	p := procPath(pid, "root") + m.Path
	// Only a missing path means the file is elsewhere (renamed, or
	// escaped characters in the path); lack of access is reported when
	// the file is opened.
	if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
		return mapFilesPath(pid, m)
	}
	return p
}

// mapFilesPath returns the /proc/PID/map_files entry of m, named as the
// kernel names it: "%lx-%lx".
func mapFilesPath(pid int, m Mapping) string {
	return procPath(pid, fmt.Sprintf("map_files/%x-%x", m.Start, m.End))
}

// Open opens the file of the object through HostPath. Errors say what
// access is missing: opening a file through /proc/PID/root needs the access
// that reading maps does, and through /proc/PID/map_files root. A path
// that is no longer a regular file (a named pipe put in the place of a
// mapped library) is refused without blocking.
func (o *Object) Open() (*os.File, error) {
	f, err := regfile.Open(o.HostPath)
	if err == nil {
		return f, nil
	}
	if errors.Is(err, regfile.ErrNotRegular) {
		return nil, fmt.Errorf("process %d: open mapped file %s: %w", o.Pid, o.Path, err)
	}
	a := accessRead
	if strings.HasPrefix(o.HostPath, procPath(o.Pid, "map_files/")) {
		a = accessMapFiles
	}
	if errors.Is(err, fs.ErrNotExist) {
		if _, serr := os.Stat(procPath(o.Pid, "")); serr != nil {
			return nil, procError(o.Pid, "open mapped file", a, serr)
		}
		return nil, fmt.Errorf("process %d: open mapped file %s: %w", o.Pid, o.Path, err)
	}
	return nil, procError(o.Pid, "open mapped file "+o.Path, a, err)
}

// Addr translates the file offset off of the object to its runtime address
// in the process, through the first mapping (in address order) whose file
// range [Offset, Offset+End-Start) contains off: this is the computation
// the kernel does to place a uprobe. ok is false when no mapping covers
// off.
func (o *Object) Addr(off uint64) (addr uint64, ok bool) {
	for _, m := range o.Mappings {
		if off >= m.Offset && off-m.Offset < m.End-m.Start {
			return m.Start + (off - m.Offset), true
		}
	}
	return 0, false
}

// SemaphoreAddr returns the run-time address of the probe semaphore at
// file offset off of the object, by the rule of SemaphoreAddr.
func (o *Object) SemaphoreAddr(off uint64) (uint64, error) {
	return SemaphoreAddr(o.Mappings, FileID{Dev: o.Dev, Inode: o.Inode}, off)
}
