// Package attach traces USDT probes: it resolves probe specifications to
// probe sites, plans how each site's arguments are read, attaches to
// every site with one of its backends, and streams the events or
// aggregates the hits.
//
// It is what sdtattach is made of, in the one-call shape of libbpf's
// bpf_program__attach_usdt:
//
//	specs, _ := probespec.ParseAll("python:function__entry(str,str,s32)")
//	t, err := attach.Open(ctx, specs, &attach.Options{PID: pid})
//	...
//	err = t.Run(ctx, func(ev *attach.Event) error {
//		fmt.Println(ev.Probe(), ev.Args)
//		return nil
//	})
//
// Tracer.Events gives the same events to a for loop (an iter.Seq2), and
// Tracer.Stream writes them to an io.Writer as sdtattach does, NDJSON with
// in-band lost counts. Aggregate, in one call too, counts hits, draws
// histograms, keeps stats or measures latencies instead (see Aggregating
// in the kernel; Aggregation.SetLatency reads sdtattach's START,END[,KEY]).
//
// # Backends
//
// Options.Backend chooses what attaches: the precompiled BPF program of
// package bpf, which reads the arguments, filters and aggregates in the
// kernel; or uprobe events defined in tracefs and enabled through perf
// events (package tracefs), with no BPF, the filter evaluated and the
// aggregations made here from the events. BackendAuto, the default, uses
// BPF, or uprobe events where the kernel cannot run the BPF program or
// BPF is not permitted, and tells Options.Warn why (a *Fallback).
// Both take user stacks (Options.UStack); following dlopen, and
// aggregating by the user stack, take BPF.
//
// Before Linux 5.15 the BPF program tells the sites apart by their
// address, not by BPF cookie (see package bpf): BackendAuto uses it where
// the addresses are known, for executables that are not
// position-independent and for every object of the process of
// Options.PID or Options.Command, and of the processes of its cgroup,
// and says so to Options.Warn; a position-independent file traced in
// every process is traced with uprobe events there (a *Fallback whose
// error matches bpf.ErrNoCookies). With Options.Command the libraries it
// maps at its start are followed as dlopen is, to learn their addresses,
// and with Options.Cgroup those of each process of the cgroup, after
// each program it executes, and of the processes it forks.
//
// # Resolving
//
// A specification is [usdt:]PATH:PROVIDER:NAME[(TYPES)] or, with
// Options.PID, PROVIDER:NAME[(TYPES)] (see package probespec; package
// probe finds the probes). Without a PID the sites are attached in every
// process that runs the file, also those started later; with one, in
// that process only, and PATH may be any object it maps or will map.
// Options.Libraries adds files the process does not map yet to those
// searched, and Options.OnAttached is called once every site is attached.
// Options.Command does both for a command that package launch started
// stopped at its execve: it is let run once attached, so that it is
// traced from its first instruction, and with a cgroup of its own
// (launch.Options.OwnCgroup) its descendants are traced too, until the
// last of them exits.
//
// Resolve does the reading and planning, and returns a Plan: the probes,
// their sites by file (Attachments), and the table of sites by number
// that events refer to. Problems that leave something out without
// stopping the rest go to Options.Warn: malformed notes (the file's other
// probes are still attached; Plan.Status turns them into an error for a
// command's exit status), sites whose address is in no segment,
// arguments the program cannot read (events show them as not read),
// semaphores that cannot be raised. Plan.Attach loads the program and
// attaches; Open is Resolve and Attach in one call.
//
// # Arguments
//
// Each argument of a site is read as its note describes it: register,
// memory at a register plus an offset, a global relative to a symbol
// (the file's symbols are read only when an argument needs them), or a
// constant. Site.Args tells how events show it: the type of the
// specification (str, strN, s8..u64, hex, _), else that of
// Options.Types (a DTrace provider file, which also names the arguments),
// else an integer of the note's size and sign.
//
// # Events and stopping
//
// Read returns one Event at a time: the hit.Event (time, pid, tid, cpu,
// comm, arguments) and the Site it came from. Events are never dropped
// silently: when the ring buffer is full, Lost counts them. Stop
// detaches every site, which also lowers the semaphores raised for them;
// Read then returns the events still in the ring buffer and io.EOF, and
// Lost is final. A Tracer with Options.PID stops by itself when the
// process exits. Close releases everything and ends a Read in progress.
//
// # Libraries loaded with dlopen
//
// A PATH:PROVIDER:NAME specification may name a library the process
// loads later: its sites are attached by file. With Options.Dlopen, a
// Tracer or an Aggregator finds PROVIDER:NAME in the libraries too: it
// stops the process in the dynamic loader's _dl_debug_state, the
// function the loader calls for debuggers after each change to its list
// of objects (r_debug.r_brk), through a uprobe whose BPF program sends
// the thread SIGSTOP (package bpf's Stopper, Linux 5.5). dlopen calls it once the
// library is mapped and relocated, before its constructors run and
// before dlopen returns. While the process is stopped, the
// specifications are resolved against the objects it maps that were not
// read yet (only those are read), their new probes readied (the
// --filter compiled for each, how it is aggregated; a probe that lacks
// what they name is left out and given to Options.Warn), their sites
// attached and added to the plan (room for 4096 more
// sites and 1024 more probes is kept), and the process gets SIGCONT.
// Every call stops the process, also the loader's calls at its start and
// those of dlclose, for about the time it takes to read the notes of the
// objects new to it. A specification that matches nothing at the start
// is given to Options.Warn instead of failing Resolve. The process is
// stopped with SIGSTOP, which its parent may see (waitpid with
// WUNTRACED), as it sees a stop by job control; sdtattach -c is the
// parent of its command. A tracer that dies while the process is
// stopped does not leave it so: the Stopper's guard process sends it
// SIGCONT (see package bpf, Stoppers).
//
// With Options.Cgroup too, every process of the cgroup is followed so:
// the uprobe on the loader is attached in every process that maps it,
// its program stops only the threads of the cgroup, and a process that
// executes another program is stopped as the loader reports the objects
// of the new program, before its main, whose probes are then attached
// too. The sites are attached by file, which the cgroup filter limits to
// its processes. A thread of a PID namespace below the tracer's is not
// stopped: the tracer could not name it to let it run on.
//
// Keys of an aggregation that may be strings in a library loaded later,
// as a PROVIDER:NAME specification or Options.Types types them, are
// sized for a string from the start.
//
// # Aggregating in the kernel
//
// Plan.Aggregate attaches instead the program that counts hits, draws
// log2 histograms of a value or keeps its stats in the kernel, per probe
// and key (an Aggregation: pid, tid, comm, arguments and --types fields,
// strings included), and sends no event. CheckAggregation, which
// Aggregate calls first, reports as a *KeyError a key or value a probe
// does not have, before anything is attached. Aggregator.Collect ends an
// interval and returns its aggregate.Records; Run collects every
// interval and once more after stopping, so that the last records hold
// every hit. No hit is lost between intervals or counted twice; hits of
// new keys that find the map full are counted per probe, as a Record's
// Lost.
//
// Plan.AggregateEvents makes the same records without BPF, from the
// events of an EventSource (the tracefs backend's): it folds each event
// into the entries the kernel program would have kept, with the same
// keys, buckets, stats, pairing and limits, holding back a latency's
// events to pair them in time order. Plan.Passes evaluates the filter on
// an event, for a backend that cannot filter in the kernel.
//
// Options.Filter, a filter.Expr, is compiled by Resolve for every probe
// of the plan, against the types and names of its arguments, and tested
// in the kernel on every hit, streaming or aggregating, before anything
// else: hits that fail it make no event and are not counted. A key a
// probe lacks, or a string compared with a number, is a *filter.Error
// from Resolve that names the probe and the column of the token.
//
// The uprobes are made and removed by a keeper process (see package bpf):
// a traced process is never left patched, even when the tracer is killed
// with SIGKILL.
package attach
