// Package uprobes lists the uprobes the kernel holds, so that a
// breakpoint found at a probe site in a process can be told apart: armed
// by a live tracer, or orphaned, left behind with nothing that owns it.
//
// Three kinds of owner are seen, covering the ways tracers attach:
//
//	uprobe_multi  a BPF uprobe_multi link (sdtattach, libbpf, bpftrace
//	              with uprobe_multi): file, offsets and reference
//	              counters, from the link's info (Linux 6.8)
//	perf_event    a perf-event uprobe running a BPF program (bcc,
//	              bpftrace, libbpf, cilium/ebpf), found through the
//	              perf-event descriptors of every process (or a BPF
//	              perf_event link, Linux 6.6)
//	tracefs       an event in tracefs's uprobe_events (perf probe,
//	              ftrace users), defined whether enabled or not
//
// Listing needs root (CAP_SYS_ADMIN to look at every BPF link, CAP_SYS_PTRACE
// to query the descriptors of other processes). What could not be looked
// at is kept in Set.Unseen; a site counts as orphaned only when nothing
// was unseen. A uprobe whose file cannot be identified from here (a path
// in another mount namespace, a deleted file) is taken to own every site
// at its offset, so that uncertainty never makes a site look orphaned.
package uprobes
