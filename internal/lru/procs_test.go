package lru

import (
	"errors"
	"testing"
)

type counter struct{ n int }

func (c *counter) Refresh() error { c.n++; return nil }

func TestProcs(t *testing.T) {
	up := map[int]bool{1: true, 2: true}
	opened := 0
	ps := NewProcs(2, func(pid int) (*counter, error) {
		if !up[pid] {
			return nil, errors.New("no such process")
		}
		opened++
		return &counter{}, nil
	})
	if e := ps.Get(3); e.OK {
		t.Fatal("Get(3) OK, but 3 cannot be opened")
	}
	up[3] = true
	if err := ps.Refresh(3); err != nil || !ps.Get(3).OK {
		t.Fatalf("Refresh(3) = %v; then OK %v, want nil and true", err, ps.Get(3).OK)
	}
	e := ps.Get(1) // opened; 3 and 1 kept
	if err := ps.Refresh(1); err != nil || e.P.n != 1 {
		t.Errorf("Refresh(1) = %v, refreshed %d times, want nil and 1", err, e.P.n)
	}
	ps.Get(2) // 3, the least recently used, goes
	ps.Get(3)
	if opened != 4 {
		t.Errorf("opened %d times, want 4 (1, 2, and 3 twice, once dropped)", opened)
	}
	ps.Forget(3)
	ps.Get(3)
	if opened != 5 {
		t.Errorf("opened %d times after Forget(3) and Get(3), want 5", opened)
	}
}
