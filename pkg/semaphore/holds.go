package semaphore

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/sdtkit/sdtkit/internal/jsonfile"
	"github.com/sdtkit/sdtkit/pkg/process"
)

// HoldDir is where Holds records the increments of its holders, one file
// per holder process.
var HoldDir = "/run/sdtkit/holds"

// A Hold is one increment a holder keeps on a semaphore of a process.
type Hold struct {
	Pid      int    `json:"pid"`
	Start    uint64 `json:"start"` // the process's start time, so that a reused pid is told apart
	Addr     uint64 `json:"addr"`
	File     string `json:"file"`
	Provider string `json:"provider"`
	Name     string `json:"name"`
	Offset   uint64 `json:"offset"`
	Dev      uint64 `json:"dev"`
	Inode    uint64 `json:"inode"`
}

// Semaphore returns the semaphore the hold is on, for Process.Add.
func (h *Hold) Semaphore() *Semaphore {
	return &Semaphore{Pid: h.Pid, File: h.File, Provider: h.Provider, Name: h.Name, Sites: 1,
		Offset: h.Offset, Addr: h.Addr, Dev: h.Dev, Inode: h.Inode, ByteOrder: binary.NativeEndian}
}

// holdRecord is the file of one holder.
type holdRecord struct {
	Holder      int    `json:"holder"`
	HolderStart uint64 `json:"holder_start"`
	Holds       []Hold `json:"holds"`
}

// Holds records the increments this process holds, so that when it is
// killed with SIGKILL and cannot undo them, Orphaned finds them and a
// repair can prove that no holder is left. Each change rewrites the
// record whole, through a rename.
type Holds struct {
	path string
	rec  holdRecord
}

// NewHolds returns the record of this process's holds, empty; it writes
// nothing until Add.
func NewHolds() (*Holds, error) {
	start, err := process.StartTime(os.Getpid())
	if err != nil {
		return nil, err
	}
	return &Holds{
		path: filepath.Join(HoldDir, strconv.Itoa(os.Getpid())+".json"),
		rec:  holdRecord{Holder: os.Getpid(), HolderStart: start},
	}, nil
}

// NewHold describes the increment of s that the caller has just made. The
// semaphore is in the byte order of this machine, as it is for every
// process this one can write to.
func NewHold(s *Semaphore) (Hold, error) {
	start, err := process.StartTime(s.Pid)
	if err != nil {
		return Hold{}, err
	}
	return Hold{Pid: s.Pid, Start: start, Addr: s.Addr, File: s.File, Provider: s.Provider, Name: s.Name,
		Offset: s.Offset, Dev: s.Dev, Inode: s.Inode}, nil
}

// Add records one increment more.
func (h *Holds) Add(hold Hold) error {
	h.rec.Holds = append(h.rec.Holds, hold)
	return h.save()
}

// Remove records that one increment like hold was undone.
func (h *Holds) Remove(hold Hold) error {
	for i, x := range h.rec.Holds {
		if x == hold {
			h.rec.Holds = append(h.rec.Holds[:i], h.rec.Holds[i+1:]...)
			return h.save()
		}
	}
	return nil
}

func (h *Holds) save() error {
	if len(h.rec.Holds) == 0 {
		if err := os.Remove(h.path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("record holds: %w", err)
		}
		return nil
	}
	return writeRecord(h.path, &h.rec)
}

func writeRecord(path string, rec *holdRecord) error {
	if err := jsonfile.Write(path, rec); err != nil {
		return fmt.Errorf("record holds: %w", err)
	}
	return nil
}

// A Holder is a process that recorded holds.
type Holder struct {
	Pid   int
	Alive bool
	Holds []Hold // on the process asked for, still running as then
	path  string
	rec   holdRecord
}

// Holders returns the recorded holders of increments on process pid, with
// whether each still runs. A holder that is gone left its holds behind.
func Holders(pid int) ([]Holder, error) {
	ents, err := os.ReadDir(HoldDir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	start, err := process.StartTime(pid)
	if err != nil {
		return nil, err
	}
	var out []Holder
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		path := filepath.Join(HoldDir, e.Name())
		b, err := os.ReadFile(path)
		if err != nil {
			continue // removed since
		}
		var rec holdRecord
		if err := json.Unmarshal(b, &rec); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		h := Holder{Pid: rec.Holder, path: path, rec: rec}
		hs, err := process.StartTime(rec.Holder)
		// A zombie, which its parent has not waited for yet, holds
		// nothing any more.
		h.Alive = err == nil && hs == rec.HolderStart && !errors.Is(process.Exists(rec.Holder), process.ErrNoProcess)
		for _, x := range rec.Holds {
			if x.Pid == pid && x.Start == start {
				h.Holds = append(h.Holds, x)
			}
		}
		if len(h.Holds) > 0 {
			out = append(out, h)
		}
	}
	return out, nil
}

// Forget removes from a gone holder's record the holds undone; the
// record goes with its last hold.
func (h *Holder) Forget(undone []Hold) error {
	left := slices.Clone(h.rec.Holds)
	for _, u := range undone {
		if i := slices.Index(left, u); i >= 0 {
			left = slices.Delete(left, i, i+1)
		}
	}
	h.rec.Holds = left
	if len(left) == 0 {
		return os.Remove(h.path)
	}
	return writeRecord(h.path, &h.rec)
}
