package elfwriter

import (
	"bytes"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// An encodeTest is one instruction: its AT&T text, the method call that
// emits it and the bytes it is.
type encodeTest struct {
	asm  string
	emit func(f *File)
	want []byte
}

// sseTests are the SSE instructions; their text is what the GNU assembler
// takes, so TestEncodeGNU checks the bytes against it.
var sseTests = []encodeTest{
	{"cvtsi2sdq %rax, %xmm15", func(f *File) { f.AMD64().Cvtsi2sd(RAX, XMM15) }, []byte{0xf2, 0x4c, 0x0f, 0x2a, 0xf8}},
	{"cvtsi2sdq %r10, %xmm3", func(f *File) { f.AMD64().Cvtsi2sd(R10, XMM3) }, []byte{0xf2, 0x49, 0x0f, 0x2a, 0xda}},
	{"cvtsi2ssq %rdi, %xmm0", func(f *File) { f.AMD64().Cvtsi2ss(RDI, XMM0) }, []byte{0xf3, 0x48, 0x0f, 0x2a, 0xc7}},
	{"cvtsi2ssq %r9, %xmm11", func(f *File) { f.AMD64().Cvtsi2ss(R9, XMM11) }, []byte{0xf3, 0x4d, 0x0f, 0x2a, 0xd9}},
	// RIP-relative operands before linking: the displacement is 0.
	{"mulsd 0(%rip), %xmm15", func(f *File) { f.AMD64().MulsdRIP(1, 0, XMM15) }, []byte{0xf2, 0x44, 0x0f, 0x59, 0x3d, 0, 0, 0, 0}},
	{"mulsd 0(%rip), %xmm1", func(f *File) { f.AMD64().MulsdRIP(1, 0, XMM1) }, []byte{0xf2, 0x0f, 0x59, 0x0d, 0, 0, 0, 0}},
	{"mulss 0(%rip), %xmm2", func(f *File) { f.AMD64().MulssRIP(1, 0, XMM2) }, []byte{0xf3, 0x0f, 0x59, 0x15, 0, 0, 0, 0}},
	{"mulss 0(%rip), %xmm12", func(f *File) { f.AMD64().MulssRIP(1, 0, XMM12) }, []byte{0xf3, 0x44, 0x0f, 0x59, 0x25, 0, 0, 0, 0}},
	{"movq %xmm15, %rax", func(f *File) { f.AMD64().MovqFromX(XMM15, RAX) }, []byte{0x66, 0x4c, 0x0f, 0x7e, 0xf8}},
	{"movq %xmm0, %r12", func(f *File) { f.AMD64().MovqFromX(XMM0, R12) }, []byte{0x66, 0x49, 0x0f, 0x7e, 0xc4}},
	{"movd %xmm15, %eax", func(f *File) { f.AMD64().MovdFromX(XMM15, RAX) }, []byte{0x66, 0x44, 0x0f, 0x7e, 0xf8}},
	{"movd %xmm1, %r9d", func(f *File) { f.AMD64().MovdFromX(XMM1, R9) }, []byte{0x66, 0x41, 0x0f, 0x7e, 0xc9}},
	{"movd %xmm3, %edx", func(f *File) { f.AMD64().MovdFromX(XMM3, RDX) }, []byte{0x66, 0x0f, 0x7e, 0xda}},
}

func TestEncode(t *testing.T) {
	for _, tt := range append([]encodeTest{
		{"mov $42, %rdi", func(f *File) { f.AMD64().MovImm(RDI, 42) }, []byte{0x48, 0xc7, 0xc7, 42, 0, 0, 0}},
		{"movabs $1<<40, %rax", func(f *File) { f.AMD64().MovImm(RAX, 1<<40) }, []byte{0x48, 0xb8, 0, 0, 0, 0, 0, 1, 0, 0}},
		{"mov %rsp, %rbp", func(f *File) { f.AMD64().Mov(RSP, RBP) }, []byte{0x48, 0x89, 0xe5}},
		{"mov 0(%rbp), %rax", func(f *File) { f.AMD64().Load(8, RAX, RBP, 0) }, []byte{0x48, 0x8b, 0x85, 0, 0, 0, 0}},
		{"mov %rax, 8(%rsp)", func(f *File) { f.AMD64().Store(8, RAX, RSP, 8) }, []byte{0x48, 0x89, 0x84, 0x24, 8, 0, 0, 0}},
		{"mov %r9, -8(%r12)", func(f *File) { f.AMD64().Store(8, R9, R12, -8) }, []byte{0x4d, 0x89, 0x8c, 0x24, 0xf8, 0xff, 0xff, 0xff}},
		{"add $-512, %rsp", func(f *File) { f.AMD64().AddImm(RSP, -512) }, []byte{0x48, 0x81, 0xc4, 0x00, 0xfe, 0xff, 0xff}},
		{"neg %r10", func(f *File) { f.AMD64().Neg(R10) }, []byte{0x49, 0xf7, 0xda}},
		{"div %rcx", func(f *File) { f.AMD64().Div(RCX) }, []byte{0x48, 0xf7, 0xf1}},
		{"xor %rdx, %rdx", func(f *File) { f.AMD64().Xor(RDX, RDX) }, []byte{0x48, 0x31, 0xd2}},
		{"imul $1000, %rax, %rax", func(f *File) { f.AMD64().MulImm(RAX, 1000) }, []byte{0x48, 0x69, 0xc0, 0xe8, 0x03, 0, 0}},
		{"cmp %rax, %rcx", func(f *File) { f.AMD64().Cmp(RAX, RCX) }, []byte{0x48, 0x39, 0xc1}},
		{"mov %dl, 0(%rsi)", func(f *File) { f.AMD64().Store(1, RDX, RSI, 0) }, []byte{0x40, 0x88, 0x96, 0, 0, 0, 0}},
		{"movzbq 0(%rsi), %rcx", func(f *File) { f.AMD64().Load(1, RCX, RSI, 0) }, []byte{0x48, 0x0f, 0xb6, 0x8e, 0, 0, 0, 0}},
		{"movzwq 0(%rsi), %rcx", func(f *File) { f.AMD64().Load(2, RCX, RSI, 0) }, []byte{0x48, 0x0f, 0xb7, 0x8e, 0, 0, 0, 0}},
		{"mov 8(%rsp), %eax", func(f *File) { f.AMD64().Load(4, RAX, RSP, 8) }, []byte{0x8b, 0x84, 0x24, 8, 0, 0, 0}},
		{"mov %ax, 0(%rbx)", func(f *File) { f.AMD64().Store(2, RAX, RBX, 0) }, []byte{0x66, 0x89, 0x83, 0, 0, 0, 0}},
		{"mov %r9d, -8(%r12)", func(f *File) { f.AMD64().Store(4, R9, R12, -8) }, []byte{0x45, 0x89, 0x8c, 0x24, 0xf8, 0xff, 0xff, 0xff}},
		{"mov %sil, 0(%rdi)", func(f *File) { f.AMD64().Store(1, RSI, RDI, 0) }, []byte{0x40, 0x88, 0xb7, 0, 0, 0, 0}},
		{"syscall", func(f *File) { f.AMD64().Syscall() }, []byte{0x0f, 0x05}},
		{"push %rbx", func(f *File) { f.AMD64().Push(RBX) }, []byte{0x53}},
		{"push %r15", func(f *File) { f.AMD64().Push(R15) }, []byte{0x41, 0x57}},
		{"pop %rbp", func(f *File) { f.AMD64().Pop(RBP) }, []byte{0x5d}},
		{"pop %r12", func(f *File) { f.AMD64().Pop(R12) }, []byte{0x41, 0x5c}},
		{"nop", func(f *File) { f.AMD64().Nop() }, []byte{0x90}},
		{"nopl 0x0(%rax,%rax,1)", func(f *File) { f.AMD64().Nop5() }, []byte{0x0f, 0x1f, 0x44, 0, 0}},
		{"cs nopw 0x0(%rax,%rax,1)", func(f *File) { f.AMD64().Nop10() }, []byte{0x66, 0x2e, 0x0f, 0x1f, 0x84, 0, 0, 0, 0, 0}},
		// RIP-relative operands before linking: the displacement is 0.
		{"mov sym(%rip), %r13", func(f *File) { f.AMD64().LoadRIP(R13, 1, 0) }, []byte{0x4c, 0x8b, 0x2d, 0, 0, 0, 0}},
		{"cmpw $0, sym(%rip)", func(f *File) { f.AMD64().CmpwRIPZero(1) }, []byte{0x66, 0x83, 0x3d, 0, 0, 0, 0, 0}},
	}, sseTests...) {
		f := New(Exec)
		tt.emit(f)
		if !bytes.Equal(f.text, tt.want) {
			t.Errorf("%s = % x, want % x", tt.asm, f.text, tt.want)
		}
	}
}

func TestRegName(t *testing.T) {
	for _, tt := range []struct {
		r    AMD64Reg
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

// TestEncodeGNU assembles the SSE instructions with the GNU assembler and
// compares its bytes with those File emits.
func TestEncodeGNU(t *testing.T) {
	as, err := exec.LookPath("as")
	if err != nil {
		t.Skip("requires as (package binutils)")
	}
	var src strings.Builder
	for _, tt := range sseTests {
		src.WriteString(tt.asm + "\n")
	}
	dir := t.TempDir()
	obj := filepath.Join(dir, "sse.o")
	if err := os.WriteFile(filepath.Join(dir, "sse.s"), []byte(src.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(as, "--64", "-o", obj, filepath.Join(dir, "sse.s")).CombinedOutput(); err != nil {
		t.Fatalf("as: %v\n%s", err, out)
	}
	ef, err := elf.Open(obj)
	if err != nil {
		t.Fatal(err)
	}
	defer ef.Close()
	text, err := ef.Section(".text").Data()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range sseTests {
		f := New(Exec)
		tt.emit(f)
		n := len(f.text)
		if n > len(text) || !bytes.Equal(text[:n], f.text) {
			t.Fatalf("%s = % x, as gives % x", tt.asm, f.text, text[:min(n, len(text))])
		}
		text = text[n:]
	}
	if len(text) != 0 {
		t.Errorf("as gives %d more bytes: % x", len(text), text)
	}
}

func TestXRegName(t *testing.T) {
	for _, tt := range []struct {
		x    AMD64XReg
		want string
	}{{XMM0, "%xmm0"}, {XMM9, "%xmm9"}, {XMM15, "%xmm15"}} {
		if got := tt.x.Name(); got != tt.want {
			t.Errorf("%d.Name() = %q, want %q", tt.x, got, tt.want)
		}
	}
}
