package elfwriter

import (
	"bytes"
	"debug/elf"
	"testing"
)

func TestSemaphoreObject(t *testing.T) {
	names := []string{"p_q_semaphore", "p_r__done_semaphore"}
	b, err := SemaphoreObject(names)
	if err != nil {
		t.Fatal(err)
	}
	ef, err := elf.NewFile(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if ef.Type != elf.ET_REL || ef.Machine != elf.EM_X86_64 {
		t.Errorf("type, machine = %v, %v, want ET_REL, EM_X86_64", ef.Type, ef.Machine)
	}
	probes := ef.Section(".probes")
	if probes == nil || probes.Size != 4 || probes.Flags != elf.SHF_ALLOC|elf.SHF_WRITE || probes.Addralign != 2 {
		t.Fatalf(".probes = %+v, want 4 bytes, WA, aligned to 2", probes)
	}
	syms, err := ef.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) != elf.STT_OBJECT {
			continue
		}
		got = append(got, s.Name)
		i := len(got) - 1
		if s.Value != uint64(2*i) || s.Size != 2 || elf.ST_BIND(s.Info) != elf.STB_GLOBAL ||
			elf.ST_VISIBILITY(s.Other) != elf.STV_HIDDEN || ef.Sections[s.Section] != probes {
			t.Errorf("symbol %s = %+v, want a global hidden 2-byte object at %d in .probes", s.Name, s, 2*i)
		}
	}
	if len(got) != len(names) || got[0] != names[0] || got[1] != names[1] {
		t.Errorf("semaphores = %q, want %q", got, names)
	}
}

func TestSemaphoreObjectRepeated(t *testing.T) {
	if _, err := SemaphoreObject([]string{"a", "a"}); err == nil {
		t.Error(`SemaphoreObject(["a" "a"]) = nil error, want one`)
	}
}
