// Package sdt defines USDT probes at run time and fires them from Go,
// without cgo, so that tracers such as sdtattach, bpftrace and bcc can
// trace a Go program the way they trace programs built with sys/sdt.h.
//
// A Provider collects probes, each with up to 12 typed arguments. Load
// writes a small ELF shared object with pkg/elfwriter: one function per
// probe, a probe nop and a return, its stapsdt note naming the registers
// the arguments are passed in, and a 2-byte semaphore in .probes. The
// object is written to a memfd (or, where memfds are not executable, to
// a temporary file removed by Close) and its two segments are mapped into
// the process directly, with no dynamic loader: the object shows in
// /proc/self/maps as "/memfd:PROVIDER (deleted)", and a tracer opens it
// through /proc/PID/map_files or /proc/PID/fd, where the descriptor stays
// open while the provider is loaded.
//
// The nop is sys/sdt.h's 1-byte nop, or on x86-64, where the running
// kernel optimizes uprobes on it (Linux 6.18, which has the uprobe system
// call), the 5-byte nop 0f 1f 44 00 00: decided at Load. The kernel then
// turns a uprobe on the site, once hit, into a call through a trampoline
// of its own instead of a breakpoint trap at every hit, which halves what
// a traced probe costs. That call pushes below the stack pointer, over
// the red zone, which makes it unsafe in code at large (see package
// stapsdt's Insn); a probe's function is a leaf with no locals, called
// from a trampoline that keeps nothing there, so nothing is overwritten.
//
// Probe.Fire calls the probe's function through a small assembly
// trampoline that loads the arguments into those registers; a string is
// passed as a NUL-terminated copy that stays alive for the call. When a
// tracer attaches, the kernel replaces the nop by a breakpoint (or by the
// call) and, if the tracer uses the semaphore (sdtattach and bpftrace set
// ref_ctr_offset), increments it. Probe.Enabled reports either: it loads
// the semaphore and the first word of the function and compares them with
// their values when untraced, with no allocation and no lock, so that the
// arguments of a probe need only be computed while someone is listening:
//
//	if req.Enabled() {
//		req.Fire(id, path)
//	}
//
// Fire is safe for concurrent use, also with Close: Close waits for the
// calls in progress, and Fire after Close returns ErrNotLoaded. Close
// removes the probes: the object's mappings are replaced by anonymous
// memory reserved for the Provider (so that a stale Enabled reads false
// instead of faulting) and the descriptor is closed; the reservation is
// reused by the next Load and released when the Provider is no longer
// reachable.
//
// Supported on linux/amd64 and linux/arm64; elsewhere Load returns
// ErrNotSupported.
package sdt
