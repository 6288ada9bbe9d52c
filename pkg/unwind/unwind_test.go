package unwind

import (
	"debug/elf"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/sdtkit/sdtkit/pkg/symbolize"
)

// TestUnwindSnapshot unwinds the stack chain.c copies in leaf, in a
// program with frame pointers calling a library without them, and the
// reverse: the stack names leaf, the library's two functions, middle,
// outer and main, then the C library's frames that call main.
func TestUnwindSnapshot(t *testing.T) {
	for _, progFP := range []bool{true, false} {
		t.Run(map[bool]string{true: "prog-fp", false: "lib-fp"}[progFP], func(t *testing.T) {
			fx := buildChain(t, progFP)
			cmd, _, st := snapshot(t, fx)
			p, err := NewProcess(cmd.Process.Pid, nil)
			if err != nil {
				t.Fatal(err)
			}
			pcs, err := Unwind(nil, elf.EM_X86_64, st, p, 64)
			if err != nil {
				t.Fatal(err)
			}
			names := frameNames(t, cmd.Process.Pid, pcs)
			t.Logf("stack %s", strings.Join(names, ";"))
			want := "leaf;lib_inner;lib_mid;middle;outer;main;"
			if got := strings.Join(names, ";"); !strings.HasPrefix(got, want) {
				t.Fatalf("stack %s, want it to start %s", got, want)
			}
			if len(names) < 7 || !strings.Contains(names[6], "libc_start") {
				t.Errorf("stack %v does not reach the C library's start", names)
			}
		})
	}
}

func le(b []byte) uint64 { return binary.LittleEndian.Uint64(b) }

func frameNames(t *testing.T, pid int, pcs []uint64) []string {
	t.Helper()
	sp, err := symbolize.NewProcess(pid, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range sp.Frames(pcs) {
		names = append(names, f.Sym)
	}
	return names
}
