package semaphore

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/sdtkit/sdtkit/pkg/process"
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

// TestHoldsZombie checks that a holder that has exited but is not waited
// for yet, a zombie, counts as gone: its holds are to be undone.
func TestHoldsZombie(t *testing.T) {
	defer func(d string) { HoldDir = d }(HoldDir)
	HoldDir = filepath.Join(t.TempDir(), "holds")
	s := &Semaphore{Pid: os.Getpid(), File: "/x", Provider: "p", Name: "n", Addr: 0x1000, Offset: 0x10}
	hold, err := NewHold(s)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sh", "-c", "exit 0")
	if err := cmd.Start(); err != nil {
		t.Skipf("requires sh: %v", err)
	}
	defer cmd.Wait()
	start, err := process.StartTime(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	// Not waited for: a zombie once it has exited.
	for deadline := time.Now().Add(5 * time.Second); !errors.Is(process.Exists(cmd.Process.Pid), process.ErrZombie); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no zombie in 5 s")
		}
	}
	rec := holdRecord{Holder: cmd.Process.Pid, HolderStart: start, Holds: []Hold{hold}}
	if err := writeRecord(filepath.Join(HoldDir, "zombie.json"), &rec); err != nil {
		t.Fatal(err)
	}
	hs, err := Holders(os.Getpid())
	if err != nil || len(hs) != 1 || hs[0].Alive {
		t.Errorf("Holders() = %+v, %v, want one holder, gone", hs, err)
	}
}
