package uprobes

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sdtkit/sdtkit/internal/testdemo"
	"github.com/sdtkit/sdtkit/internal/testenv"
	"github.com/sdtkit/sdtkit/pkg/bpf"
	"github.com/sdtkit/sdtkit/pkg/elfwriter"
	"github.com/sdtkit/sdtkit/pkg/fixture"
	"github.com/sdtkit/sdtkit/pkg/process"
	"github.com/sdtkit/sdtkit/pkg/stapsdt"
)

// demo is a private copy of the demo fixture: its probes are attached by
// path, which the tests of other packages must not see.
var demo string

func TestMain(m *testing.M) { testdemo.Main(m, &demo) }

func TestSamePath(t *testing.T) {
	for _, tt := range []struct {
		reported, path string
		want           bool
	}{
		{"/usr/bin/x", "/usr/bin/x", true},
		{"/proc/12/root/usr/bin/x", "/usr/bin/x", true},
		{"/proc/12/root/usr/bin/x", "/usr/bin/y", false},
		{"/proc/self/exe", "/exe", false},
		{"/usr/bin/x", "/usr/bin/x (deleted)", false},
	} {
		if got := samePath(tt.reported, tt.path); got != tt.want {
			t.Errorf("samePath(%q, %q) = %v, want %v", tt.reported, tt.path, got, tt.want)
		}
	}
}

func TestParseEvent(t *testing.T) {
	for _, tt := range []struct {
		line string
		want Uprobe
		ok   bool
	}{
		{"p:uprobes/p_demo_0x10a8 /usr/bin/demo:0x00000000000010a8", Uprobe{Kind: Tracefs, File: "/usr/bin/demo", Offset: 0x10a8, Holder: "uprobes/p_demo_0x10a8"}, true},
		{"r:g/e /a b/c:0x0000000000000010(0x3020) arg1=%ax", Uprobe{}, false},
		{"p:g/e /lib/x.so:0x0000000000000010(0x3020) arg1=%ax", Uprobe{Kind: Tracefs, File: "/lib/x.so", Offset: 0x10, RefCtrOffset: 0x3020, Holder: "g/e"}, true},
		{"r:g/e /x:0x20", Uprobe{Kind: Tracefs, File: "/x", Offset: 0x20, Holder: "g/e"}, true},
		{"p:g/e /x", Uprobe{}, false},
		{"p:g/e /x:0xzz", Uprobe{}, false},
		{"p:g/e /x:0x1(0xzz)", Uprobe{}, false},
		{"", Uprobe{}, false},
	} {
		got, ok := parseEvent(tt.line)
		if ok != tt.ok || got != tt.want {
			t.Errorf("parseEvent(%q) = %+v, %v, want %+v, %v", tt.line, got, ok, tt.want, tt.ok)
		}
	}
}

// TestTracefs reads a uprobe_events file and identifies the files.
func TestTracefs(t *testing.T) {
	dir := t.TempDir()
	abs, err := filepath.Abs(demo)
	if err != nil {
		t.Fatal(err)
	}
	events := "p:uprobes/a " + abs + ":0x00000000000010a8(0x3020)\np:uprobes/b /nonexistent/x:0x0000000000000010\n"
	if err := os.WriteFile(filepath.Join(dir, "uprobe_events"), []byte(events), 0o644); err != nil {
		t.Fatal(err)
	}
	defer func(d []string) { tracefsDirs = d }(tracefsDirs)
	tracefsDirs = []string{filepath.Join(dir, "none"), dir}
	var s Set
	if err := listTracefs(&s); err != nil {
		t.Fatalf("listTracefs: %v", err)
	}
	id := fileID(t, demo)
	if got := s.Owners(id, abs, 0x10a8); len(got) != 1 || got[0].Holder != "uprobes/a" || got[0].RefCtrOffset != 0x3020 {
		t.Errorf("Owners(demo, 0x10a8) = %v, want uprobes/a with its reference counter", got)
	}
	// A file that cannot be identified owns that offset in every file.
	if got := s.Owners(id, abs, 0x10); len(got) != 1 || got[0].Known {
		t.Errorf("Owners(demo, 0x10) = %v, want uprobes/b, of an unknown file", got)
	}
	if got := s.Owners(process.FileID{Dev: id.Dev, Inode: id.Inode + 1}, "/other", 0x10a8); len(got) != 0 {
		t.Errorf("Owners(other file, 0x10a8) = %v, want none", got)
	}
	// Known by its path alone, as another process reaches it.
	if got := s.Owners(process.FileID{}, abs, 0x10a8); len(got) != 1 {
		t.Errorf("Owners(unknown id, %s, 0x10a8) = %v, want uprobes/a", abs, got)
	}
}

func fileID(t *testing.T, path string) process.FileID {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	sys := st.Sys().(*syscall.Stat_t)
	return process.FileID{Dev: uint64(sys.Dev), Inode: sys.Ino}
}

// TestList attaches to the probes of a program of the host's machine
// both ways the bpf package does, and finds the owners of its sites;
// after Close, none.
func TestList(t *testing.T) {
	testenv.RequireUprobes(t)
	src, err := os.ReadFile("../stapsdt/testdata/demo.d")
	if err != nil {
		t.Fatal(err)
	}
	prog := testdemo.Native(t, string(src), fixture.Options{Type: elfwriter.Exec, Semaphores: true, Sites: 2})
	f, err := stapsdt.Open(prog)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(prog, "0", "10")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer cmd.Process.Kill()
	id := fileID(t, prog)
	for _, tt := range []struct {
		perSite bool
		kind    Kind
		// since is the kernel whose BPF links report the uprobe's
		// reference counter, and what brought it.
		since [2]int
		what  string
	}{
		{false, UprobeMulti, [2]int{6, 8}, "a uprobe_multi link's info"},
		{true, PerfEvent, [2]int{6, 16}, "ref_ctr_offset in a perf_event link's info"},
	} {
		t.Run(string(tt.kind), func(t *testing.T) {
			// Before, a uprobe_multi link is not listed at all, and
			// the perf event of a perf_event link is, through
			// BPF_TASK_FD_QUERY, with no reference counter: neither
			// it nor /proc/PID/fdinfo of a perf event says it.
			refCtr := !testenv.KernelBefore(tt.since[0], tt.since[1])
			if tt.kind == UprobeMulti && !refCtr {
				t.Skipf("requires kernel %d.%d (%s)", tt.since[0], tt.since[1], tt.what)
			}
			p, err := bpf.Load(&bpf.Options{PerSite: tt.perSite, NoStrings: true, FlushInterval: 10 * time.Millisecond})
			if errors.Is(err, bpf.ErrNotSupported) {
				t.Skipf("requires a kernel that runs the bpf package's program: %v", err)
			}
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			var sites []bpf.Site
			for i, pr := range f.Sites {
				spec, _ := bpf.NewSpec(uint32(i), pr.PC, nil, nil)
				sites = append(sites, bpf.Site{Offset: pr.PCOffset, RefCtrOffset: pr.SemaphoreOffset, Spec: spec})
			}
			if err := p.Attach(prog, sites); err != nil {
				t.Fatal(err)
			}
			s := List()
			for _, e := range s.Unseen {
				t.Logf("unseen: %v", e)
			}
			for _, pr := range f.Sites {
				owners := s.Owners(id, "", pr.PCOffset)
				found := false
				for _, u := range owners {
					if u.Kind == tt.kind && u.Known && (!refCtr || u.RefCtrOffset == pr.SemaphoreOffset) {
						found = true
					}
				}
				if !found && refCtr {
					t.Errorf("Owners(%#x) = %v, want a %s uprobe with reference counter %#x", pr.PCOffset, owners, tt.kind, pr.SemaphoreOffset)
				} else if !found {
					t.Errorf("Owners(%#x) = %v, want a %s uprobe", pr.PCOffset, owners, tt.kind)
				}
			}
			p.Close()
			s = List()
			for _, pr := range f.Sites {
				if owners := s.Owners(id, "", pr.PCOffset); len(owners) != 0 {
					t.Errorf("after Close: Owners(%#x) = %v, want none", pr.PCOffset, owners)
				}
			}
			if !refCtr {
				t.Skipf("reference counters not checked: requires kernel %d.%d (%s)", tt.since[0], tt.since[1], tt.what)
			}
		})
	}
}

// TestPrivateTracefs reads tracefs where it is not mounted: it is
// mounted for one thread alone, and no mount is left behind.
func TestPrivateTracefs(t *testing.T) {
	testenv.RequireUprobes(t)
	dir := t.TempDir()
	defer func(d []string) { tracefsDirs = d }(tracefsDirs)
	tracefsDirs = []string{dir}
	var s Set
	if err := listTracefs(&s); err != nil {
		t.Fatalf("listTracefs with tracefs at no known place: %v", err)
	}
	info, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(info), dir) {
		t.Errorf("%s is still mounted in this process's namespace", dir)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("%s holds %d entries after reading, want none", dir, len(ents))
	}
}
