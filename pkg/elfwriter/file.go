package elfwriter

import (
	"debug/elf"
	"errors"
	"fmt"
)

// Type is the kind of executable a File becomes.
type Type int

const (
	// Exec is an ET_EXEC executable linked at a fixed address.
	Exec Type = iota
	// PIE is a static position-independent executable: ET_DYN with no
	// interpreter, linked at 0 and placed anywhere by the kernel.
	PIE
	// Shared is a shared object: ET_DYN linked at 0 with a dynamic
	// section exporting the global symbols, loadable by the dynamic
	// loader or by mapping its two segments.
	Shared
)

func (t Type) String() string {
	switch t {
	case Exec:
		return "exec"
	case PIE:
		return "pie"
	case Shared:
		return "shared"
	}
	return fmt.Sprintf("Type(%d)", int(t))
}

// DefaultExecBase is the address an Exec file is linked at unless
// File.Base says otherwise; it is what GNU ld uses on x86-64.
const DefaultExecBase = 0x400000

// section identifies where a Label lives.
type section uint8

const (
	secNone section = iota
	secText
	secData
	secProbes
	secBase // .stapsdt.base
	secGnuHash
	secDynsym
	secDynstr
	secDynamic
)

// A Label is a location in .text, .data or .probes, resolved by Link. The
// zero Label is no location: as a note's semaphore it means none.
type Label int

type label struct {
	name   string // "" for a label that is not in .symtab
	sec    section
	off    uint64
	size   uint64
	global bool
	bound  bool
}

// A Note describes one probe site. Args is the argument string exactly as
// it is to appear in the note, such as "-4@%edi 8@-16(%rbp)".
type Note struct {
	Provider  string
	Name      string
	Args      string
	PC        Label // the probe's nop
	Semaphore Label // 0 for none
}

// fixupKind says how a fixup's displacement is encoded.
type fixupKind uint8

const (
	// fixRel32 is a 32-bit displacement in the byte order of the machine.
	fixRel32 fixupKind = iota
	// fixARM64Page21 is the page displacement of an aarch64 adrp at end:
	// from end's 4 KiB page to the target's, in immlo and immhi. .text
	// starts on a page, so end's place in its page is end's in .text.
	fixARM64Page21
	// fixARM64Lo12 is the low 12 bits of the target's address in the
	// imm12 field of an aarch64 add; end is the offset of its adrp.
	fixARM64Lo12
	// fixARM64Branch26 is the word displacement of an aarch64 b or bl.
	fixARM64Branch26
	// fixARM64Branch19 is the word displacement of an aarch64 b.cond,
	// cbz, cbnz or ldr (literal), in bits 5 to 23.
	fixARM64Branch19
	// fixS390Dbl32 is the halfword displacement of an s390x RIL
	// instruction (larl, brasl, brcl) from its start at end, 32 bits.
	fixS390Dbl32
)

// fixup is a PC-relative displacement at text offset off, to be resolved
// as target+addend minus the address of text offset end (the end of the
// instruction on x86) and encoded as kind says.
type fixup struct {
	off    int
	end    int
	target Label
	addend int64
	kind   fixupKind
}

// A File is an executable or shared object under construction.
type File struct {
	Type Type
	// Machine is the architecture, one of Machines(); EM_NONE means
	// EM_X86_64.
	Machine elf.Machine
	// Base is the link address of the file's first byte; Link uses
	// DefaultExecBase for Exec and 0 for PIE and Shared when it is 0.
	Base uint64
	// Soname is the DT_SONAME of a Shared file; none when empty.
	Soname string
	// PageSize is the alignment of the segments, a power of two: the
	// largest page size of the systems that are to map the file
	// (0x1000 when 0).
	PageSize uint64

	text   []byte
	data   []byte
	probes []byte
	labels []label // labels[0] is the zero Label
	fixups []fixup
	notes  []Note
	entry  Label
}

// New returns an empty x86-64 File of type t.
func New(t Type) *File {
	return &File{Type: t, labels: make([]label, 1)}
}

// NewFor returns an empty File of type t for machine m.
func NewFor(m elf.Machine, t Type) *File {
	f := New(t)
	f.Machine = m
	return f
}

// ErrUnbound is returned by Link for a Label that was used but never bound.
var ErrUnbound = errors.New("label not bound")

// NewLabel returns a Label to be bound later to a position in .text with
// Bind. A non-empty name puts it in the symbol table.
func (f *File) NewLabel(name string) Label {
	f.labels = append(f.labels, label{name: name, sec: secText})
	return Label(len(f.labels) - 1)
}

// Bind binds l to the current end of .text.
func (f *File) Bind(l Label) {
	f.labels[l].off = uint64(len(f.text))
	f.labels[l].bound = true
}

// Here returns a new Label bound to the current end of .text.
func (f *File) Here(name string) Label {
	l := f.NewLabel(name)
	f.Bind(l)
	return l
}

// Func binds l as a global function symbol starting here; End sets its size.
func (f *File) Func(name string) Label {
	l := f.Here(name)
	f.labels[l].global = true
	return l
}

// End sets the size of the text symbol l to reach the current end of .text.
func (f *File) End(l Label) {
	f.labels[l].size = uint64(len(f.text)) - f.labels[l].off
}

// SetEntry makes l the entry point.
func (f *File) SetEntry(l Label) { f.entry = l }

// Data appends b to .data, aligned to align bytes, and returns its Label. A
// non-empty name gives it a local object symbol.
func (f *File) Data(name string, b []byte, align int) Label {
	for len(f.data)%align != 0 {
		f.data = append(f.data, 0)
	}
	f.labels = append(f.labels, label{name: name, sec: secData, off: uint64(len(f.data)), size: uint64(len(b)), bound: true})
	f.data = append(f.data, b...)
	return Label(len(f.labels) - 1)
}

// Semaphore appends a 2-byte probe semaphore to .probes and returns its
// Label; name, as sys/sdt.h has it PROVIDER_NAME_semaphore, becomes a
// global object symbol.
func (f *File) Semaphore(name string) Label { return f.SemaphoreAligned(name, 2) }

// SemaphoreAligned is Semaphore with the semaphore placed at a multiple of
// align bytes, for readers that load it as a wider word.
func (f *File) SemaphoreAligned(name string, align int) Label {
	for len(f.probes)%align != 0 {
		f.probes = append(f.probes, 0)
	}
	f.labels = append(f.labels, label{name: name, sec: secProbes, off: uint64(len(f.probes)), size: 2, global: true, bound: true})
	f.probes = append(f.probes, 0, 0)
	return Label(len(f.labels) - 1)
}

// AddNote adds the stapsdt note of one probe site.
func (f *File) AddNote(n Note) { f.notes = append(f.notes, n) }

// Len returns the current size of .text.
func (f *File) Len() int { return len(f.text) }
