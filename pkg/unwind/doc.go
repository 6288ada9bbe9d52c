// Package unwind unwinds user stacks from the call-frame information of
// ELF files, as perf's --call-graph dwarf does: a tracer copies the
// registers of a thread and the top of its stack when a probe fires, and
// the stack is walked here, in user space, by the rules of .eh_frame
// (and .debug_frame where the file has one).
//
// A Table holds the call-frame information of one file. Its FDEs (frame
// description entries) are found through the binary search table of
// .eh_frame_hdr where there is one, or an index made when the Table is
// read; Row runs the DW_CFA instructions of the FDE's CIE and of the FDE
// up to an address, which gives the rules that recover the CFA and the
// caller's registers there. The instructions gcc and clang emit are
// known, remember_state and restore_state included, and the DWARF
// expressions of CFA and register rules (the PLT's CFA, a stack
// realigned in main, signal frames) are evaluated.
//
// Unwind walks a copied Stack: the rules of a frame give the CFA and the
// return address, saved in the copy; a frame no FDE covers is walked by
// its frame pointer. So a program built with frame pointers that calls
// a library without them, and the reverse, unwind right. The walk ends
// at the outermost frame (whose return address the rules leave
// undefined, as _start's do), at a return address outside the copy, or
// at a step that does not climb the stack. x86-64 and arm64 are known;
// arm64 return addresses signed with pointer authentication are
// stripped.
//
// A Table keeps the rows it has made, by address, up to a bound: the
// stacks a probe sees are mostly the same few, whose frames then cost a
// lookup each rather than a run of the FDE's instructions.
//
// Process places run-time addresses in the files a process maps and
// gives their Tables, read once per build through a Cache; Processes
// does so for many processes, as a tracer sees them.
package unwind
