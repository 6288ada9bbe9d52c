package symbolize_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sdtkit/sdtkit/pkg/symbolize"
)

func TestProcesses(t *testing.T) {
	requireTools(t, "gcc")
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"live.c": liveC})
	run(t, dir, "gcc", "-O1", "-o", "live", "live.c")
	prog := filepath.Join(dir, "live")
	pid1, addrs1 := startLive(t, prog)
	pid2, addrs2 := startLive(t, prog)

	ps := symbolize.NewProcesses(symbolize.NewCache(nil, 0), 1)
	for _, tt := range []struct {
		pid   int
		addrs map[string]uint64
	}{{pid1, addrs1}, {pid2, addrs2}, {pid1, addrs1}} { // one kept: pid1 is read again
		fs := ps.Frames(nil, tt.pid, []uint64{tt.addrs["inner"], tt.addrs["ret"]})
		if len(fs) != 2 || fs[0].Sym != "inner" || fs[0].Off != 0 || fs[1].Sym != "inner" || fs[1].Off == 0 || fs[0].File != prog {
			t.Errorf("Frames(%d) = %+v, want inner+0 and inner+N in %s", tt.pid, fs, prog)
		}
	}
	// Appended to dst.
	fs := ps.Frames([]symbolize.Frame{{Addr: 1}}, pid1, []uint64{addrs1["getpid"]})
	if len(fs) != 2 || fs[0].Addr != 1 || fs[1].File == "" {
		t.Errorf("Frames(dst, getpid) = %+v, want dst then a frame in libc", fs)
	}
	// A process that has exited, not reaped yet, keeps the maps read
	// while it ran, though an address in none of them reads them again.
	if err := syscall.Kill(pid1, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitZombie(t, pid1)
	fs = ps.Frames(nil, pid1, []uint64{addrs1["inner"], 0x1234})
	if len(fs) != 2 || fs[0].Sym != "inner" || fs[0].File != prog {
		t.Errorf("Frames of an exited process = %+v, want inner in %s", fs, prog)
	}
	// A process that is gone keeps its addresses.
	ps.Forget(pid1)
	if fs := ps.Frames(nil, 1<<30, []uint64{0x1234}); len(fs) != 1 || fs[0] != (symbolize.Frame{Addr: 0x1234}) {
		t.Errorf("Frames of no process = %+v, want the address alone", fs)
	}
}

// TestProcessesRefresh reads the maps of a process before it exits: its
// addresses, libc's included, are symbolized once it has, where
// Processes that first see it then keep them bare.
func TestProcessesRefresh(t *testing.T) {
	requireTools(t, "gcc")
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"live.c": liveC})
	run(t, dir, "gcc", "-O1", "-o", "live", "live.c")
	prog := filepath.Join(dir, "live")
	pid, addrs := startLive(t, prog)

	ps := symbolize.NewProcesses(symbolize.NewCache(nil, 0), 4)
	if err := ps.Refresh(pid); err != nil {
		t.Fatalf("Refresh(%d): %v", pid, err)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitZombie(t, pid)
	if err := ps.Refresh(pid); err == nil {
		t.Errorf("Refresh(%d) of a zombie = nil, want an error", pid)
	}
	fs := ps.Frames(nil, pid, []uint64{addrs["inner"], addrs["getpid"]})
	if len(fs) != 2 || fs[0].Sym != "inner" || fs[0].File != prog || fs[1].Sym == "" || !strings.Contains(fs[1].File, "libc") {
		t.Errorf("Frames of a process exited since Refresh = %+v, want inner in %s and a symbol of libc", fs, prog)
	}
	fs = symbolize.NewProcesses(symbolize.NewCache(nil, 0), 4).Frames(nil, pid, []uint64{addrs["inner"]})
	if len(fs) != 1 || fs[0] != (symbolize.Frame{Addr: addrs["inner"]}) {
		t.Errorf("Frames of a process exited before its maps were read = %+v, want the address alone", fs)
	}
	if err := ps.Refresh(1 << 30); err == nil {
		t.Errorf("Refresh of no process = nil, want an error")
	}
}

// waitZombie waits until process pid has exited, and is a zombie.
func waitZombie(t *testing.T, pid int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			t.Fatal(err)
		}
		// pid (comm) state ...: the state follows the last ')'.
		if i := bytes.LastIndexByte(b, ')'); i >= 0 && bytes.HasPrefix(b[i:], []byte(") Z")) {
			return
		}
	}
	t.Fatalf("process %d: no zombie after 10s", pid)
}
