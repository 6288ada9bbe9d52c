package tracefs

import (
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sdtkit/sdtkit/internal/testdemo"
	"github.com/sdtkit/sdtkit/internal/testenv"
	"github.com/sdtkit/sdtkit/pkg/elfwriter"
	"github.com/sdtkit/sdtkit/pkg/fixture"
	"github.com/sdtkit/sdtkit/pkg/hit"
	"github.com/sdtkit/sdtkit/pkg/probe"
	"github.com/sdtkit/sdtkit/pkg/probespec"
	"golang.org/x/sys/unix"
)

// native writes a program of the host's machine with the demo's probes,
// two sites each, guarded by semaphores (see testdemo.Native).
func native(t *testing.T) string {
	t.Helper()
	src, err := os.ReadFile("../stapsdt/testdata/demo.d")
	if err != nil {
		t.Fatal(err)
	}
	return testdemo.Native(t, string(src), fixture.Options{Type: elfwriter.Exec, Semaphores: true, Sites: 2})
}

// Sites that share events, and sites with events of their own, as on
// kernels before 5.7, give the same events: the two sites of tick, which
// fire only while its semaphore is raised, on each of 3 iterations
// (-1000, -2000, -3000).
func TestTraceEvents(t *testing.T) {
	testenv.RequireUprobes(t)
	prog := native(t)
	want := []int64{-3000, -3000, -2000, -2000, -1000, -1000}
	for _, perSite := range []bool{false, true} {
		tr, err := Open(sitesOf(t, prog+":demo:tick"), &TraceOptions{PerSite: perSite, FlushInterval: 10 * time.Millisecond})
		if err != nil {
			t.Fatalf("Open(PerSite %v): %v", perSite, err)
		}
		if out, err := exec.Command(prog, "3", "1").CombinedOutput(); err != nil {
			t.Fatalf("%s: %v: %s", prog, err, out)
		}
		var got []int64
		var ev hit.Event
		stop := time.AfterFunc(10*time.Second, tr.Stop) // Read then ends with io.EOF
		for len(got) < len(want) {
			if err := tr.Read(&ev); err == io.EOF {
				break
			} else if err != nil {
				t.Fatalf("Read(PerSite %v): %v", perSite, err)
			}
			if len(ev.Args) != 1 {
				t.Fatalf("PerSite %v: event with %d arguments", perSite, len(ev.Args))
			}
			got = append(got, int64(ev.Args[0].Bits))
		}
		stop.Stop()
		tr.Stop()
		if err := tr.Close(); err != nil {
			t.Errorf("Close(PerSite %v): %v", perSite, err)
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("PerSite %v: tick values %v, want %v", perSite, got, want)
		}
	}
}

// sitesOf returns the sites of the probes spec names, each argument of
// the type its note gives.
func sitesOf(t *testing.T, spec string) []Site {
	t.Helper()
	sp, err := probespec.Parse(spec)
	if err != nil {
		t.Fatal(err)
	}
	sel, err := probe.Find([]probespec.Spec{sp}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var sites []Site
	for i, p := range sel.Probes {
		for _, j := range p.Sites {
			note := &p.Target.File.Sites[j]
			args := make([]probespec.Type, len(strings.Fields(note.Args)))
			sites = append(sites, Site{Target: p.Target, Probe: p, ProbeIndex: i, Offset: note.PCOffset, Args: args})
		}
	}
	return sites
}

// TestRemoveStaleBusy checks that the group of a process gone whose
// events are still in use (its keeper still holds them as it exits) is
// left without an error, and removed once they are not.
func TestRemoveStaleBusy(t *testing.T) {
	testenv.RequireUprobes(t)
	dir, err := Mount()
	if err != nil {
		t.Skip("requires tracefs:", err)
	}
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Skip("requires true:", err)
	}
	group := OwnerGroup(gone.Process.Pid)
	s := sitesOf(t, native(t)+":demo:start")[0]
	note := &s.Target.File.Sites[s.Probe.Sites[0]]
	d, err := Define(note, s.Target.File.Machine, s.Target.Path, group, "start", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := Add(dir, []*Definition{d}); err != nil {
		t.Fatal(err)
	}
	defer RemoveGroup(dir, group)
	f, err := ReadFormat(dir, group, "start")
	if err != nil {
		t.Fatal(err)
	}
	fd, err := openEvent(f.ID, -1, 0, false, 1, &sampling{})
	if err != nil {
		t.Fatal(err)
	}
	removed, err := RemoveStale(dir, os.Getpid())
	if err != nil || slices.Contains(removed, group) {
		t.Errorf("RemoveStale with the group in use = %v, %v, want it left and no error", removed, err)
	}
	unix.Close(fd)
	removed, err = RemoveStale(dir, os.Getpid())
	if err != nil || !slices.Contains(removed, group) {
		t.Errorf("RemoveStale once unused = %v, %v, want %s removed", removed, err, group)
	}
}
