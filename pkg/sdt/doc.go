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
// Probe.Fire calls the probe's function through a small assembly
// trampoline that loads the arguments into those registers; a string is
// passed as a NUL-terminated copy that stays alive for the call. When a
// tracer attaches, the kernel replaces the nop by a breakpoint and, if the
// tracer uses the semaphore (sdtattach and bpftrace set ref_ctr_offset),
// increments it. Probe.Enabled reports either: it loads the semaphore and
// the first word of the function and compares them with their values when
// untraced, with no allocation and no lock, so that the arguments of a
// probe need only be computed while someone is listening:
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
