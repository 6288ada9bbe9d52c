package symbolize

import (
	"errors"
	"strings"
	"testing"
)

func TestSymbolAddr(t *testing.T) {
	// Two files with a static counter and a local function each, a
	// third with a local function and no counter, a global counter and
	// a global function, as .symtab groups them.
	obj := &Object{symtab: true, gotPLT: 0x3fe8, syms: sortSymbols([]Symbol{
		{Name: "hit", Addr: 0x1150, Size: 2, Local: true, SourceFile: "a.c", Table: SymTab, group: 1},
		{Name: "counter", Addr: 0x4010, Size: 8, Local: true, SourceFile: "a.c", Table: SymTab, group: 1},
		{Name: "hit", Addr: 0x1180, Size: 2, Local: true, SourceFile: "b.c", Table: SymTab, group: 2},
		{Name: "counter", Addr: 0x4018, Size: 8, Local: true, SourceFile: "b.c", Table: SymTab, group: 2},
		{Name: "other", Addr: 0x11a0, Size: 16, Local: true, SourceFile: "c.c", Table: SymTab, group: 3},
		{Name: "twice", Addr: 0x4020, Size: 4, Local: true, SourceFile: "a.c", Table: SymTab, group: 1},
		{Name: "twice", Addr: 0x4024, Size: 4, Local: true, SourceFile: "b.c", Table: SymTab, group: 2},
		{Name: "twice", Addr: 0x4028, Size: 4, Local: true, SourceFile: "b.c", Table: SymTab, group: 2},
		{Name: "counter", Addr: 0x4030, Size: 8, Table: SymTab},
		{Name: "unique", Addr: 0x4040, Size: 8, Table: SymTab},
		{Name: "main", Addr: 0x1200, Size: 32, Table: SymTab},
	})}
	for _, tt := range []struct {
		name string
		pc   uint64
		want uint64
		err  string
	}{
		{"unique", 0x1200, 0x4040, ""},
		{"counter", 0x1150, 0x4010, ""},          // a.c's hit reads a.c's
		{"counter", 0x1181, 0x4018, ""},          // b.c's
		{"counter", 0x11a8, 0x4030, ""},          // c.c has none: the global one
		{"twice", 0x1150, 0x4020, ""},            // the one of a.c
		{"_GLOBAL_OFFSET_TABLE_", 0, 0x3fe8, ""}, // the start of .got.plt
		{"counter", 0x1200, 0, `no unique symbol "counter": defined at 0x4010 (a.c), 0x4018 (b.c), 0x4030; the function of the site at 0x1200 is in no source file of these`},
		{"twice", 0x1180, 0, `no unique symbol "twice": defined at 0x4020 (a.c), 0x4024 (b.c), 0x4028 (b.c)`},
		{"twice", 0x11a0, 0, `no unique symbol "twice"`}, // c.c has none, and there is no global
		{"counter", 0x9999, 0, `no unique symbol "counter"`},
		{"nosuch", 0x1150, 0, `no symbol "nosuch"`},
	} {
		got, err := obj.SymbolAddr(tt.name, tt.pc)
		if tt.err != "" {
			if err == nil || !strings.HasPrefix(err.Error(), tt.err) {
				t.Errorf("SymbolAddr(%q, %#x) = %#x, %v, want error %q", tt.name, tt.pc, got, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("SymbolAddr(%q, %#x) = %#x, %v, want %#x", tt.name, tt.pc, got, err, tt.want)
		}
	}
	var ae *AmbiguousSymbolError
	if _, err := obj.SymbolAddr("counter", 0x1200); !errors.As(err, &ae) || len(ae.Candidates) != 3 {
		t.Errorf("SymbolAddr(counter, 0x1200) = %v, want an *AmbiguousSymbolError of 3 candidates", err)
	}

	stripped := &Object{}
	if _, err := stripped.SymbolAddr("counter", 0x1150); !errors.Is(err, ErrNoSymbol) || !strings.Contains(err.Error(), "no .symtab and no debug file") {
		t.Errorf("SymbolAddr in a stripped file without a debug file = %v, want ErrNoSymbol saying why", err)
	}
	if _, err := (*Object)(nil).SymbolAddr("counter", 0x1150); !errors.Is(err, ErrNoSymbol) {
		t.Errorf("SymbolAddr of a nil Object = %v, want ErrNoSymbol", err)
	}
}
