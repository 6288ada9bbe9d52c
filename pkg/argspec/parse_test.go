package argspec

import (
	"debug/elf"
	"errors"
	"reflect"
	"testing"
)

// A parseTest is one supported token: want is the Arg ParseArg should
// return, less Raw and Machine, and canon its String, "" meaning tok.
type parseTest struct {
	tok   string
	want  Arg
	canon string
}

// An errorTest is one token ParseArg should refuse with Msg.
type errorTest struct {
	tok string
	msg string
}

func testParse(t *testing.T, m elf.Machine, tests []parseTest) {
	t.Helper()
	for _, tt := range tests {
		want := tt.want
		want.Raw, want.Machine = tt.tok, m
		got, err := ParseArg(tt.tok, m)
		if err != nil || got != want {
			t.Errorf("ParseArg(%q, %v) = %+v, %v, want %+v", tt.tok, m, got, err, want)
			continue
		}
		canon := tt.canon
		if canon == "" {
			canon = tt.tok
		}
		if s := got.String(); s != canon {
			t.Errorf("ParseArg(%q, %v).String() = %q, want %q", tt.tok, m, s, canon)
		}
		if _, op, _ := cutPrefix(canon); got.Location() != op {
			t.Errorf("ParseArg(%q, %v).Location() = %q, want %q", tt.tok, m, got.Location(), op)
		}
		again, err := ParseArg(canon, m)
		again.Raw = tt.tok
		if err != nil || again != want {
			t.Errorf("ParseArg(%q, %v) = %+v, %v, want %+v", canon, m, again, err, want)
		}
	}
}

func testErrors(t *testing.T, m elf.Machine, tests []errorTest) {
	t.Helper()
	for _, tt := range tests {
		got, err := ParseArg(tt.tok, m)
		var e *Error
		if !errors.As(err, &e) || e.Msg != tt.msg || e.Arg != tt.tok || e.Machine != m {
			t.Errorf("ParseArg(%q, %v) error = %v, want *Error %q", tt.tok, m, err, tt.msg)
			continue
		}
		if !errors.Is(err, ErrNotSupported) {
			t.Errorf("ParseArg(%q, %v) error %v does not match ErrNotSupported", tt.tok, m, err)
		}
		if got.Err != err || got.Kind != 0 || got.String() != tt.tok || got.Raw != tt.tok {
			t.Errorf("ParseArg(%q, %v) = %+v, want only Raw and Err set", tt.tok, m, got)
		}
	}
}

func TestSplit(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"   \t\n", nil},
		{"8@%rax", []string{"8@%rax"}},
		{"-4@-4(%rbp) 8@%rax 8@$-1", []string{"-4@-4(%rbp)", "8@%rax", "8@$-1"}},
		{"  8@%rax \t -4@%edx  ", []string{"8@%rax", "-4@%edx"}},
		{"-4@[sp, 12] 8@x0 -8@[x29, -16]", []string{"-4@[sp, 12]", "8@x0", "-8@[x29, -16]"}},
		{"8@[x1,  x2] 4@[x0]", []string{"8@[x1,  x2]", "4@[x0]"}},
		{"8@[x1, x2, lsl 3]", []string{"8@[x1, x2, lsl 3]"}},
		{"8@(%rax, %rbx, 4) 1@%al", []string{"8@(%rax, %rbx, 4)", "1@%al"}},
		{"8@[x1, ", []string{"8@[x1,"}},
		{"8@x1] 4@x2", []string{"8@x1]", "4@x2"}},
		{"@ -@ 8@", []string{"@", "-@", "8@"}},
	} {
		if got := Split(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Split(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestPrefix(t *testing.T) {
	rax := amd64Regs()["rax"]
	testParse(t, elf.EM_X86_64, []parseTest{
		{"%rax", Arg{Kind: Register, Base: rax}, ""},
		{"1@%rax", Arg{Size: 1, Kind: Register, Base: rax}, ""},
		{"-2@%rax", Arg{Size: 2, Signed: true, Kind: Register, Base: rax}, ""},
		{"8f@%rax", Arg{Size: 8, Float: true, Kind: Register, Base: rax}, ""},
		{"-4f@%rax", Arg{Size: 4, Signed: true, Float: true, Kind: Register, Base: rax}, ""},
		{"12@%rax", Arg{Size: 12, Kind: Register, Base: rax}, ""},
		{"-16@%rax", Arg{Size: 16, Signed: true, Kind: Register, Base: rax}, ""},
		{"24@%rax", Arg{Size: 24, Kind: Register, Base: rax}, ""},
	})
	testErrors(t, elf.EM_X86_64, []errorTest{
		{"", "empty argument"},
		{"@", "missing size"},
		{"@%rax", "missing size"},
		{"-@%rax", "missing size"},
		{"f@%rax", "missing size"},
		{"8@", "missing operand"},
		{"-8f@", "missing operand"},
		{"3@%rax", "bad size 3"},
		{"0@%rax", `bad size "0"`},
		{"08@%rax", `bad size "08"`},
		{"1000@%rax", `bad size "1000"`},
		{"99999999999999999999@%rax", `bad size "99999999999999999999"`},
		{"+8@%rax", `bad size "+8"`},
		{"8x@%rax", `bad size "8x"`},
		{"sym@PLT", `bad size "sym"`},
		{"８@%rax", `bad size "８"`},
	})
}

// An argument whose prefix parsed keeps it when the operand does not.
func TestErrorKeepsPrefix(t *testing.T) {
	got, err := ParseArg("-8f@%foo", elf.EM_X86_64)
	want := Arg{Raw: "-8f@%foo", Machine: elf.EM_X86_64, Size: 8, Signed: true, Float: true, Err: err}
	if err == nil || got != want {
		t.Errorf("ParseArg(%q) = %+v, %v, want %+v", "-8f@%foo", got, err, want)
	}
	if loc := got.Location(); loc != "%foo" {
		t.Errorf("ParseArg(%q).Location() = %q, want %q", "-8f@%foo", loc, "%foo")
	}
	const msg = `argument "-8f@%foo" (EM_X86_64): unknown register "%foo"`
	if err.Error() != msg {
		t.Errorf("ParseArg(%q) error = %q, want %q", "-8f@%foo", err, msg)
	}
}

func TestParseArgsKeepsIndices(t *testing.T) {
	for _, tt := range []struct {
		in   string
		m    elf.Machine
		want []string // String of each Arg; "!" marks an Err
	}{
		{"-4@-4(%rbp) 8@%fs:8 8@$-1", elf.EM_X86_64, []string{"-4@-4(%rbp)", "!", "8@$-1"}},
		{"8@%foo 8@%rax", elf.EM_X86_64, []string{"!", "8@%rax"}},
		{"-4@[sp, 12] 8@[x0]! 8@x0", elf.EM_AARCH64, []string{"-4@[sp, 12]", "!", "8@x0"}},
		{"8@%rax -4@-4(%rbp)", elf.EM_MIPS, []string{"!", "!"}},
		{"8@%rax 8@x0", elf.Machine(0xffff), []string{"!", "!"}},
		{" ", elf.EM_X86_64, nil},
	} {
		got := ParseArgs(tt.in, tt.m)
		var strs []string
		for _, a := range got {
			if a.Err != nil {
				strs = append(strs, "!")
				continue
			}
			strs = append(strs, a.String())
		}
		if !reflect.DeepEqual(strs, tt.want) {
			t.Errorf("ParseArgs(%q, %v) = %q, want %q", tt.in, tt.m, strs, tt.want)
		}
	}
}

func TestUnsupportedMachine(t *testing.T) {
	testErrors(t, elf.EM_MIPS, []errorTest{
		{"8@%rax", "machine not supported"},
		{"-4@$29", "machine not supported"},
	})
	testErrors(t, elf.EM_SPARCV9, []errorTest{{"8@%o0", "machine not supported"}})
}

// Inputs that must come back as errors, not panics, on every machine.
func TestNoPanic(t *testing.T) {
	inputs := []string{
		"@", "-@", "8@", "@@", "8@@", "-", "(", ")", "[", "]", "()", "[]",
		"8@(", "8@)", "8@[", "8@]", "8@[]", "8@[,]", "8@[x0,", "8@(,)", "8@(,,)", "8@(,,,)",
		"8@%", "8@$", "8@#", "8@$r", "8@-", "8@+", "8@,", "8@0,", "8@,0",
		"8@99999999999999999999999(%rax)", "8@$99999999999999999999", "8@-99999999999999999999",
		"8@(%rax", "8@%rax)", "8@((%rax))", "8@sym+", "8@sym-", "8@+sym", "8@1+", "8@-sym",
		"8@[x0, #]", "8@[x0, lsl]", "8@[x0, x1, lsl #9]", "8@[x0, x1, x2]", "8@[x0, 1, 2]",
		"8@é", "8@%ŕax", "8@[sp,\u00a012]", "8@\x00", "\xff@\xff", "8@𝟘",
		"8@0x", "8@0x(%rax)", "8@-0x8000000000000001", "8@$-0x8000000000000001",
		"8@sym-9223372036854775809(%rip)", "8@sym+9223372036854775808(%rip)",
	}
	for _, m := range fuzzMachines {
		for _, in := range inputs {
			a, err := ParseArg(in, m)
			var e *Error
			if !errors.As(err, &e) || e.Arg != in || e.Machine != m || !errors.Is(err, ErrNotSupported) {
				t.Errorf("ParseArg(%q, %v) = %v, %v, want an *Error matching ErrNotSupported", in, m, a, err)
				continue
			}
			if a.Err != err || a.Raw != in || a.Kind != 0 || a.String() != in {
				t.Errorf("ParseArg(%q, %v) = %+v, want only Raw and Err set", in, m, a)
			}
			args := ParseArgs(in, m)
			if toks := Split(in); len(args) != len(toks) {
				t.Errorf("len(ParseArgs(%q, %v)) = %d, want len(Split) = %d", in, m, len(args), len(toks))
			}
			for i, a := range args {
				if a.Err == nil {
					t.Errorf("ParseArgs(%q, %v)[%d] = %v, want an error", in, m, i, a)
				}
				_ = a.Location()
			}
		}
	}
	// The empty string is no argument, and a bare name, which x86 reads
	// as a global, is an error on the others.
	for _, m := range fuzzMachines {
		if _, err := ParseArg("", m); err == nil {
			t.Errorf("ParseArg(\"\", %v) = nil error, want one", m)
		}
		if args := ParseArgs("", m); len(args) != 0 {
			t.Errorf("ParseArgs(\"\", %v) = %v, want none", m, args)
		}
		for _, in := range []string{"f", "8@i"} {
			a, err := ParseArg(in, m)
			switch {
			case isX86(m) && (err != nil || a.Kind != Symbol):
				t.Errorf("ParseArg(%q, %v) = %v, %v, want a symbol", in, m, a, err)
			case !isX86(m) && err == nil:
				t.Errorf("ParseArg(%q, %v) = %v, want an error", in, m, a)
			}
		}
	}
}

func TestKindString(t *testing.T) {
	for _, tt := range []struct {
		k    Kind
		want string
	}{
		{Const, "const"},
		{Register, "register"},
		{Memory, "memory"},
		{SIB, "sib"},
		{Symbol, "symbol"},
		{FloatRegister, "float_register"},
		{0, "Kind(0)"},
		{42, "Kind(42)"},
	} {
		if got := tt.k.String(); got != tt.want {
			t.Errorf("Kind(%d).String() = %q, want %q", int(tt.k), got, tt.want)
		}
	}
}

func TestNumbers(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want int64
		err  error
	}{
		{"0", 0, nil},
		{"-0", 0, nil},
		{"42", 42, nil},
		{"-42", -42, nil},
		{"0x10", 16, nil},
		{"0XfF", 255, nil},
		{"-0x10", -16, nil},
		{"9223372036854775807", 1<<63 - 1, nil},
		{"-9223372036854775808", -1 << 63, nil},
		{"18446744073709551615", -1, nil},
		{"0xffffffffffffffff", -1, nil},
		{"18446744073709551616", 0, errRange},
		{"-9223372036854775809", 0, errRange},
		{"010", 0, errSyntax},
		{"0x", 0, errSyntax},
		{"", 0, errSyntax},
		{"-", 0, errSyntax},
		{"1_000", 0, errSyntax},
		{"0b1", 0, errSyntax},
		{"+1", 0, errSyntax},
	} {
		got, err := parseConst(tt.in)
		if got != tt.want || err != tt.err {
			t.Errorf("parseConst(%q) = %d, %v, want %d, %v", tt.in, got, err, tt.want, tt.err)
		}
	}
}

const benchArgs = "-4@-4(%rbp) 8@%rax 8@$-1 -4@40+CheckpointStats(%rip) 1@%r15b 8@16(%rdi,%rcx,8)"

func BenchmarkParseArgs(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		args := ParseArgs(benchArgs, elf.EM_X86_64)
		if len(args) != 6 || args[5].Err != nil {
			b.Fatalf("ParseArgs(%q) = %v", benchArgs, args)
		}
	}
}

// Decoding the arguments of every probe in a large runtime must stay cheap:
// one slice of tokens and one of Args.
func TestParseArgsAllocs(t *testing.T) {
	allocs := testing.AllocsPerRun(100, func() { ParseArgs(benchArgs, elf.EM_X86_64) })
	if allocs > 2 {
		t.Errorf("ParseArgs(%q) makes %v allocations, want at most 2", benchArgs, allocs)
	}
}

func TestAppendArgs(t *testing.T) {
	prev := ParseArgs("8@%rax", elf.EM_X86_64)
	for _, tt := range []struct {
		s string
		m elf.Machine
	}{
		{"-4@-4(%rbp) 8@%rax 8@$-1", elf.EM_X86_64},
		{"-4@[sp, 12] 8@x0", elf.EM_AARCH64},
		{"", elf.EM_X86_64},
		{"8@%bogus 4@%eax", elf.EM_X86_64},
	} {
		got := AppendArgs(prev[:1:1], tt.s, tt.m)
		want := append(prev[:1:1], ParseArgs(tt.s, tt.m)...)
		if len(got) != len(want) {
			t.Fatalf("AppendArgs(%q) = %d args, want %d", tt.s, len(got), len(want))
		}
		for i := range got {
			if got[i].String() != want[i].String() || (got[i].Err == nil) != (want[i].Err == nil) {
				t.Errorf("AppendArgs(%q)[%d] = %v, want %v", tt.s, i, got[i], want[i])
			}
		}
	}
}

func TestAppendLocation(t *testing.T) {
	for _, tok := range []string{"-4@-4(%rbp)", "8@%rax", "8@$-1", "8@seq_iter.6+8(%rip)", "8@%fs:8"} {
		a, _ := ParseArg(tok, elf.EM_X86_64)
		if got := string(a.AppendLocation([]byte("x"))); got != "x"+a.Location() {
			t.Errorf("AppendLocation(%q) = %q, want %q", tok, got, "x"+a.Location())
		}
	}
}

func TestTypeName(t *testing.T) {
	for _, tt := range []struct {
		tok  string
		want string
	}{
		{"-4@%eax", "s32"}, {"8@%rax", "u64"}, {"1@%al", "u8"}, {"8f@%xmm0", "f64"}, {"%rax", "arg"},
	} {
		a, _ := ParseArg(tt.tok, elf.EM_X86_64)
		if got := a.TypeName(); got != tt.want {
			t.Errorf("ParseArg(%q).TypeName() = %q, want %q", tt.tok, got, tt.want)
		}
	}
}
