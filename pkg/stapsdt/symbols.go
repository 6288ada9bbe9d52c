package stapsdt

// A SymbolTable gives the link-time addresses of the symbols that the
// arguments of a file's probe sites name (argspec.Arg.Symbol):
// rip-relative and absolute globals, and the GOT-relative globals of x86
// PIC code, which also need GOTSymbol. symbolize.Object is one: it reads
// .symtab and .dynsym, or the debug file of a stripped file, and tells
// apart statics of one name in several source files by the site's own.
type SymbolTable interface {
	// SymbolAddr returns the link-time address of the symbol name that
	// an argument of the site at link-time address pc names.
	SymbolAddr(name string, pc uint64) (uint64, error)
}

// GOTSymbol is the symbol at the address GOT-relative operands count
// from.
const GOTSymbol = "_GLOBAL_OFFSET_TABLE_"
