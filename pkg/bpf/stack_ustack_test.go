package bpf

import (
	"debug/elf"
	"encoding/binary"
	"sort"
	"testing"

	"github.com/sdtkit/sdtkit/pkg/stapsdt"
)

// TestUStack checks the user stacks of a probe reached by two call
// chains, in a program built with frame pointers: each event's stack
// starts at the probe and names, by the program's symbols, inner, then
// outer or other, then main.
func TestUStack(t *testing.T) {
	requireRoot(t)
	exe := buildC(t, "calls", "-O0", "-fno-omit-frame-pointer", "-no-pie")
	for _, perSite := range []bool{false, true} {
		t.Run(map[bool]string{false: "uprobe_multi", true: "uprobe"}[perSite], func(t *testing.T) {
			p := load(t, Options{PerSite: perSite, UStack: MaxStack})
			ss, f := sites(t, exe, func(*stapsdt.Site) ArgMask { return 0 })
			pc := f.Sites[0].PC // a non-PIE executable: its run-time address
			if err := p.Attach(exe, ss); err != nil {
				t.Fatalf("Attach: %v", err)
			}
			ch := events(t, p)
			cmd := run(t, exe)
			evs := collect(t, ch, cmd.Process.Pid, 10)
			syms := funcSymbols(t, exe)
			chains := map[string]int{}
			for _, ev := range evs {
				if len(ev.Stack) == 0 || ev.Stack[0] != pc {
					t.Errorf("stack %x does not start at the probe, %#x", ev.Stack, pc)
				}
				var names []string
				for _, a := range ev.Stack {
					names = append(names, syms.name(a))
				}
				if len(names) > 3 {
					names = names[:3] // then libc's __libc_start_call_main and more
				}
				chains[join(names)]++
			}
			want := map[string]int{"inner;outer;main": 7, "inner;other;main": 3}
			if !sameCounts(chains, want) {
				t.Errorf("stacks %v, want %v", chains, want)
			}
		})
	}
}

// TestUStackCopy checks the copies of the user stack of the calls
// fixture by each build that takes them, on every kernel the build loads
// on (the verifiers of older kernels bound the read of each page less
// well): each starts at the probe's stack pointer, holds the return
// address in outer or other above inner's frame, and runs to the
// requested size or to the end of a page, the top of the stack.
func TestUStackCopy(t *testing.T) {
	requireRoot(t)
	exe := buildC(t, "calls", "-O0", "-fno-omit-frame-pointer", "-no-pie")
	for _, tt := range []struct {
		name string
		opts Options
	}{
		{"default", Options{}},
		{"no-faults", Options{NoFaults: true}},
		{"old", Options{noCookies: true, oldBuild: true}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			opts := tt.opts
			opts.PerSite, opts.UStackCopy = true, MaxStackCopy
			p := load(t, opts)
			ss, f := sites(t, exe, func(*stapsdt.Site) ArgMask { return 0 })
			pc := f.Sites[0].PC
			if err := p.Attach(exe, ss); err != nil {
				t.Fatalf("Attach: %v", err)
			}
			ch := events(t, p)
			cmd := run(t, exe)
			evs := collect(t, ch, cmd.Process.Pid, 10)
			syms := funcSymbols(t, exe)
			callers := map[string]int{}
			for _, ev := range evs {
				c := ev.StackCopy
				ip, sp, fp := c.Regs[0], c.Regs[1], c.Regs[2]
				if ip != pc {
					t.Errorf("copy's ip %#x, want the probe's %#x", ip, pc)
				}
				n := uint64(len(c.Bytes))
				if n > MaxStackCopy || n < MaxStackCopy && (sp+n)%4096 != 0 {
					t.Errorf("copy of %d bytes from sp %#x: neither %d nor to a page's end", n, sp, MaxStackCopy)
				}
				// inner's frame: the caller's frame pointer at fp, the
				// return address above it.
				off := fp - sp + 8
				if fp < sp || off+8 > n {
					t.Errorf("frame pointer %#x not in the copy of %d bytes from sp %#x", fp, n, sp)
					continue
				}
				callers[syms.name(binary.LittleEndian.Uint64(c.Bytes[off:]))]++
			}
			if want := map[string]int{"outer": 7, "other": 3}; !sameCounts(callers, want) {
				t.Errorf("return addresses in %v, want %v", callers, want)
			}
		})
	}
}

func join(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += ";"
		}
		out += x
	}
	return out
}

func sameCounts(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// symtab names the functions of a non-PIE executable by address.
type symtab []elf.Symbol

func funcSymbols(t *testing.T, path string) symtab {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	all, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	var s symtab
	for _, x := range all {
		if elf.ST_TYPE(x.Info) == elf.STT_FUNC && x.Value != 0 {
			s = append(s, x)
		}
	}
	sort.Slice(s, func(i, j int) bool { return s[i].Value < s[j].Value })
	return s
}

func (s symtab) name(addr uint64) string {
	for _, x := range s {
		if x.Value <= addr && addr < x.Value+x.Size {
			return x.Name
		}
	}
	return "?"
}

// TestAggUStack counts the hits of the same probe by user stack and pid
// in the kernel: two entries of the program's pid, 7 and 3 hits, whose
// stacks name inner, then outer or other, then main; then the same
// stacks cut at two frames.
func TestAggUStack(t *testing.T) {
	requireRoot(t)
	exe := buildC(t, "calls", "-O0", "-fno-omit-frame-pointer", "-no-pie")
	syms := funcSymbols(t, exe)
	for _, tt := range []struct {
		name  string
		depth int
		want  map[string]int
	}{
		{"all frames", 0, map[string]int{"inner;outer;main": 7, "inner;other;main": 3}},
		{"two frames", 2, map[string]int{"inner;outer": 7, "inner;other": 3}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a := &Aggregation{Mode: AggCount, Parts: []PartKind{PartUStack, PartPID}, Probes: []AggProbe{{}}, StackDepth: tt.depth, MaxKeys: 64}
			p := load(t, Options{Aggregate: a})
			ss, f := sites(t, exe, func(*stapsdt.Site) ArgMask { return 0 })
			if err := p.Attach(exe, ss); err != nil {
				t.Fatalf("Attach: %v", err)
			}
			cmd := run(t, exe)
			chains := map[string]int{}
			err := p.Collect(func(e *AggEntry) {
				if e.Lost || e.Parts[1].Bits != uint64(cmd.Process.Pid) {
					return
				}
				if e.StackErr != nil {
					t.Errorf("%d hits without their stack: %v", e.Count, e.StackErr)
					return
				}
				if len(e.Stack) == 0 || e.Stack[0] != f.Sites[0].PC {
					t.Errorf("stack %x does not start at the probe, %#x", e.Stack, f.Sites[0].PC)
				}
				if tt.depth > 0 && len(e.Stack) > tt.depth {
					t.Errorf("stack %x: more than %d frames", e.Stack, tt.depth)
				}
				var names []string
				for _, a := range e.Stack[:min(3, len(e.Stack))] {
					names = append(names, syms.name(a))
				}
				chains[join(names)] += int(e.Count)
			})
			if err != nil {
				t.Fatalf("Collect: %v", err)
			}
			if !sameCounts(chains, tt.want) {
				t.Errorf("stacks %v, want %v", chains, tt.want)
			}
		})
	}
}
