package stapsdt

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// noteSectionHeader returns the file offset of the sh_offset field of the
// .note.stapsdt section header of a 64-bit little-endian file built by
// buildELF, followed by sh_size.
func noteSectionHeader(t *testing.T, data []byte) int {
	t.Helper()
	ef, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range ef.Sections {
		if s.Name == NoteSection {
			shoff := binary.LittleEndian.Uint64(data[0x28:])
			return int(shoff) + 64*i + 24
		}
	}
	t.Fatal("no note section")
	return 0
}

// allocated returns the bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// A note section that claims more than the file holds, or more than
// MaxReadSize, is an error naming the file and the section, and nothing
// is allocated for it.
func TestHugeNoteSection(t *testing.T) {
	dir := t.TempDir()
	good := buildELF(elfSpec{class: elf.ELFCLASS64, order: binary.LittleEndian, typ: elf.ET_EXEC, machine: elf.EM_X86_64,
		notes: []testNote{stdNote("p", "q", "", textAddr+textOff, 0)}})
	sh := noteSectionHeader(t, good)
	for _, tt := range []struct {
		name       string
		off, size  uint64
		fileSize   int64 // sparse; 0 to keep the file as built
		want       string
		wantProbes int
	}{
		// A 3 GB sparse file whose notes claim 2.5 GB.
		{"over cap", 1 << 20, 5 << 29, 3 << 30, "section .note.stapsdt is 2684354560 bytes, more than the 268435456 (256 MiB) read from a file", 0},
		{"past end", noteOff, 200 << 20, 0, fmt.Sprintf("section .note.stapsdt (209715200 bytes at offset %#x) runs past the end of the file (%d bytes)", noteOff, len(good)), 0},
		{"offset past end", 1 << 40, 64, 0, fmt.Sprintf("section .note.stapsdt (64 bytes at offset 0x10000000000) runs past the end of the file (%d bytes)", len(good)), 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			data := bytes.Clone(good)
			binary.LittleEndian.PutUint64(data[sh:], tt.off)
			binary.LittleEndian.PutUint64(data[sh+8:], tt.size)
			name := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "_"))
			if err := os.WriteFile(name, data, 0o644); err != nil {
				t.Fatal(err)
			}
			if tt.fileSize > 0 {
				if err := os.Truncate(name, tt.fileSize); err != nil {
					t.Skipf("requires a file system with sparse files: %v", err)
				}
			}
			var (
				f   *File
				err error
			)
			n := allocated(func() { f, err = Open(name) })
			if err == nil || err.Error() != name+": "+tt.want {
				t.Errorf("Open = %v, want %s: %s", err, name, tt.want)
			}
			if f == nil || len(f.Sites) != tt.wantProbes {
				t.Errorf("Open = %v, want a file with %d probes", f, tt.wantProbes)
			}
			if n > 1<<20 {
				t.Errorf("Open allocated %d bytes, want less than 1 MiB", n)
			}
			// NewFile knows the size of an *os.File too.
			fd, err := os.Open(name)
			if err != nil {
				t.Fatal(err)
			}
			defer fd.Close()
			if _, err := NewFile(fd); err == nil || err.Error() != tt.want {
				t.Errorf("NewFile = %v, want %s", err, tt.want)
			}
		})
	}
}

// A section of millions of bad notes gives MaxFormatErrors errors and a
// count of the others, and costs memory for the section only.
func TestManyMalformedNotes(t *testing.T) {
	const bad = 2000000
	for _, tt := range []struct {
		name string
		note []byte
	}{
		{"empty", make([]byte, 12)}, // namesz 0, descsz 0, type 0
		{"short", note(binary.LittleEndian, "stapsdt\x00", 3, make([]byte, 4))},
	} {
		t.Run(tt.name, func(t *testing.T) {
			raw := append(bytes.Repeat(tt.note, bad), note(binary.LittleEndian, "stapsdt\x00", 3, append(make([]byte, 24), "p\x00q\x00\x00"...))...)
			data := buildELF(elfSpec{class: elf.ELFCLASS64, order: binary.LittleEndian, typ: elf.ET_EXEC, machine: elf.EM_X86_64, rawNote: raw})
			var (
				f   *File
				err error
			)
			n := allocated(func() { f, err = NewFile(bytes.NewReader(data)) })
			if f == nil || len(f.Sites) != 1 {
				t.Fatalf("NewFile = %v, want the one good probe", f)
			}
			var j interface{ Unwrap() []error }
			if !errors.As(err, &j) {
				t.Fatalf("NewFile error = %v, want joined errors", err)
			}
			errs := j.Unwrap()
			if len(errs) != MaxFormatErrors+1 {
				t.Fatalf("NewFile gave %d errors, want %d", len(errs), MaxFormatErrors+1)
			}
			for _, e := range errs[:MaxFormatErrors] {
				var fe *FormatError
				if !errors.As(e, &fe) {
					t.Errorf("error %v is not a *FormatError", e)
				}
			}
			if got, want := errs[MaxFormatErrors].Error(), fmt.Sprintf("%d more malformed stapsdt notes", bad-MaxFormatErrors); got != want {
				t.Errorf("last error = %q, want %q", got, want)
			}
			// The section is read once: nothing per bad note.
			if limit := uint64(len(raw)) + 1<<20; n > limit {
				t.Errorf("NewFile allocated %d bytes for a %d-byte section, want at most %d", n, len(raw), limit)
			}
		})
	}
}

// Without section headers, the notes are read from the PT_NOTE segment,
// where notes of other owners are no error.
func TestSegmentNotes(t *testing.T) {
	for _, class := range []elf.Class{elf.ELFCLASS64, elf.ELFCLASS32} {
		t.Run(class.String(), func(t *testing.T) {
			data := buildELF(elfSpec{class: class, order: binary.LittleEndian, typ: elf.ET_DYN, machine: elf.EM_X86_64, noSections: true, notes: []testNote{
				{owner: "GNU", typ: 3, strs: "build-id"},
				stdNote("p", "one", "8@%rax", textAddr+textOff, dataAddr+semaOff),
				stdNote("p", "two", "", textAddr+textOff+1, 0),
			}})
			f, err := NewFile(bytes.NewReader(data))
			if err != nil {
				t.Fatalf("NewFile: %v", err)
			}
			if len(f.Sites) != 2 {
				t.Fatalf("NewFile found %d probes, want 2", len(f.Sites))
			}
			p := f.Sites[0]
			if p.Name != "one" || p.Args != "8@%rax" || p.PCOffset != textOff || p.SemaphoreOffset != semaOff || p.PCOffsetErr != nil || p.SemaphoreOffsetErr != nil {
				t.Errorf("probe 0 = %+v, want p:one at %#x with its semaphore at %#x", p, textOff, semaOff)
			}
			if p.NoteOffset < noteOff {
				t.Errorf("NoteOffset = %#x, want past %#x", p.NoteOffset, noteOff)
			}
		})
	}
	// In a segment aligned to 8, a descriptor starts at a multiple of 8
	// from its note: right after the 12-byte header and a 4-byte name.
	le := binary.LittleEndian
	gnu := le.AppendUint32(le.AppendUint32(le.AppendUint32(nil, 4), 16), 5)
	gnu = append(append(gnu, "GNU\x00"...), make([]byte, 16)...)
	desc := le.AppendUint64(le.AppendUint64(le.AppendUint64(nil, textAddr+textOff), 0), 0)
	desc = append(desc, "p\x00q\x00-4@$5\x00"...)
	sdt := le.AppendUint32(le.AppendUint32(le.AppendUint32(nil, 8), uint32(len(desc))), 3)
	sdt = append(append(sdt, "stapsdt\x00\x00\x00\x00\x00"...), desc...) // the name padded to 24 from the note
	data := buildELF(elfSpec{class: elf.ELFCLASS64, order: le, typ: elf.ET_DYN, machine: elf.EM_X86_64, noSections: true, noteAlign: 8, rawNote: append(gnu, sdt...)})
	if f, err := NewFile(bytes.NewReader(data)); err != nil || len(f.Sites) != 1 || f.Sites[0].Args != "-4@$5" {
		t.Errorf("NewFile of a segment aligned to 8 = %v, %v; want p:q with -4@$5", f, err)
	}

	// A damaged stapsdt note in a segment is still reported.
	data = buildELF(elfSpec{class: elf.ELFCLASS64, order: binary.LittleEndian, typ: elf.ET_DYN, machine: elf.EM_X86_64, noSections: true, notes: []testNote{
		{owner: "stapsdt", typ: 3, strs: "p\x00q\x00args"},
	}})
	if _, err := NewFile(bytes.NewReader(data)); err == nil || !strings.Contains(err.Error(), "argument string is not NUL-terminated") {
		t.Errorf("NewFile error = %v, want the malformed note", err)
	}
}

// Open refuses a file that is not a regular file without blocking on it.
func TestOpenNotRegular(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, want string
	}{
		{fifo, fifo + ": is a named pipe, not an ELF file"},
		{"/dev/null", "/dev/null: is a character device, not an ELF file"},
	} {
		done := make(chan error, 1)
		go func() {
			_, err := Open(tt.name)
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil || err.Error() != tt.want || !errors.Is(err, ErrNotELF) {
				t.Errorf("Open(%q) = %v, want %s (ErrNotELF)", tt.name, err, tt.want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("Open(%q) blocks", tt.name)
		}
	}
}

// sameBytesELF returns an ELF file whose n .note.stapsdt section headers
// all name the same size bytes of zeros at offset 4096.
func sameBytesELF(n int, size uint64) []byte {
	le := binary.LittleEndian
	shstr := "\x00.shstrtab\x00.note.stapsdt\x00"
	const strOff, shOff = 64, 128
	b := make([]byte, shOff+64*(n+2))
	copy(b, "\x7fELF\x02\x01\x01")
	le.PutUint16(b[16:], uint16(elf.ET_EXEC))
	le.PutUint16(b[18:], uint16(elf.EM_X86_64))
	le.PutUint32(b[20:], 1)
	le.PutUint64(b[40:], shOff)
	le.PutUint16(b[52:], 64)
	le.PutUint16(b[58:], 64)
	le.PutUint16(b[60:], uint16(n+2))
	le.PutUint16(b[62:], 1)
	copy(b[strOff:], shstr)
	sh := func(i int, name uint32, typ elf.SectionType, off, size uint64) {
		h := b[shOff+64*i:]
		le.PutUint32(h, name)
		le.PutUint32(h[4:], uint32(typ))
		le.PutUint64(h[24:], off)
		le.PutUint64(h[32:], size)
		le.PutUint64(h[48:], 1)
	}
	sh(1, 1, elf.SHT_STRTAB, strOff, uint64(len(shstr)))
	for i := range n {
		sh(2+i, 11, elf.SHT_NOTE, 4096, size)
	}
	return append(b, make([]byte, 4096+int(size)-len(b))...)
}

// Section headers that name the same bytes again and again take them
// from one budget: past MaxReadSize, the others are errors, not reads.
func TestReadBudget(t *testing.T) {
	defer func(b uint64) { readBudget = b }(readBudget)
	readBudget = 1 << 20
	data := sameBytesELF(8, 400<<10)
	var (
		f   *File
		err error
	)
	n := allocated(func() { f, err = NewFile(bytes.NewReader(data)) })
	if f == nil {
		t.Fatalf("NewFile = %v", err)
	}
	want := "section .note.stapsdt is 409600 bytes, which with the 819200 read before it is more than the 1048576 (1 MiB) read from a file"
	if c := strings.Count(err.Error(), want); c != 6 {
		t.Errorf("NewFile error = %v, want %q for 6 sections", err, want)
	}
	if n > 2<<20 {
		t.Errorf("NewFile allocated %d bytes, want at most the budget and a little", n)
	}
}
