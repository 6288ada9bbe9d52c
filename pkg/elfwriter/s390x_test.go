package elfwriter

import (
	"debug/elf"
	"testing"
)

func z(emit func(s *S390X)) func(f *File) { return func(f *File) { emit(f.S390X()) } }

func bytesOf(b ...byte) []byte { return b }

var s390xTests = []asmTest{
	{"lghi %r3, -5", z(func(s *S390X) { s.MovImm(GR3, -5) }), bytesOf(0xa7, 0x39, 0xff, 0xfb)},
	{"lgfi %r4, 100000", z(func(s *S390X) { s.MovImm(GR4, 100000) }), bytesOf(0xc0, 0x41, 0x00, 0x01, 0x86, 0xa0)},
	{"lgfi %r5, -2\niihf %r5, 1", z(func(s *S390X) { s.MovImm(GR5, 1<<33-2) }), bytesOf(0xc0, 0x51, 0xff, 0xff, 0xff, 0xfe, 0xc0, 0x58, 0, 0, 0, 1)},
	{"lgr %r11, %r15", z(func(s *S390X) { s.Mov(GR11, GR15) }), bytesOf(0xb9, 0x04, 0x00, 0xbf)},
	{"llgc %r1, 3(%r2)", z(func(s *S390X) { s.Load(1, GR1, GR0, GR2, 3) }), bytesOf(0xe3, 0x10, 0x20, 0x03, 0x00, 0x90)},
	{"llgh %r1, 0(%r1)", z(func(s *S390X) { s.Load(2, GR1, GR0, GR1, 0) }), bytesOf(0xe3, 0x10, 0x10, 0x00, 0x00, 0x91)},
	{"llgf %r6, -8(%r4,%r5)", z(func(s *S390X) { s.Load(4, GR6, GR4, GR5, -8) }), bytesOf(0xe3, 0x64, 0x5f, 0xf8, 0xff, 0x16)},
	{"lg %r7, 160(%r15)", z(func(s *S390X) { s.Load(8, GR7, GR0, GR15, 160) }), bytesOf(0xe3, 0x70, 0xf0, 0xa0, 0x00, 0x04)},
	{"stcy %r1, 3(%r2)", z(func(s *S390X) { s.Store(1, GR1, GR0, GR2, 3) }), bytesOf(0xe3, 0x10, 0x20, 0x03, 0x00, 0x72)},
	{"sthy %r2, 4(%r3)", z(func(s *S390X) { s.Store(2, GR2, GR0, GR3, 4) }), bytesOf(0xe3, 0x20, 0x30, 0x04, 0x00, 0x70)},
	{"sty %r3, 100(%r11)", z(func(s *S390X) { s.Store(4, GR3, GR0, GR11, 100) }), bytesOf(0xe3, 0x30, 0xb0, 0x64, 0x00, 0x50)},
	{"stg %r4, -8(%r1,%r2)", z(func(s *S390X) { s.Store(8, GR4, GR1, GR2, -8) }), bytesOf(0xe3, 0x41, 0x2f, 0xf8, 0xff, 0x24)},
	{"stg %r4, 300000(%r2)", z(func(s *S390X) { s.Store(8, GR4, GR0, GR2, 300000) }), nil},
	{"aghi %r15, -672", z(func(s *S390X) { s.AddImm(GR15, -672) }), bytesOf(0xa7, 0xfb, 0xfd, 0x60)},
	{"agfi %r2, 100000", z(func(s *S390X) { s.AddImm(GR2, 100000) }), bytesOf(0xc2, 0x28, 0x00, 0x01, 0x86, 0xa0)},
	{"msgfi %r2, 1000", z(func(s *S390X) { s.MulImm(GR2, 1000) }), bytesOf(0xc2, 0x20, 0x00, 0x00, 0x03, 0xe8)},
	{"agr %r2, %r3", z(func(s *S390X) { s.Add(GR2, GR3) }), bytesOf(0xb9, 0x08, 0x00, 0x23)},
	{"sgr %r4, %r5", z(func(s *S390X) { s.Sub(GR4, GR5) }), bytesOf(0xb9, 0x09, 0x00, 0x45)},
	{"lcgr %r6, %r7", z(func(s *S390X) { s.Neg(GR6, GR7) }), bytesOf(0xb9, 0x03, 0x00, 0x67)},
	{"dlgr %r0, %r5", z(func(s *S390X) { s.Dlgr(GR0, GR5) }), bytesOf(0xb9, 0x87, 0x00, 0x05)},
	{"clgr %r1, %r2", z(func(s *S390X) { s.Cmp(GR1, GR2) }), bytesOf(0xb9, 0x21, 0x00, 0x12)},
	{"clgfi %r3, 9", z(func(s *S390X) { s.CmpImm(GR3, 9) }), bytesOf(0xc2, 0x3e, 0x00, 0x00, 0x00, 0x09)},
	{"br %r14", z(func(s *S390X) { s.Br(GR14) }), bytesOf(0x07, 0xfe)},
	{"svc 4", z(func(s *S390X) { s.Svc(4) }), bytesOf(0x0a, 0x04)},
	{"nop 0", z(func(s *S390X) { s.Nop() }), bytesOf(0x47, 0x00, 0x00, 0x00)},
	{"cegbr %f0, %r1", z(func(s *S390X) { s.Cvt(4, 0, GR1) }), bytesOf(0xb3, 0xa4, 0x00, 0x01)},
	{"cdgbr %f2, %r3", z(func(s *S390X) { s.Cvt(8, 2, GR3) }), bytesOf(0xb3, 0xa5, 0x00, 0x23)},
	{"debr %f0, %f2", z(func(s *S390X) { s.Div(4, 0, 2) }), bytesOf(0xb3, 0x0d, 0x00, 0x02)},
	{"ddbr %f4, %f6", z(func(s *S390X) { s.Div(8, 4, 6) }), bytesOf(0xb3, 0x1d, 0x00, 0x46)},
	{"lgdr %r5, %f0", z(func(s *S390X) { s.Lgdr(GR5, 0) }), bytesOf(0xb3, 0xcd, 0x00, 0x50)},
	{"srlg %r5, %r6, 32", z(func(s *S390X) { s.Srlg(GR5, GR6, 32) }), bytesOf(0xeb, 0x56, 0x00, 0x20, 0x00, 0x0c)},
	// Branches and larl, resolved by Link and by the assembler alike.
	{"1: brcl 8, 1b\nbrcl 7, 1b\nbrcl 4, 2f\nbrcl 10, 2f\nbrcl 2, 2f\nbrcl 15, 2f\nbrasl %r14, 1b\nlarl %r1, 1b\nlarl %r2, 2f+4\n2: nop 0\nnop 0", z(func(s *S390X) {
		back, fwd := s.f.Here(""), s.f.NewLabel("")
		s.Brcl(S390XEQ, back)
		s.Brcl(S390XNE, back)
		for _, m := range []S390XMask{S390XLO, S390XHS, S390XHI, S390XAlways} {
			s.Brcl(m, fwd)
		}
		s.Brasl(GR14, back)
		s.Larl(GR1, back, 0)
		s.Larl(GR2, fwd, 4)
		s.f.Bind(fwd)
		s.Nop()
		s.Nop()
	}), nil},
}

func TestS390XEncode(t *testing.T) { testEncode(t, elf.EM_S390, s390xTests) }

func TestS390XEncodeGNU(t *testing.T) {
	testGNU(t, elf.EM_S390, "s390x-linux-gnu-as", nil, s390xTests)
}

func TestS390XRegName(t *testing.T) {
	for _, tt := range []struct {
		r    S390XReg
		want string
	}{{GR0, "%r0"}, {GR2, "%r2"}, {GR15, "%r15"}} {
		if got := tt.r.Name(); got != tt.want {
			t.Errorf("%d.Name() = %q, want %q", tt.r, got, tt.want)
		}
	}
}
