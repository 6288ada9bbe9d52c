package elfwriter

import (
	"debug/elf"
	"encoding/binary"
	"testing"
)

func a64(emit func(a *ARM64)) func(f *File) { return func(f *File) { emit(f.ARM64()) } }

func le(words ...uint32) []byte {
	var b []byte
	for _, w := range words {
		b = binary.LittleEndian.AppendUint32(b, w)
	}
	return b
}

var arm64Tests = []asmTest{
	{"movz x3, #42", a64(func(a *ARM64) { a.MovImm(X3, 42) }), le(0xd2800543)},
	{"movn x1, #999", a64(func(a *ARM64) { a.MovImm(X1, -1000) }), le(0x92807ce1)},
	{"movz x2, #0x5678\nmovk x2, #0x1234, lsl 16", a64(func(a *ARM64) { a.MovImm(X2, 0x12345678) }), le(0xd28acf02, 0xf2a24682)},
	{"movz x4, #0\nmovk x4, #1, lsl 32\nmovk x4, #0xffff, lsl 48", a64(func(a *ARM64) { a.MovImm(X4, -1<<48|1<<32) }), nil},
	{"mov x29, sp", a64(func(a *ARM64) { a.Mov(X29, SP) }), le(0x910003fd)},
	{"mov x1, x2", a64(func(a *ARM64) { a.Mov(X1, X2) }), le(0xaa0203e1)},
	{"add x0, x1, #16", a64(func(a *ARM64) { a.AddImm(X0, X1, 16) }), le(0x91004020)},
	{"sub sp, sp, #512", a64(func(a *ARM64) { a.AddImm(SP, SP, -512) }), le(0xd10803ff)},
	{"add x5, x6, #1, lsl 12", a64(func(a *ARM64) { a.AddImm(X5, X6, 4096) }), le(0x914004c5)},
	{"cmp x3, #9", a64(func(a *ARM64) { a.CmpImm(X3, 9) }), le(0xf100247f)},
	{"add x1, x2, x3", a64(func(a *ARM64) { a.Add(X1, X2, X3) }), le(0x8b030041)},
	{"sub x4, x5, x6", a64(func(a *ARM64) { a.Sub(X4, X5, X6) }), le(0xcb0600a4)},
	{"neg x7, x8", a64(func(a *ARM64) { a.Neg(X7, X8) }), le(0xcb0803e7)},
	{"cmp x9, x10", a64(func(a *ARM64) { a.Cmp(X9, X10) }), le(0xeb0a013f)},
	{"mul x0, x0, x1", a64(func(a *ARM64) { a.Mul(X0, X0, X1) }), le(0x9b017c00)},
	{"msub x2, x3, x4, x5", a64(func(a *ARM64) { a.Msub(X2, X3, X4, X5) }), le(0x9b049462)},
	{"udiv x6, x7, x8", a64(func(a *ARM64) { a.Udiv(X6, X7, X8) }), le(0x9ac808e6)},
	{"ldrb w1, [x2]", a64(func(a *ARM64) { a.Ldr(1, X1, X2, 0) }), le(0x39400041)},
	{"ldrh w3, [x4, 6]", a64(func(a *ARM64) { a.Ldr(2, X3, X4, 6) }), le(0x79400c83)},
	{"ldr w5, [sp, 20]", a64(func(a *ARM64) { a.Ldr(4, X5, SP, 20) }), le(0xb94017e5)},
	{"ldr x6, [x29, 16]", a64(func(a *ARM64) { a.Ldr(8, X6, X29, 16) }), le(0xf9400ba6)},
	{"strb w1, [x2, 3]", a64(func(a *ARM64) { a.Str(1, X1, X2, 3) }), le(0x39000c41)},
	{"strh w3, [x4, 2]", a64(func(a *ARM64) { a.Str(2, X3, X4, 2) }), le(0x79000483)},
	{"str w5, [sp, 4]", a64(func(a *ARM64) { a.Str(4, X5, SP, 4) }), le(0xb90007e5)},
	{"str x6, [sp, 8]", a64(func(a *ARM64) { a.Str(8, X6, SP, 8) }), le(0xf90007e6)},
	{"stur x7, [x29, -8]", a64(func(a *ARM64) { a.Str(8, X7, X29, -8) }), le(0xf81f83a7)},
	{"ldur w8, [x29, -12]", a64(func(a *ARM64) { a.Ldr(4, X8, X29, -12) }), le(0xb85f43a8)},
	{"stur x9, [x29, 3]", a64(func(a *ARM64) { a.Str(8, X9, X29, 3) }), le(0xf80033a9)},
	{"ret", a64(func(a *ARM64) { a.Ret() }), le(0xd65f03c0)},
	{"svc #0", a64(func(a *ARM64) { a.Svc() }), le(0xd4000001)},
	{"nop", a64(func(a *ARM64) { a.Nop() }), le(0xd503201f)},
	{"scvtf d1, x2", a64(func(a *ARM64) { a.Scvtf(8, 1, X2) }), le(0x9e620041)},
	{"scvtf s3, x4", a64(func(a *ARM64) { a.Scvtf(4, 3, X4) }), le(0x9e220083)},
	{"fmul d0, d1, d2", a64(func(a *ARM64) { a.Fmul(8, 0, 1, 2) }), le(0x1e620820)},
	{"fmul s5, s6, s7", a64(func(a *ARM64) { a.Fmul(4, 5, 6, 7) }), le(0x1e2708c5)},
	{"fmov d15, #0.5", a64(func(a *ARM64) { a.FmovImm(8, 15, 0.5) }), le(0x1e6c100f)},
	{"fmov s14, #0.5", a64(func(a *ARM64) { a.FmovImm(4, 14, 0.5) }), le(0x1e2c100e)},
	{"fmov d2, #-1.25", a64(func(a *ARM64) { a.FmovImm(8, 2, -1.25) }), nil},
	{"fmov x1, d2", a64(func(a *ARM64) { a.FmovToX(8, X1, 2) }), le(0x9e660041)},
	{"fmov w3, s4", a64(func(a *ARM64) { a.FmovToX(4, X3, 4) }), le(0x1e260083)},
	// Branches, resolved by Link and by the assembler alike.
	{"1: b 1b\nb.ne 1b\ncbz x2, 1b\ncbnz x3, 1b\nbl 1b\nb.hs 2f\nb.lo 2f\nb.hi 2f\nb.ls 2f\nb.eq 2f\nnop\n2: b 2b", a64(func(a *ARM64) {
		back, fwd := a.f.Here(""), a.f.NewLabel("")
		a.B(back)
		a.BCond(ARM64NE, back)
		a.Cbz(X2, back)
		a.Cbnz(X3, back)
		a.Bl(back)
		for _, c := range []ARM64Cond{ARM64HS, ARM64LO, ARM64HI, ARM64LS, ARM64EQ} {
			a.BCond(c, fwd)
		}
		a.Nop()
		a.f.Bind(fwd)
		a.B(fwd)
	}), nil},
}

func TestARM64Encode(t *testing.T) { testEncode(t, elf.EM_AARCH64, arm64Tests) }

func TestARM64EncodeGNU(t *testing.T) {
	testGNU(t, elf.EM_AARCH64, "aarch64-linux-gnu-as", nil, arm64Tests)
}

// TestARM64Adr checks that adrp and add give the address of data, from
// places in .text before and after a page boundary, in an Exec and a PIE.
func TestARM64Adr(t *testing.T) {
	for _, typ := range []Type{Exec, PIE} {
		for _, pad := range []int{0, 0xff8, 0x1000, 0x1ffc} {
			f := NewFor(elf.EM_AARCH64, typ)
			f.SetEntry(f.Here("_start"))
			f.Data("", make([]byte, 0x1234), 8)
			target := f.Data("x", make([]byte, 8), 8)
			f.Raw(make([]byte, pad)...)
			at := len(f.text)
			f.ARM64().Adr(X7, target, 5)
			im, err := f.Link()
			if err != nil {
				t.Fatal(err)
			}
			text := im.Bytes[0x1000:]
			adrp, add := binary.LittleEndian.Uint32(text[at:]), binary.LittleEndian.Uint32(text[at+4:])
			pc := im.Addr(1) + uint64(at) // label 1 is _start, at the start of .text
			page := int64(adrp>>29&3|adrp>>5&0x7ffff<<2) << 43 >> 43
			got := uint64(int64(pc&^0xfff)+page<<12) + uint64(add>>10&0xfff)
			if want := im.Addr(target) + 5; got != want || adrp&31 != 7 || add&0x3ff != 7<<5|7 {
				t.Errorf("%v, adrp at %#x: % x gives %#x, want %#x in x7", typ, pc, text[at:at+8], got, want)
			}
		}
	}
}

func TestARM64RegName(t *testing.T) {
	for _, tt := range []struct {
		r    ARM64Reg
		want string
	}{{X0, "x0"}, {X29, "x29"}, {SP, "sp"}} {
		if got := tt.r.Name(); got != tt.want {
			t.Errorf("%d.Name() = %q, want %q", tt.r, got, tt.want)
		}
	}
	if got := ARM64VReg(3).Name(); got != "v3" {
		t.Errorf("ARM64VReg(3).Name() = %q, want v3", got)
	}
}
