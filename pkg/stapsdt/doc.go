// Package stapsdt reads USDT probe descriptions from ELF files.
//
// A probe placed with <sys/sdt.h> (STAP_PROBEn, DTRACE_PROBEn, folly's
// FOLLY_SDT) leaves a one-byte nop in the code and an ELF note of type
// NT_STAPSDT, owner "stapsdt", in the section .note.stapsdt. The note holds
// the address of the nop, the link-time address of the .stapsdt.base
// section, the address of an optional semaphore, and three NUL-terminated
// strings: provider, name and the argument string.
//
// Open and NewFile decode every such note into one Probe per probe site, in
// note order. Addresses are adjusted by the difference between the actual
// address of .stapsdt.base and the one recorded in the note (non-zero after
// prelink or similar rewriting), and translated to file offsets through the
// PT_LOAD segments, which is what a uprobe and its reference counter
// (ref_ctr_offset) are attached by.
//
// Each site's instruction is read too (Site.Insn): the 1-byte nop of
// sys/sdt.h, x86's 5-byte nop, or one of libbpf's pairs of the two, which
// tell what a uprobe there costs and what it may touch (see Insn).
//
// Only the ELF headers, the note sections and their relocations, and the
// code around the sites are read, so listing the probes of a large
// runtime costs little more than reading its notes. A file without section headers (removed by strip
// --strip-section-headers or sstrip) has its stapsdt notes read from its
// PT_NOTE segments instead, as readelf -n does; the notes of other owners
// found there are passed over.
//
// What is read is bounded: a note section (or segment) that runs past the
// end of the file, or that would take the sections read from the file
// past MaxReadSize, is an error that names it, and nothing is allocated
// for it; only the first MaxFormatErrors malformed notes of a file are
// reported one by one, the others are counted in one further error.
//
// An ar archive, a static library such as libstdc++.a, is no ELF file
// to Open (ErrArchive) but holds relocatable objects with notes:
// OpenArchive lists its members, and Archive.File reads each as Open
// reads a file, naming it ARCHIVE(MEMBER) as binutils does. GNU's and
// BSD's long member names are read; thin archives, which only name
// their members' files, are refused (ErrThinArchive). Files reads a file
// or, for an archive, each of its members, for a caller that takes both.
//
// Decoding the argument string is the job of package argspec.
package stapsdt
