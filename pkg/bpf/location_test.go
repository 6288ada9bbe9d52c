package bpf

import (
	"debug/elf"
	"testing"

	"github.com/sdtkit/sdtkit/pkg/argspec"
)

// TestLocation checks that Location gives what NewSpec worked out for
// each argument, in the terms of the exported type, and LocNone for an
// argument it could not read or that the site does not have.
func TestLocation(t *testing.T) {
	requireAMD64(t)
	const pc = 0x401000
	args := argspec.ParseArgs("-4@%ebx 8@8(%rbx,%rcx,4) 8@g(%rip) 4@$-1 8f@%xmm0 8f@-8(%rbx) 1@%ah", elf.EM_X86_64)
	args[6].Machine = elf.EM_386 // %ah of an i386 program
	s, _ := NewSpec(0, pc, args, &SpecOptions{Symbols: symbolMap{"g": 0x404010}})
	none := Location{Base: -1, Index: -1}
	for i, want := range []Location{
		{Kind: LocRegister, Base: offRBX, Index: -1, Size: 4, Signed: true},
		{Kind: LocMemory, Value: 8, Base: offRBX, Index: offRCX, Scale: 4, Size: 8},
		{Kind: LocMemory, Value: 0x404010, Base: -1, Index: -1, Size: 8, Bias: true},
		{Kind: LocConst, Value: 0xffffffff, Base: -1, Index: -1, Size: 4},
		none,
		{Kind: LocMemory, Value: u64(-8), Base: offRBX, Index: -1, Size: 8, Float: true},
		{Kind: LocRegister, Base: offRAX, Index: -1, Size: 1, Shift: 8},
		none, // past the last
	} {
		if got := s.Location(i); got != want {
			t.Errorf("Location(%d) = %+v, want %+v", i, got, want)
		}
	}
	if s.PC() != pc {
		t.Errorf("PC() = %#x, want %#x", s.PC(), pc)
	}
}
