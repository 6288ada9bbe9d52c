package elfwriter

import (
	"bytes"
	"testing"
)

func TestEncode(t *testing.T) {
	for _, tt := range []struct {
		asm  string
		emit func(f *File)
		want []byte
	}{
		{"mov $42, %rdi", func(f *File) { f.MovImm(RDI, 42) }, []byte{0x48, 0xc7, 0xc7, 42, 0, 0, 0}},
		{"movabs $1<<40, %rax", func(f *File) { f.MovImm(RAX, 1<<40) }, []byte{0x48, 0xb8, 0, 0, 0, 0, 0, 1, 0, 0}},
		{"mov %rsp, %rbp", func(f *File) { f.MovReg(RSP, RBP) }, []byte{0x48, 0x89, 0xe5}},
		{"mov 0(%rbp), %rax", func(f *File) { f.Load(RAX, RBP, 0) }, []byte{0x48, 0x8b, 0x85, 0, 0, 0, 0}},
		{"mov %rax, 8(%rsp)", func(f *File) { f.Store(RAX, RSP, 8) }, []byte{0x48, 0x89, 0x84, 0x24, 8, 0, 0, 0}},
		{"mov %r9, -8(%r12)", func(f *File) { f.Store(R9, R12, -8) }, []byte{0x4d, 0x89, 0x8c, 0x24, 0xf8, 0xff, 0xff, 0xff}},
		{"add $-512, %rsp", func(f *File) { f.AddImm(RSP, -512) }, []byte{0x48, 0x81, 0xc4, 0x00, 0xfe, 0xff, 0xff}},
		{"neg %r10", func(f *File) { f.Neg(R10) }, []byte{0x49, 0xf7, 0xda}},
		{"div %rcx", func(f *File) { f.Div(RCX) }, []byte{0x48, 0xf7, 0xf1}},
		{"xor %rdx, %rdx", func(f *File) { f.XorReg(RDX, RDX) }, []byte{0x48, 0x31, 0xd2}},
		{"imul $1000, %rax, %rax", func(f *File) { f.MulImm(RAX, 1000) }, []byte{0x48, 0x69, 0xc0, 0xe8, 0x03, 0, 0}},
		{"cmp %rax, %rcx", func(f *File) { f.CmpReg(RAX, RCX) }, []byte{0x48, 0x39, 0xc1}},
		{"mov %dl, 0(%rsi)", func(f *File) { f.StoreByte(RDX, RSI, 0) }, []byte{0x40, 0x88, 0x96, 0, 0, 0, 0}},
		{"movzbq 0(%rsi), %rcx", func(f *File) { f.LoadByte(RCX, RSI, 0) }, []byte{0x48, 0x0f, 0xb6, 0x8e, 0, 0, 0, 0}},
		{"syscall", func(f *File) { f.Syscall() }, []byte{0x0f, 0x05}},
		{"nop", func(f *File) { f.Nop() }, []byte{0x90}},
		// RIP-relative operands before linking: the displacement is 0.
		{"mov sym(%rip), %r13", func(f *File) { f.LoadRIP(R13, 1, 0) }, []byte{0x4c, 0x8b, 0x2d, 0, 0, 0, 0}},
		{"cmpw $0, sym(%rip)", func(f *File) { f.CmpwRIPZero(1) }, []byte{0x66, 0x83, 0x3d, 0, 0, 0, 0, 0}},
	} {
		f := New(Exec)
		tt.emit(f)
		if !bytes.Equal(f.text, tt.want) {
			t.Errorf("%s = % x, want % x", tt.asm, f.text, tt.want)
		}
	}
}

func TestRegName(t *testing.T) {
	for _, tt := range []struct {
		r    Reg
		size int
		want string
	}{
		{RDI, 4, "%edi"}, {RAX, 8, "%rax"}, {RSI, 2, "%si"}, {RAX, 1, "%al"},
		{RDI, 1, "%dil"}, {R8, 4, "%r8d"}, {R15, 2, "%r15w"}, {R11, 1, "%r11b"},
	} {
		if got := tt.r.Name(tt.size); got != tt.want {
			t.Errorf("%v.Name(%d) = %q, want %q", tt.r, tt.size, got, tt.want)
		}
	}
}
