// Package dlopen follows the libraries a process loads with dlopen: it
// stops the process each time the dynamic loader has mapped objects,
// finds the probes of PROVIDER:NAME specifications in the objects newly
// mapped, and hands them to the caller, which attaches to them before
// the process runs on. It is how sdtattach -c and package usdt trace the
// probes of a library from its first instruction, its constructors
// included.
//
//	f, err := dlopen.New(&dlopen.Options{PID: pid, Specs: specs})
//	...
//	f.Start(attached, func(pid int, probes []*probe.Probe) {
//		// attach to probes; the process is stopped until this returns
//	})
//	...
//	f.Stop()
//
// # How
//
// The dynamic loader calls _dl_debug_state (r_debug.r_brk, the
// function debuggers break in) after each change to its list of loaded
// objects: dlopen calls it once the new objects are mapped and
// relocated, before their constructors run and before it returns. A
// bpf.Stopper stops the threads that reach it with SIGSTOP; the
// Follower reads the process's maps and, when a file is mapped that was
// not at the last stop, resolves the specifications against the objects
// not read yet (probe.Find with Options.Skip). The handler is called
// with the probes found in files not handed over before, and the
// process then gets SIGCONT. A statically linked program that has
// dlopen is its own loader: it is stopped in its own _dl_debug_state,
// found in its symbols (Loader).
//
// Stop detaches the uprobe, lets run on every process stopped until
// then, and returns once no handler runs. The uprobe is made, held and
// let go by a guard process (see package bpf): should the caller die
// while a process is stopped, the guard lets it run on.
package dlopen
