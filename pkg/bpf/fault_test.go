package bpf

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/sdtkit/sdtkit/pkg/stapsdt"
)

// TestFaults checks that arguments in memory the traced program has not
// read yet (a string on a page of .rodata never read, one crossing from
// a page read into one not, one on a page of a mapped file, a number on
// a page of .data) are read where the kernel runs sleepable uprobe
// programs, and are not read with NoFaults: which shows that the
// fixture's pages are not resident when its probes fire.
func TestFaults(t *testing.T) {
	requireRoot(t)
	exe := buildC(t, "fault")
	noPIE := buildC(t, "fault", "-no-pie")
	file := filepath.Join(t.TempDir(), "page")
	page := make([]byte, os.Getpagesize())
	copy(page, "from a file page")
	if err := os.WriteFile(file, page, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, m := range modes {
		for _, noFaults := range []bool{false, true} {
			name := m.name
			if noFaults {
				name += "/nofaults"
			}
			t.Run(name, func(t *testing.T) {
				p := load(t, m.options(Options{NoFaults: noFaults}))
				switch {
				case noFaults && p.Faults():
					t.Fatal("Faults() = true with NoFaults")
				case !noFaults && m.old && p.Faults():
					t.Fatal("Faults() = true with the builds for kernels without BPF cookies")
				case !noFaults && m.old:
					t.Skip("the builds for kernels without BPF cookies, before sleepable uprobes (Linux 6.0), do not fault")
				case !noFaults && !p.Faults() && kernelBefore(6, 0):
					t.Skip("requires kernel 6.0 (due to missing sleepable uprobes)")
				case !noFaults && !p.Faults():
					t.Fatal("Faults() = false on a kernel with sleepable uprobes")
				}
				strs := func(p *stapsdt.Site) ArgMask {
					if p.Name != "data" && !m.noStrings {
						return 1
					}
					return 0
				}
				ss, f := sites(t, exe, strs)
				exe := exe
				if p.ByAddress() {
					// Traced in every process it runs in: an
					// address that is one in all of them.
					exe = noPIE
					ss, f = sites(t, exe, strs)
				}
				if err := p.Attach(exe, ss); err != nil {
					t.Fatalf("Attach: %v", err)
				}
				ch := events(t, p)
				cmd := run(t, exe, file)
				evs := collect(t, ch, cmd.Process.Pid, 4)
				want := map[string]Value{
					"far":   {Kind: String, Size: 8, Str: "on a page never read"},
					"cross": {Kind: String, Size: 8, Str: "across a page boundary"},
					"file":  {Kind: String, Size: 8, Str: "from a file page"},
					"data":  {Kind: Int, Bits: 4242, Size: 8},
				}
				for _, ev := range evs {
					name := f.Sites[ev.Probe].Name
					w, a := want[name], ev.Args[0]
					delete(want, name)
					switch {
					case m.noStrings && w.Kind == String:
						// The address only, read from a register.
						if a.Kind != Uint || a.Bits == 0 {
							t.Errorf("%s = %+v, want a Uint address", name, a)
						}
						continue
					case noFaults:
						w = Value{Kind: NotRead, Size: 8}
					}
					if a.Kind == String {
						a.Bits = 0 // its address
					}
					if a != w {
						t.Errorf("%s = %+v, want %+v", name, a, w)
					}
				}
				if len(want) != 0 {
					t.Errorf("no events of %v", want)
				}
			})
		}
	}
}
