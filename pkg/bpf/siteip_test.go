package bpf

import (
	"errors"
	"os/exec"
	"testing"
	"time"
)

// byAddress are the modes that tell the sites apart by their address,
// reading strings: on a kernel without BPF cookies, every such mode.
func byAddress() []mode {
	old := kernelBefore(5, 15)
	var ms []mode
	for _, m := range modes {
		if m.noCookies != old && !m.noStrings {
			ms = append(ms, m)
		}
	}
	return ms
}

// TestAddressClash checks that, by address, the sites of two
// executables that are not position-independent and have sites at the
// same addresses are refused, the second attached, as what cannot be
// told apart, and that the first is traced as before.
func TestAddressClash(t *testing.T) {
	requireRoot(t)
	a, b := buildC(t, "fx", "-no-pie"), buildC(t, "fx", "-no-pie")
	for _, m := range byAddress() {
		t.Run(m.name, func(t *testing.T) {
			p := load(t, m.options(Options{}))
			ssa, _ := sites(t, a, nil)
			ssb, _ := sites(t, b, nil)
			if err := p.Attach(a, ssa); err != nil {
				t.Fatalf("Attach(a): %v", err)
			}
			if err := p.Attach(b, ssb); !errors.Is(err, ErrNoCookies) || !errors.Is(err, ErrNotSupported) {
				t.Fatalf("Attach(b at a's addresses) = %v, want ErrNoCookies and ErrNotSupported", err)
			}
			ch := events(t, p)
			run(t, b, "2")
			cmd := run(t, a, "2")
			for _, ev := range collect(t, ch, cmd.Process.Pid, 4) {
				if int(ev.Site) >= len(ssa) {
					t.Errorf("event of site %d, want one of a's %d", ev.Site, len(ssa))
				}
			}
			if ev, ok := another(ch, 100*time.Millisecond); ok {
				t.Errorf("event %+v after a's 4", ev)
			}
			if n, err := p.Skipped(); n != 0 || err != nil {
				t.Errorf("Skipped() = %d, %v, want 0, nil", n, err)
			}
		})
	}
}

// TestRelocate checks that the sites of a position-independent file
// attached in a process that does not map it yet, a shell that then
// executes it, are found once Relocate has read where the process maps
// it: before, its hits are skipped, as of no known site.
func TestRelocate(t *testing.T) {
	requireRoot(t)
	exe := buildFixture(t)
	for _, m := range byAddress() {
		t.Run(m.name, func(t *testing.T) {
			cmd := exec.Command("sh", "-c", `read x; exec "$0" 0 10`, exe)
			in, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				cmd.Process.Kill()
				cmd.Wait()
			})
			p := load(t, m.options(Options{PID: cmd.Process.Pid}))
			ss, f := sites(t, exe, nil)
			if err := p.Attach(exe, ss); err != nil {
				t.Fatalf("Attach: %v", err)
			}
			ch := events(t, p)
			in.Write([]byte("\n"))
			waitExec(t, cmd.Process.Pid, exe)
			for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
				if n, _ := p.Skipped(); n > 0 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("no hit skipped before Relocate")
				}
			}
			if ev, ok := another(ch, 0); ok {
				t.Fatalf("event %+v before Relocate", ev)
			}
			if err := p.Relocate(); err != nil {
				t.Fatalf("Relocate: %v", err)
			}
			n := map[string]int{}
			for _, ev := range collect(t, ch, cmd.Process.Pid, 4) {
				n[f.Sites[ev.Probe].Name]++
			}
			if n["all"] != 2 || n["glob"] != 2 {
				t.Errorf("events per probe after Relocate = %v, want 2 each", n)
			}
		})
	}
}

// another returns an event that ch has within d, if any.
func another(ch <-chan Event, d time.Duration) (Event, bool) {
	select {
	case ev, ok := <-ch:
		return ev, ok
	case <-time.After(d):
		return Event{}, false
	}
}
