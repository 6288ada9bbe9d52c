package repair

import (
	"bytes"
	"errors"
	"reflect"
	"syscall"
	"testing"

	"github.com/sdtkit/sdtkit/pkg/process"
	"github.com/sdtkit/sdtkit/pkg/uprobes"
)

// fakeMem is the memory of a process that maps b at address base.
type fakeMem struct {
	base uint64
	b    []byte
}

func (m *fakeMem) span(n int, addr int64) ([]byte, error) {
	i := addr - int64(m.base)
	if i < 0 || i+int64(n) > int64(len(m.b)) {
		return nil, syscall.EIO
	}
	return m.b[i : i+int64(n)], nil
}

func (m *fakeMem) ReadAt(p []byte, addr int64) (int, error) {
	b, err := m.span(len(p), addr)
	return copy(p, b), err
}

func (m *fakeMem) WriteAt(p []byte, addr int64) (int, error) {
	b, err := m.span(len(p), addr)
	return copy(b, p), err
}

func TestRestoreOrphans(t *testing.T) {
	defer func(l func() *uprobes.Set) { listUprobes = l }(listUprobes)
	id := process.FileID{Dev: 1, Inode: 2}
	owning := func(u uprobes.Uprobe) *uprobes.Set {
		var s uprobes.Set
		u.Kind, u.Holder = uprobes.UprobeMulti, "link 7"
		s.Add(u)
		return &s
	}
	none := &uprobes.Set{}
	onSite := uprobes.Uprobe{File: "/x", Offset: 0x10, ID: id, Known: true}
	for _, tt := range []struct {
		name        string
		mem         byte // at the site when it is restored
		hook        bool
		set, relist *uprobes.Set
		dryRun      bool
		wantMem     byte
		want        []Site // Restored and Taken of each site reported
	}{
		{"orphan", 0xcc, false, none, none, false, 0x90, []Site{{Restored: true}}},
		{"orphaned hook", 0xcc, true, none, none, false, 0x90, []Site{{Restored: true}}},
		{"dry run", 0xcc, false, none, none, true, 0xcc, []Site{{}}},
		{"owned", 0xcc, false, owning(onSite), none, false, 0xcc, nil},
		{"owned hook", 0xcc, true, owning(onSite), none, false, 0xcc, nil},
		{"owned by path", 0xcc, false, owning(uprobes.Uprobe{File: "/x", Offset: 0x10}), none, false, 0xcc, nil},
		{"owned by a file not known", 0xcc, false, owning(uprobes.Uprobe{File: "/gone", Offset: 0x10}), none, false, 0xcc, nil},
		{"another file's", 0xcc, false, owning(uprobes.Uprobe{File: "/y", Offset: 0x10, ID: process.FileID{Dev: 1, Inode: 3}, Known: true}), none, false, 0x90, []Site{{Restored: true}}},
		{"another offset's", 0xcc, false, owning(uprobes.Uprobe{File: "/x", Offset: 0x11, ID: id, Known: true}), none, false, 0x90, []Site{{Restored: true}}},
		// The kernel wrote the instruction back as its tracer detached:
		// what is there now is left.
		{"changed meanwhile", 0x55, false, none, none, false, 0x55, []Site{{Restored: true}}},
		{"taken meanwhile", 0xcc, false, none, owning(onSite), false, 0xcc, []Site{{Taken: "uprobe_multi link 7 /x:0x10"}}},
		{"taken hook", 0xcc, true, none, owning(onSite), false, 0xcc, []Site{{Taken: "uprobe_multi link 7 /x:0x10"}}},
	} {
		listUprobes = func() *uprobes.Set { return tt.relist }
		mem := &fakeMem{base: 0x1000, b: []byte{tt.mem}}
		site := Site{PID: 1, File: "/x", Provider: "p", Name: "n", Hook: tt.hook, Addr: 0x1000, Offset: 0x10}
		if tt.hook {
			site.Provider, site.Name = "", process.DebugState
		}
		cands := []candidate{{site: site, id: id, orig: []byte{0x90}, live: []byte{0xcc}}}
		rep := &Report{}
		if err := restoreOrphans(mem, cands, tt.set, tt.dryRun, rep); err != nil {
			t.Errorf("%s: restoreOrphans: %v", tt.name, err)
		}
		var want []Site
		for _, w := range tt.want {
			s := site
			s.Restored, s.Taken = w.Restored, w.Taken
			want = append(want, s)
		}
		if !reflect.DeepEqual(rep.Sites, want) {
			t.Errorf("%s: restoreOrphans sites = %+v, want %+v", tt.name, rep.Sites, want)
		}
		if mem.b[0] != tt.wantMem {
			t.Errorf("%s: memory at the site = %#x, want %#x", tt.name, mem.b[0], tt.wantMem)
		}
	}
}

// TestRestoreOrphansError checks that a site that cannot be written is
// reported as an error naming it, and left out of the report, while the
// others are restored.
func TestRestoreOrphansError(t *testing.T) {
	defer func(l func() *uprobes.Set) { listUprobes = l }(listUprobes)
	listUprobes = func() *uprobes.Set { return &uprobes.Set{} }
	mem := &fakeMem{base: 0x1000, b: []byte{0xcc}}
	cands := []candidate{
		{site: Site{Provider: "p", Name: "gone", Addr: 0x2000}, orig: []byte{0x90}, live: []byte{0xcc}},
		{site: Site{Name: process.DebugState, Hook: true, Addr: 0x1000}, orig: []byte{0xc3}, live: []byte{0xcc}},
	}
	rep := &Report{}
	err := restoreOrphans(mem, cands, &uprobes.Set{}, false, rep)
	if !errors.Is(err, syscall.EIO) || !bytes.Contains([]byte(err.Error()), []byte("p:gone at 0x2000")) {
		t.Errorf("restoreOrphans = %v, want EIO naming p:gone at 0x2000", err)
	}
	if len(rep.Sites) != 1 || !rep.Sites[0].Hook || !rep.Sites[0].Restored || mem.b[0] != 0xc3 {
		t.Errorf("restoreOrphans sites = %+v, memory %#x; want the hook restored, 0xc3", rep.Sites, mem.b[0])
	}
}
