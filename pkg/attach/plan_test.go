package attach

import (
	"bytes"
	"debug/elf"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"github.com/sdtkit/sdtkit/pkg/argspec"
	"github.com/sdtkit/sdtkit/pkg/bpf"
	"github.com/sdtkit/sdtkit/pkg/probe"
	"github.com/sdtkit/sdtkit/pkg/stapsdt"
)

// manySites returns a probe of n sites in one x86-64 file whose argument
// strings alternate between args0 and args1; every site past good has no
// file offset.
func manySites(n, good int, args0, args1 string) *probe.Probe {
	return manySitesOf(elf.EM_X86_64, n, good, args0, args1)
}

// manySitesOf is manySites for a file of machine m.
func manySitesOf(m elf.Machine, n, good int, args0, args1 string) *probe.Probe {
	f := &stapsdt.File{Machine: m, Sites: make([]stapsdt.Site, n)}
	p := &probe.Probe{Target: &probe.Target{Name: "prog", File: f}, Provider: "p", Name: "q", Sites: make([]int, n)}
	for i := range f.Sites {
		args := args0
		if i%2 == 1 {
			args = args1
		}
		f.Sites[i] = stapsdt.Site{Provider: "p", Name: "q", Args: args, PC: 0x1000 + uint64(i), PCOffset: uint64(i)}
		if i >= good {
			f.Sites[i].PCOffsetErr = fmt.Errorf("pc %#x is in no PT_LOAD segment", f.Sites[i].PC)
		}
		p.Sites[i] = i
	}
	return p
}

// nativeOperands are the argument strings of two sites, in the operand
// forms of the machine whose registers the BPF program reads: in
// registers and in memory (plain), and with a floating-point register.
type nativeOperands struct {
	machine      elf.Machine
	plain, float [2]string
}

// operands returns the nativeOperands of the host, or skips t.
func operands(t *testing.T) nativeOperands {
	switch runtime.GOARCH {
	case "amd64":
		return nativeOperands{elf.EM_X86_64,
			[2]string{"-4@%edi 8@%rax", "-4@-4(%rbp) 8@8(%rsp)"},
			[2]string{"-4@%edi 8f@%xmm0", "-4@-4(%rbp) 8f@%xmm1"}}
	case "arm64":
		return nativeOperands{elf.EM_AARCH64,
			[2]string{"-4@w0 8@x1", "-4@[x29, -4] 8@[sp, 8]"},
			[2]string{"-4@w0 8f@d0", "-4@[x29, -4] 8f@d1"}}
	}
	t.Skipf("requires amd64 or arm64 (operands whose registers the BPF program reads), not %s", runtime.GOARCH)
	return nativeOperands{}
}

// The memory of a plan is that of its BPF sites, allocated once, and a
// site table entry per site: the sites that share an argument string
// share its parse and its site.
func TestPlanMemory(t *testing.T) {
	const n = 200000
	ops := operands(t)
	p := manySitesOf(ops.machine, n, n, ops.plain[0], ops.plain[1])
	var (
		atts  []Attachment
		table []*Site
	)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var stderr bytes.Buffer
	atts, table = testPlanner(&stderr).plan([]*probe.Probe{p})
	runtime.ReadMemStats(&after)

	// A BPF site and a table entry, with some slack.
	perSite := uint64(unsafe.Sizeof(bpf.Site{}) + unsafe.Sizeof(&Site{}) + 16)
	if got, limit := after.TotalAlloc-before.TotalAlloc, n*perSite+1<<20; got > limit {
		t.Errorf("plan of %d sites allocated %d bytes (%d a site), want at most %d", n, got, got/n, limit)
	}
	if len(atts) != 1 || len(atts[0].sites) != n || cap(atts[0].sites) != n || len(table) != n {
		t.Fatalf("plan gave %d attachments, %d sites (cap %d), %d table entries; want 1, %d, %d, %d",
			len(atts), len(atts[0].sites), cap(atts[0].sites), len(table), n, n, n)
	}
	if table[0] == table[1] || table[0] != table[2] || table[1] != table[n-1] {
		t.Error("sites with the same arguments do not share their site entry, or sites with others do")
	}
	if s := atts[0].sites[n-1]; s.Offset != n-1 || s.Spec.NumArgs() != 2 {
		t.Errorf("last site = offset %d, %d args; want %d, 2", s.Offset, s.Spec.NumArgs(), n-1)
	}
	if stderr.Len() > 0 {
		t.Errorf("plan reported %s", stderr.String())
	}
}

// An argument that cannot be read is reported once for the probe, and
// each of its sites shows it as null without reporting it again.
func TestPlanArgErrors(t *testing.T) {
	ops := operands(t)
	p := manySitesOf(ops.machine, 100, 100, ops.float[0], ops.float[1])
	var stderr bytes.Buffer
	_, table := testPlanner(&stderr).plan([]*probe.Probe{p})
	if c := strings.Count(stderr.String(), "floating-point register"); c != 1 {
		t.Errorf("unreadable argument reported %d times, want once:\n%s", c, stderr.String())
	}
	for i, s := range table {
		if !s.Reported.Has(1) || s.Reported.Has(0) {
			t.Fatalf("site %d: arguments noted as unreadable %#x, want only argument 1", i, s.Reported)
		}
	}
}

// Sites left out are reported one by one up to maxLeftOut, then counted.
func TestPlanLeftOut(t *testing.T) {
	p := manySites(100, 5, "-4@%edi", "8@%rax")
	var stderr bytes.Buffer
	atts, table := testPlanner(&stderr).plan([]*probe.Probe{p})
	if len(atts[0].sites) != 5 || len(table) != 5 {
		t.Errorf("plan kept %d sites, %d table entries; want 5", len(atts[0].sites), len(table))
	}
	out := stderr.String()
	if c := strings.Count(out, "left out: pc"); c != maxLeftOut {
		t.Errorf("%d sites reported left out, want %d:\n%s", c, maxLeftOut, out)
	}
	if want := fmt.Sprintf("prog: p:q: %d more sites left out\n", 95-maxLeftOut); !strings.Contains(out, want) {
		t.Errorf("stderr = %q, want it to end with %q", out, want)
	}
}

// testPlanner returns a planner that writes its warnings to w, one per
// line.
func testPlanner(w io.Writer) *planner {
	return &planner{warn: func(err error) { fmt.Fprintln(w, err) }}
}

func TestReadsStrings(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skipf("requires amd64 (the operands are x86-64), not %s", runtime.GOARCH)
	}
	args := argspec.ParseArgs("8@%rax 8@%rdx", elf.EM_X86_64)
	num, _ := bpf.NewSpec(0, 0, args, nil)
	str, _ := bpf.NewSpec(0, 0, args, &bpf.SpecOptions{Strings: 1 << 1})
	for _, tt := range []struct {
		name  string
		specs [][]bpf.Spec
		want  bool
	}{
		{"none", nil, false},
		{"numbers", [][]bpf.Spec{{num, num}, {num}}, false},
		{"a string in the second file", [][]bpf.Spec{{num}, {num, str}}, true},
	} {
		var atts []Attachment
		for _, specs := range tt.specs {
			var a Attachment
			for _, s := range specs {
				a.sites = append(a.sites, bpf.Site{Spec: s})
			}
			atts = append(atts, a)
		}
		if got := readsStrings(atts); got != tt.want {
			t.Errorf("readsStrings(%s) = %v, want %v", tt.name, got, tt.want)
		}
	}
}
