//go:build !linux || !amd64

package sdt

// kernelOptimizesNop5 is false where no kernel optimizes uprobes on the
// 5-byte nop: on Linux, x86-64 alone does.
func kernelOptimizesNop5() bool { return false }
