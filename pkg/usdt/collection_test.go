package usdt_test

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/rlimit"

	"github.com/sdtkit/sdtkit/pkg/usdt"
)

// TestLoadCollection loads forms_bpfel.o through LoadCollection, its
// map of specs declared with room for one spec, and attaches two of its
// programs to the three sites of a probe each: the map is sized for the
// six, and every hit reads the values of the manifest with the cookie
// of its attachment.
func TestLoadCollection(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skipf("requires root (euid %d)", os.Geteuid())
	}
	if err := rlimit.RemoveMemlock(); err != nil {
		t.Fatal(err)
	}
	spec, err := ebpf.LoadCollectionSpec("testdata/forms_bpfel.o")
	if err != nil {
		t.Fatal(err)
	}
	delete(spec.Programs, "forms_multi") // loads only where uprobe_multi links are
	spec.Maps[usdt.SpecMap].MaxEntries = 1
	path, m := fixtureFile(t)
	probes := []usdt.Probe{
		{Program: "forms", Path: path, Provider: "p", Name: "q", Options: &usdt.Options{Cookie: 3}},
		{Program: "typed", Path: path, Provider: "p", Name: "r"},
	}
	c, err := usdt.LoadCollection(spec, probes, nil)
	if errors.Is(err, ebpf.ErrNotSupported) {
		t.Skipf("requires kernel 5.15 (due to missing BPF cookies): %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if spec.Maps[usdt.SpecMap].MaxEntries != 1 {
		t.Errorf("LoadCollection changed the spec")
	}
	if n := c.Collection.Maps[usdt.SpecMap].MaxEntries(); n < 6 {
		t.Errorf("%s: %d entries, want at least 6", usdt.SpecMap, n)
	}
	if len(c.Links) != 2 || c.Links[0].Sites() != 3 || c.Links[1].Sites() != 3 {
		t.Fatalf("LoadCollection: %d links, want 2 of 3 sites each", len(c.Links))
	}
	out, err := exec.Command(path, "3", "1").CombinedOutput()
	if err != nil {
		t.Fatal(err)
	}
	if want := "1 p:q p:q p:q p:r p:r p:r\n"; !strings.HasPrefix(string(out), want) {
		t.Fatalf("output %q, want it to begin with %q: semaphores not raised", out, want)
	}
	q, r := &m.Probes[0], &m.Probes[1]
	for n, h := range readAll[hit](t, c.Collection.Maps["hits"], 9) {
		s := &q.Sites[n%3]
		if h.Cookie != 3 || int(h.Cnt) != len(q.Args) {
			t.Errorf("hit %d: cookie %d, %d arguments, want 3 and %d", n, h.Cookie, h.Cnt, len(q.Args))
		}
		if want := s.Values[n/3][0]; h.Err[0] != 0 || h.Val[0] != want.(int64) {
			t.Errorf("hit %d: arg0 = %d (error %d), want %v", n, h.Val[0], h.Err[0], want)
		}
	}
	for j, h := range readAll[typedHit](t, c.Collection.Maps["typed_hits"], 9) {
		want := r.Sites[j%3].Values[j/3]
		if h.A != want[0].(int64) || cstr(h.S[:]) != want[1] {
			t.Errorf("BPF_USDT(typed, int a, char *s) hit %d: a=%d s=%q, want %v %q", j, h.A, cstr(h.S[:]), want[0], want[1])
		}
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestLoadCollectionErrors checks that LoadCollection refuses, before
// loading anything, a program the spec does not have and a probe of no
// file and no process.
func TestLoadCollectionErrors(t *testing.T) {
	spec, err := ebpf.LoadCollectionSpec("testdata/forms_bpfel.o")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		probe usdt.Probe
		want  string
	}{
		{usdt.Probe{Program: "nope", Path: "/bin/sh", Provider: "p", Name: "q"}, `no program "nope"`},
		{usdt.Probe{Program: "forms", Provider: "p", Name: "q"}, "forms: no file and no process"},
	} {
		c, err := usdt.LoadCollection(spec, []usdt.Probe{tt.probe}, nil)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			if c != nil {
				c.Close()
			}
			t.Errorf("LoadCollection(%+v) = %v, want an error containing %q", tt.probe, err, tt.want)
		}
	}
}
