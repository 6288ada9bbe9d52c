// Package symbolize turns addresses into symbol names, in pure Go, for the
// ELF files and the processes a tracer sees.
//
// Open reads the symbols of one ELF file into an Object, from every source
// the file has or names:
//
//   - .symtab and .dynsym, with STT_FILE entries giving each local symbol
//     its source file, so that a static defined in two files is told apart;
//   - Go's .gopclntab, which stripping leaves in place, with Go's names;
//   - MiniDebugInfo: the xz-compressed ELF file in .gnu_debugdata that
//     Fedora puts in stripped files to carry the functions .dynsym lacks;
//   - for a file without .symtab, a separate debug file, as gdb finds it:
//     DIR/.build-id/xx/rest.debug under each debug directory, checked by
//     build-id, then the file .gnu_debuglink names, next to the file, in
//     its .debug directory and under each debug directory, checked by CRC32.
//     A debug file that does not match is refused, and a warning wrapping
//     ErrDebugMismatch says why.
//
// Object.Lookup finds the symbol at a virtual address, Object.LookupOffset
// the one at a file offset, as uprobes and /proc/PID/maps name places.
// Object.SymbolAddr goes the other way for the arguments of probe sites
// that name a symbol (glibc's 8@32+mp_(%rip)): the address of the name
// from the same sources, so that a stripped library's statics are read
// from its debug file, and, for a static of one name in several source
// files, the one of the file whose local function holds the site.
// Symbol.Demangled demangles C++ and Rust names.
//
// A Cache keeps Objects by build-id, so that a library mapped by every
// process, or one build at many paths, is read once, in a bounded amount
// of memory: each Object is charged an estimate of its symbols and names,
// and the least recently used are dropped past the bound.
//
// A Process symbolizes the run-time addresses of a live process: it
// places each in a mapping of /proc/PID/maps, reads the file mapped there
// through /proc/PID/root (a container's files) or /proc/PID/map_files (a
// deleted file, a memfd), and looks the symbol up at the file offset.
// Addresses in anonymous memory are looked up in the perf map a JIT
// compiler writes (ReadPerfMap), read in the process's own mount
// namespace under its PID in its own PID namespace. A Frame is the result,
// in the JSON form events carry stacks in.
//
// Nothing here needs a uprobe, BPF or privileges beyond reading the
// process's maps; /proc/PID/map_files needs CAP_SYS_ADMIN.
package symbolize
