package repair

import (
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"

	"github.com/sdtkit/sdtkit/internal/testenv"

	"github.com/sdtkit/sdtkit/internal/testdemo"
	"github.com/sdtkit/sdtkit/pkg/process"
	"github.com/sdtkit/sdtkit/pkg/stapsdt"
	"github.com/sdtkit/sdtkit/pkg/uprobes"
)

// demo is a private copy of the demo fixture, which no other test's
// tracer patches.
var demo string

func TestMain(m *testing.M) { testdemo.Main(m, &demo) }

// A liveSite is a place of the demo's process that a test patches.
type liveSite struct {
	label  string // PROVIDER:NAME, or the hook's function
	addr   uint64
	orig   byte
	file   string
	id     process.FileID
	offset uint64
}

// TestProcess patches the demo's start site, which it has run, its
// second tick site, which its semaphore at 0 keeps it from running, and
// the loader's hook, which it calls at no dlopen, and repairs them.
func TestProcess(t *testing.T) {
	testenv.RequireUprobes(t)
	if runtime.GOARCH != "amd64" {
		t.Skipf("requires amd64 (the demo is x86-64), not %s", runtime.GOARCH)
	}
	pid := testdemo.RunPrivateLoader(t, demo, "0", "1000000")
	start, tick, hook := demoSites(t, pid)
	all := []liveSite{start, tick, hook}
	mem, err := process.OpenMem(pid, true)
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	owning := func(sites ...liveSite) *uprobes.Set {
		var s uprobes.Set
		for _, ls := range sites {
			s.Add(uprobes.Uprobe{Kind: uprobes.UprobeMulti, File: ls.file, Offset: ls.offset, Holder: "link 7", ID: ls.id, Known: true})
		}
		return &s
	}
	// lists gives the sets of its calls in turn.
	lists := func(sets ...*uprobes.Set) func() *uprobes.Set {
		return func() *uprobes.Set {
			s := sets[0]
			if len(sets) > 1 {
				sets = sets[1:]
			}
			return s
		}
	}
	type result struct {
		label           string
		restored        bool
		taken           string
		hook            bool
		breakpointAfter bool
	}
	for _, tt := range []struct {
		name  string
		poke  []liveSite
		opts  Options
		list  func() *uprobes.Set // nil for uprobes.List
		err   error
		want  []result
		after []liveSite // holding a breakpoint afterwards
	}{
		{name: "nothing patched"},
		{name: "dry run", poke: all, opts: Options{DryRun: true},
			want:  []result{{label: "demo:start"}, {label: "demo:tick"}, {label: process.DebugState, hook: true}},
			after: all},
		{name: "orphans", poke: all,
			want: []result{{label: "demo:start", restored: true}, {label: "demo:tick", restored: true}, {label: process.DebugState, hook: true, restored: true}}},
		{name: "match leaves the hook", poke: all, opts: Options{Match: func(p, n string) bool { return p == "demo" }},
			want:  []result{{label: "demo:start", restored: true}, {label: "demo:tick", restored: true}},
			after: []liveSite{hook}},
		{name: "owned", poke: all, list: lists(owning(start, hook), &uprobes.Set{}),
			want:  []result{{label: "demo:tick", restored: true}},
			after: []liveSite{start, hook}},
		{name: "hook taken meanwhile", poke: []liveSite{hook}, list: lists(&uprobes.Set{}, owning(hook)),
			want:  []result{{label: process.DebugState, hook: true, taken: fmt.Sprintf("uprobe_multi link 7 %s:%#x", hook.file, hook.offset)}},
			after: []liveSite{hook}},
		{name: "unseen", poke: all, list: lists(&uprobes.Set{Unseen: []error{errors.New("no peeking")}}), err: ErrUnseen,
			after: all},
	} {
		t.Run(tt.name, func(t *testing.T) {
			defer func(l func() *uprobes.Set) { listUprobes = l }(listUprobes)
			if tt.list != nil {
				listUprobes = tt.list
			}
			for _, s := range tt.poke {
				write(t, mem, s.addr, 0xcc)
			}
			defer func() {
				for _, s := range all {
					write(t, mem, s.addr, s.orig)
				}
			}()
			rep, err := Process(pid, &tt.opts)
			if !errors.Is(err, tt.err) || tt.err == nil && err != nil {
				t.Fatalf("Process(demo) = %v, want %v", err, tt.err)
			}
			var got []result
			if rep != nil {
				for _, s := range rep.Sites {
					got = append(got, result{label: s.label(), restored: s.Restored, taken: s.Taken, hook: s.Hook})
					if s.PID != pid {
						t.Errorf("site %s: PID %d, want %d", s.label(), s.PID, pid)
					}
				}
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Process(demo) sites = %+v, want %+v", got, tt.want)
			}
			for _, s := range all {
				b := read(t, mem, s.addr)
				want := s.orig
				for _, a := range tt.after {
					if a.addr == s.addr {
						want = 0xcc
					}
				}
				if b != want {
					t.Errorf("%s at %#x holds %#x, want %#x", s.label, s.addr, b, want)
				}
			}
		})
	}
	if err := process.Exists(pid); err != nil {
		t.Errorf("the demo died: %v", err)
	}
}

// TestProcessHookFields checks what the hook's site says of it.
func TestProcessHookFields(t *testing.T) {
	testenv.RequireUprobes(t)
	if runtime.GOARCH != "amd64" {
		t.Skipf("requires amd64 (the demo is x86-64), not %s", runtime.GOARCH)
	}
	pid := testdemo.RunPrivateLoader(t, demo, "0", "1000000")
	_, _, hook := demoSites(t, pid)
	mem, err := process.OpenMem(pid, true)
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	write(t, mem, hook.addr, 0xcc)
	defer write(t, mem, hook.addr, hook.orig)
	defer func(l func() *uprobes.Set) { listUprobes = l }(listUprobes)
	listUprobes = func() *uprobes.Set { return &uprobes.Set{} }
	rep, err := Process(pid, &Options{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	want := []Site{{PID: pid, File: hook.file, Name: process.DebugState, Hook: true, Addr: hook.addr, Offset: hook.offset}}
	if !reflect.DeepEqual(rep.Sites, want) {
		t.Errorf("Process(demo) sites = %+v, want %+v", rep.Sites, want)
	}
}

// demoSites returns the start site of the demo's process, the tick site
// its semaphore guards, and the loader's hook.
func demoSites(t *testing.T, pid int) (start, tick, hook liveSite) {
	t.Helper()
	f, err := stapsdt.Open(demo)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Sites) != 3 || f.Sites[0].Name != "start" || f.Sites[2].Name != "tick" {
		t.Fatalf("the demo's sites = %+v, want start and two ticks", f.Sites)
	}
	maps, err := process.ReadMaps(pid)
	if err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(demo)
	var obj *process.Object
	objs := process.Objects(pid, maps)
	for i := range objs {
		if objs[i].Path == real {
			obj = &objs[i]
		}
	}
	if obj == nil {
		t.Fatalf("process %d does not map %s", pid, real)
	}
	at := func(p *stapsdt.Site) liveSite {
		addr, ok := obj.Addr(p.PCOffset)
		if !ok {
			t.Fatalf("%s:%s at offset %#x is not mapped", p.Provider, p.Name, p.PCOffset)
		}
		return liveSite{label: p.Provider + ":" + p.Name, addr: addr, orig: 0x90, file: obj.Path,
			id: process.FileID{Dev: obj.Dev, Inode: obj.Inode}, offset: p.PCOffset}
	}
	h, err := process.LoaderHook(pid)
	if err != nil {
		t.Fatal(err)
	}
	o := h.Object
	hook = liveSite{label: process.DebugState, addr: h.Addr, orig: h.Insn[0], file: o.Path,
		id: process.FileID{Dev: o.Dev, Inode: o.Inode}, offset: h.Offset}
	return at(&f.Sites[0]), at(&f.Sites[2]), hook
}

func write(t *testing.T, mem *process.Mem, addr uint64, b byte) {
	t.Helper()
	if _, err := mem.WriteAt([]byte{b}, int64(addr)); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, mem *process.Mem, addr uint64) byte {
	t.Helper()
	var b [1]byte
	if _, err := mem.ReadAt(b[:], int64(addr)); err != nil {
		t.Fatal(err)
	}
	return b[0]
}
