package semaphore

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/sdtkit/sdtkit/pkg/probespec"
	"github.com/sdtkit/sdtkit/pkg/process"
	"github.com/sdtkit/sdtkit/pkg/stapsdt"
)

// Find returns the semaphores of the probes of process pid that match one
// of specs, each distinct semaphore once, in the order of the objects in
// the address space and of the probes' notes. A specification without a
// file is matched against every object the process maps; one with a file
// only against that file.
//
// Problems are joined into the error, and the semaphores that could be
// located are returned with it: a probe without a semaphore (ErrNoSemaphore),
// one whose semaphore may not be written (*RefusedError), a specification
// that matches no probe (ErrNoProbe) or names a file the process does not
// map (ErrNotMapped). A process that does not exist gives ErrNoProcess,
// one that may not be inspected a *process.PermissionError, and no
// semaphores.
func Find(pid int, specs ...probespec.Spec) ([]Semaphore, error) {
	maps, err := process.ReadMaps(pid)
	if err != nil {
		return nil, err
	}
	files := make([][]fileID, len(specs))
	for i, s := range specs {
		if s.Path == "" {
			continue
		}
		if files[i], err = specFile(pid, s.Path); err != nil {
			return nil, err
		}
	}
	var (
		sems    []Semaphore
		errs    []error
		matched = make([]bool, len(specs))
		mapped  = make([]bool, len(specs))
	)
	for _, o := range process.Objects(pid, maps) {
		var use []int
		for i, s := range specs {
			if s.Path == "" || matchFile(files[i], &o, s.Path) {
				use = append(use, i)
				mapped[i] = mapped[i] || s.Path != ""
			}
		}
		if len(use) == 0 {
			continue
		}
		found, oerrs := findObject(&o, specs, use, matched)
		sems = append(sems, found...)
		errs = append(errs, oerrs...)
	}
	for i, s := range specs {
		switch {
		case s.Path != "" && !mapped[i]:
			errs = append(errs, fmt.Errorf("process %d: %s: %w", pid, s.Path, ErrNotMapped))
		case !matched[i]:
			errs = append(errs, fmt.Errorf("process %d: %s: %w", pid, s, ErrNoProbe))
		}
	}
	return sems, errors.Join(errs...)
}

// findObject returns the semaphores of the probes of o that match one of
// specs[use], and marks the specifications that matched.
func findObject(o *process.Object, specs []probespec.Spec, use []int, matched []bool) ([]Semaphore, []error) {
	named := false
	for _, i := range use {
		named = named || specs[i].Path != ""
	}
	fd, err := o.Open()
	if err != nil {
		// An unreadable object is only an error when it was asked for
		// by name or for lack of permission, which may hide probes.
		var pe *process.PermissionError
		if named || errors.As(err, &pe) || errors.Is(err, process.ErrNoProcess) {
			return nil, []error{err}
		}
		return nil, nil
	}
	defer fd.Close()
	f, err := stapsdt.NewFile(fd)
	if f == nil {
		if named {
			return nil, []error{fmt.Errorf("%s: %w", o.Path, err)}
		}
		return nil, nil
	}
	var errs []error
	if err != nil && named {
		errs = append(errs, fmt.Errorf("%s: %w", o.Path, err))
	}
	type key struct{ provider, name string }
	seen := make(map[uint64]int) // semaphore offset to index in sems
	reported := make(map[key]bool)
	var sems []Semaphore
	for i := range f.Probes {
		p := &f.Probes[i]
		if !matchAny(specs, use, matched, p) {
			continue
		}
		if j, ok := seen[p.SemaphoreOffset]; ok && p.HasSemaphore() && p.SemaphoreOffsetErr == nil {
			sems[j].Sites++
			continue
		}
		addr, err := Locate(o, p)
		if err != nil {
			if k := (key{p.Provider, p.Name}); !reported[k] {
				reported[k] = true
				errs = append(errs, err)
			}
			continue
		}
		seen[p.SemaphoreOffset] = len(sems)
		sems = append(sems, Semaphore{
			Pid: o.Pid, File: o.Path, Provider: p.Provider, Name: p.Name, Sites: 1,
			Offset: p.SemaphoreOffset, Addr: addr, Dev: o.Dev, Inode: o.Inode,
			ByteOrder: byteOrder(f.ByteOrder),
		})
	}
	return sems, errs
}

func matchAny(specs []probespec.Spec, use []int, matched []bool, p *stapsdt.Probe) bool {
	ok := false
	for _, i := range use {
		if specs[i].Match(p.Provider, p.Name) {
			matched[i] = true
			ok = true
		}
	}
	return ok
}

// A fileID identifies a file as /proc/PID/maps does.
type fileID struct{ dev, inode uint64 }

// specFile returns the identities of the file a specification names, as
// seen from here and, for an absolute path, from inside the mount namespace
// of process pid. A bare name that is not found here may still be matched
// by matchFile against the objects the process maps.
func specFile(pid int, name string) ([]fileID, error) {
	path, err := probespec.Resolve(name)
	var ids []fileID
	if err == nil {
		ids = appendID(ids, path)
	}
	if filepath.IsAbs(name) {
		ids = appendID(ids, "/proc/"+strconv.Itoa(pid)+"/root"+name)
	}
	if len(ids) == 0 && strings.Contains(name, "/") {
		if err == nil {
			err = fmt.Errorf("%s: %w", name, os.ErrNotExist)
		}
		return nil, err
	}
	return ids, nil
}

func appendID(ids []fileID, path string) []fileID {
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		return ids
	}
	return append(ids, fileID{uint64(st.Dev), st.Ino})
}

// matchFile reports whether o is the file with one of ids, or the file a
// specification names. An absolute path is compared with the path the
// process maps, since on overlayfs the device and inode in the maps are
// those of the underlying file, not the ones stat gives. A bare name
// matches the base name of the path, with or without a version suffix:
// "libwork.so" and "libwork" match libwork.so.1.
func matchFile(ids []fileID, o *process.Object, name string) bool {
	for _, id := range ids {
		if id.dev == o.Dev && id.inode == o.Inode {
			return true
		}
	}
	if filepath.IsAbs(name) {
		return filepath.Clean(name) == o.Path
	}
	if strings.Contains(name, "/") {
		return false
	}
	base := filepath.Base(o.Path)
	return base == name || strings.HasPrefix(base, name+".")
}
