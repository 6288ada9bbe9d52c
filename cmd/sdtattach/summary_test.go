package main

import (
	"bytes"
	"debug/elf"
	"log"
	"runtime"
	"testing"

	"github.com/sdtkit/sdtkit/pkg/argspec"
	"github.com/sdtkit/sdtkit/pkg/bpf"
)

func TestSummary(t *testing.T) {
	p := &probe{target: &target{name: "prog"}, provider: "p", name: "q", events: 5}
	for _, tt := range []struct {
		events, lost, skipped uint64
		want                  string
	}{
		{5, 0, 0, "sdtattach: 5 events, 0 lost\nsdtattach: prog:p:q: 5 events\n"},
		{5, 2, 0, "sdtattach: 5 events, 2 lost\nsdtattach: prog:p:q: 5 events\n"},
		{5, 0, 3, "sdtattach: 5 events, 0 lost\n" +
			"sdtattach: 3 probe hits made no event (nested more than 4 deep on a CPU, or of an unknown site)\n" +
			"sdtattach: prog:p:q: 5 events\n"},
	} {
		var buf bytes.Buffer
		out := &output{events: tt.events, lost: tt.lost, skipped: tt.skipped}
		summary(log.New(&buf, "sdtattach: ", 0), out, []*probe{p})
		if got := buf.String(); got != tt.want {
			t.Errorf("summary(%d events, %d lost, %d skipped) = %q, want %q", tt.events, tt.lost, tt.skipped, got, tt.want)
		}
	}
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
		var atts []attachment
		for _, specs := range tt.specs {
			var a attachment
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
