package journal

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestJournal checks that a live process's record is not reported, that
// one of a process that is gone is, with what it recorded, and that
// Remove removes the record.
func TestJournal(t *testing.T) {
	Dir = t.TempDir()
	j, err := NewJournal()
	if err != nil {
		t.Fatal(err)
	}
	p := Planned{Path: "/bin/prog", Dev: 1, Inode: 2, PID: 3, Offsets: []uint64{0x10, 0x20}, RefCtrOffsets: []uint64{0, 0x400}}
	if err := j.Add(p); err != nil {
		t.Fatal(err)
	}
	if l, err := Lefts(); len(l) != 0 || err != nil {
		t.Errorf("Lefts() with the recorder alive = %v, %v, want none", l, err)
	}
	// The same record, of a process that is gone (its start time is
	// not the one recorded).
	rec := j.rec
	rec.AttacherStart++
	b, _ := json.Marshal(&rec)
	if err := os.WriteFile(filepath.Join(Dir, "gone.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := Lefts()
	if err != nil || len(l) != 1 || !reflect.DeepEqual(l[0].Uprobes, []Planned{p}) {
		t.Fatalf("Lefts() = %+v, %v, want the record of the process gone", l, err)
	}
	for _, tt := range []struct {
		off, ref uint64
		ok       bool
	}{{0x10, 0, true}, {0x20, 0x400, true}, {0x30, 0, false}} {
		if ref, ok := l[0].Uprobes[0].RefCtr(tt.off); ref != tt.ref || ok != tt.ok {
			t.Errorf("RefCtr(%#x) = %#x, %v, want %#x, %v", tt.off, ref, ok, tt.ref, tt.ok)
		}
	}
	if err := j.Remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(j.path); !os.IsNotExist(err) {
		t.Errorf("record after Remove: %v, want none", err)
	}
}

// TestJournalAttached checks that uprobes made leave no record, that a
// guard's record stays until Remove, and that a process given a pid of
// one gone does not overwrite its record.
func TestJournalAttached(t *testing.T) {
	Dir = t.TempDir()
	j, err := NewJournal()
	if err != nil {
		t.Fatal(err)
	}
	// The record of a process gone that had this pid.
	gone := journalFile{Attacher: os.Getpid(), AttacherStart: j.rec.AttacherStart - 1, Uprobes: []Planned{{Path: "/old", Offsets: []uint64{1}}}}
	b, _ := json.Marshal(&gone)
	if err := os.WriteFile(filepath.Join(Dir, "x.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := j.Add(Planned{Path: "/bin/prog", Offsets: []uint64{0x10}}); err != nil {
		t.Fatal(err)
	}
	if err := j.Attached(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(j.path); !os.IsNotExist(err) {
		t.Errorf("record once attached: %v, want none", err)
	}
	g := Guarded{PID: 42, Start: 7}
	if err := j.Guard(g); err != nil {
		t.Fatal(err)
	}
	if err := j.Add(Planned{Path: "/lib/ld.so", Offsets: []uint64{0x20}}); err != nil {
		t.Fatal(err)
	}
	if err := j.Attached(); err != nil {
		t.Fatal(err)
	}
	// As a repair sees it should this process die now.
	j.rec.AttacherStart++
	if err := j.save(); err != nil {
		t.Fatal(err)
	}
	l, err := Lefts()
	if err != nil || len(l) != 2 {
		t.Fatalf("Lefts() = %+v, %v, want 2", l, err)
	}
	var guards, uprobes int
	for _, x := range l {
		if x.Guard != nil && *x.Guard == g && len(x.Uprobes) == 0 {
			guards++
		}
		if x.Guard == nil && len(x.Uprobes) == 1 && x.Uprobes[0].Path == "/old" {
			uprobes++
		}
	}
	if guards != 1 || uprobes != 1 {
		t.Errorf("Lefts() = %+v, want the guard alone and the old record's uprobes", l)
	}
	if err := j.Remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(j.path); !os.IsNotExist(err) {
		t.Errorf("record after Remove: %v, want none", err)
	}
}
