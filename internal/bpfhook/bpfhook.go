// Package bpfhook holds what tests set to have package bpf load its
// programs as it would on an older kernel, on one that has what they
// use.
package bpfhook

import "sync/atomic"

// NoCookies, when set, has package bpf load its programs as on a kernel
// without BPF cookies (Linux 5.15), which tells the sites apart by their
// address.
var NoCookies atomic.Bool
