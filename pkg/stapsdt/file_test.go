package stapsdt

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestNewFileLayouts(t *testing.T) {
	for _, tt := range []struct {
		name  string
		class elf.Class
		order binary.ByteOrder
		typ   elf.Type
		mach  elf.Machine
	}{
		{"elf64-le-exec", elf.ELFCLASS64, binary.LittleEndian, elf.ET_EXEC, elf.EM_X86_64},
		{"elf64-le-dyn", elf.ELFCLASS64, binary.LittleEndian, elf.ET_DYN, elf.EM_AARCH64},
		{"elf64-be-exec", elf.ELFCLASS64, binary.BigEndian, elf.ET_EXEC, elf.EM_S390},
		{"elf32-le-exec", elf.ELFCLASS32, binary.LittleEndian, elf.ET_EXEC, elf.EM_386},
		{"elf32-be-dyn", elf.ELFCLASS32, binary.BigEndian, elf.ET_DYN, elf.EM_PPC},
	} {
		t.Run(tt.name, func(t *testing.T) {
			data := buildELF(elfSpec{class: tt.class, order: tt.order, typ: tt.typ, machine: tt.mach, notes: []testNote{
				stdNote("prov", "one", "-4@%eax 8@-8(%rbp)", textAddr+textOff, 0),
				stdNote("prov", "two", "", textAddr+textOff+3, dataAddr+semaOff+2),
				stdNote("prov", "one", "-4@%edx 8@%rcx", textAddr+textOff+7, 0),
			}})
			f, err := NewFile(bytes.NewReader(data))
			if err != nil {
				t.Fatalf("NewFile: %v", err)
			}
			if f.Machine != tt.mach || f.Type != tt.typ || f.Class != tt.class {
				t.Errorf("header = %v %v %v, want %v %v %v", f.Machine, f.Type, f.Class, tt.mach, tt.typ, tt.class)
			}
			want := []Site{
				{Provider: "prov", Name: "one", Args: "-4@%eax 8@-8(%rbp)", PC: textAddr + textOff, PCOffset: textOff},
				{Provider: "prov", Name: "two", PC: textAddr + textOff + 3, PCOffset: textOff + 3, Semaphore: dataAddr + semaOff + 2, SemaphoreOffset: semaOff + 2},
				{Provider: "prov", Name: "one", Args: "-4@%edx 8@%rcx", PC: textAddr + textOff + 7, PCOffset: textOff + 7},
			}
			if len(f.Sites) != len(want) {
				t.Fatalf("got %d probes, want %d", len(f.Sites), len(want))
			}
			for i, w := range want {
				g := f.Sites[i]
				if g.Provider != w.Provider || g.Name != w.Name || g.Args != w.Args || g.PC != w.PC ||
					g.PCOffset != w.PCOffset || g.Semaphore != w.Semaphore || g.SemaphoreOffset != w.SemaphoreOffset ||
					g.PCOffsetErr != nil || g.SemaphoreOffsetErr != nil || g.Base != textAddr+baseOff || g.Adjusted() {
					t.Errorf("probe %d = %+v, want %+v", i, g, w)
				}
			}
		})
	}
}

func TestBaseAdjustment(t *testing.T) {
	// The note records .stapsdt.base at 0x10 below where it is now, as
	// after prelink moved the file: pc and semaphore move by the same.
	n := stdNote("p", "q", "", textAddr+textOff-0x10, dataAddr+semaOff-0x10)
	n.base = textAddr + baseOff - 0x10
	nz := stdNote("p", "nosema", "", textAddr+textOff-0x10+1, 0)
	nz.base = n.base
	f, err := NewFile(bytes.NewReader(buildELF(elfSpec{class: elf.ELFCLASS64, order: binary.LittleEndian, typ: elf.ET_EXEC, machine: elf.EM_X86_64, notes: []testNote{n, nz}})))
	if err != nil {
		t.Fatal(err)
	}
	p := f.Sites[0]
	if p.PC != textAddr+textOff || p.Semaphore != dataAddr+semaOff || !p.Adjusted() {
		t.Errorf("adjusted pc, semaphore = %#x, %#x, want %#x, %#x", p.PC, p.Semaphore, textAddr+textOff, dataAddr+semaOff)
	}
	if p.NotePC != textAddr+textOff-0x10 || p.NoteSemaphore != dataAddr+semaOff-0x10 || p.Base != n.base {
		t.Errorf("stored pc, semaphore, base = %#x, %#x, %#x; want the note's", p.NotePC, p.NoteSemaphore, p.Base)
	}
	if p := f.Sites[1]; p.Semaphore != 0 || p.PC != textAddr+textOff+1 {
		t.Errorf("probe without semaphore: pc, semaphore = %#x, %#x; want %#x, 0", p.PC, p.Semaphore, textAddr+textOff+1)
	}

	// Without .stapsdt.base nothing is adjusted.
	f, err = NewFile(bytes.NewReader(buildELF(elfSpec{class: elf.ELFCLASS64, order: binary.LittleEndian, typ: elf.ET_EXEC, machine: elf.EM_X86_64, notes: []testNote{n}, noBase: true})))
	if err != nil {
		t.Fatal(err)
	}
	if f.HasBase || f.Sites[0].PC != n.pc {
		t.Errorf("without .stapsdt.base: pc = %#x, want %#x", f.Sites[0].PC, n.pc)
	}
}

func TestOffsetErrors(t *testing.T) {
	for _, tt := range []struct {
		name     string
		typ      elf.Type
		pc, sema uint64
		pcErr    string
		semaErr  string
	}{
		{"pc in data", elf.ET_EXEC, dataAddr + semaOff, 0, "not executable", ""},
		{"pc nowhere", elf.ET_EXEC, 0x10, 0, "no PT_LOAD", ""},
		{"pc in headers", elf.ET_EXEC, textAddr + 0x10, 0, "in no code section", ""},
		{"sema in text", elf.ET_EXEC, textAddr + textOff, textAddr + textOff, "", "not writable"},
		{"sema in bss", elf.ET_EXEC, textAddr + textOff, dataAddr + semaOff + 0x20, "", "past the file image"},
		{"sema misaligned", elf.ET_EXEC, textAddr + textOff, dataAddr + semaOff + 1, "", "not 2-byte aligned"},
		{"relocatable", elf.ET_REL, textOff, semaOff, "relocatable", "relocatable"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			data := buildELF(elfSpec{class: elf.ELFCLASS64, order: binary.LittleEndian, typ: tt.typ, machine: elf.EM_X86_64,
				notes: []testNote{stdNote("p", "q", "", tt.pc, tt.sema)}})
			f, err := NewFile(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			p := f.Sites[0]
			checkErr(t, "pc", p.PCOffsetErr, tt.pcErr)
			checkErr(t, "semaphore", p.SemaphoreOffsetErr, tt.semaErr)
			if misaligned := errors.Is(p.SemaphoreOffsetErr, ErrMisaligned); misaligned != (tt.name == "sema misaligned") {
				t.Errorf("errors.Is(%v, ErrMisaligned) = %v", p.SemaphoreOffsetErr, misaligned)
			}
		})
	}
}

func checkErr(t *testing.T, what string, err error, want string) {
	t.Helper()
	switch {
	case want == "" && err != nil:
		t.Errorf("%s error = %v, want none", what, err)
	case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
		t.Errorf("%s error = %v, want one containing %q", what, err, want)
	case want != "":
		var oe *OffsetError
		if !errors.As(err, &oe) {
			t.Errorf("%s error is %T, want *OffsetError", what, err)
		}
	}
}

func TestMalformedNotes(t *testing.T) {
	good := stdNote("p", "good", "8@%rax", textAddr+textOff, 0)
	le := binary.LittleEndian
	for _, tt := range []struct {
		name  string
		notes []testNote
		raw   []byte
		want  string // in the error
		good  int    // probes still decoded
	}{
		{"wrong owner", []testNote{{owner: "GNU", typ: 3, strs: "p\x00q\x00\x00"}, good}, nil, `owner "GNU\x00"`, 1},
		{"wrong type", []testNote{{owner: "stapsdt", typ: 1, strs: "p\x00q\x00\x00"}, good}, nil, "type 1", 1},
		{"no NUL", []testNote{good, {owner: "stapsdt", typ: 3, strs: "p\x00q\x00args"}}, nil, "argument string is not NUL-terminated", 1},
		{"no name", []testNote{{owner: "stapsdt", typ: 3, strs: "p"}, good}, nil, "provider is not NUL-terminated", 1},
		{"empty name", []testNote{{owner: "stapsdt", typ: 3, strs: "p\x00\x00\x00"}, good}, nil, "empty provider or probe name", 1},
		{"short desc", nil, note(le, "stapsdt\x00", 3, make([]byte, 20)), "too short for three 8-byte addresses", 0},
		{"truncated header", nil, []byte{8, 0, 0, 0, 1}, "truncated note header", 0},
		{"namesz past end", nil, append(le.AppendUint32(le.AppendUint32(le.AppendUint32(nil, 0xfffffff0), 0), 3), "stapsdt\x00"...), "namesz 4294967280 runs past the end", 0},
		{"descsz past end", nil, append(le.AppendUint32(le.AppendUint32(le.AppendUint32(nil, 8), 0x1000), 3), "stapsdt\x00"...), "descsz 4096 runs past the end", 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f, err := NewFile(bytes.NewReader(buildELF(elfSpec{class: elf.ELFCLASS64, order: le, typ: elf.ET_EXEC, machine: elf.EM_X86_64, notes: tt.notes, rawNote: tt.raw})))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("NewFile error = %v, want one containing %q", err, tt.want)
			}
			var fe *FormatError
			if !errors.As(err, &fe) || fe.Off < noteOff {
				t.Errorf("error %v: want a *FormatError with the note's file offset", err)
			}
			if f == nil || len(f.Sites) != tt.good {
				t.Fatalf("NewFile kept %v, want %d good probes", f, tt.good)
			}
			if tt.good > 0 && f.Sites[0].Name != "good" {
				t.Errorf("kept probe %q, want good", f.Sites[0].Name)
			}
		})
	}
}

func note(o binary.AppendByteOrder, owner string, typ uint32, desc []byte) []byte {
	b := o.AppendUint32(nil, uint32(len(owner)))
	b = o.AppendUint32(b, uint32(len(desc)))
	b = o.AppendUint32(b, typ)
	b = append(b, owner...)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	return append(b, desc...)
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := buildELF(elfSpec{class: elf.ELFCLASS64, order: binary.LittleEndian, typ: elf.ET_EXEC, machine: elf.EM_X86_64,
		notes: []testNote{stdNote("p", "q", "", textAddr+textOff, 0)}})
	for _, tt := range []struct {
		name string
		path string
		want string
	}{
		{"missing", filepath.Join(dir, "nope"), "no such file"},
		{"directory", dir, "is a directory"},
		{"empty", write("empty", nil), "empty file"},
		{"text", write("text", []byte("#!/bin/sh\necho hi\n")), "not an ELF file"},
		{"truncated", write("trunc", good[:30]), "read ELF headers"},
		{"truncated notes", write("trunc2", good[:noteOff+20]), "read ELF headers"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Open(tt.path)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), tt.path) {
				t.Errorf("Open(%q) error = %v, want one naming the file and containing %q", tt.path, err, tt.want)
			}
		})
	}
	if _, err := Open(write("text2", []byte("hello"))); !errors.Is(err, ErrNotELF) {
		t.Errorf("Open(text) error = %v, want ErrNotELF", err)
	}
}
