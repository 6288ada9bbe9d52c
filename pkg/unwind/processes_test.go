package unwind

import (
	"strings"
	"testing"

	"github.com/sdtkit/sdtkit/pkg/symbolize"
)

// TestProcessesRefresh unwinds, and symbolizes, the stack chain.c copies
// once the process has exited and been reaped: the maps Refresh read
// while it ran stay, and its files are read by their paths. Processes
// that read no maps while it ran give the probe's address alone.
func TestProcessesRefresh(t *testing.T) {
	fx := buildChain(t, false)
	cmd, stdin, st := snapshot(t, fx)
	pid := cmd.Process.Pid

	ps := NewProcesses(nil, 4)
	syms := symbolize.NewProcesses(symbolize.NewCache(nil, 0), 4)
	for _, refresh := range []func(int) error{ps.Refresh, syms.Refresh} {
		if err := refresh(pid); err != nil {
			t.Fatalf("Refresh(%d): %v", pid, err)
		}
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	if err := ps.Refresh(pid); err == nil {
		t.Errorf("Refresh(%d) of a process reaped = nil, want an error", pid)
	}

	pcs := ps.Unwind(nil, pid, st, 64)
	var names []string
	for _, f := range syms.Frames(nil, pid, pcs) {
		names = append(names, f.Sym)
	}
	want := "leaf;lib_inner;lib_mid;middle;outer;main;"
	if got := strings.Join(names, ";"); !strings.HasPrefix(got, want) || len(names) < 7 || !strings.Contains(names[6], "libc_start") {
		t.Errorf("stack of a process gone %s, want it to start %s and reach the C library's start", got, want)
	}
	if pcs := NewProcesses(nil, 4).Unwind(nil, pid, st, 64); len(pcs) != 1 || pcs[0] != st.PC {
		t.Errorf("Unwind of a process gone, its maps never read = %#x, want the PC %#x alone", pcs, st.PC)
	}
}
