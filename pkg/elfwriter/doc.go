// Package elfwriter writes small Linux executables and shared objects
// carrying USDT probes, byte by byte, with no compiler, assembler or linker.
//
// A File collects machine code in .text, initialized data in .data, 2-byte
// probe semaphores in .probes, and one stapsdt note per probe site. Link
// lays the sections out and returns an Image: the bytes of the ELF file and
// the final address and file offset of every Label.
//
// Two kinds of file are written: Exec, an ET_EXEC executable at a fixed
// address (0x400000 by default), and PIE, a static position-independent
// executable (ET_DYN with no interpreter and no dynamic section, linked at
// 0). Both have one read-only executable PT_LOAD segment (headers, .text and
// .stapsdt.base) and one writable PT_LOAD segment (.probes and .data), plus
// PT_GNU_STACK. The stapsdt notes are not allocated, as with sys/sdt.h, so
// there is no PT_NOTE.
//
// Each note has exactly the layout sys/sdt.h gives it: owner "stapsdt", type
// 3, then the 8-byte addresses of the probe's nop, of .stapsdt.base and of
// the semaphore (0 for none), then provider, name and argument string, each
// NUL-terminated, padded to 4 bytes. .stapsdt.base is the one byte section
// sys/sdt.h defines, with its local symbol _.stapsdt.base.
//
// A Shared file is a shared object: ET_DYN linked at 0 whose global
// symbols (functions and semaphores) are exported through .dynsym,
// .gnu.hash and a PT_DYNAMIC segment, with an optional DT_SONAME. It needs
// no relocations either, so the dynamic loader can dlopen it and a program
// can also map its two segments itself.
//
// Files are x86-64 unless File.Machine names another of Machines(): aarch64,
// i386 (ELFCLASS32, with 4-byte note addresses as sys/sdt.h writes them on
// ILP32) or s390x (big-endian). Link writes every structure, the
// debug/elf types encoded with encoding/binary, in the class and byte
// order of the machine. Nop and Ret emit the machine's probe nop and
// return and Raw appends code encoded by the caller; File.AMD64,
// File.ARM64, File.I386 and File.S390X return the assemblers of the
// machines, each with its own register type, which address data
// PC-relative (RIP-relative operands, adrp and add, larl) or, on i386,
// from a call's return address, so that a PIE needs no relocations on any
// machine.
//
// SemaphoreObject writes another kind of file, a relocatable object that
// only defines probe semaphores, for programs whose notes a compiler wrote.
package elfwriter
