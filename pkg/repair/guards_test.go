package repair

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/sdtkit/sdtkit/pkg/journal"
	"github.com/sdtkit/sdtkit/pkg/process"
)

// TestContinueLeft checks that a stopped process that a stop guard gone
// guarded is let run on, and its record removed; that -n only reports
// it; and that one another process guarded, or a running one, is left
// alone.
func TestContinueLeft(t *testing.T) {
	journal.Dir = t.TempDir()
	cmd := exec.Command("sleep", "10")
	if err := cmd.Start(); err != nil {
		t.Skip("requires sleep:", err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	pid := cmd.Process.Pid
	start, err := process.StartTime(pid)
	if err != nil {
		t.Fatal(err)
	}
	record := func(name string, g journal.Guarded) string {
		// Of an attacher that is gone: no process started at 1.
		b, _ := json.Marshal(map[string]any{"attacher": os.Getpid(), "attacher_start": 1, "guard": g})
		path := filepath.Join(journal.Dir, name)
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	self, err := process.StartTime(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	other := record("other.json", journal.Guarded{PID: os.Getpid(), Start: self})
	rep := &Report{}
	if err := continueLeft(pid, &Options{}, rep); err != nil || len(rep.Continued) != 0 {
		t.Fatalf("running: continueLeft = %v, %+v, want nothing", err, rep.Continued)
	}
	syscall.Kill(pid, syscall.SIGSTOP)
	for deadline := time.Now().Add(5 * time.Second); !process.Stopped(pid); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("not stopped")
		}
	}
	if err := continueLeft(pid, &Options{}, rep); err != nil || len(rep.Continued) != 0 {
		t.Fatalf("another process guarded: continueLeft = %v, %+v, want nothing", err, rep.Continued)
	}
	mine := record("mine.json", journal.Guarded{PID: pid, Start: start})
	if err := continueLeft(pid, &Options{DryRun: true}, rep); err != nil || len(rep.Continued) != 1 || rep.Continued[0].Done {
		t.Fatalf("-n: continueLeft = %v, %+v, want it reported, not done", err, rep.Continued)
	}
	if !process.Stopped(pid) {
		t.Fatal("-n continued the process")
	}
	rep = &Report{}
	if err := continueLeft(pid, &Options{}, rep); err != nil || len(rep.Continued) != 1 || !rep.Continued[0].Done {
		t.Fatalf("continueLeft = %v, %+v, want it continued", err, rep.Continued)
	}
	for deadline := time.Now().Add(5 * time.Second); process.Stopped(pid); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("still stopped")
		}
	}
	if _, err := os.Stat(mine); !os.IsNotExist(err) {
		t.Errorf("the record of the guard after the repair: %v, want it removed", err)
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("the record of another process's guard: %v, want it kept", err)
	}
}

// TestForgetGuards checks that the journals of guards gone are removed
// once what they guarded is gone too, and kept while it is not.
func TestForgetGuards(t *testing.T) {
	journal.Dir = t.TempDir()
	cg := t.TempDir() // a cgroup's directory, as far as its procs go
	write := func(name string, g journal.Guarded) string {
		b, _ := json.Marshal(map[string]any{"attacher": os.Getpid(), "attacher_start": 1, "guard": g})
		path := filepath.Join(journal.Dir, name)
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	start, err := process.StartTime(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	live := write("live.json", journal.Guarded{PID: os.Getpid(), Start: start})
	reused := write("reused.json", journal.Guarded{PID: os.Getpid(), Start: start + 1})
	gone := write("gone.json", journal.Guarded{PID: 1 << 30, Start: 1})
	busy := write("busy.json", journal.Guarded{Cgroup: cg})
	if err := os.WriteFile(filepath.Join(cg, "cgroup.procs"), []byte("42\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	removed := write("removed.json", journal.Guarded{Cgroup: filepath.Join(cg, "nonexistent")})
	lefts, err := journal.Lefts()
	if err != nil {
		t.Fatal(err)
	}
	forgetGuards(lefts)
	for _, tt := range []struct {
		path string
		kept bool
	}{{live, true}, {reused, false}, {gone, false}, {busy, true}, {removed, false}} {
		_, err := os.Stat(tt.path)
		if kept := err == nil; kept != tt.kept {
			t.Errorf("%s kept %v, want %v", filepath.Base(tt.path), kept, tt.kept)
		}
	}
}
