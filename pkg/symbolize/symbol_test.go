package symbolize

import "testing"

func TestLookupPreference(t *testing.T) {
	table := sortSymbols([]Symbol{
		{Name: "static_alias", Addr: 0x1000, Size: 0x20, Local: true, Table: SymTab},
		{Name: "__libc_malloc", Addr: 0x1000, Size: 0x20, Table: DynSym},
		{Name: "malloc", Addr: 0x1000, Size: 0x20, Table: SymTab},
		{Name: "malloc", Addr: 0x1000, Size: 0x20, Table: DynSym}, // the same, from .dynsym
		{Name: "label", Addr: 0x1000, Table: SymTab},
		{Name: "outer", Addr: 0x2000, Size: 0x100, Table: SymTab},
		{Name: "nested", Addr: 0x2010, Size: 0x10, Table: SymTab},
		{Name: "_start", Addr: 0x3000, Table: SymTab}, // assembly, no size
		{Name: "after", Addr: 0x3100, Size: 0x10, Table: SymTab},
	})
	if len(table) != 8 {
		t.Errorf("sortSymbols kept %d symbols, want 8 (one malloc dropped)", len(table))
	}
	for _, tt := range []struct {
		addr uint64
		want string
	}{
		{0xfff, ""},
		{0x1000, "malloc"}, // global, sized, from .symtab
		{0x101f, "malloc"}, // last byte
		{0x1020, ""},       // past it: the unsized label is not the top
		{0x2018, "nested"}, // the innermost that contains it
		{0x2020, "outer"},  // past nested, inside outer
		{0x20ff, "outer"},  // last byte of outer
		{0x2100, ""},       // a gap
		{0x3000, "_start"}, // no size: reaches to the next symbol
		{0x30ff, "_start"},
		{0x3108, "after"},
		{0x3110, ""},
	} {
		s, ok := table.lookup(tt.addr)
		if s.Name != tt.want || ok != (tt.want != "") {
			t.Errorf("lookup(%#x) = %q, %v, want %q", tt.addr, s.Name, ok, tt.want)
		}
	}
	if got := table.named("malloc"); len(got) != 1 || got[0].Table != SymTab {
		t.Errorf("named(malloc) = %+v, want the .symtab one", got)
	}
}
