package symbolize

import (
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/sdtkit/sdtkit/internal/regfile"
)

// DefaultDebugDir is where distributions install separate debug files.
const DefaultDebugDir = "/usr/lib/debug"

// Options says where separate debug files are looked for.
type Options struct {
	// DebugDirs are the roots of separate debug files, searched in order
	// for DIR/.build-id/xx/rest.debug and DIR/FILEDIR/DEBUGLINK. Nil
	// means DefaultDebugDir.
	DebugDirs []string
}

func (o *Options) debugDirs() []string {
	if o == nil || o.DebugDirs == nil {
		return []string{DefaultDebugDir}
	}
	return o.DebugDirs
}

// An Object holds the symbols of one ELF file, merged from every source
// found for it: Go's .gopclntab, .symtab, .dynsym, MiniDebugInfo, and a
// separate debug file when the file has no .symtab of its own.
type Object struct {
	// Path is the file the object was read from.
	Path string
	// BuildID is the file's GNU build-id in hex, empty when it has none.
	BuildID string
	// DebugPath is the separate debug file symbols were read from, empty
	// when none was used.
	DebugPath string
	// Warnings says why a source of symbols the file names could not be
	// used: a debug file with the wrong CRC or build-id, a .gnu_debugdata
	// that does not decompress. The other sources are read all the same.
	Warnings []error

	loads []elf.ProgHeader
	syms  symbols
	// symtab is set when the file has a .symtab of its own.
	symtab bool
	// gotPLT is the address of .got.plt in an x86 file, where GNU ld and
	// lld put _GLOBAL_OFFSET_TABLE_, for a file stripped of the symbol.
	gotPLT uint64
}

// ref names a file to read: host is the path to open from here, path the
// path as the process that maps it sees it, and root the prefix that
// leads from here to that process's root directory ("" for this one).
type ref struct {
	host, path, root string
}

// Open reads the symbols of the ELF file at path.
func Open(path string, opts *Options) (*Object, error) {
	f, err := openELF(ref{host: path, path: path})
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.load(opts), nil
}

// NewObject reads the symbols of the ELF file r holds, which path names:
// a member of an archive, or a file opened by the caller. Separate debug
// files are looked for as for a file at path.
func NewObject(r io.ReaderAt, path string, opts *Options) (*Object, error) {
	ef, err := elf.NewFile(r)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	e := &elfFile{ref: ref{host: path, path: path}, ef: ef, buildID: buildID(ef)}
	return e.load(opts), nil
}

// elfFile is an ELF file opened for reading, with its build-id.
type elfFile struct {
	ref
	f       *os.File
	ef      *elf.File
	buildID string
}

func openELF(r ref) (*elfFile, error) {
	f, err := regfile.Open(r.host)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", r.path, err)
	}
	ef, err := elf.NewFile(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("read %s: %w", r.path, err)
	}
	return &elfFile{ref: r, f: f, ef: ef, buildID: buildID(ef)}, nil
}

func (e *elfFile) Close() error { return e.f.Close() }

// load reads every source of symbols of the file.
func (e *elfFile) load(opts *Options) *Object {
	o := &Object{Path: e.path, BuildID: e.buildID}
	for _, p := range e.ef.Progs {
		if p.Type == elf.PT_LOAD {
			o.loads = append(o.loads, p.ProgHeader)
		}
	}
	if m := e.ef.Machine; m == elf.EM_386 || m == elf.EM_X86_64 {
		if s := e.ef.Section(".got.plt"); s != nil {
			o.gotPLT = s.Addr
		}
	}
	var all []Symbol
	warn := func(err error) {
		if err != nil {
			o.Warnings = append(o.Warnings, err)
		}
	}
	gosyms, err := goSymbols(e.ef)
	warn(err)
	all = append(all, gosyms...)
	symtab, err := e.ef.Symbols()
	if err != nil && !errors.Is(err, elf.ErrNoSymbols) {
		warn(fmt.Errorf("read .symtab: %w", err))
	}
	all = append(all, elfSymbols(symtab, SymTab)...)
	o.symtab = len(symtab) > 0
	dynsym, err := e.ef.DynamicSymbols()
	if err != nil && !errors.Is(err, elf.ErrNoSymbols) {
		warn(fmt.Errorf("read .dynsym: %w", err))
	}
	all = append(all, elfSymbols(dynsym, DynSym)...)
	mini, err := miniDebugSymbols(e.ef)
	warn(err)
	all = append(all, mini...)
	if len(symtab) == 0 {
		// A stripped file: its full table is in a debug file, if one is
		// installed.
		path, syms, errs := findDebugFile(e, opts.debugDirs())
		o.Warnings = append(o.Warnings, errs...)
		o.DebugPath = path
		all = append(all, syms...)
	}
	o.syms = sortSymbols(all)
	return o
}

// Lookup returns the symbol that contains the virtual address addr, and
// addr's offset into it.
func (o *Object) Lookup(addr uint64) (sym Symbol, off uint64, ok bool) {
	s, ok := o.syms.lookup(addr)
	if !ok {
		return Symbol{}, 0, false
	}
	return s, addr - s.Addr, true
}

// LookupOffset returns the symbol at the file offset off, as a uprobe or
// a process's mapping names a place, and the offset into the symbol.
func (o *Object) LookupOffset(off uint64) (sym Symbol, symOff uint64, ok bool) {
	addr, ok := o.Addr(off)
	if !ok {
		return Symbol{}, 0, false
	}
	return o.Lookup(addr)
}

// Addr turns a file offset into the virtual address the file's loadable
// segments give it.
func (o *Object) Addr(off uint64) (uint64, bool) {
	for _, p := range o.loads {
		if off >= p.Off && off-p.Off < p.Filesz {
			return p.Vaddr + off - p.Off, true
		}
	}
	return 0, false
}

// Symbols returns the symbols called name (as the file spells it) in
// address order: more than one for a static defined in several source
// files, each with its SourceFile.
func (o *Object) Symbols(name string) []Symbol { return o.syms.named(name) }

// Len returns the number of symbols the object holds.
func (o *Object) Len() int { return len(o.syms) }

// memSize estimates the memory the object holds.
func (o *Object) memSize() int64 {
	return o.syms.memSize() + int64(len(o.loads))*64 + int64(len(o.Path)+len(o.BuildID)+len(o.DebugPath)) + 256
}

// elfSymbols converts the functions and objects of an ELF symbol table,
// in table order so that STT_FILE entries name the source file of the
// local symbols after them.
func elfSymbols(list []elf.Symbol, table Table) []Symbol {
	out := make([]Symbol, 0, len(list))
	var file string
	var group, groups uint32
	for _, s := range list {
		typ, bind := elf.ST_TYPE(s.Info), elf.ST_BIND(s.Info)
		if typ == elf.STT_FILE {
			file = s.Name
			groups++
			group = groups
			continue
		}
		local := bind == elf.STB_LOCAL
		if !local {
			file, group = "", 0
		}
		switch {
		case typ == elf.STT_FUNC, typ == elf.STT_GNU_IFUNC, typ == elf.STT_OBJECT:
		case typ == elf.STT_NOTYPE && !local:
			// Assembly entry points carry no type; local ones are
			// labels and mapping symbols ($x, $d).
		default:
			continue
		}
		if s.Name == "" || s.Section == elf.SHN_UNDEF || s.Section >= elf.SHN_LORESERVE {
			continue
		}
		out = append(out, Symbol{Name: s.Name, Addr: s.Value, Size: s.Size, Local: local, SourceFile: file, Table: table, group: group})
	}
	return out
}
