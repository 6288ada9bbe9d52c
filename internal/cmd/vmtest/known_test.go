package main

import (
	"strings"
	"testing"

	"github.com/sdtkit/sdtkit/internal/vmcheck"
)

func TestApplyKnown(t *testing.T) {
	defer func(k []knownFailure) { knownFailures = k }(knownFailures)
	knownFailures = []knownFailure{
		{check: "go test pkg/bpf", tests: []string{"TestSemaphore"}, when: always, why: "races"},
		{check: "go test pkg/bpf", tests: []string{"TestDemo", "TestSemaphore", "TestPIE"}, when: before(5, 15), why: "no BPF cookies"},
	}
	old := guest{kernel{version: "5.10", arch: "amd64"}, 2}
	for _, tt := range []struct {
		name string
		g    guest
		in   vmcheck.Result
		want vmcheck.Status
	}{
		{"covered", old, vmcheck.Result{Check: "go test pkg/bpf", Status: vmcheck.Fail, Failed: []string{"TestDemo", "TestPIE"}}, vmcheck.Skip},
		{"covered twice", old, vmcheck.Result{Check: "go test pkg/bpf", Status: vmcheck.Fail, Failed: []string{"TestSemaphore", "TestPIE"}}, vmcheck.Skip},
		{"one more", old, vmcheck.Result{Check: "go test pkg/bpf", Status: vmcheck.Fail, Failed: []string{"TestDemo", "TestNew"}}, vmcheck.Fail},
		{"no test named", old, vmcheck.Result{Check: "go test pkg/bpf", Status: vmcheck.Fail}, vmcheck.Fail},
		{"newer kernel", guest{kernel{version: "6.1", arch: "amd64"}, 2}, vmcheck.Result{Check: "go test pkg/bpf", Status: vmcheck.Fail, Failed: []string{"TestDemo"}}, vmcheck.Fail},
		{"passed", old, vmcheck.Result{Check: "go test pkg/bpf", Status: vmcheck.Pass}, vmcheck.Pass},
	} {
		rs := []vmcheck.Result{tt.in}
		applyKnown(tt.g, rs)
		if rs[0].Status != tt.want {
			t.Errorf("%s: applyKnown = %s (%s), want %s", tt.name, rs[0].Status, rs[0].Reason, tt.want)
		}
		if tt.want == vmcheck.Skip && !strings.HasPrefix(rs[0].Reason, "known failure: ") {
			t.Errorf("%s: reason %q", tt.name, rs[0].Reason)
		}
	}
}

func TestAppendReason(t *testing.T) {
	var lacks []string
	for _, r := range []vmcheck.Result{
		{Check: "stream-bpf", Status: vmcheck.Skip, Reason: "requires kernel 5.15 (BPF cookies): sdtattach: kernel without BPF cookies"},
		{Check: "go test pkg/bpf", Status: vmcheck.Pass, Reason: "33 passed; 35 skipped: requires kernel 6.6 (due to missing uprobe_multi)"},
		{Check: "go test pkg/tracefs", Status: vmcheck.Pass, Reason: "3 passed; 1 skipped: requires root"},
		{Check: "go test pkg/attach", Status: vmcheck.Pass, Reason: "1 passed; 2 skipped: requires kernel 6.6 (due to missing uprobe_multi)"},
		{Check: "go test pkg/bpf", Status: vmcheck.Skip, Reason: "known failure: TestSemaphore: races (exit status 1; 33 passed; 35 skipped: requires kernel 6.6 (due to missing uprobe_multi))"},
	} {
		lacks = appendReason(lacks, r)
	}
	want := "requires kernel 5.15 (BPF cookies); requires kernel 6.6 (due to missing uprobe_multi)"
	if got := strings.Join(lacks, "; "); got != want {
		t.Errorf("appendReason = %q, want %q", got, want)
	}
}

func TestKnownChecks(t *testing.T) {
	defer func(k []knownFailure) { knownFailures = k }(knownFailures)
	armOld := func(g guest) bool { return g.arch == "arm64" && before(6, 12)(g) }
	knownFailures = []knownFailure{
		{check: "ustack-dwarf-bpf", when: armOld, why: "refused"},
		{check: "go test pkg/attach", tests: []string{"TestUStackCopy"}, when: armOld, why: "refused"},
	}
	for _, tt := range []struct {
		g    guest
		want []string
	}{
		{guest{kernel{version: "6.1", arch: "arm64"}, 2}, []string{"ustack-dwarf-bpf"}},
		{guest{kernel{version: "6.12", arch: "arm64"}, 2}, nil},
		{guest{kernel{version: "6.1", arch: "amd64"}, 2}, nil},
	} {
		got := knownChecks(tt.g)
		if len(got) != len(tt.want) {
			t.Errorf("knownChecks(%s) = %v, want %v", tt.g, got, tt.want)
		}
		for _, c := range tt.want {
			if got[c] == "" {
				t.Errorf("knownChecks(%s) = %v, want %v", tt.g, got, tt.want)
			}
		}
	}
}
