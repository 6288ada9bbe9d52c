package elfwriter

import (
	"debug/elf"
	"testing"
)

func i32(emit func(a *I386)) func(f *File) { return func(f *File) { emit(f.I386()) } }

// i386Tests write {disp32} where the assembler would otherwise choose an
// 8-bit displacement, and immediates that do not fit 8 bits.
var i386Tests = []asmTest{
	{"mov $-1000, %edi", i32(func(a *I386) { a.MovImm(EDI, -1000) }), bytesOf(0xbf, 0x18, 0xfc, 0xff, 0xff)},
	{"mov %esp, %ebp", i32(func(a *I386) { a.Mov(ESP, EBP) }), bytesOf(0x89, 0xe5)},
	{"{disp32} movzbl 3(%ecx), %edx", i32(func(a *I386) { a.Load(1, EDX, ECX, 3) }), bytesOf(0x0f, 0xb6, 0x91, 3, 0, 0, 0)},
	{"{disp32} movzwl -8(%ebp), %eax", i32(func(a *I386) { a.Load(2, EAX, EBP, -8) }), bytesOf(0x0f, 0xb7, 0x85, 0xf8, 0xff, 0xff, 0xff)},
	{"{disp32} mov 4(%esp), %esi", i32(func(a *I386) { a.Load(4, ESI, ESP, 4) }), bytesOf(0x8b, 0xb4, 0x24, 4, 0, 0, 0)},
	{"{disp32} movb %dl, (%ecx)", i32(func(a *I386) { a.Store(1, EDX, ECX, 0) }), bytesOf(0x88, 0x91, 0, 0, 0, 0)},
	{"{disp32} movw %ax, 16(%ebx)", i32(func(a *I386) { a.Store(2, EAX, EBX, 16) }), bytesOf(0x66, 0x89, 0x83, 16, 0, 0, 0)},
	{"{disp32} mov %edi, -96(%ebp)", i32(func(a *I386) { a.Store(4, EDI, EBP, -96) }), bytesOf(0x89, 0xbd, 0xa0, 0xff, 0xff, 0xff)},
	{"add $-512, %esp", i32(func(a *I386) { a.AddImm(ESP, -512) }), bytesOf(0x81, 0xc4, 0x00, 0xfe, 0xff, 0xff)},
	{"cmp $1000, %ecx", i32(func(a *I386) { a.CmpImm(ECX, 1000) }), bytesOf(0x81, 0xf9, 0xe8, 0x03, 0, 0)},
	{"imul $1000, %eax, %eax", i32(func(a *I386) { a.MulImm(EAX, 1000) }), bytesOf(0x69, 0xc0, 0xe8, 0x03, 0, 0)},
	{"add %ecx, %ebx", i32(func(a *I386) { a.Add(ECX, EBX) }), bytesOf(0x01, 0xcb)},
	{"sub %esi, %edx", i32(func(a *I386) { a.Sub(ESI, EDX) }), bytesOf(0x29, 0xf2)},
	{"cmp %eax, %ecx", i32(func(a *I386) { a.Cmp(EAX, ECX) }), bytesOf(0x39, 0xc1)},
	{"xor %edx, %edx", i32(func(a *I386) { a.Xor(EDX, EDX) }), bytesOf(0x31, 0xd2)},
	{"neg %edi", i32(func(a *I386) { a.Neg(EDI) }), bytesOf(0xf7, 0xdf)},
	{"div %esi", i32(func(a *I386) { a.Div(ESI) }), bytesOf(0xf7, 0xf6)},
	{"sar $31, %edx", i32(func(a *I386) { a.Sar(EDX, 31) }), bytesOf(0xc1, 0xfa, 0x1f)},
	{"ret", i32(func(a *I386) { a.Ret() }), bytesOf(0xc3)},
	{"int $0x80", i32(func(a *I386) { a.Int80() }), bytesOf(0xcd, 0x80)},
	{"nop", i32(func(a *I386) { a.Nop() }), bytesOf(0x90)},
	{"{disp32} fildl 256(%esp)", i32(func(a *I386) { a.Fild(ESP, 256) }), bytesOf(0xdb, 0x84, 0x24, 0, 1, 0, 0)},
	{"{disp32} fidivl 260(%esp)", i32(func(a *I386) { a.Fidiv(ESP, 260) }), bytesOf(0xda, 0xb4, 0x24, 4, 1, 0, 0)},
	{"{disp32} fstps -8(%ebp)", i32(func(a *I386) { a.Fstp(4, EBP, -8) }), bytesOf(0xd9, 0x9d, 0xf8, 0xff, 0xff, 0xff)},
	{"{disp32} fstpl 8(%ebx)", i32(func(a *I386) { a.Fstp(8, EBX, 8) }), bytesOf(0xdd, 0x9b, 8, 0, 0, 0)},
	// Jumps, calls and the address of data, resolved by Link and by the
	// assembler alike.
	{"1: .skip 200\n{disp32} jmp 2f\ncall 1b\nje 1b\n{disp32} jne 2f\n{disp32} jb 2f\n{disp32} jae 2f\n{disp32} ja 2f\ncall 3f\n3: pop %esi\nadd $1b+4-3b, %esi\n2: nop", i32(func(a *I386) {
		back, fwd := a.f.Here(""), a.f.NewLabel("")
		a.f.Raw(make([]byte, 200)...)
		a.Jmp(fwd)
		a.Call(back)
		a.J(CondE, back)
		for _, c := range []Cond{CondNE, CondB, CondAE, CondA} {
			a.J(c, fwd)
		}
		a.Addr(ESI, back, 4)
		a.f.Bind(fwd)
		a.Nop()
	}), nil},
}

func TestI386Encode(t *testing.T) { testEncode(t, elf.EM_386, i386Tests) }

func TestI386EncodeGNU(t *testing.T) { testGNU(t, elf.EM_386, "as", []string{"--32"}, i386Tests) }

func TestI386RegName(t *testing.T) {
	for _, tt := range []struct {
		r    I386Reg
		want string
	}{{EAX, "%eax"}, {ESP, "%esp"}, {EDI, "%edi"}} {
		if got := tt.r.Name(); got != tt.want {
			t.Errorf("%d.Name() = %q, want %q", tt.r, got, tt.want)
		}
	}
}
