package attach

import (
	"context"
	"errors"
	"io"
	"os/exec"
	"runtime"
	"testing"
	"time"

	"github.com/sdtkit/sdtkit/internal/testdemo"
	"github.com/sdtkit/sdtkit/internal/testenv"
)

func requireBPF(t *testing.T) {
	t.Helper()
	testenv.RequireUprobes(t)
	if runtime.GOARCH != "amd64" {
		t.Skipf("requires amd64 (the demo fixture is x86-64), not %s", runtime.GOARCH)
	}
}

// Close ends a Read in progress and cuts a drain short; Read then
// returns io.EOF, Stop after Close does nothing, and the counts stay.
func TestTracerClose(t *testing.T) {
	requireBPF(t)
	tr, err := Open(context.Background(), specs(t, demo+":demo:tick"), nil)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		var ev Event
		done <- tr.Read(&ev)
	}()
	time.Sleep(20 * time.Millisecond)
	if err := tr.Close(); err != nil {
		t.Errorf("Close = %v", err)
	}
	select {
	case err := <-done:
		if !errors.Is(err, io.EOF) {
			t.Errorf("Read during Close = %v, want io.EOF", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Read does not return on Close")
	}
	tr.Stop()
	if tr.Lost() != 0 || tr.Skipped() != 0 {
		t.Errorf("after Close: %d lost, %d skipped, want 0", tr.Lost(), tr.Skipped())
	}
	if err := tr.Close(); err != nil {
		t.Errorf("second Close = %v", err)
	}
}

// A Tracer of a process stops by itself when the process exits, and Read
// returns the events fired before it, then io.EOF.
func TestTracerProcessExit(t *testing.T) {
	requireBPF(t)
	cmd := exec.Command(demo, "0", "5")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer cmd.Process.Kill()
	testdemo.WaitRunning(t, cmd.Process.Pid, demo)
	tr, err := Open(context.Background(), specs(t, "demo:tick"), &Options{PID: cmd.Process.Pid})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	var ev Event
	if err := tr.Read(&ev); err != nil {
		t.Fatal(err)
	}
	if ev.Probe().Name != "tick" || int(ev.PID) != cmd.Process.Pid || len(ev.Args) != 1 {
		t.Errorf("event = %v %d %v", ev.Probe(), ev.PID, ev.Args)
	}
	cmd.Process.Kill()
	deadline := time.After(10 * time.Second)
	for {
		err := tr.Read(&ev)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		select {
		case <-deadline:
			t.Fatal("Read does not end after the process exits")
		default:
		}
	}
	select {
	case <-tr.Stopped():
	default:
		t.Error("Stopped is not closed after the process exited")
	}
}
