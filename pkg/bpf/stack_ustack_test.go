package bpf

import (
	"debug/elf"
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
