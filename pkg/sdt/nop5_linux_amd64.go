package sdt

import (
	"sync"

	"golang.org/x/sys/unix"
)

// sysUprobe is the uprobe system call of x86-64 Linux (6.18), which the
// kernel's uprobe trampoline makes: called from anywhere else, it fails
// with ENXIO, where kernels without it fail with ENOSYS.
const sysUprobe = 336

// kernelOptimizesNop5 reports whether the kernel turns a uprobe on the
// 5-byte nop into a call through its uprobe trampoline, once hit, rather
// than trapping on a breakpoint at every hit: whether it has the uprobe
// system call. It asks once.
var kernelOptimizesNop5 = sync.OnceValue(func() bool {
	_, _, errno := unix.RawSyscall(sysUprobe, 0, 0, 0)
	return errno == unix.ENXIO
})
