package symbolize

import (
	"debug/elf"
	"debug/gosym"
	"fmt"
)

// goSymbols reads the functions of a Go binary from its .gopclntab, which
// the runtime needs for its own tracebacks and which stripping therefore
// leaves in place, with the Go names (main.(*T).Method) and exact sizes.
func goSymbols(ef *elf.File) (syms []Symbol, err error) {
	s := ef.Section(".gopclntab")
	if s == nil {
		// A position-independent Go binary keeps it in RELRO data.
		s = ef.Section(".data.rel.ro.gopclntab")
	}
	text := ef.Section(".text")
	if s == nil || s.Type == elf.SHT_NOBITS || text == nil {
		return nil, nil
	}
	data, err := s.Data()
	if err != nil {
		return nil, fmt.Errorf("read .gopclntab: %w", err)
	}
	defer func() {
		// debug/gosym trusts the table it is given.
		if r := recover(); r != nil {
			syms, err = nil, fmt.Errorf("read .gopclntab: corrupt table: %v", r)
		}
	}()
	tab, err := gosym.NewTable(nil, gosym.NewLineTable(data, text.Addr))
	if err != nil {
		return nil, fmt.Errorf("read .gopclntab: %w", err)
	}
	syms = make([]Symbol, 0, len(tab.Funcs))
	for _, fn := range tab.Funcs {
		if fn.End <= fn.Entry {
			continue
		}
		syms = append(syms, Symbol{Name: fn.Name, Addr: fn.Entry, Size: fn.End - fn.Entry, Table: GoPCLNTab})
	}
	return syms, nil
}
