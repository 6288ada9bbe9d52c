package bpf

import (
	"debug/elf"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/sdtkit/sdtkit/pkg/argspec"
)

// x86 pt_regs offsets, as argspec gives them.
const (
	offRAX = 80
	offRBX = 40
	offRCX = 88
	offRDX = 96
	offR13 = 16
)

func setNative(t *testing.T, m elf.Machine) {
	old := nativeMachine
	nativeMachine = m
	t.Cleanup(func() { nativeMachine = old })
}

func TestNewSpec(t *testing.T) {
	setNative(t, elf.EM_X86_64)
	const pc = 0x401000
	syms := symbolMap{"g": 0x404010, "arr": 0x404100, "_GLOBAL_OFFSET_TABLE_": 0x403ff4}
	for _, tt := range []struct {
		arg  string
		want usdtArg
		m    elf.Machine // elf.EM_X86_64 if 0
	}{
		{"-4@%ebx", usdtArg{Kind: argReg, Base: offRBX, Index: -1, Size: 4, Flags: flagSigned}, 0},
		{"8@%rax", usdtArg{Kind: argReg, Base: offRAX, Index: -1, Size: 8}, 0},
		{"1@%ah", usdtArg{Kind: argReg, Base: offRAX, Index: -1, Size: 1, Shift: 8}, 0},
		{"8@%eax", usdtArg{Kind: argReg, Base: offRAX, Index: -1, Size: 4}, 0},
		{"%dx", usdtArg{Kind: argReg, Base: offRDX, Index: -1, Size: 2}, 0},
		{"8@0(%r13)", usdtArg{Kind: argMem, Base: offR13, Index: -1, Size: 8}, 0},
		{"-2@-16(%rbx)", usdtArg{Kind: argMem, Val: u64(-16), Base: offRBX, Index: -1, Size: 2, Flags: flagSigned}, 0},
		{"(%rbx)", usdtArg{Kind: argMem, Base: offRBX, Index: -1, Size: 8}, 0},
		{"8@8(%rbx,%rcx,4)", usdtArg{Kind: argMem, Val: 8, Base: offRBX, Index: offRCX, Scale: 4, Size: 8}, 0},
		{"4@(,%rcx,8)", usdtArg{Kind: argMem, Base: -1, Index: offRCX, Scale: 8, Size: 4}, 0},
		{"8@g(%rip)", usdtArg{Kind: argMem, Val: 0x404010, Base: -1, Index: -1, Size: 8, Flags: flagBias}, 0},
		{"-8@g+8(%rip)", usdtArg{Kind: argMem, Val: 0x404018, Base: -1, Index: -1, Size: 8, Flags: flagSigned | flagBias}, 0},
		{"8@16(%rip)", usdtArg{Kind: argMem, Val: pc + 1 + 16, Base: -1, Index: -1, Size: 8, Flags: flagBias}, 0},
		{"-4@$-1", usdtArg{Kind: argConst, Val: u64(-1), Base: -1, Index: -1, Size: 4, Flags: flagSigned}, 0},
		{"4@$-1", usdtArg{Kind: argConst, Val: 0xffffffff, Base: -1, Index: -1, Size: 4}, 0},
		{"$42", usdtArg{Kind: argConst, Val: 42, Base: -1, Index: -1, Size: 8}, 0},
		{"8f@-8(%rbx)", usdtArg{Kind: argMem, Val: u64(-8), Base: offRBX, Index: -1, Size: 8, Flags: flagFloat}, 0},
		// Non-PIC globals: the symbol's address, moved by the load bias.
		{"8@arr(,%rax,8)", usdtArg{Kind: argMem, Val: 0x404100, Base: -1, Index: offRAX, Scale: 8, Size: 8, Flags: flagBias}, 0},
		{"-4@g-16(%rbx)", usdtArg{Kind: argMem, Val: 0x404000, Base: offRBX, Index: -1, Size: 4, Flags: flagSigned | flagBias}, 0},
		// A 32-bit x86 task's registers, where x86-64 keeps them.
		{"-4@%ebx", usdtArg{Kind: argReg, Base: offRBX, Index: -1, Size: 4, Flags: flagSigned}, elf.EM_386},
		{"1@%ah", usdtArg{Kind: argReg, Base: offRAX, Index: -1, Size: 1, Shift: 8}, elf.EM_386},
		// An 8-byte value in %edx:%eax, as gcc names it.
		{"-8@%eax", usdtArg{Kind: argReg, Base: offRAX, Index: offRDX, Size: 8, Flags: flagSigned}, elf.EM_386},
		{"8@%ecx", usdtArg{Kind: argReg, Base: offRCX, Index: offRBX, Size: 8}, elf.EM_386},
		{"-4@-12(%ebp)", usdtArg{Kind: argMem, Val: u64(-12), Base: 32, Index: -1, Size: 4, Flags: flagSigned}, elf.EM_386},
		{"4@arr(,%edx,4)", usdtArg{Kind: argMem, Val: 0x404100, Base: -1, Index: offRDX, Scale: 4, Size: 4, Flags: flagBias}, elf.EM_386},
		// PIC globals: the GOT's address is in the base register.
		{"-4@g@GOTOFF(%ecx)", usdtArg{Kind: argMem, Val: 0x404010 - 0x403ff4, Base: offRCX, Index: -1, Size: 4, Flags: flagSigned}, elf.EM_386},
		{"4@12+arr@GOTOFF(%eax,%edx,4)", usdtArg{Kind: argMem, Val: 12 + 0x404100 - 0x403ff4, Base: offRAX, Index: offRDX, Scale: 4, Size: 4}, elf.EM_386},
	} {
		m := tt.m
		if m == 0 {
			m = elf.EM_X86_64
		}
		args := argspec.ParseArgs(tt.arg, m)
		s, errs := NewSpec(7, pc, args, &SpecOptions{Symbols: syms})
		if errs != nil {
			t.Errorf("NewSpec(%q) errors: %v", tt.arg, errs)
			continue
		}
		if s.ProbeID() != 7 || s.NumArgs() != 1 || s.raw.Pc != pc {
			t.Errorf("NewSpec(%q) = probe %d, %d args, pc %#x, want 7, 1, %#x", tt.arg, s.ProbeID(), s.NumArgs(), s.raw.Pc, pc)
		}
		if got := s.raw.Args[0]; got != tt.want {
			t.Errorf("NewSpec(%q) = %+v, want %+v", tt.arg, got, tt.want)
		}
	}
}

func TestNewSpecErrors(t *testing.T) {
	setNative(t, elf.EM_X86_64)
	none := usdtArg{Kind: argNone, Base: -1, Index: -1}
	for _, tt := range []struct {
		args string
		m    elf.Machine
		bad  []int // indexes of the arguments that fail
	}{
		{"8@%xmm0 -4@%ebx", elf.EM_X86_64, []int{0}},        // float register
		{"-4@%ebx 8@nosuch(%rip)", elf.EM_X86_64, []int{1}}, // unknown symbol
		{"8@%foo -4@%ebx 16@%rax", elf.EM_X86_64, []int{0, 2}},
		{"4@r0", elf.EM_ARM, []int{0}},                    // foreign pt_regs
		{"4@%eax 4@g@GOTOFF(%eax)", elf.EM_386, []int{1}}, // no symbols
		{"1 2 3 4 5 6 7 8 9 10 11 12 13", elf.EM_AARCH64, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}},
	} {
		args := argspec.ParseArgs(tt.args, tt.m)
		s, errs := NewSpec(0, 0, args, nil)
		if len(errs) != len(tt.bad) {
			t.Errorf("NewSpec(%q) = %d errors %v, want %d", tt.args, len(errs), errs, len(tt.bad))
			continue
		}
		for j, i := range tt.bad {
			var ae *ArgError
			if !errors.As(errs[j], &ae) || ae.Index != i || ae.Arg != args[i].Raw {
				t.Errorf("NewSpec(%q) error %d = %v, want an *ArgError for argument %d", tt.args, j, errs[j], i)
			} else if want := fmt.Sprintf("arg%d %q: ", i, args[i].Raw); !strings.HasPrefix(ae.Error(), want) {
				t.Errorf("NewSpec(%q) error %d = %q, want it to start with %q, as the TYPES spec counts", tt.args, j, ae.Error(), want)
			}
			if i < MaxArgs && s.raw.Args[i] != none {
				t.Errorf("NewSpec(%q) argument %d = %+v, want %+v", tt.args, i, s.raw.Args[i], none)
			}
		}
		if want := min(len(args), MaxArgs); s.NumArgs() != want {
			t.Errorf("NewSpec(%q).NumArgs() = %d, want %d", tt.args, s.NumArgs(), want)
		}
	}
}

func TestNewSpecStrings(t *testing.T) {
	setNative(t, elf.EM_X86_64)
	args := argspec.ParseArgs("-4@%ebx 8@0(%r13) 8@%rax", elf.EM_X86_64)
	s, errs := NewSpec(0, 0, args, &SpecOptions{Strings: 1<<1 | 1<<2})
	if errs != nil {
		t.Fatal(errs)
	}
	for i, want := range []bool{false, true, true} {
		if got := s.raw.Args[i].Flags&flagString != 0; got != want {
			t.Errorf("argument %d string = %v, want %v", i, got, want)
		}
	}
}

func TestSpecStrings(t *testing.T) {
	setNative(t, elf.EM_X86_64)
	for _, tt := range []struct {
		args    string
		strings ArgMask
		want    ArgMask
	}{
		{"-4@%ebx 8@0(%r13)", 0, 0},
		{"-4@%ebx 8@0(%r13)", 1 << 1, 1 << 1},
		{"-4@%ebx 8@0(%r13)", 1<<0 | 1<<1, 1<<0 | 1<<1},
		// An argument that cannot be read is not read as a string.
		{"-4@%ebx 8@%xmm0", 1<<0 | 1<<1, 1 << 0},
		// Nor is one that does not exist.
		{"-4@%ebx", 1 << 3, 0},
	} {
		s, _ := NewSpec(0, 0, argspec.ParseArgs(tt.args, elf.EM_X86_64), &SpecOptions{Strings: tt.strings})
		if got := s.Strings(); got != tt.want {
			t.Errorf("NewSpec(%q, Strings %#x).Strings() = %#x, want %#x", tt.args, tt.strings, got, tt.want)
		}
	}
}

func TestNewSpecLengths(t *testing.T) {
	setNative(t, elf.EM_X86_64)
	args := argspec.ParseArgs("8@%rdi -4@%esi 8@%rdx 4@%ecx", elf.EM_X86_64)
	for _, tt := range []struct {
		lengths map[int]int
		want    [4]uint8 // LenArg of each argument
		bad     []int    // arguments refused
	}{
		{map[int]int{0: 1}, [4]uint8{2, 0, 0, 0}, nil},
		{map[int]int{0: 1, 2: 3}, [4]uint8{2, 0, 4, 0}, nil},
		// A length after the string is fine: strings are read last.
		{map[int]int{2: 0}, [4]uint8{0, 0, 1, 0}, nil},
		{map[int]int{0: 0}, [4]uint8{}, []int{0}},
		{map[int]int{0: 4}, [4]uint8{}, []int{0}},
		{map[int]int{0: -1, 2: 1}, [4]uint8{0, 0, 2, 0}, []int{0}},
		// Only strings have a length.
		{map[int]int{1: 0}, [4]uint8{}, nil},
	} {
		strs := ArgMask(1<<0 | 1<<2)
		s, errs := NewSpec(0, 0, args, &SpecOptions{Strings: strs, Lengths: tt.lengths})
		var bad []int
		for _, err := range errs {
			var ae *ArgError
			if errors.As(err, &ae) {
				bad = append(bad, ae.Index)
			}
		}
		if fmt.Sprint(bad) != fmt.Sprint(tt.bad) {
			t.Errorf("NewSpec(Lengths %v) refused %v (%v), want %v", tt.lengths, bad, errs, tt.bad)
		}
		for i, want := range tt.want {
			if got := s.raw.Args[i].LenArg; got != want {
				t.Errorf("NewSpec(Lengths %v) argument %d LenArg = %d, want %d", tt.lengths, i, got, want)
			}
		}
	}
}

// symbolMap is a stapsdt.SymbolTable of names defined once.
type symbolMap map[string]uint64

func (m symbolMap) SymbolAddr(name string, pc uint64) (uint64, error) {
	if a, ok := m[name]; ok {
		return a, nil
	}
	return 0, fmt.Errorf("no symbol %q", name)
}
