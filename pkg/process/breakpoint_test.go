package process

import (
	"debug/elf"
	"testing"
)

func TestIsBreakpoint(t *testing.T) {
	for _, tt := range []struct {
		m    elf.Machine
		b    []byte
		want bool
	}{
		{elf.EM_X86_64, []byte{0xcc, 0x48, 0x89}, true},
		{elf.EM_X86_64, []byte{0x90, 0x48, 0x89}, false},
		{elf.EM_386, []byte{0xcc}, true},
		{elf.EM_X86_64, nil, false},
		{elf.EM_AARCH64, []byte{0xa0, 0x00, 0x20, 0xd4}, true},
		{elf.EM_AARCH64, []byte{0x1f, 0x20, 0x03, 0xd5}, false}, // nop
		{elf.EM_AARCH64, []byte{0x80, 0x00, 0x20, 0xd4}, false}, // BRK #4, a kprobe
		{elf.EM_AARCH64, []byte{0xa0, 0x00, 0x20}, false},
		{elf.EM_ARM, []byte{0xf9, 0x01, 0xf0, 0xe7}, true},
		{elf.EM_ARM, []byte{0xf9, 0x01, 0xf0, 0x07}, true},  // condition copied from an EQ instruction
		{elf.EM_ARM, []byte{0x00, 0xf0, 0x20, 0xe3}, false}, // nop
		{elf.EM_RISCV, []byte{0x73, 0x00, 0x10, 0x00}, true},
		{elf.EM_RISCV, []byte{0x02, 0x90, 0x00, 0x00}, true}, // c.ebreak over a 4-byte nop
		{elf.EM_RISCV, []byte{0x02, 0x90}, true},
		{elf.EM_RISCV, []byte{0x13, 0x00, 0x00, 0x00}, false}, // nop
		{elf.EM_LOONGARCH, []byte{0x0c, 0x00, 0x2a, 0x00}, true},
		{elf.EM_LOONGARCH, []byte{0x00, 0x00, 0x40, 0x03}, false}, // nop
		{elf.EM_S390, []byte{0x00, 0x02}, true},
		{elf.EM_S390, []byte{0x07, 0x00}, false}, // nopr
		{elf.EM_PPC64, []byte{0x7f, 0xe0, 0x00, 0x08}, true},
		{elf.EM_PPC64, []byte{0x08, 0x00, 0xe0, 0x7f}, true},
		{elf.EM_PPC64, []byte{0x60, 0x00, 0x00, 0x00}, false}, // nop
		{elf.EM_MIPS, []byte{0x00, 0x0d, 0x00, 0x0d}, true},
		{elf.EM_MIPS, []byte{0x00, 0x00, 0x00, 0x00}, false}, // nop
		{elf.EM_SPARCV9, []byte{0x91, 0xd0, 0x20, 0x01}, false},
	} {
		if got := IsBreakpoint(tt.b, tt.m); got != tt.want {
			t.Errorf("IsBreakpoint(% x, %v) = %v, want %v", tt.b, tt.m, got, tt.want)
		}
	}
}

func TestBreakpointSize(t *testing.T) {
	for _, tt := range []struct {
		m    elf.Machine
		b    []byte
		want int
	}{
		{elf.EM_X86_64, []byte{0xcc, 0x48, 0x89}, 1},
		{elf.EM_X86_64, []byte{0x90}, 0},
		{elf.EM_AARCH64, []byte{0xa0, 0x00, 0x20, 0xd4}, 4},
		{elf.EM_RISCV, []byte{0x73, 0x00, 0x10, 0x00}, 4},
		{elf.EM_RISCV, []byte{0x02, 0x90, 0x00, 0x00}, 2},
		{elf.EM_S390, []byte{0x00, 0x02}, 2},
		{elf.EM_PPC64, []byte{0x08, 0x00, 0xe0, 0x7f}, 4},
		{elf.EM_SPARCV9, []byte{0x91, 0xd0, 0x20, 0x01}, 0},
	} {
		if got := BreakpointSize(tt.b, tt.m); got != tt.want {
			t.Errorf("BreakpointSize(% x, %v) = %d, want %d", tt.b, tt.m, got, tt.want)
		}
	}
}
