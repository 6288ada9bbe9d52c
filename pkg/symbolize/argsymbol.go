package symbolize

import (
	"errors"
	"fmt"
	"strings"

	"github.com/sdtkit/sdtkit/pkg/stapsdt"
)

// ErrNoSymbol is wrapped by the error of SymbolAddr for a name that no
// symbol table of the file, nor its debug file, defines.
var ErrNoSymbol = errors.New("no symbol")

// An AmbiguousSymbolError reports a name defined at several addresses
// (a static of the same name in several source files) when the probe
// site's own source file does not tell which one its argument reads.
type AmbiguousSymbolError struct {
	Name string
	// PC is the link-time address of the probe site.
	PC uint64
	// Candidates are the symbols called Name, in address order.
	Candidates []Symbol
}

func (e *AmbiguousSymbolError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "no unique symbol %q: defined at", e.Name)
	for i, s := range e.Candidates {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, " %#x", s.Addr)
		if s.SourceFile != "" {
			fmt.Fprintf(&b, " (%s)", s.SourceFile)
		}
	}
	fmt.Fprintf(&b, "; the function of the site at %#x is in no source file of these", e.PC)
	return b.String()
}

// SymbolAddr returns the link-time address of the symbol name that an
// argument of the probe site at link-time address pc names, as in
// "8@counter(%rip)" or "-4@sym@GOTOFF(%ebx)" (argspec.Arg.Symbol): the
// symbols of a stripped file come from its debug file or MiniDebugInfo as
// for Lookup.
//
// A name defined at several addresses, a static of the same name in two
// source files, is the one whose source file (the STT_FILE entry that
// groups local symbols in .symtab) holds the local function the site is
// in; when that file defines no such static, the name is the one global
// symbol of that name. Otherwise the error is an *AmbiguousSymbolError
// naming the candidates. _GLOBAL_OFFSET_TABLE_, which x86 GOT-relative
// operands count from, is the start of .got.plt in a file stripped of it.
//
// Object is a stapsdt.SymbolTable. A nil Object has no symbols.
func (o *Object) SymbolAddr(name string, pc uint64) (uint64, error) {
	if o == nil {
		return 0, fmt.Errorf("%w %q: the file's symbols could not be read", ErrNoSymbol, name)
	}
	cands := o.syms.named(name)
	switch {
	case len(cands) == 0 && name == stapsdt.GOTSymbol && o.gotPLT != 0:
		return o.gotPLT, nil
	case len(cands) == 0 && !o.symtab && o.DebugPath == "":
		return 0, fmt.Errorf("%w %q: the file has no .symtab and no debug file of it was found", ErrNoSymbol, name)
	case len(cands) == 0:
		return 0, fmt.Errorf("%w %q", ErrNoSymbol, name)
	case len(cands) == 1:
		return cands[0].Addr, nil
	}
	if s, ok := o.siteSymbol(cands, pc); ok {
		return s.Addr, nil
	}
	return 0, &AmbiguousSymbolError{Name: name, PC: pc, Candidates: cands}
}

// siteSymbol picks among cands, symbols of one name at different
// addresses, the one the code at pc refers to, by the source file of the
// local function that contains pc.
func (o *Object) siteSymbol(cands []Symbol, pc uint64) (Symbol, bool) {
	type fileGroup struct {
		table Table
		group uint32
	}
	var site []fileGroup
	for _, s := range o.syms {
		if s.Local && s.group != 0 && s.contains(pc) {
			site = append(site, fileGroup{s.Table, s.group})
		}
	}
	if len(site) == 0 {
		return Symbol{}, false
	}
	var mine, globals []Symbol
	for _, c := range cands {
		if !c.Local {
			globals = append(globals, c)
			continue
		}
		for _, g := range site {
			if c.Table == g.table && c.group == g.group {
				mine = append(mine, c)
				break
			}
		}
	}
	switch {
	case len(mine) == 1:
		return mine[0], true
	case len(mine) == 0 && len(globals) == 1:
		// In C, a name the site's file has no static of is the global
		// one.
		return globals[0], true
	}
	return Symbol{}, false
}
