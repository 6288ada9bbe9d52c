package bpf

import (
	"fmt"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/sdtkit/sdtkit/internal/kernelversion"
)

// memlockOnce lifts the limit once per process.
var memlockOnce = sync.OnceValue(func() error {
	if !kernelBefore(5, 11) {
		return nil
	}
	lim := unix.Rlimit{Cur: unix.RLIM_INFINITY, Max: unix.RLIM_INFINITY}
	if err := unix.Prlimit(0, unix.RLIMIT_MEMLOCK, &lim, nil); err != nil {
		return fmt.Errorf("raise the memlock rlimit (BPF memory counts against it before Linux 5.11): %w", err)
	}
	return nil
})

// removeMemlock lifts RLIMIT_MEMLOCK where the kernel charges BPF maps
// and programs to it: before Linux 5.11, which charges them to the
// memory cgroup instead (where a kernel backported that, lifting the
// limit does no harm). It does what cilium/ebpf's rlimit.RemoveMemlock
// does without that package's init, which tells the two cases apart by
// creating a map, in every process that links it, keepers included,
// before anything else runs.
func removeMemlock() error { return memlockOnce() }

// kernelBefore reports whether the running kernel is older than
// major.minor; true when its version cannot be told.
func kernelBefore(major, minor int) bool {
	before, ok := kernelversion.Before(major, minor)
	return before || !ok
}
