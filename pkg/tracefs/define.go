package tracefs

import (
	"debug/elf"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/sdtkit/sdtkit/pkg/argspec"
	"github.com/sdtkit/sdtkit/pkg/stapsdt"
)

// ErrMachine is the error of Define for a file of a machine whose
// operands it does not translate: one that package argspec does not
// parse.
var ErrMachine = errors.New("machine not supported")

// A fetchFunc returns the fetch argument of operand a at the site whose
// link-time address is pc.
type fetchFunc func(a *argspec.Arg, pc uint64, o *Options) (string, error)

// fetcher returns the fetchFunc of machine m, nil for one Define does not
// know.
func fetcher(m elf.Machine) fetchFunc {
	switch m {
	case elf.EM_X86_64:
		return fetchAMD64
	case elf.EM_386:
		return fetchI386
	}
	if mc, ok := machines[m]; ok {
		return mc.fetch
	}
	return nil
}

// A Definition is one uprobe_events probe event: a line of the file
// uprobe_events, as String writes it.
type Definition struct {
	Group, Event string
	Path         string // absolute
	Offset       uint64 // of the site in the file
	// RefCtrOffset is the file offset of the semaphore, 0 for none.
	RefCtrOffset uint64
	Args         []FetchArg
	// LeftOut are the arguments that have no fetch argument form, in
	// order, and the semaphore when it cannot be a reference counter
	// (Index -1).
	LeftOut []LeftOut
	// Comm fetches the command name of the thread, as field comm.
	Comm bool
}

// A FetchArg is one argument of a Definition.
type FetchArg struct {
	Index int    // of the probe argument, from 0; named argN
	Fetch string // such as "%di:s64"
	// Name, when not "", names the field instead of argN.
	Name string
	// Raw is the operand as the note writes it, "" for a field that is
	// no argument (the site number).
	Raw string
}

// name returns the name of the field the argument is fetched as.
func (a *FetchArg) name() string {
	if a.Name != "" {
		return a.Name
	}
	return "arg" + strconv.Itoa(a.Index)
}

// A LeftOut is an argument of the probe that a Definition cannot fetch.
type LeftOut struct {
	Index int    // of the probe argument, from 0; -1 for the semaphore
	Raw   string // as the note writes it
	Err   error
}

func (l LeftOut) String() string {
	if l.Index < 0 {
		return fmt.Sprintf("semaphore not raised: %v", l.Err)
	}
	return fmt.Sprintf("arg%d %q left out: %v", l.Index, l.Raw, l.Err)
}

// String returns the definition as a line of uprobe_events, without a
// newline.
func (d *Definition) String() string {
	b := make([]byte, 0, 128)
	b = append(b, "p:"...)
	b = append(b, d.Group...)
	b = append(b, '/')
	b = append(b, d.Event...)
	b = append(b, ' ')
	b = append(b, d.Path...)
	b = append(b, ":0x"...)
	b = strconv.AppendUint(b, d.Offset, 16)
	if d.RefCtrOffset != 0 {
		b = append(b, "(0x"...)
		b = strconv.AppendUint(b, d.RefCtrOffset, 16)
		b = append(b, ')')
	}
	if d.Comm {
		b = append(b, " comm=$comm"...)
	}
	for _, a := range d.Args {
		b = append(b, ' ')
		if a.Name != "" {
			b = append(b, a.Name...)
		} else {
			b = append(b, "arg"...)
			b = strconv.AppendInt(b, int64(a.Index), 10)
		}
		b = append(b, '=')
		b = append(b, a.Fetch...)
	}
	return string(b)
}

// Layout returns what the kernel compares of two definitions of one
// event: the name and type of each field, in order. Definitions with the
// same layout can share an event: each written with the event's name
// appends a probe to it (kernels 5.7 and later), whose records are laid
// out alike.
func (d *Definition) Layout() string {
	b := make([]byte, 0, 64)
	if d.Comm {
		b = append(b, "comm=$comm"...)
	}
	for _, a := range d.Args {
		if len(b) > 0 {
			b = append(b, ' ')
		}
		b = append(b, a.name()...)
		b = append(b, '=')
		b = append(b, a.Fetch[strings.LastIndexByte(a.Fetch, ':')+1:]...)
	}
	return string(b)
}

// Options adjust Define.
type Options struct {
	// Symbols gives the link-time addresses of the symbols operands
	// name (symbolize.Object); nil when none do.
	Symbols stapsdt.SymbolTable
	// Type is the file's type: in an ET_EXEC file link-time addresses
	// are run-time addresses.
	Type elf.Type
	// Strings, when not nil, says which arguments, by index, are
	// pointers to NUL-terminated strings: they are fetched as the string
	// the operand's value points to, +0(OPERAND):string, to at most the
	// kernel's MAX_STRING_SIZE bytes.
	Strings func(i int) bool
	// KernelWord is the size in bytes of the running kernel's unsigned
	// long, 8 on a 64-bit kernel, or 0 when not known. The kernel reads
	// a pointer in memory as that many bytes before it reads the string
	// it points to: a 32-bit program's pointer in memory, on a 64-bit
	// kernel, is read with the 4 bytes after it as the top half of the
	// address. No fetch argument reads it as 4 bytes, so Define fetches
	// those 4 bytes too, as the field argN_high of string argument N,
	// for a reader to check that they are 0: the string was then read at
	// the pointer, and else at an address the program cannot have.
	KernelWord int
	// Comm sets Definition.Comm.
	Comm bool
	// ARM, for a 32-bit Arm file, reports whether the code at a
	// link-time address is ARM code (see ARMCode): the kernel's Arm
	// uprobes take no Thumb code, over which their breakpoint would be
	// another instruction. Sites it does not vouch for are refused.
	ARM func(pc uint64) bool
}

// Define returns the definition of site s of the file at path, of
// machine m, with the group and event names given (see Namer). The
// error is that of a site that cannot be a probe event at all: a machine
// Define does not know, a path the kernel cannot take, or a site in no
// executable segment.
func Define(s *stapsdt.Site, m elf.Machine, path string, group, event string, o *Options) (*Definition, error) {
	fetch := fetcher(m)
	if fetch == nil {
		return nil, fmt.Errorf("%w: %v", ErrMachine, m)
	}
	if !strings.HasPrefix(path, "/") || strings.ContainsFunc(path, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
		return nil, fmt.Errorf("path %q: uprobe_events takes an absolute path without blanks or control characters", path)
	}
	if s.PCOffsetErr != nil {
		return nil, s.PCOffsetErr
	}
	if o == nil {
		o = &Options{}
	}
	if m == elf.EM_ARM {
		switch {
		case s.PCOffset%4 != 0:
			return nil, fmt.Errorf("site at offset %#x: Arm uprobes take ARM code, 4-byte aligned, not Thumb code", s.PCOffset)
		case o.ARM == nil || !o.ARM(s.PC):
			return nil, fmt.Errorf("site at offset %#x: %w", s.PCOffset, errNotARM)
		}
	}
	d := &Definition{Group: group, Event: event, Path: path, Offset: s.PCOffset, Comm: o.Comm}
	if s.HasSemaphore() {
		if s.SemaphoreOffsetErr != nil {
			d.LeftOut = append(d.LeftOut, LeftOut{Index: -1, Err: s.SemaphoreOffsetErr})
		} else {
			d.RefCtrOffset = s.SemaphoreOffset
		}
	}
	for i, a := range argspec.ParseArgs(s.Args, m) {
		f, err := fetch(&a, s.PC, o)
		var high string
		if err == nil && o.Strings != nil && o.Strings(i) {
			high = highFetch(f, o.KernelWord)
			f, err = stringFetch(f)
		}
		if err != nil {
			d.LeftOut = append(d.LeftOut, LeftOut{Index: i, Raw: a.Raw, Err: err})
			continue
		}
		d.Args = append(d.Args, FetchArg{Index: i, Fetch: f, Raw: a.Raw})
		if high != "" {
			d.Args = append(d.Args, FetchArg{Index: i, Fetch: high, Name: highField(i), Raw: a.Raw})
		}
	}
	return d, nil
}

// highField returns the name of the field that holds the 4 bytes after
// the 4-byte pointer of string argument i, when Define fetches them (see
// Options.KernelWord).
func highField(i int) string { return "arg" + strconv.Itoa(i) + "_high" }

// highFetch returns the fetch argument of the bytes after a pointer in
// memory fetched by the integer fetch argument f that the dereference
// of a kernel of word bytes reads with it, or "" when it reads none: a
// pointer in a register or an immediate, or one of the kernel's size.
func highFetch(f string, word int) string {
	i := strings.LastIndexByte(f, ':')
	loc, typ := f[:i], f[i+1:]
	if word != 8 || len(typ) < 1 || typ[1:] != "32" || !strings.HasSuffix(loc, ")") {
		return ""
	}
	j := strings.IndexByte(loc, '(')
	off, err := strconv.ParseInt(loc[:j], 10, 64)
	if err != nil {
		return "" // not a displacement: no memory operand
	}
	return memory(off+4, loc[j+1:len(loc)-1], 4, false)
}

// stringFetch returns the fetch argument of the string that the integer
// fetch argument f points to.
func stringFetch(f string) (string, error) {
	i := strings.LastIndexByte(f, ':')
	loc, typ := f[:i], f[i+1:]
	if strings.HasPrefix(typ, "b") {
		return "", errors.New("a string at a register's high byte: no such pointer")
	}
	return "+0(" + loc + "):string", nil
}
