package symbolize

import (
	"cmp"
	"slices"
	"unsafe"
)

// A Symbol is a function or object of an ELF file, at its virtual address.
type Symbol struct {
	// Name is the name as the file spells it: mangled for C++ and Rust.
	// Demangled gives the name people read.
	Name string
	// Addr is the symbol's virtual address in the file (st_value), and
	// Size its size in bytes, 0 where the file does not say.
	Addr, Size uint64
	// Local is set for a symbol of binding STB_LOCAL: a C static.
	Local bool
	// SourceFile names the source file of a local symbol ("a.c"), from
	// the STT_FILE symbol that groups it in .symtab, so that two statics
	// of the same name in two files are told apart; empty for global
	// symbols and where the table has no such entry.
	SourceFile string
	// Table says which table the symbol was read from.
	Table Table

	// group numbers the STT_FILE entry that groups a local symbol in
	// its table, from 1; 0 for a global symbol or one without such an
	// entry. Unlike SourceFile, it tells apart two files of one name.
	group uint32
}

// Demangled returns the symbol's name demangled (C++ and Rust), or its
// name as it is when it is not mangled.
func (s Symbol) Demangled() string { return demangleName(s.Name) }

// contains reports whether addr lies within the symbol.
func (s Symbol) contains(addr uint64) bool { return addr >= s.Addr && addr-s.Addr < s.Size }

// A Table is where a symbol was read from.
type Table uint8

// The tables symbols are read from, in the order they are preferred when
// two give a name to the same address.
const (
	// GoPCLNTab is Go's function table, .gopclntab, which stripping
	// leaves in place.
	GoPCLNTab Table = iota + 1
	// SymTab is the file's own .symtab.
	SymTab
	// DebugFile is the .symtab of a separate debug file, found by
	// build-id or .gnu_debuglink.
	DebugFile
	// MiniDebugInfo is the .symtab of the xz-compressed ELF file in
	// .gnu_debugdata.
	MiniDebugInfo
	// DynSym is the dynamic symbol table, .dynsym.
	DynSym
	// PerfMapFile is a JIT compiler's /tmp/perf-PID.map.
	PerfMapFile
)

func (t Table) String() string {
	switch t {
	case GoPCLNTab:
		return "gopclntab"
	case SymTab:
		return "symtab"
	case DebugFile:
		return "debugfile"
	case MiniDebugInfo:
		return "minidebuginfo"
	case DynSym:
		return "dynsym"
	case PerfMapFile:
		return "perfmap"
	}
	return "unknown"
}

// symbols is a table of symbols sorted by address, with the preferred
// name first among those at one address.
type symbols []Symbol

// maxWalk bounds how many lower addresses lookup tries for a symbol that
// contains an address, past symbols of no size or too small: sized symbols
// nest rarely, and a bound keeps a lookup in a gap cheap.
const maxWalk = 64

// sortSymbols sorts syms by address and preference and drops the same
// name at the same address read from another table.
func sortSymbols(syms []Symbol) symbols {
	slices.SortStableFunc(syms, func(a, b Symbol) int {
		if c := cmp.Compare(a.Addr, b.Addr); c != 0 {
			return c
		}
		return cmp.Compare(rank(a), rank(b))
	})
	type key struct {
		addr uint64
		name string
	}
	seen := make(map[key]bool, len(syms))
	return slices.DeleteFunc(syms, func(s Symbol) bool {
		k := key{s.Addr, s.Name}
		if seen[k] {
			return true
		}
		seen[k] = true
		return false
	})
}

// rank orders the names of one address: a global name before a local one
// (an alias such as malloc before a static helper at the same place), a
// sized symbol before one of no size, then by table.
func rank(s Symbol) int {
	r := int(s.Table)
	if s.Size == 0 {
		r += 100
	}
	if s.Local {
		r += 1000
	}
	return r
}

// lookup returns the symbol containing addr: the preferred sized symbol
// that contains it, or else a symbol of no size at the highest address not
// above it, taken to extend to the next symbol as nm-style tools do,
// unless a sized symbol at its address says where the code there ends.
func (t symbols) lookup(addr uint64) (Symbol, bool) {
	i, _ := slices.BinarySearchFunc(t, addr+1, func(s Symbol, a uint64) int { return cmp.Compare(s.Addr, a) })
	// t[:i] holds the symbols at or below addr.
	if i == 0 {
		return Symbol{}, false
	}
	top := t[i-1].Addr
	var unsized *Symbol
	// Groups of one address, highest first, each in order of preference.
	for j, n := i-1, 0; j >= 0 && n < maxWalk; {
		g := j
		for g > 0 && t[g-1].Addr == t[j].Addr {
			g--
		}
		sized := false
		for k := g; k <= j; k++ {
			n++
			s := &t[k]
			if s.contains(addr) {
				return *s, true
			}
			sized = sized || s.Size > 0
		}
		if t[g].Addr == top && !sized {
			// Sorted sized first, so all of the group have no size.
			unsized = &t[g]
		}
		j = g - 1
	}
	if unsized != nil {
		return *unsized, true
	}
	return Symbol{}, false
}

// named returns the symbols called name, in address order.
func (t symbols) named(name string) []Symbol {
	var out []Symbol
	for _, s := range t {
		if s.Name == name {
			out = append(out, s)
		}
	}
	return out
}

// memSize estimates the bytes the table holds, for the cache's bound.
func (t symbols) memSize() int64 {
	// Source file names are shared by the symbols of one file.
	n := int64(cap(t)) * int64(unsafe.Sizeof(Symbol{}))
	for _, s := range t {
		n += int64(len(s.Name))
	}
	return n
}
