package uprobes

import (
	"fmt"
	"os"
	"strings"
	"syscall"

	"github.com/sdtkit/sdtkit/pkg/process"
)

// A Kind is the way a uprobe was made.
type Kind string

// Kinds of uprobe owners.
const (
	UprobeMulti Kind = "uprobe_multi"
	PerfEvent   Kind = "perf_event"
	Tracefs     Kind = "tracefs"
)

// A Uprobe is one uprobe the kernel holds on a file offset.
type Uprobe struct {
	Kind Kind
	// File is the probed file's path as the kernel reports it, which
	// may be relative to another mount namespace.
	File         string
	Offset       uint64
	RefCtrOffset uint64 // 0 when it has none, or it is not reported
	// Holder says what holds the uprobe: "link 12" for a BPF link,
	// "pid 345 fd 7" for a descriptor, "uprobes/p_0" for a tracefs
	// event.
	Holder string
	// ID identifies the file; Known is false when it could not be
	// looked up.
	ID    process.FileID
	Known bool
}

func (u *Uprobe) String() string {
	return fmt.Sprintf("%s %s %s:%#x", u.Kind, u.Holder, u.File, u.Offset)
}

// A Set is every uprobe that could be seen.
type Set struct {
	Uprobes []Uprobe
	// Unseen holds what could not be looked at: owners there are not
	// in Uprobes.
	Unseen   []error
	byOffset map[uint64][]int
}

// Complete reports whether every owner could be looked at.
func (s *Set) Complete() bool { return len(s.Unseen) == 0 }

// Owners returns the uprobes that may own the site at offset of a file:
// those on that file, known by its identity id or by its path, and those
// at that offset whose file is unknown.
func (s *Set) Owners(id process.FileID, path string, offset uint64) []Uprobe {
	var out []Uprobe
	for _, i := range s.byOffset[offset] {
		if u := &s.Uprobes[i]; !u.Known || u.ID == id || samePath(u.File, path) {
			out = append(out, *u)
		}
	}
	return out
}

// samePath reports whether a path the kernel reports names path, also
// through /proc/PID/root.
func samePath(reported, path string) bool {
	if reported == path {
		return true
	}
	if rest, ok := strings.CutPrefix(reported, "/proc/"); ok {
		if _, after, ok := strings.Cut(rest, "/root/"); ok {
			return "/"+after == path
		}
	}
	return false
}

// Add adds u to the set, as List does each uprobe it finds.
func (s *Set) Add(u Uprobe) {
	if s.byOffset == nil {
		s.byOffset = make(map[uint64][]int)
	}
	s.byOffset[u.Offset] = append(s.byOffset[u.Offset], len(s.Uprobes))
	s.Uprobes = append(s.Uprobes, u)
}

// List returns the uprobes of every kind that can be seen. It does not
// fail: what cannot be looked at is in Set.Unseen.
func List() *Set {
	s := &Set{}
	if err := listLinks(s); err != nil {
		s.Unseen = append(s.Unseen, fmt.Errorf("BPF links: %w", err))
	}
	if err := listPerfEvents(s); err != nil {
		s.Unseen = append(s.Unseen, fmt.Errorf("perf events: %w", err))
	}
	if err := listTracefs(s); err != nil {
		s.Unseen = append(s.Unseen, fmt.Errorf("tracefs uprobe events: %w", err))
	}
	return s
}

// identify sets u.ID from the file at path, as this process reaches it.
func identify(u *Uprobe, path string) {
	st, err := os.Stat(path)
	if err != nil {
		return
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		u.ID = process.FileID{Dev: uint64(sys.Dev), Inode: sys.Ino}
		u.Known = true
	}
}
