package bpf

import (
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sdtkit/sdtkit/pkg/filter"
)

func TestPIDNSOf(t *testing.T) {
	for _, tt := range []struct {
		dev  uint64 // as stat gives it
		ino  uint64
		want pidNS
	}{
		{unix.Mkdev(0, 4), initPIDNSIno, pidNS{}},
		{unix.Mkdev(0, 4), 4026532281, pidNS{4, 4026532281}},
		{unix.Mkdev(0, 300), 4026532281, pidNS{300, 4026532281}},
		{unix.Mkdev(259, 3), 7, pidNS{259<<20 | 3, 7}},
	} {
		if got := pidNSOf(&unix.Stat_t{Dev: tt.dev, Ino: tt.ino}); got != tt.want {
			t.Errorf("pidNSOf(dev %#x, ino %d) = %+v, want %+v", tt.dev, tt.ino, got, tt.want)
		}
	}
}

// startDemoInPIDNS starts the demo as pid 1 of a new PID namespace,
// firing until the test ends, and returns it and its namespace.
func startDemoInPIDNS(t *testing.T) (*exec.Cmd, pidNS) {
	t.Helper()
	cmd := exec.Command(demo, "0", "10")
	cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: unix.CLONE_NEWPID}
	if err := cmd.Start(); err != nil {
		t.Skipf("requires PID namespaces: %v", err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	waitExec(t, cmd.Process.Pid, demo)
	var st unix.Stat_t
	if err := unix.Stat("/proc/"+strconv.Itoa(cmd.Process.Pid)+"/ns/pid", &st); err != nil {
		t.Fatal(err)
	}
	return cmd, pidNSOf(&st)
}

// TestPIDNamespace loads the programs as a tracer inside a PID namespace
// would have them, with the demo running as pid 1 there and another copy
// outside: events, filters and keys give the one inside its ids in the
// namespace, the one outside 0. From the initial namespace, the one
// inside has its ids there.
func TestPIDNamespace(t *testing.T) {
	requireRoot(t)
	requireAMD64(t)
	inside, ns := startDemoInPIDNS(t)
	startDemo(t)
	// check attaches p and checks the events of pid, and returns the
	// rest.
	check := func(t *testing.T, p *Program, pid uint32) <-chan Event {
		t.Helper()
		ss, _ := sites(t, demo, nil)
		if err := p.Attach(demo, ss); err != nil {
			t.Fatalf("Attach: %v", err)
		}
		ch := events(t, p)
		for _, ev := range collect(t, ch, int(pid), 3) {
			if ev.TID != pid || ev.Comm != "demo" {
				t.Errorf("event %+v: pid %d, tid %d, comm %q, want %d, %d, demo", ev, ev.PID, ev.TID, ev.Comm, pid, pid)
			}
		}
		return ch
	}
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			p := load(t, m.options(Options{pidns: &ns}))
			ch := check(t, p, 1)
			if evs := collect(t, ch, 0, 1); len(evs) == 1 && evs[0].TID != 0 {
				t.Errorf("event of the demo outside: tid %d, want 0", evs[0].TID)
			}
		})
	}
	t.Run("initial", func(t *testing.T) {
		p := load(t, Options{NoStrings: true, pidns: &pidNS{}})
		check(t, p, uint32(inside.Process.Pid))
	})
	t.Run("filter", func(t *testing.T) {
		e, err := filter.Parse("pid == 1 && tid == 1")
		if err != nil {
			t.Fatal(err)
		}
		f, err := e.Compile(&filter.Probe{})
		if err != nil {
			t.Fatal(err)
		}
		p := load(t, Options{NoStrings: true, pidns: &ns, Filters: []*filter.Program{f, f, f}})
		ss, _ := sites(t, demo, nil)
		if err := p.Attach(demo, ss); err != nil {
			t.Fatalf("Attach: %v", err)
		}
		ch := events(t, p)
		for i := 0; i < 6; i++ {
			select {
			case ev := <-ch:
				if ev.PID != 1 || ev.TID != 1 {
					t.Fatalf("event of pid %d, tid %d passed pid == 1 && tid == 1", ev.PID, ev.TID)
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("%d events, want 6", i)
			}
		}
	})
	t.Run("aggregate", func(t *testing.T) {
		p := load(t, Options{pidns: &ns, Aggregate: &Aggregation{Mode: AggCount, Parts: []PartKind{PartPID, PartTID}, Probes: make([]AggProbe, 3)}})
		ss, _ := sites(t, demo, nil)
		if err := p.Attach(demo, ss); err != nil {
			t.Fatalf("Attach: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
		counts := map[[2]uint64]uint64{}
		err := p.Collect(func(e *AggEntry) {
			if !e.Lost {
				counts[[2]uint64{e.Parts[0].Bits, e.Parts[1].Bits}] += e.Count
			}
		})
		if err != nil {
			t.Fatalf("Collect: %v", err)
		}
		if counts[[2]uint64{1, 1}] == 0 || counts[[2]uint64{0, 0}] == 0 || len(counts) != 2 {
			t.Errorf("counts by pid and tid = %v, want some for 1 1 (inside) and 0 0 (outside) only", counts)
		}
	})
}
