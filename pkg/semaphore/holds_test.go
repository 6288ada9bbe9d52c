package semaphore

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestHolds records holds on this process, by this process and by one
// that has exited, and checks what Holders finds and Forget leaves.
func TestHolds(t *testing.T) {
	defer func(d string) { HoldDir = d }(HoldDir)
	HoldDir = filepath.Join(t.TempDir(), "holds")
	s := &Semaphore{Pid: os.Getpid(), File: "/x", Provider: "p", Name: "n", Addr: 0x1000, Offset: 0x10}
	hold, err := NewHold(s)
	if err != nil {
		t.Fatal(err)
	}
	live, err := NewHolds()
	if err != nil {
		t.Fatal(err)
	}
	if err := live.Add(hold); err != nil {
		t.Fatal(err)
	}
	// A holder that has exited.
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skipf("requires true: %v", err)
	}
	gone := holdRecord{Holder: cmd.Process.Pid, HolderStart: 1, Holds: []Hold{hold, hold}}
	if err := writeRecord(filepath.Join(HoldDir, "gone.json"), &gone); err != nil {
		t.Fatal(err)
	}
	hs, err := Holders(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	alive := map[bool]int{}
	for _, h := range hs {
		alive[h.Alive] += len(h.Holds)
	}
	if len(hs) != 2 || alive[true] != 1 || alive[false] != 2 {
		t.Fatalf("Holders() = %+v, want one live holder with 1 hold and one gone with 2", hs)
	}
	for i := range hs {
		if h := &hs[i]; !h.Alive {
			if err := h.Forget(h.Holds[:1]); err != nil {
				t.Fatal(err)
			}
			if hs, _ := Holders(os.Getpid()); len(hs) != 2 {
				t.Errorf("after forgetting one of two holds: %d holders, want 2", len(hs))
			}
			if err := h.Forget(h.Holds[:1]); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := live.Remove(hold); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(HoldDir); len(ents) != 0 {
		t.Errorf("records left after every hold is gone: %v", ents)
	}
	// Holds of another process are not this one's.
	if hs, err := Holders(1); err != nil || len(hs) != 0 {
		t.Errorf("Holders(1) = %v, %v, want none", hs, err)
	}
}
