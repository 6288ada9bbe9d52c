package tracefs

import (
	"debug/elf"
	"errors"
	"slices"
	"strings"
)

// ARMCode returns, for a 32-bit Arm file, what Options.ARM wants: which
// link-time addresses hold ARM code and not Thumb code, as the file's
// mapping symbols say ($a before ARM code, $t before Thumb code, $d
// before data, from .symtab) or, where a stripped file has none, the
// function symbols whose address has bit 0 set for Thumb (from .symtab
// and .dynsym). An address that neither says anything of is not vouched
// for.
func ARMCode(f *elf.File) func(pc uint64) bool {
	type mark struct {
		addr uint64
		arm  bool // else Thumb code or data
	}
	type fn struct {
		lo, hi uint64
		arm    bool
	}
	var marks []mark
	var fns []fn
	add := func(syms []elf.Symbol) {
		for _, s := range syms {
			switch {
			case s.Name == "$a" || strings.HasPrefix(s.Name, "$a."):
				marks = append(marks, mark{s.Value, true})
			case s.Name == "$t" || strings.HasPrefix(s.Name, "$t.") || s.Name == "$d" || strings.HasPrefix(s.Name, "$d."):
				marks = append(marks, mark{s.Value, false})
			case elf.ST_TYPE(s.Info) == elf.STT_FUNC && s.Size > 0:
				lo := s.Value &^ 1
				fns = append(fns, fn{lo, lo + s.Size, s.Value&1 == 0})
			}
		}
	}
	if syms, err := f.Symbols(); err == nil {
		add(syms)
	}
	if syms, err := f.DynamicSymbols(); err == nil {
		add(syms)
	}
	slices.SortStableFunc(marks, func(a, b mark) int {
		switch {
		case a.addr < b.addr:
			return -1
		case a.addr > b.addr:
			return 1
		}
		return 0
	})
	return func(pc uint64) bool {
		if len(marks) > 0 {
			i, _ := slices.BinarySearchFunc(marks, pc+1, func(m mark, t uint64) int {
				if m.addr < t {
					return -1
				}
				return 1
			})
			return i > 0 && marks[i-1].arm
		}
		for _, f := range fns {
			if f.lo <= pc && pc < f.hi {
				return f.arm
			}
		}
		return false
	}
}

// errNotARM is the error of a 32-bit Arm site that Options.ARM does not
// vouch for.
var errNotARM = errors.New("not known to be ARM code (Thumb code, or no symbols to tell): Arm uprobes take ARM code only (compile with -marm, keep .symtab)")
