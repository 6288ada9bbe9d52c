package attach

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sdtkit/sdtkit/internal/testdemo"
	"github.com/sdtkit/sdtkit/pkg/bpf"
	"github.com/sdtkit/sdtkit/pkg/dtrace"
	"github.com/sdtkit/sdtkit/pkg/elfwriter"
	"github.com/sdtkit/sdtkit/pkg/fixture"
	"github.com/sdtkit/sdtkit/pkg/probespec"
	"github.com/sdtkit/sdtkit/pkg/process"
)

// demo is a private copy of the demo fixture: its probes are attached by
// path, which the tests of other packages must not see.
var demo string

func TestMain(m *testing.M) { testdemo.Main(m, &demo) }

// TestResolveTypes resolves the probes of a program of the host's
// machine made from the demo's provider file, two sites each, with the
// types of specifications and of the .d file.
func TestResolveTypes(t *testing.T) {
	src, err := os.ReadFile("../stapsdt/testdata/demo.d")
	if err != nil {
		t.Fatal(err)
	}
	provs, err := dtrace.Parse("demo.d", src)
	if err != nil {
		t.Fatal(err)
	}
	prog := testdemo.Native(t, string(src), fixture.Options{Type: elfwriter.Exec, Semaphores: true, Sites: 2})
	var warnings []error
	p, err := Resolve(context.Background(), specs(t, prog+":demo:tick(u64)", prog+":demo:*(s8,str)"), &Options{
		Types: &Types{Source: "demo.d", Providers: provs},
		Warn:  func(err error) { warnings = append(warnings, err) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Attachments) != 1 || len(p.Attachments[0].sites) != 4 || len(p.Sites) != 4 || len(warnings) > 0 {
		t.Fatalf("Resolve = %d attachments, %d sites, warnings %v; want 1, 4, none", len(p.Attachments), len(p.Sites), warnings)
	}
	if n := p.Attachments[0].Semaphores(); n != 2 {
		t.Errorf("%d semaphores, want 2", n)
	}
	for i, s := range p.Attachments[0].sites {
		if s.RefCtrOffset == 0 {
			t.Errorf("site %d has no semaphore", i)
		}
	}
	// tick keeps the types of the first specification that gives some;
	// start those of the second, before those of the .d file.
	for i, s := range p.Sites {
		if s.Probe.Name != "tick" {
			continue
		}
		if got := s.Args[0].Type; got != (probespec.Type{Kind: probespec.Int, Size: 8}) {
			t.Errorf("site %d: tick arg 0 = %v", i, got)
		}
	}
	start := p.Sites[2]
	if start.Probe.Name != "start" || start.ProbeIndex != 1 || start.Args[0].Type.String() != "s8" || start.Args[1].Type.Kind != probespec.String {
		t.Errorf("start args = %+v", start.Args)
	}
	if !start.Fields || start.Args[1].Name != "arg1" {
		t.Errorf("start fields = %v, names %+v", start.Fields, start.Args)
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

func TestStatus(t *testing.T) {
	other := errors.New("attach: no permission")
	for _, tt := range []struct {
		d    []string
		err  error
		want string
	}{
		{nil, nil, ""},
		{nil, other, other.Error()},
		{[]string{"./a", "./b"}, other, other.Error()},
		{[]string{"./a", "./b"}, nil, "malformed stapsdt notes in ./a, ./b (reported above); the other probes were attached"},
	} {
		got := (&Plan{Damaged: tt.d}).Status(tt.err)
		if (got == nil) != (tt.want == "") || got != nil && got.Error() != tt.want {
			t.Errorf("Plan{Damaged: %q}.Status(%v) = %v, want %q", tt.d, tt.err, got, tt.want)
		}
	}
}

func TestAttachError(t *testing.T) {
	dir := t.TempDir()
	full := filepath.Join(dir, "full")
	noRefCtr := filepath.Join(dir, "norefctr")
	for _, d := range []string{filepath.Join(full, "format"), filepath.Join(noRefCtr, "format")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(full, "format", "ref_ctr_offset"), []byte("config:32-63\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	notSupported := fmt.Errorf("attach prog: uprobe ref_ctr_offset: %w", bpf.ErrNotSupported)
	other := errors.New("attach prog: bad address")
	defer func(old string) { uprobePMU = old }(uprobePMU)
	for _, tt := range []struct {
		pmu        string
		err        error
		semaphores bool
		want       string // in the message; "" for the error unchanged
	}{
		{filepath.Join(dir, "none"), other, false, "kernel without uprobes (CONFIG_UPROBE_EVENTS, Linux 4.17): "},
		{noRefCtr, notSupported, true, "kernel without uprobe ref_ctr_offset to raise probe semaphores (Linux 4.20): "},
		{noRefCtr, notSupported, false, ""},
		{noRefCtr, other, true, ""},
		{full, notSupported, true, ""},
	} {
		uprobePMU = tt.pmu
		got := attachError(tt.err, tt.semaphores)
		if !errors.Is(got, tt.err) {
			t.Errorf("attachError(%v, %v) with %s = %v, does not wrap it", tt.err, tt.semaphores, tt.pmu, got)
		}
		if tt.want == "" && got != tt.err || !strings.HasPrefix(got.Error(), tt.want) {
			t.Errorf("attachError(%v, %v) with %s = %q, want %q before it", tt.err, tt.semaphores, tt.pmu, got, tt.want)
		}
	}
}

// TestExitedError checks that an error of a -p process that has exited
// says so, and that other errors pass unchanged.
func TestExitedError(t *testing.T) {
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skipf("requires true: %v", err)
	}
	pid := cmd.Process.Pid
	cause := errors.New("stat executable: /proc/N/root/x: no such file or directory")
	for _, tt := range []struct {
		pid  int
		want string
	}{
		{pid, fmt.Sprintf("process %d exited while attaching", pid)},
		{os.Getpid(), cause.Error()},
		{0, cause.Error()},
	} {
		if got := exitedError(tt.pid, cause); got.Error() != tt.want {
			t.Errorf("exitedError(%d, %q) = %q, want %q", tt.pid, cause, got, tt.want)
		}
	}
	if got := exitedError(pid, nil); got != nil {
		t.Errorf("exitedError(%d, nil) = %v, want nil", pid, got)
	}
	gone := fmt.Errorf("process %d: %w", pid, process.ErrNoProcess)
	if got := exitedError(pid, gone); got != gone {
		t.Errorf("exitedError(%d, %q) = %q, want it unchanged", pid, gone, got)
	}
}
