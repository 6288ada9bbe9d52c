package bpf

import (
	"os"
	"os/exec"
	"strconv"
	"testing"

	"github.com/sdtkit/sdtkit/internal/testdemo"
)

// TestCloseRestored checks what Close guarantees: once it returns, no
// site is patched and no semaphore raised in any process that maps the
// file, in each way Close goes (the witness seeing the breakpoints gone
// before the keeper exits, for every process; the keeper's exit, with a
// PID), here with a thousand sites in two running processes, whose
// removal takes the kernel a while.
func TestCloseRestored(t *testing.T) {
	requireRoot(t)
	requireAMD64(t)
	path, file := manySites(t)
	ss, f := sites(t, path, nil)
	var mems []*os.File
	var pids []int
	for range 2 {
		cmd := exec.Command(path, "0", "1000")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		testdemo.WaitRunning(t, cmd.Process.Pid, path)
		mem, err := os.Open("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/mem")
		if err != nil {
			t.Fatal(err)
		}
		defer mem.Close()
		mems = append(mems, mem)
		pids = append(pids, cmd.Process.Pid)
	}
	left := func(mem *os.File) (armed, raised int) { return leftBehind(t, mem, f, file) }
	for _, tt := range []struct {
		name      string
		pid       int  // Options.PID
		witnessed bool // the witness sees the breakpoints go
	}{
		{"every process", 0, true},
		{"one process", pids[0], false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := load(t, Options{NoStrings: true, PID: tt.pid})
			if err := p.Attach(path, ss); err != nil {
				t.Fatal(err)
			}
			k := p.links.(*keeper)
			if got := k.w.usable(); got != tt.witnessed {
				t.Errorf("witness usable = %v, want %v", got, tt.witnessed)
			}
			for i, mem := range mems {
				want := len(f.Sites)
				if tt.pid != 0 && pids[i] != tt.pid {
					want = 0
				}
				if armed, raised := left(mem); armed != want || raised != want {
					t.Fatalf("attached: process %d: %d sites armed, %d with a raised semaphore, want %d", i, armed, raised, want)
				}
			}
			if err := p.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			for i, mem := range mems {
				if armed, raised := left(mem); armed != 0 || raised != 0 {
					t.Errorf("closed: process %d: %d sites armed, %d with a raised semaphore, want 0", i, armed, raised)
				}
			}
			<-k.exited
			if k.err != nil {
				t.Errorf("keeper ended with %v, want exit 0", k.err)
			}
		})
	}
}

// TestCloseSharedSite checks that Close, where another uprobe keeps a
// site patched, which the witness then never sees restored, returns
// once the keeper has exited.
func TestCloseSharedSite(t *testing.T) {
	requireRoot(t)
	requireAMD64(t)
	ss, _ := sites(t, demo, nil)
	other := load(t, Options{NoStrings: true, InProcess: true})
	if err := other.Attach(demo, ss[:1]); err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	p := load(t, Options{NoStrings: true})
	if err := p.Attach(demo, ss); err != nil {
		t.Fatal(err)
	}
	k := p.links.(*keeper)
	if err := p.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	select {
	case <-k.exited:
	default:
		t.Errorf("Close returned before the keeper exited, a site still patched by another uprobe")
	}
}
