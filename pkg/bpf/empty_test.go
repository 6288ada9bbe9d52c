package bpf

import (
	"testing"

	"github.com/sdtkit/sdtkit/pkg/stapsdt"
)

// TestEmptyString checks that an empty string reads as "", on a page
// resident or not: kernels without "maccess: fix
// strncpy_from_user_nofault empty string handling" (2025; Debian's 6.12)
// have bpf_probe_read_user_str return 0 for it rather than 1.
func TestEmptyString(t *testing.T) {
	requireRoot(t)
	// Not a PIE: in every process, as here, a kernel without BPF
	// cookies tells apart by their address the sites of executables
	// only.
	exe := buildC(t, "empty", "-no-pie")
	for _, m := range modes {
		if m.noStrings {
			continue
		}
		t.Run(m.name, func(t *testing.T) {
			p := load(t, Options{PerSite: m.perSite})
			ss, _ := sites(t, exe, func(*stapsdt.Site) ArgMask { return 1<<0 | 1<<1 })
			if err := p.Attach(exe, ss); err != nil {
				t.Fatalf("Attach: %v", err)
			}
			ch := events(t, p)
			cmd := run(t, exe)
			evs := collect(t, ch, cmd.Process.Pid, 1)
			if len(evs) != 1 {
				t.Fatalf("%d events, want 1", len(evs))
			}
			for i, what := range []string{"on the stack", "on a page not read"} {
				a := evs[0].Args[i]
				if i == 1 && !p.Faults() {
					continue // not read, rightly so
				}
				if a.Kind != String || a.Str != "" {
					t.Errorf("arg%d, %s: %+v, want \"\"", i, what, a)
				}
			}
		})
	}
}
