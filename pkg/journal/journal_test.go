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
