package probe

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/sdtkit/sdtkit/internal/testdemo"
	"github.com/sdtkit/sdtkit/pkg/probespec"
	"github.com/sdtkit/sdtkit/pkg/process"
	"github.com/sdtkit/sdtkit/pkg/uprobes"
)

// TestLive lists a demo whose start site and loader's hook the test
// patches, and whose tick semaphore it raises, as tracers would have: the
// demo and its loader are private copies, which no other test's tracer
// patches.
func TestLive(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skipf("requires amd64 (the demo is x86-64), not %s", runtime.GOARCH)
	}
	exe, err := testdemo.Copy(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	pid := testdemo.RunPrivateLoader(t, exe, "0", "1000000")
	mem, err := process.OpenMem(pid, true)
	if err != nil {
		t.Skipf("requires the right to write the memory of a child: %v", err)
	}
	defer mem.Close()
	obj := objectOf(t, pid, exe)
	start, _ := obj.Addr(0x10a8)
	tickSema, err := obj.SemaphoreAddr(0x3022)
	if err != nil {
		t.Fatal(err)
	}
	hook, err := process.LoaderHook(pid)
	if err != nil {
		t.Fatal(err)
	}
	poke(t, mem, start, []byte{0xcc})
	poke(t, mem, hook.Addr, []byte{0xcc})
	three := binary.NativeEndian.AppendUint16(nil, 3)
	poke(t, mem, tickSema, three)
	defer poke(t, mem, start, []byte{0x90})
	defer poke(t, mem, hook.Addr, hook.Insn[:1])
	defer poke(t, mem, tickSema, []byte{0, 0})

	owning := uprobes.Uprobe{Kind: uprobes.UprobeMulti, File: obj.Path, Offset: 0x10a8, Holder: "link 7",
		ID: process.FileID{Dev: obj.Dev, Inode: obj.Inode}, Known: true}
	owned := &uprobes.Set{}
	owned.Add(owning)
	spec := func(s string) []probespec.Spec {
		sp, err := probespec.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		return []probespec.Spec{sp}
	}
	// A line is what the test checks of a site of the demo or of the
	// hook: its name, state, semaphore and owners.
	const (
		tick3    = "demo:tick not armed, semaphore 3"
		orphaned = "demo:start armed orphaned, semaphore 0"
		hookLine = process.DebugState + " armed orphaned (hook)"
	)
	for _, tt := range []struct {
		name  string
		opts  *LiveOptions
		set   *uprobes.Set
		lines []string
		errs  []string // parts of the errors, in order
	}{
		{name: "everything", set: &uprobes.Set{}, lines: []string{orphaned, tick3, tick3, hookLine}},
		{name: "owned", set: owned, lines: []string{"demo:start armed owned by uprobe_multi link 7 " + obj.Path + ":0x10a8, semaphore 0", tick3, tick3, hookLine}},
		{name: "owners unseen", set: &uprobes.Set{Unseen: []error{errors.New("no peeking")}},
			lines: []string{"demo:start armed owners unknown: cannot tell whether a uprobe owns it: no peeking, semaphore 0", tick3, tick3,
				process.DebugState + " armed owners unknown: cannot tell whether a uprobe owns it: no peeking (hook)"}},
		{name: "pattern", opts: &LiveOptions{Patterns: spec("demo:tick")}, set: &uprobes.Set{}, lines: []string{tick3, tick3}},
		{name: "file", opts: &LiveOptions{Files: spec(exe + ":demo:start")}, set: &uprobes.Set{}, lines: []string{orphaned}},
		{name: "no match", opts: &LiveOptions{Patterns: spec("demo:nomatch")}, set: &uprobes.Set{},
			errs: []string{"demo:nomatch: no probe demo:nomatch in"}},
		{name: "file not mapped", opts: &LiveOptions{Files: spec(testdemo.Source() + ":demo:*")}, set: &uprobes.Set{},
			errs: []string{fmt.Sprintf("process %d maps no %s", pid, testdemo.Source()), fmt.Sprintf("process %d: some mapped objects could not be listed", pid)}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			defer func(l func() *uprobes.Set) { listUprobes = l }(listUprobes)
			listUprobes = func() *uprobes.Set { return tt.set }
			sites, err := Live(pid, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			var lines []string
			var errs []error
			for s, err := range sites {
				if err != nil {
					errs = append(errs, err)
					continue
				}
				if s.Hook || s.Object.Inode == obj.Inode && s.Object.Dev == obj.Dev {
					lines = append(lines, line(s))
				}
			}
			if !reflect.DeepEqual(lines, tt.lines) {
				t.Errorf("Live(%v) sites:\n\t%s\nwant\n\t%s", tt.opts, strings.Join(lines, "\n\t"), strings.Join(tt.lines, "\n\t"))
			}
			if len(errs) != len(tt.errs) {
				t.Fatalf("Live(%v) errors = %v, want %q", tt.opts, errs, tt.errs)
			}
			for i, want := range tt.errs {
				if !strings.Contains(errs[i].Error(), want) {
					t.Errorf("Live(%v) error %d = %v, want one with %q", tt.opts, i, errs[i], want)
				}
			}
		})
	}

	if _, err := Live(pid, &LiveOptions{Files: spec("/nonexistent/prog:p:q")}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Live(/nonexistent/prog:p:q) = %v, want os.ErrNotExist", err)
	}
	if _, err := Live(1<<30, nil); !errors.Is(err, process.ErrNoProcess) {
		t.Errorf("Live(no such process) = %v, want process.ErrNoProcess", err)
	}
}

// line describes what TestLive checks of s.
func line(s *LiveSite) string {
	var b strings.Builder
	if s.Site.Provider != "" {
		b.WriteString(s.Site.Provider + ":")
	}
	b.WriteString(s.Site.Name)
	switch {
	case s.ArmedErr != nil:
		fmt.Fprintf(&b, " armed unknown: %v", s.ArmedErr)
	case !s.Armed:
		b.WriteString(" not armed")
	case s.OwnersErr != nil:
		fmt.Fprintf(&b, " armed owners unknown: %v", s.OwnersErr)
	case s.Orphaned:
		b.WriteString(" armed orphaned")
	default:
		b.WriteString(" armed owned by " + strings.Join(s.Owners, ", "))
	}
	if sem := s.Semaphore; sem != nil {
		if !sem.Counter() {
			fmt.Fprintf(&b, ", semaphore %+v", *sem)
		} else {
			fmt.Fprintf(&b, ", semaphore %d", sem.Value)
		}
	}
	if s.Hook {
		b.WriteString(" (hook)")
	}
	return b.String()
}

// objectOf returns the object of process pid that is the file path.
func objectOf(t *testing.T, pid int, path string) *process.Object {
	t.Helper()
	maps, err := process.ReadMaps(pid)
	if err != nil {
		t.Fatal(err)
	}
	objs := process.Objects(pid, maps)
	for i := range objs {
		if objs[i].Path == path {
			return &objs[i]
		}
	}
	t.Fatalf("process %d does not map %s", pid, path)
	return nil
}

func poke(t *testing.T, mem *process.Mem, addr uint64, b []byte) {
	t.Helper()
	if _, err := mem.WriteAt(b, int64(addr)); err != nil {
		t.Fatal(err)
	}
}
