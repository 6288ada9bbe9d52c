//go:build linux && (amd64 || arm64)

package sdt

// call calls the probe function fn with regs loaded into the argument
// registers named by host.reg.
//
//go:noescape
func call(fn uintptr, regs *[MaxArgs]uint64)
