package symbolize

import (
	"encoding/json"
	"fmt"
	"path/filepath"
)

// A Frame is one address of a stack, symbolized. Its JSON form is what a
// stack carries in events, innermost frame first:
//
//	{"addr":94558765441388,"sym":"inner","off":12,"file":"/usr/bin/prog","file_offset":4460,"build_id":"5e1f..."}
//
// sym and off are there when a symbol is known, file and file_offset when
// a file is mapped at the address, build_id when that file has one.
type Frame struct {
	// Addr is the run-time address.
	Addr uint64 `json:"addr"`
	// Sym is the symbol's name, demangled; empty when none is known.
	Sym string `json:"sym,omitempty"`
	// Off is Addr's offset into Sym.
	Off uint64 `json:"off,omitempty"`
	// File is the object mapped at Addr, as the process names it in
	// /proc/PID/maps ("/usr/lib/x86_64-linux-gnu/libc.so.6"); empty for
	// anonymous memory.
	File string `json:"file,omitempty"`
	// FileOffset is Addr's offset in File, by which a uprobe names the
	// place and by which it can be symbolized later.
	FileOffset uint64 `json:"file_offset,omitempty"`
	// BuildID is File's GNU build-id in hex.
	BuildID string `json:"build_id,omitempty"`
}

// MarshalJSON writes off whenever sym is there and file_offset whenever
// file is, 0 included.
func (f Frame) MarshalJSON() ([]byte, error) {
	type frame struct {
		Addr       uint64  `json:"addr"`
		Sym        string  `json:"sym,omitempty"`
		Off        *uint64 `json:"off,omitempty"`
		File       string  `json:"file,omitempty"`
		FileOffset *uint64 `json:"file_offset,omitempty"`
		BuildID    string  `json:"build_id,omitempty"`
	}
	out := frame{Addr: f.Addr, Sym: f.Sym, File: f.File, BuildID: f.BuildID}
	if f.Sym != "" {
		out.Off = &f.Off
	}
	if f.File != "" {
		out.FileOffset = &f.FileOffset
	}
	return json.Marshal(out)
}

// String formats the frame as people read it in a stack: "inner+0xc
// (/usr/bin/prog)", or "0x7f3a1c02a0b4 (libc.so.6+0x2a0b4)" without a
// symbol.
func (f Frame) String() string {
	switch {
	case f.Sym != "" && f.File != "":
		return fmt.Sprintf("%s+%#x (%s)", f.Sym, f.Off, f.File)
	case f.Sym != "":
		return fmt.Sprintf("%s+%#x", f.Sym, f.Off)
	case f.File != "":
		return fmt.Sprintf("%#x (%s+%#x)", f.Addr, filepath.Base(f.File), f.FileOffset)
	}
	return fmt.Sprintf("%#x", f.Addr)
}
