package elfwriter

import (
	"debug/elf"
	"math"
)

// dynamic holds what a Shared file exports: its dynamic symbols, the
// global labels with a name, and the tables that do not depend on
// addresses.
type dynamic struct {
	syms   []dynSym
	strtab []byte // .dynstr
	soname uint64 // the offset of Soname in strtab; 0 for none
	hash   []byte // .gnu.hash
}

// dynSym is a symbol of .dynsym, and the offset of its name in .dynstr.
type dynSym struct {
	name  string
	label Label
	off   uint32
}

func newDynamic(f *File, e *encoder) *dynamic {
	d := &dynamic{strtab: []byte{0}}
	if f.Soname != "" {
		d.soname = uint64(len(d.strtab))
		d.strtab = append(append(d.strtab, f.Soname...), 0)
	}
	for i, l := range f.labels {
		if l.global && l.name != "" {
			d.syms = append(d.syms, dynSym{name: l.name, label: Label(i)})
		}
	}
	d.hash = e.gnuHash(d.syms)
	for i := range d.syms {
		d.syms[i].off = uint32(len(d.strtab))
		d.strtab = append(append(d.strtab, d.syms[i].name...), 0)
	}
	return d
}

// entries returns the number of entries of .dynamic.
func (d *dynamic) entries() int {
	if d.soname != 0 {
		return 7
	}
	return 6
}

// fillDynamic writes .dynsym and .dynamic, now that the sections have their
// indexes and the labels their addresses, and links the sections that
// refer to others.
func (l *linker) fillDynamic(t sectionTable, secIndex map[section]uint16) {
	d, e, im := l.dyn, l.e, l.im
	dynsym := make([]byte, e.symSize()) // symbol 0
	for _, s := range d.syms {
		lb := l.f.labels[s.label]
		typ := elf.STT_OBJECT
		if lb.sec == secText {
			typ = elf.STT_FUNC
		}
		dynsym = e.sym(dynsym, elf.Sym64{Name: s.off, Info: elf.ST_INFO(elf.STB_GLOBAL, typ), Shndx: secIndex[lb.sec], Value: im.Addr(s.label), Size: lb.size})
	}
	t.at(".dynsym").data, t.at(".dynsym").Link = dynsym, t.index(".dynstr")
	t.at(".gnu.hash").Link = t.index(".dynsym")

	var dyn []byte
	dyn = e.dyn(dyn, elf.DT_GNU_HASH, im.addr[secGnuHash])
	dyn = e.dyn(dyn, elf.DT_STRTAB, im.addr[secDynstr])
	dyn = e.dyn(dyn, elf.DT_SYMTAB, im.addr[secDynsym])
	dyn = e.dyn(dyn, elf.DT_STRSZ, uint64(len(d.strtab)))
	dyn = e.dyn(dyn, elf.DT_SYMENT, e.symSize())
	if d.soname != 0 {
		dyn = e.dyn(dyn, elf.DT_SONAME, d.soname)
	}
	dyn = e.dyn(dyn, elf.DT_NULL, 0)
	t.at(".dynamic").data, t.at(".dynamic").Link = dyn, t.index(".dynstr")
}

// gnuHash returns a .gnu.hash section for syms, which follow the null
// symbol in .dynsym: one bucket holding them all and a bloom filter that
// lets every name through.
func (e *encoder) gnuHash(syms []dynSym) []byte {
	var b []byte
	b = e.u32(b, 1) // nbuckets
	b = e.u32(b, 1) // symoffset: the first symbol after the null one
	b = e.u32(b, 1) // bloom words
	b = e.u32(b, 6) // bloom shift
	b = e.addr(b, math.MaxUint64)
	if len(syms) == 0 {
		return e.u32(b, 0)
	}
	b = e.u32(b, 1)
	for i, s := range syms {
		h := uint32(5381)
		for _, c := range []byte(s.name) {
			h = h*33 + uint32(c)
		}
		h &^= 1
		if i == len(syms)-1 {
			h |= 1
		}
		b = e.u32(b, h)
	}
	return b
}
