package argspec_test

import (
	"debug/elf"
	"errors"
	"fmt"

	"github.com/sdtkit/sdtkit/pkg/argspec"
)

func ExampleParseArgs() {
	args := argspec.ParseArgs("-4@-4(%rbp) 8@%fs:0x28 8@%rax 1@%ah", elf.EM_X86_64)
	for i, a := range args {
		if a.Err != nil {
			fmt.Printf("arg%d: %v (not supported: %t)\n", i, a.Err, errors.Is(a.Err, argspec.ErrNotSupported))
			continue
		}
		fmt.Printf("arg%d: %-12s %-8v size=%d signed=%t base=%s pt_regs+%d\n",
			i, a.Location(), a.Kind, a.Size, a.Signed, a.Base.Base, a.Base.Offset)
	}
	// Output:
	// arg0: -4(%rbp)     memory   size=4 signed=true base=rbp pt_regs+32
	// arg1: argument "8@%fs:0x28" (EM_X86_64): segment override "%fs:0x28" not supported (not supported: true)
	// arg2: %rax         register size=8 signed=false base=rax pt_regs+80
	// arg3: %ah          register size=1 signed=false base=rax pt_regs+80
}

func ExampleArg_String() {
	for _, tt := range []struct {
		tok string
		m   elf.Machine
	}{
		{"8@0x10(%rax,%rbx,1)", elf.EM_X86_64},
		{"-4@8+counter(%rip)", elf.EM_X86_64},
		{"8@$18446744073709551615", elf.EM_X86_64},
		{"-4@[x29, #-16]", elf.EM_AARCH64},
		{"8@%r3", elf.EM_PPC64},
	} {
		a, err := argspec.ParseArg(tt.tok, tt.m)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("%-24s -> %s\n", tt.tok, a)
	}
	// Output:
	// 8@0x10(%rax,%rbx,1)      -> 8@16(%rax,%rbx)
	// -4@8+counter(%rip)       -> -4@counter+8(%rip)
	// 8@$18446744073709551615  -> 8@$-1
	// -4@[x29, #-16]           -> -4@[x29, -16]
	// 8@%r3                    -> 8@3
}

// Globals of 32-bit x86 PIC code are relative to the GOT, whose address
// the base register holds; those of non-PIC code are at the symbol.
func ExampleArg_Reloc() {
	for _, tok := range []string{"-4@12+gs@GOTOFF(%eax)", "-4@arr@GOTOFF(%eax,%edx,4)", "4@arr(,%edx,4)"} {
		a, err := argspec.ParseArg(tok, elf.EM_386)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("%-28s %-6v base=%-4s index=%-4s symbol=%s offset=%d reloc=%q\n",
			a.Location(), a.Kind, a.Base.Name, a.Index.Name, a.Symbol, a.Offset, a.Reloc)
	}
	// Output:
	// 12+gs@GOTOFF(%eax)           memory base=eax  index=     symbol=gs offset=12 reloc="GOTOFF"
	// arr@GOTOFF(%eax,%edx,4)      sib    base=eax  index=edx  symbol=arr offset=0 reloc="GOTOFF"
	// arr(,%edx,4)                 sib    base=     index=edx  symbol=arr offset=0 reloc=""
}
