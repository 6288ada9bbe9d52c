package probe

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sdtkit/sdtkit/pkg/probespec"
	"github.com/sdtkit/sdtkit/pkg/process"
	"github.com/sdtkit/sdtkit/pkg/stapsdt"
)

const demo = "../stapsdt/testdata/demo"

func TestFind(t *testing.T) {
	sel, err := Find(specs(t, demo+":demo:tick(u64)", demo+":demo:*(s8,str)"), nil)
	if err != nil {
		t.Fatal(err)
	}
	probes := sel.Probes
	if len(probes) != 2 || probes[0].Name != "tick" || len(probes[0].Sites) != 2 || probes[1].Name != "start" {
		t.Fatalf("Find = %v", probes)
	}
	if len(sel.Targets) != 1 || sel.Sites() != 3 {
		t.Errorf("demo opened as %d targets with %d sites, want 1 with 3", len(sel.Targets), sel.Sites())
	}
	// tick keeps the types of the first specification that gives some.
	if probes[0].Spec.Types[0].String() != "u64" || probes[1].Spec.Types[0].String() != "s8" {
		t.Errorf("types = %v, %v", probes[0].Spec.Types, probes[1].Spec.Types)
	}
}

func TestFindNotFound(t *testing.T) {
	_, err := Find(specs(t, demo+":demo:tikc"), nil)
	if err == nil || !strings.Contains(err.Error(), "near matches: demo:tick") {
		t.Errorf("Find(tikc) = %v, want near matches", err)
	}
	_, err = Find(specs(t, "/nonexistent/x:p:q"), nil)
	if err == nil {
		t.Errorf("Find(missing file) = nil error")
	}
	_, err = Find(specs(t, "p:q"), nil)
	if err == nil || !strings.Contains(err.Error(), "needs a process") {
		t.Errorf("Find(p:q) without a process = %v, want it to need one", err)
	}
}

// The probes of this process's own objects are found by PROVIDER:NAME:
// the test binary maps no object with probes, which is an error.
func TestFindProcess(t *testing.T) {
	_, err := Find(specs(t, "p:q"), &Options{PID: os.Getpid()})
	if err == nil || !strings.Contains(err.Error(), "maps no object with USDT probes") {
		t.Errorf("Find(p:q) in the test process = %v", err)
	}
}

// A PATH that is a named pipe is an error at once.
func TestFindNamedPipe(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "prog")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	spec, err := probespec.Parse(fifo + ":a:b")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Find([]probespec.Spec{spec}, nil)
	if err == nil || !strings.HasSuffix(err.Error(), fifo+": is a named pipe, not an ELF file") {
		t.Errorf("Find = %v, want the named pipe refused", err)
	}
}

// The symbols of a file that became a named pipe after its notes were read
// are an error at once.
func TestSymbolsNamedPipe(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "prog")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := (&Target{Name: "prog", Path: fifo}).Symbols()
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.HasSuffix(err.Error(), "is a named pipe") {
			t.Errorf("Symbols() = %v, want the named pipe refused", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Symbols() blocks on a named pipe")
	}
}

// specs parses probe specifications for tests.
func specs(t *testing.T, ss ...string) []probespec.Spec {
	t.Helper()
	out, err := probespec.ParseAll(ss...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestNearMatches(t *testing.T) {
	names := []string{"demo:start", "demo:tick", "other:tick", "zz:unrelated"}
	for _, tt := range []struct {
		provider, name string
		want           string
	}{
		{"demo", "tikc", "demo:tick,demo:start"},
		{"dmeo", "tick", "demo:tick,other:tick"},
		{"x", "y", ""},
		{"*", "tock", "demo:tick,other:tick,demo:start,zz:unrelated"},
	} {
		got := strings.Join(nearMatches(tt.provider, tt.name, names, 5), ",")
		if got != tt.want {
			t.Errorf("nearMatches(%q, %q) = %q, want %q", tt.provider, tt.name, got, tt.want)
		}
	}
}

// A specification that leaves PROVIDER out (PATH:NAME) selects the one
// provider with a probe NAME; several are an error that lists them.
func TestFindAnyProvider(t *testing.T) {
	target := &Target{Name: "prog", File: &stapsdt.File{Sites: []stapsdt.Site{
		{Provider: "a", Name: "x"}, {Provider: "b", Name: "x"}, {Provider: "a", Name: "y"}, {Provider: "a", Name: "y"},
	}}}
	find := func(probespec.Spec) ([]*Target, error) { return []*Target{target}, nil }
	for _, tt := range []struct {
		spec  string
		sites int
		err   string
	}{
		{"/prog:y", 2, ""},
		{"usdt:/prog:{y,z}", 2, ""},
		{"/prog:x", 0, "usdt:/prog:x: x is a probe of several providers (a, b); give PROVIDER:x"},
		{"/prog:*", 0, "several providers (a, b)"},
		{"/prog:a:x", 1, ""},
		{"/prog:z", 0, "usdt:/prog:z: no probe z in prog; near matches: a:x, b:x, a:y"},
	} {
		s, err := probespec.Parse(tt.spec)
		if err != nil {
			t.Fatal(err)
		}
		probes, err := selectProbes([]probespec.Spec{s}, find)
		n := 0
		for _, p := range probes {
			n += len(p.Sites)
		}
		switch {
		case tt.err == "" && (err != nil || n != tt.sites):
			t.Errorf("selectProbes(%q) = %d sites, %v, want %d", tt.spec, n, err, tt.sites)
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("selectProbes(%q) = %v, want an error containing %q", tt.spec, err, tt.err)
		}
	}
}

// A process none of whose objects could be read is an error that says
// why, not one that it maps no probes.
func TestFindUnreadable(t *testing.T) {
	denied := errors.New("process 7: open mapped file /usr/bin/x: permission denied (needs CAP_SYS_PTRACE)")
	p := &procTargets{pid: 7, mapped: []procObject{
		{obj: &process.Object{Path: "/usr/bin/x"}, err: denied},
		{obj: &process.Object{Path: "/usr/lib/libc.so.6"}, err: errors.New("other")},
	}}
	_, err := p.find(probespec.Spec{Provider: "p", Name: "n"})
	if !errors.Is(err, denied) || !strings.Contains(err.Error(), "process 7 maps no object with USDT probes that could be read; of the 2 that could not, the first: ") {
		t.Errorf("find = %v, want the first object's error", err)
	}
	p.mapped = nil
	if _, err := p.find(probespec.Spec{Provider: "p", Name: "n"}); err == nil || err.Error() != "process 7 maps no object with USDT probes" {
		t.Errorf("find in a process without objects = %v", err)
	}
}
