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

// journalFile is the record of one process.
type journalFile struct {
	Attacher      int       `json:"attacher"`
	AttacherStart uint64    `json:"attacher_start"` // so that a reused pid is told apart
	Uprobes       []Planned `json:"uprobes"`
}

// A Journal records the uprobes this process attaches, before it
// attaches them, so that should it be killed while the kernel registers
// them (the registration then fails part way, and so does its rollback,
// leaving breakpoints and raised semaphores with no uprobe behind them),
// a repair knows which sites and semaphores were its. The record is
// removed once the uprobes are let go.
type Journal struct {
	path string
	rec  journalFile
}

// NewJournal returns the journal of this process, empty; it writes
// nothing until Add.
func NewJournal() (*Journal, error) {
	start, err := process.StartTime(os.Getpid())
	if err != nil {
		return nil, err
	}
	return &Journal{
		path: filepath.Join(Dir, strconv.Itoa(os.Getpid())+".json"),
		rec:  journalFile{Attacher: os.Getpid(), AttacherStart: start},
	}, nil
}

// Add records uprobes about to be attached.
func (j *Journal) Add(p Planned) error {
	j.rec.Uprobes = append(j.rec.Uprobes, p)
	if err := jsonfile.Write(j.path, &j.rec); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	return nil
}

// Remove removes the record, once every uprobe recorded is let go.
func (j *Journal) Remove() error {
	j.rec.Uprobes = nil
	if err := os.Remove(j.path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("journal: %w", err)
	}
	return nil
}

// A Left is what a process that is gone recorded in its journal.
type Left struct {
	Attacher int // its pid, gone
	Uprobes  []Planned
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
		if start, err := process.StartTime(rec.Attacher); err == nil && start == rec.AttacherStart {
			continue // still runs
		}
		out = append(out, Left{Attacher: rec.Attacher, Uprobes: rec.Uprobes})
	}
	return out, nil
}
