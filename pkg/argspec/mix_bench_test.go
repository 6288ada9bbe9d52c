package argspec

import (
	"debug/elf"
	"testing"
)

// benchMix is a set of x86-64 argument strings as gcc writes them in
// real programs: registers, stack slots, constants, %rip-relative globals
// and SIB operands, 0 to 6 arguments.
var benchMix = []string{
	"",
	"-4@%edi",
	"8@%rax -8@%rdx -8@%rcx",
	"-4@-4(%rbp) 8@%rax 8@$-1",
	"8@%rbx 8@%r12 -4@%r13d 8@16(%rsp)",
	"-4@40+CheckpointStats(%rip) 1@%r15b 8@16(%rdi,%rcx,8)",
	"8f@%xmm0 4f@-20(%rbp) -2@%ax 2@$7 8@g_u64(%rip) -1@%sil",
}

// BenchmarkParseArgsMix parses benchMix over and over; args/s is argument
// tokens decoded per second on one core.
func BenchmarkParseArgsMix(b *testing.B) {
	nargs := 0
	for _, s := range benchMix {
		nargs += len(ParseArgs(s, elf.EM_X86_64))
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, s := range benchMix {
			ParseArgs(s, elf.EM_X86_64)
		}
	}
	sec := b.Elapsed().Seconds()
	b.ReportMetric(float64(nargs)*float64(b.N)/sec, "args/s")
	b.ReportMetric(float64(len(benchMix))*float64(b.N)/sec, "probes/s")
}
