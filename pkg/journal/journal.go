package journal

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/sdtkit/sdtkit/internal/jsonfile"
	"github.com/sdtkit/sdtkit/pkg/process"
)

// Dir is where a Journal records the uprobes its process attaches,
// one file per process.
var Dir = "/run/sdtkit/uprobes"

// A Planned is the uprobes of one attach: sites of one file, in every
// process that maps it, or in one.
type Planned struct {
	Path  string `json:"path"`
	Dev   uint64 `json:"dev"`
	Inode uint64 `json:"inode"`
	// Ctime is the file's status change time in ns (stat's st_ctim),
	// 0 if unknown: another file given the inode of one deleted has
	// another.
	Ctime int64 `json:"ctime,omitempty"`
	// PID is the one process attached, as the attaching process's PID
	// namespace numbers it; 0 for every process that maps the file.
	PID           int      `json:"pid,omitempty"`
	Offsets       []uint64 `json:"offsets"`
	RefCtrOffsets []uint64 `json:"ref_ctr_offsets,omitempty"` // in step with Offsets, 0 for none
}

// RefCtr returns the reference counter's offset of the site at file
// offset off, and whether the uprobes have that site.
func (p *Planned) RefCtr(off uint64) (uint64, bool) {
	for i, o := range p.Offsets {
		if o == off {
			if i < len(p.RefCtrOffsets) {
				return p.RefCtrOffsets[i], true
			}
			return 0, true
		}
	}
	return 0, false
}

// A Guarded is a process a stop guard lets run on should its tracer die
// while it is stopped: one process, or the processes of a cgroup.
type Guarded struct {
	PID   int    `json:"pid,omitempty"`
	Start uint64 `json:"start,omitempty"` // of PID, so that a reused pid is told apart
	// Cgroup is the directory of a cgroup v2 whose processes are
	// guarded, "" for PID alone.
	Cgroup string `json:"cgroup,omitempty"`
}

// journalFile is the record of one process.
type journalFile struct {
	Attacher      int       `json:"attacher"`
	AttacherStart uint64    `json:"attacher_start"` // so that a reused pid is told apart
	Uprobes       []Planned `json:"uprobes,omitempty"`
	Guard         *Guarded  `json:"guard,omitempty"`
}

// A Journal records the uprobes this process is about to attach, until
// the kernel has made them, so that should it be killed while the kernel
// registers them (the registration then fails part way, and so does its
// rollback, leaving breakpoints and raised semaphores with no uprobe
// behind them), a repair knows which sites and semaphores were its.
// Made uprobes need no record: a process that holds them by descriptor
// lets them go as it exits, which no signal interrupts. A stop guard
// records the processes it guards too. The record of a process is
// removed once it has nothing to record.
type Journal struct {
	path string
	rec  journalFile
}

// NewJournal returns the journal of this process, empty; it writes
// nothing until Add or Guard. Its file is named after the pid and start
// time of the process, so that a process given the same pid later keeps
// a record of its own.
func NewJournal() (*Journal, error) {
	pid := os.Getpid()
	start, err := process.StartTime(pid)
	if err != nil {
		return nil, err
	}
	return &Journal{
		path: filepath.Join(Dir, strconv.Itoa(pid)+"."+strconv.FormatUint(start, 10)+".json"),
		rec:  journalFile{Attacher: pid, AttacherStart: start},
	}, nil
}

// Add records uprobes about to be attached.
func (j *Journal) Add(p Planned) error {
	j.rec.Uprobes = append(j.rec.Uprobes, p)
	return j.save()
}

// Attached records that the uprobes added are made, or their
// registration failed and was rolled back, in a process that lives on:
// no repair can need them.
func (j *Journal) Attached() error {
	if len(j.rec.Uprobes) == 0 {
		return nil
	}
	j.rec.Uprobes = nil
	return j.save()
}

// Guard records the processes a stop guard guards.
func (j *Journal) Guard(g Guarded) error {
	j.rec.Guard = &g
	return j.save()
}

// Remove removes the record: the process has nothing left to record.
func (j *Journal) Remove() error {
	j.rec.Uprobes, j.rec.Guard = nil, nil
	return j.save()
}

func (j *Journal) save() error {
	if len(j.rec.Uprobes) == 0 && j.rec.Guard == nil {
		if err := os.Remove(j.path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("journal: %w", err)
		}
		return nil
	}
	if err := jsonfile.Write(j.path, &j.rec); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	return nil
}

// A Left is what a process that is gone recorded in its journal: the
// uprobes it was attaching when it was killed, and what it guarded.
type Left struct {
	Attacher int // its pid, gone
	Uprobes  []Planned
	Guard    *Guarded
	path     string
}

// Remove removes the record, once what it tells is repaired.
func (l *Left) Remove() error {
	if err := os.Remove(l.path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("journal: %w", err)
	}
	return nil
}

// Lefts returns the journals of the processes that are gone without
// removing them: those killed, which may have left sites armed and
// semaphores raised.
func Lefts() ([]Left, error) {
	ents, err := os.ReadDir(Dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("journals: %w", err)
	}
	var out []Left
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		path := filepath.Join(Dir, e.Name())
		b, err := os.ReadFile(path)
		if err != nil {
			continue // removed since
		}
		var rec journalFile
		if err := json.Unmarshal(b, &rec); err != nil {
			return nil, fmt.Errorf("journal %s: %w", path, err)
		}
		if alive(rec.Attacher, rec.AttacherStart) {
			continue
		}
		out = append(out, Left{Attacher: rec.Attacher, Uprobes: rec.Uprobes, Guard: rec.Guard, path: path})
	}
	return out, nil
}

// alive reports whether process pid, started at start, still runs: a
// zombie, which its parent has not waited for yet, does not.
func alive(pid int, start uint64) bool {
	if s, err := process.StartTime(pid); err != nil || s != start {
		return false
	}
	return !errors.Is(process.Exists(pid), process.ErrNoProcess)
}
