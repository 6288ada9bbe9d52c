package stapsdt

import (
	"debug/elf"
	"errors"
)

// Symbols returns the link-time addresses of the symbols defined in the
// ELF file f, from .symtab and .dynsym, and of
// _GLOBAL_OFFSET_TABLE_ from .got.plt in an x86 file stripped of it. A name
// defined at more than one address (static variables of the same name in
// different files) is left out: an argument naming it cannot be resolved.
//
// Arguments relative to a symbol (rip-relative and absolute globals, the
// GOT-relative globals of x86 PIC code) are read at these addresses
// (bpf.SpecOptions.Symbols).
func Symbols(f *elf.File) (map[string]uint64, error) {
	m := make(map[string]uint64)
	dup := make(map[string]bool)
	var errs []error
	for _, read := range []func() ([]elf.Symbol, error){f.Symbols, f.DynamicSymbols} {
		syms, err := read()
		if err != nil && !errors.Is(err, elf.ErrNoSymbols) {
			errs = append(errs, err)
		}
		for _, s := range syms {
			switch elf.ST_TYPE(s.Info) {
			case elf.STT_SECTION, elf.STT_FILE, elf.STT_TLS:
				continue
			}
			if s.Name == "" || s.Section == elf.SHN_UNDEF {
				continue
			}
			if a, ok := m[s.Name]; ok && a != s.Value {
				dup[s.Name] = true
			}
			m[s.Name] = s.Value
		}
	}
	for name := range dup {
		delete(m, name)
	}
	// A stripped file keeps its sections: on x86, GNU ld and lld put the
	// GOT symbol at the start of .got.plt.
	if _, ok := m[GOTSymbol]; !ok && (f.Machine == elf.EM_386 || f.Machine == elf.EM_X86_64) {
		if s := f.Section(".got.plt"); s != nil {
			m[GOTSymbol] = s.Addr
		}
	}
	return m, errors.Join(errs...)
}

// GOTSymbol is the symbol at the address GOT-relative operands count
// from.
const GOTSymbol = "_GLOBAL_OFFSET_TABLE_"
