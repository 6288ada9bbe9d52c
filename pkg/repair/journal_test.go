package repair

import (
	"testing"

	"github.com/sdtkit/sdtkit/pkg/journal"
	"github.com/sdtkit/sdtkit/pkg/process"
)

// TestJournaledBy checks which orphaned sites a journal of a process gone
// vouches for: its file (by identity or path), its process or every one,
// its offset with the candidate's semaphore as reference counter.
func TestJournaledBy(t *testing.T) {
	lefts := []journal.Left{
		{Attacher: 100, Uprobes: []journal.Planned{
			{Path: "/bin/a", Dev: 1, Inode: 10, PID: 7, Offsets: []uint64{0x10, 0x20, 0x30}, RefCtrOffsets: []uint64{0x400, 0, 0x400}},
		}},
		{Attacher: 200, Uprobes: []journal.Planned{
			{Path: "/bin/b", Dev: 1, Inode: 20, Offsets: []uint64{0x10}, RefCtrOffsets: []uint64{0x800}},
		}},
		{Attacher: 300, Uprobes: []journal.Planned{
			{Path: "/gone/c", Dev: 1, Inode: 30, Ctime: 77, Offsets: []uint64{0x10}, RefCtrOffsets: []uint64{0x800}},
		}},
	}
	cand := func(path string, ino, off, semaO uint64) *candidate {
		return &candidate{site: Site{File: path, Offset: off}, id: process.FileID{Dev: 1, Inode: ino}, sema: 0x1000, semaO: semaO}
	}
	for _, tt := range []struct {
		name  string
		c     *candidate
		pid   int
		want  int
		ctime int64
	}{
		{"site of pid", cand("/bin/a", 10, 0x10, 0x400), 7, 100, 0},
		{"third site", cand("/bin/a", 10, 0x30, 0x400), 7, 100, 0},
		{"other pid", cand("/bin/a", 10, 0x10, 0x400), 8, 0, 0},
		{"no reference counter", cand("/bin/a", 10, 0x20, 0x400), 7, 0, 0},
		{"other semaphore", cand("/bin/a", 10, 0x10, 0x500), 7, 0, 0},
		{"offset not journaled", cand("/bin/a", 10, 0x40, 0x400), 7, 0, 0},
		{"by path", cand("/bin/a", 99, 0x10, 0x400), 7, 100, 0},
		{"other file", cand("/bin/c", 99, 0x10, 0x400), 7, 0, 0},
		{"every process", cand("/bin/b", 20, 0x10, 0x800), 12345, 200, 0},
		{"same ctime", cand("/bin/c", 30, 0x10, 0x800), 1, 300, 77},
		{"another file had the inode", cand("/bin/c", 30, 0x10, 0x800), 1, 0, 78},
		{"ctime unknown", cand("/bin/c", 30, 0x10, 0x800), 1, 300, 0},
	} {
		if got := journaledBy(lefts, tt.c, tt.pid, tt.ctime); got != tt.want {
			t.Errorf("%s: journaledBy(pid %d) = %d, want %d", tt.name, tt.pid, got, tt.want)
		}
	}
}
