// Package probe finds USDT probes: it resolves probe specifications
// (package probespec) to the probes of ELF files and of running
// processes, and walks the objects a process maps.
//
// A Probe is one probe, a provider and a name, of one Target file, with
// the sites of it that were selected (indexes into the file's
// stapsdt.File.Sites). Find resolves specifications:
//
//   - without a process, PATH:PROVIDER:NAME names one file, found as a
//     shell or the dynamic loader would find a bare name
//     (probespec.Resolve);
//   - with Options.PID, PROVIDER:NAME is matched against every object the
//     process maps, and PATH:PROVIDER:NAME against the objects that PATH
//     names (process.PathMatcher) or, when the process does not map it
//     yet (dlopen), the file PATH resolves to.
//
// Every specification must match at least one probe: one that matches
// none gives an error that names the files searched and the probes in
// them that come closest. A site matched by several specifications is
// selected once. Files are identified by device and inode, so that a
// library named twice, or through a symbolic link, is one Target.
//
// Mapped walks the objects a process maps and reads the probe sites of
// each ELF file among them; it is how every sdtkit tool looks into a
// process. Live lists those sites as sdtlist -p does, each with its state
// in the process (process.SiteReader: armed or not, the semaphore's
// address and value) and the uprobes that own an armed one, and the
// dynamic loader's hook once a tracer has patched it.
package probe
