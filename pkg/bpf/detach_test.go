package bpf

import (
	"fmt"
	"testing"
	"time"
)

// TestDetach checks that after Detach no event is added to the ring
// buffer, and that those already in it can still be read until Pending
// is 0.
func TestDetach(t *testing.T) {
	requireRoot(t)
	requireAMD64(t)
	p := load(t, Options{})
	ss, _ := sites(t, demo, nil)
	if err := p.Attach(demo, ss); err != nil {
		t.Fatalf("Attach: %v", err)
	}
	before := run(t, demo, "5", "10").Process.Pid
	if p.Pending() == 0 {
		t.Fatal("Pending() = 0 after 11 hits, want > 0")
	}
	if err := p.Detach(); err != nil {
		t.Fatalf("Detach: %v", err)
	}
	after := run(t, demo, "5", "10").Process.Pid
	counts := make(map[int]int)
	var ev Event
	for p.Pending() > 0 {
		if err := p.Read(&ev); err != nil {
			t.Fatalf("Read: %v", err)
		}
		counts[int(ev.PID)]++
	}
	if counts[before] != 11 || counts[after] != 0 {
		t.Errorf("events read after Detach: %d before it, %d after, want 11 and 0", counts[before], counts[after])
	}
	if n, err := p.Lost(); n != 0 || err != nil {
		t.Errorf("Lost() = %d, %v, want 0, nil", n, err)
	}
	if err := p.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if n := p.Pending(); n != 0 {
		t.Errorf("Pending() after Close = %d, want 0", n)
	}
}

// TestReadDuringDetach checks that Read goes on while Detach runs, which
// takes tens of milliseconds with the probes still firing: a reader
// stalled that long lets a busy probe fill the ring buffer, and its
// events would be lost.
func TestReadDuringDetach(t *testing.T) {
	requireRoot(t)
	requireAMD64(t)
	p := load(t, Options{NoStrings: true})
	ss, _ := sites(t, demo, nil)
	if err := p.Attach(demo, ss); err != nil {
		t.Fatalf("Attach: %v", err)
	}
	pid := run(t, demo, "5", "10").Process.Pid
	// Detach holds the lock while it closes the links.
	p.mu.Lock()
	defer p.mu.Unlock()
	done := make(chan error, 1)
	go func() {
		var ev Event
		for range 11 {
			if err := p.Read(&ev); err != nil {
				done <- err
				return
			}
			if int(ev.PID) != pid {
				done <- fmt.Errorf("event of pid %d, want %d", ev.PID, pid)
				return
			}
		}
		done <- nil
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Read: %v", err)
		}
	case <-time.After(10 * time.Second):
		// Not a measure of speed: Read waits for the lock forever.
		t.Fatal("Read blocked while Detach held the lock")
	}
}
