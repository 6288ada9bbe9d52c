package argspec

import (
	"debug/elf"
	"testing"
)

// fuzzMachines are the machines the fuzzer picks from, one it cannot
// decode among them.
var fuzzMachines = []elf.Machine{
	elf.EM_X86_64, elf.EM_386, elf.EM_AARCH64, elf.EM_ARM, elf.EM_RISCV,
	elf.EM_S390, elf.EM_PPC64, elf.EM_PPC, elf.EM_LOONGARCH, elf.EM_MIPS,
}

func FuzzParseArgs(f *testing.F) {
	f.Add("-4@-4(%rbp) 8@%rax 8@$-1 -4@40+CheckpointStats(%rip)", byte(0))
	f.Add("-4@g@GOTOFF(%eax) -4@12+gs@GOTOFF(%eax) -4@arr@GOTOFF(%eax,%edx,4)", byte(1))
	f.Add("-4@[sp, 12] 8@x0 -8@[x29, -16] 8@[x1, x2, lsl 3]", byte(2))
	f.Add("-4@[fp, #-8] 4@r0 4@#5", byte(3))
	f.Add("8@3 -8@-8(31) 4@i5 8@9,10", byte(6))
	f.Fuzz(func(t *testing.T, s string, mb byte) {
		m := fuzzMachines[int(mb)%len(fuzzMachines)]
		args := ParseArgs(s, m)
		if toks := Split(s); len(args) != len(toks) {
			t.Fatalf("len(ParseArgs(%q, %v)) = %d, want len(Split) = %d", s, m, len(args), len(toks))
		}
		for _, a := range args {
			if a.Err != nil {
				if a.String() != a.Raw {
					t.Errorf("ParseArg(%q, %v).String() = %q, want Raw", a.Raw, m, a.String())
				}
				continue
			}
			str := a.String()
			again, err := ParseArg(str, m)
			if err != nil {
				t.Fatalf("ParseArg(%q, %v) = %+v; its String %q gives error %v", a.Raw, m, a, str, err)
			}
			again.Raw = a.Raw
			if again != a {
				t.Fatalf("ParseArg(%q, %v) = %+v, want %+v (String of %q)", str, m, again, a, a.Raw)
			}
			if s2 := again.String(); s2 != str {
				t.Fatalf("ParseArg(%q, %v).String() = %q, want %q", str, m, s2, str)
			}
			if toks := Split(str); len(toks) != 1 || toks[0] != str {
				t.Fatalf("Split(%q) = %q, want the argument whole", str, toks)
			}
		}
	})
}
