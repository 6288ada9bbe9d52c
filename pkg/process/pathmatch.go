package process

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// A PathMatcher decides which objects mapped by a process a probe's PATH
// names, the same way for every tool: by device and inode of the file the
// PATH leads to (from here, and for an absolute PATH through the mount
// namespace of the process), by the path the process maps (on overlayfs
// the maps show the device and inode of the underlying file), or, for a
// bare name, by base name, with or without a version suffix: "libwork.so"
// and "libwork" match libwork.so.1.
type PathMatcher struct {
	name string
	ids  []FileID
}

// NewPathMatcher returns the matcher of PATH name for process pid;
// resolved is where name leads as a shell or the dynamic loader would
// find it (see probespec.Resolve), or "" when it was not found. A name
// with a slash that leads to no file is an error wrapping os.ErrNotExist.
func NewPathMatcher(pid int, name, resolved string) (*PathMatcher, error) {
	m := &PathMatcher{name: name}
	if resolved != "" {
		m.ids = appendID(m.ids, resolved)
	}
	if filepath.IsAbs(name) {
		m.ids = appendID(m.ids, "/proc/"+strconv.Itoa(pid)+"/root"+name)
	}
	if len(m.ids) == 0 && strings.Contains(name, "/") {
		return nil, fmt.Errorf("%s: %w", name, os.ErrNotExist)
	}
	return m, nil
}

func appendID(ids []FileID, path string) []FileID {
	if id, err := StatID(path); err == nil {
		ids = append(ids, id)
	}
	return ids
}

// StatID returns the FileID of the file at path, following symbolic links.
func StatID(path string) (FileID, error) {
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		return FileID{}, &os.PathError{Op: "stat", Path: path, Err: err}
	}
	return FileID{uint64(st.Dev), st.Ino}, nil
}

// Match reports whether o is the file the PATH names.
func (m *PathMatcher) Match(o *Object) bool {
	for _, id := range m.ids {
		if id.Dev == o.Dev && id.Inode == o.Inode {
			return true
		}
	}
	if filepath.IsAbs(m.name) {
		return filepath.Clean(m.name) == o.Path
	}
	if strings.Contains(m.name, "/") {
		return false
	}
	base := filepath.Base(o.Path)
	return base == m.name || strings.HasPrefix(base, m.name+".")
}
