package main

import (
	"errors"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/sdtkit/sdtkit/pkg/process"
	"github.com/sdtkit/sdtkit/pkg/semaphore"
)

// A held semaphore is one --hold incremented and must decrement.
type held struct {
	p        *semaphore.Process
	s        *semaphore.Semaphore
	hold     semaphore.Hold
	recorded bool
}

// record records the increments --hold keeps, so that sdtrepair can undo
// them should sdtsema be killed with SIGKILL.
type record struct {
	holds  *semaphore.Holds
	err    error // the first failure, reported once
	logger interface{ Printf(string, ...any) }
}

func (r *record) add(h *held) {
	if r.err != nil {
		return
	}
	hold, err := semaphore.NewHold(h.s)
	if err == nil {
		err = r.holds.Add(hold)
	}
	if err != nil {
		r.fail(err)
		return
	}
	h.hold, h.recorded = hold, true
}

func (r *record) remove(h *held) {
	if !h.recorded || r.err != nil {
		return
	}
	if err := r.holds.Remove(h.hold); err != nil {
		r.fail(err)
	}
}

func (r *record) fail(err error) {
	r.err = err
	r.logger.Printf("cannot record the holds in %s (%v): should sdtsema be killed with SIGKILL, sdtrepair cannot prove them abandoned and undo them", semaphore.HoldDir, err)
}

// hold increments every semaphore, waits, and decrements the ones it
// incremented, on every way out: a signal, --for running out, an error
// while incrementing or writing the output, or the process exiting, when
// there is nothing left to restore.
func (t *tool) hold(targets []target) (err error) {
	// Signals that come while incrementing are kept for the wait, which
	// then ends at once.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sig)

	var (
		hs    []held
		procs []*semaphore.Process
	)
	rec := &record{logger: t.log}
	if rec.holds, rec.err = semaphore.NewHolds(); rec.err != nil {
		rec.fail(rec.err)
	}
	defer func() {
		t.restore(hs, rec)
		for _, p := range procs {
			p.Close()
		}
	}()
	for _, tg := range targets {
		p, err := semaphore.Open(tg.pid, true)
		if err != nil {
			return err
		}
		procs = append(procs, p)
		for i := range tg.sems {
			s := &tg.sems[i]
			before, after, err := p.Add(s, 1)
			if errors.Is(err, semaphore.ErrChanged) {
				t.log.Print(err)
				err = nil
			}
			if err != nil {
				return err
			}
			hs = append(hs, held{p: p, s: s})
			rec.add(&hs[len(hs)-1])
			if err := t.write(s, before, after); err != nil {
				return err
			}
		}
	}
	if len(hs) == 0 {
		return nil
	}
	if err := t.out.Flush(); err != nil {
		return err
	}
	hs = t.wait(sig, hs, rec)
	return nil
}

// wait waits for a signal, for --for to run out, or for every process to
// exit, and returns the semaphores still to be restored.
func (t *tool) wait(sig <-chan os.Signal, hs []held, rec *record) []held {
	exited := make(chan int, len(hs))
	seen := make(map[int]bool)
	for _, h := range hs {
		if !seen[h.s.Pid] {
			seen[h.s.Pid] = true
			stop := watchExit(h.s.Pid, exited)
			defer stop()
		}
	}
	var timeout <-chan time.Time
	if t.c.dur > 0 {
		timer := time.NewTimer(t.c.dur)
		defer timer.Stop()
		timeout = timer.C
	}
	for {
		select {
		case s := <-sig:
			t.log.Printf("%v: restoring", s)
			return hs
		case <-timeout:
			return hs
		case pid := <-exited:
			var left []held
			for _, h := range hs {
				if h.s.Pid == pid {
					rec.remove(&h)
					t.log.Printf("process %d exited: nothing to restore for %s:%s in %s", pid, h.s.Provider, h.s.Name, h.s.File)
					continue
				}
				left = append(left, h)
			}
			hs = left
			if len(hs) == 0 {
				return nil
			}
		}
	}
}

// restore decrements the held semaphores and says so on stderr.
func (t *tool) restore(hs []held, rec *record) {
	for i := range hs {
		h := &hs[i]
		s := h.s
		before, after, err := h.p.Add(s, -1)
		switch {
		case errors.Is(err, process.ErrNoProcess):
			t.log.Printf("process %d exited: nothing to restore for %s:%s in %s", s.Pid, s.Provider, s.Name, s.File)
			rec.remove(h)
			continue
		case errors.Is(err, semaphore.ErrChanged):
			t.log.Print(err)
		case err != nil:
			t.log.Printf("could not restore %s:%s in %s of process %d at %#x: %v", s.Provider, s.Name, s.File, s.Pid, s.Addr, err)
			t.failed = true
			continue
		}
		rec.remove(h)
		t.log.Printf("restored %s:%s in %s of process %d at %#x: %d -> %d", s.Provider, s.Name, s.File, s.Pid, s.Addr, before, after)
	}
}
