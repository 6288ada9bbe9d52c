package sdt

import (
	"debug/elf"
	"fmt"

	"github.com/sdtkit/sdtkit/pkg/elfwriter"
)

// amd64Regs are the registers the amd64 trampoline loads, in argument
// order; %rax comes last because it holds the argument array until then.
var amd64Regs = [MaxArgs]elfwriter.AMD64Reg{
	elfwriter.RDI, elfwriter.RSI, elfwriter.RDX, elfwriter.RCX, elfwriter.R8, elfwriter.R9,
	elfwriter.R10, elfwriter.R11, elfwriter.RBX, elfwriter.R12, elfwriter.R13, elfwriter.RAX,
}

var amd64Machine = machine{
	elf:        elf.EM_X86_64,
	reg:        func(i, size int) string { return amd64Regs[i].Name(size) },
	breakpoint: []byte{0xcc}, // int3
	longNop:    kernelOptimizesNop5,
}

// The arm64 trampoline loads argument i into x<i>. gcc names the x
// register whatever the size (-4@x2), and so do we: bcc and libbpf read
// no w registers.
var arm64Machine = machine{
	elf:        elf.EM_AARCH64,
	reg:        func(i, size int) string { return fmt.Sprintf("x%d", i) },
	breakpoint: []byte{0xa0, 0x00, 0x20, 0xd4}, // brk #0x5
}
