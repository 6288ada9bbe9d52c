package elfwriter

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/sdtkit/sdtkit/pkg/stapsdt"
)

// testFile writes a program that stores 7 to its data word, fires probe
// p:q (with a semaphore) and exits with the status held in the data word.
func testFile(typ Type) (*File, Label, Label, Label) {
	f := New(typ)
	word := f.Data("word", make([]byte, 8), 8)
	sema := f.Semaphore("p_q_semaphore")
	start := f.Func("_start")
	f.SetEntry(start)
	a := f.AMD64()
	a.MovImm(RAX, 7)
	a.StoreRIP(RAX, word, 0)
	pc := f.Nop()
	a.MovImm(RAX, 231)
	a.LoadRIP(RDI, word, 0)
	a.Syscall()
	f.End(start)
	f.AddNote(Note{Provider: "p", Name: "q", Args: "8@word(%rip)", PC: pc, Semaphore: sema})
	return f, word, sema, pc
}

func TestLink(t *testing.T) {
	for _, tt := range []struct {
		typ  Type
		etyp elf.Type
		base uint64
	}{
		{Exec, elf.ET_EXEC, DefaultExecBase},
		{PIE, elf.ET_DYN, 0},
	} {
		t.Run(tt.typ.String(), func(t *testing.T) {
			f, word, sema, pc := testFile(tt.typ)
			im, ef := link(t, f)
			if ef.Type != tt.etyp || ef.Machine != elf.EM_X86_64 || ef.Entry != tt.base+0x1000 {
				t.Errorf("type %v machine %v entry %#x, want %v EM_X86_64 %#x", ef.Type, ef.Machine, ef.Entry, tt.etyp, tt.base+0x1000)
			}
			var loads []*elf.Prog
			for _, p := range ef.Progs {
				switch p.Type {
				case elf.PT_LOAD:
					loads = append(loads, p)
				case elf.PT_INTERP, elf.PT_DYNAMIC:
					t.Errorf("unexpected %v", p.Type)
				}
			}
			if len(loads) != 2 || loads[0].Flags != elf.PF_R|elf.PF_X || loads[1].Flags != elf.PF_R|elf.PF_W {
				t.Fatalf("PT_LOAD segments %v, want R+X and R+W", loads)
			}
			for _, l := range loads {
				if l.Vaddr-l.Off != tt.base || l.Vaddr%l.Align != l.Off%l.Align {
					t.Errorf("segment at %#x offset %#x: not at base %#x", l.Vaddr, l.Off, tt.base)
				}
			}
			if a := im.Addr(pc); a < loads[0].Vaddr || a >= loads[0].Vaddr+loads[0].Filesz {
				t.Errorf("pc %#x outside the text segment", a)
			}
			if a := im.Addr(sema); a < loads[1].Vaddr || a >= loads[1].Vaddr+loads[1].Filesz {
				t.Errorf("semaphore %#x outside the data segment", a)
			}

			base := ef.Section(".stapsdt.base")
			if base == nil || base.Addr != im.Base || base.Size != 1 || base.Flags != elf.SHF_ALLOC {
				t.Errorf(".stapsdt.base = %+v, want 1 alloc byte at %#x", base, im.Base)
			}
			syms, err := ef.Symbols()
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]uint64{"_.stapsdt.base": im.Base, "word": im.Addr(word), "p_q_semaphore": im.Addr(sema), "_start": ef.Entry}
			for _, s := range syms {
				if a, ok := want[s.Name]; ok && a == s.Value {
					delete(want, s.Name)
				}
			}
			if len(want) != 0 {
				t.Errorf("symbols missing or misplaced: %v", want)
			}

			// The note, byte for byte as sys/sdt.h lays it out.
			note := ef.Section(".note.stapsdt")
			got, err := note.Data()
			if err != nil {
				t.Fatal(err)
			}
			var b []byte
			b = binary.LittleEndian.AppendUint32(b, 8)
			b = binary.LittleEndian.AppendUint32(b, uint32(24+len("p\x00q\x008@word(%rip)\x00")))
			b = binary.LittleEndian.AppendUint32(b, 3)
			b = append(b, "stapsdt\x00"...)
			b = binary.LittleEndian.AppendUint64(b, im.Addr(pc))
			b = binary.LittleEndian.AppendUint64(b, im.Base)
			b = binary.LittleEndian.AppendUint64(b, im.Addr(sema))
			b = append(b, "p\x00q\x008@word(%rip)\x00"...)
			for len(b)%4 != 0 {
				b = append(b, 0)
			}
			if note.Type != elf.SHT_NOTE || note.Flags&elf.SHF_ALLOC != 0 || !bytes.Equal(got, b) {
				t.Errorf("note %v %v\n% x\nwant\n% x", note.Type, note.Flags, got, b)
			}

			sf, err := stapsdt.NewFile(bytes.NewReader(im.Bytes))
			if err != nil {
				t.Fatal(err)
			}
			if len(sf.Sites) != 1 {
				t.Fatalf("%d probes, want 1", len(sf.Sites))
			}
			p := sf.Sites[0]
			if p.PC != im.Addr(pc) || p.PCOffset != im.Offset(pc) || p.SemaphoreOffset != im.Offset(sema) || p.PCOffsetErr != nil || p.SemaphoreOffsetErr != nil {
				t.Errorf("probe %+v, want pc %#x at %#x, semaphore at %#x", p, im.Addr(pc), im.Offset(pc), im.Offset(sema))
			}
			if im.Bytes[im.Offset(pc)] != 0x90 {
				t.Errorf("no nop at pc")
			}
		})
	}
}

func TestLinkRun(t *testing.T) {
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skipf("requires linux/amd64 to run the program (have %s/%s)", runtime.GOOS, runtime.GOARCH)
	}
	for _, typ := range []Type{Exec, PIE} {
		f, _, _, _ := testFile(typ)
		im, err := f.Link()
		if err != nil {
			t.Fatal(err)
		}
		prog := filepath.Join(t.TempDir(), "prog")
		if err := os.WriteFile(prog, im.Bytes, 0o755); err != nil {
			t.Fatal(err)
		}
		err = exec.Command(prog).Run()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 7 {
			t.Errorf("%s program: %v, want exit status 7", typ, err)
		}
	}
}

func TestLinkErrors(t *testing.T) {
	f := New(Exec)
	f.Nop()
	if _, err := f.Link(); err == nil {
		t.Error("Link without entry point succeeded")
	}
	f.SetEntry(f.Here("_start"))
	l := f.NewLabel("")
	f.AMD64().Jmp(l)
	if _, err := f.Link(); err == nil {
		t.Error("Link with an unbound label succeeded")
	}
}
