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
// Symbol.Demangled demangles C++ and Rust names.
package symbolize
