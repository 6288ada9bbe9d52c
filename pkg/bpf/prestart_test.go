package bpf

import (
	"testing"
	"time"
)

// TestPrestart checks that Load takes the keeper Prestart started, and
// that one no Load takes is stopped.
func TestPrestart(t *testing.T) {
	requireRoot(t)
	requireAMD64(t)
	t.Run("taken", func(t *testing.T) {
		dropSpare(t)
		Prestart()
		k := spare.k
		if k == nil {
			t.Fatal("Prestart started no keeper")
		}
		// One uprobe per site where the kernel has no uprobe_multi,
		// so that every kernel takes the keeper.
		p := load(t, Options{PerSite: kernelBefore(6, 6)})
		if spare.k != nil || p.links != k {
			t.Fatalf("Load did not take the spare keeper")
		}
		ss, _ := sites(t, demo, nil)
		if err := p.Attach(demo, ss); err != nil {
			t.Fatalf("Attach through the spare keeper: %v", err)
		}
		if err := p.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}
		// The keeper may still wait out the kernel's grace periods.
		select {
		case <-k.exited:
		case <-time.After(10 * time.Second):
			t.Error("the keeper still runs 10 s after Close")
		}
	})
	t.Run("not taken", func(t *testing.T) {
		defer func(d time.Duration) { spareKeeperLife = d }(spareKeeperLife)
		spareKeeperLife = 50 * time.Millisecond
		dropSpare(t)
		Prestart()
		k := spare.k
		if k == nil {
			t.Fatal("Prestart started no keeper")
		}
		select {
		case <-k.exited:
		case <-time.After(10 * time.Second):
			t.Fatal("a spare keeper no Load took still runs 10 s later")
		}
		if takeSpare() != nil {
			t.Error("the stopped keeper is still offered to Load")
		}
	})
}

// dropSpare stops a spare keeper left by what ran before, which would
// be taken for the one t's Prestart starts, and, once t ends, one t
// left: one a test skipped or failed before its Load took.
func dropSpare(t *testing.T) {
	drop := func() {
		if k := takeSpare(); k != nil {
			k.close()
		}
	}
	drop()
	t.Cleanup(drop)
}
