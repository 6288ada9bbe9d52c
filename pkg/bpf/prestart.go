package bpf

import (
	"sync"
	"time"
)

// spareKeeperLife is how long a keeper started by Prestart waits for
// the Load that takes it before it is stopped.
var spareKeeperLife = 10 * time.Second

// warming starts warm once, for Prestart.
var warming sync.Once

// spare is the keeper Prestart started that no Load has taken yet.
var spare struct {
	sync.Mutex
	k     *keeper
	timer *time.Timer
}

// Prestart starts, ahead of Load, the keeper process that Load would
// start (see Options.InProcess), so that its start, an exec of this
// executable, overlaps what the caller does before calling Load, such
// as reading the probes of the files to trace: a tracer is ready that
// much sooner. It also asks the kernel, aside, what Load asks it, and
// parses the program a stream loads there, which Load then finds done.
// The next Load that needs a keeper takes it; one that no Load takes
// within 10 seconds is stopped. Prestart does nothing if a spare keeper
// is already waiting, and reports no error: should the keeper not
// start, Load starts its own and reports why it could not.
func Prestart() {
	spare.Lock()
	defer spare.Unlock()
	if spare.k != nil {
		return
	}
	warming.Do(func() { go warm() })
	k, err := startKeeper("", -1)
	if err != nil {
		return
	}
	spare.k = k
	spare.timer = time.AfterFunc(spareKeeperLife, func() {
		if k := takeSpare(); k != nil {
			k.close()
		}
	})
}

// takeSpare returns the keeper Prestart started, or nil.
func takeSpare() *keeper {
	spare.Lock()
	defer spare.Unlock()
	k := spare.k
	if k != nil {
		spare.timer.Stop()
		spare.k, spare.timer = nil, nil
	}
	return k
}
