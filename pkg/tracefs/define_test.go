package tracefs

import (
	"debug/elf"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/sdtkit/sdtkit/pkg/stapsdt"
)

func TestDefine(t *testing.T) {
	syms := symbolMap{"gvar": 0x4010, "arr": 0x4020}
	for _, tt := range []struct {
		name    string
		args    string
		typ     elf.Type
		want    string // the fetch arguments
		leftOut []string
	}{
		{"registers", "-8@%rax 4@%edi -2@%si 1@%r8b 8@%r15", elf.ET_DYN,
			"arg0=%ax:s64 arg1=%di:u32 arg2=%si:s16 arg3=%r8:u8 arg4=%r15:u64", nil},
		{"size from the register", "%eax %rbx", elf.ET_DYN, "arg0=%ax:u32 arg1=%bx:u64", nil},
		{"high byte", "1@%ah -1@%dh", elf.ET_DYN, "arg0=%ax:b8@8/64", []string{`arg1 "-1@%dh" left out: signed %dh: bitfields are unsigned`}},
		{"memory", "-4@-4(%rbp) 8@(%rbx) 2@16(%rsp)", elf.ET_DYN, "arg0=-4(%bp):s32 arg1=+0(%bx):u64 arg2=+16(%sp):u16", nil},
		{"constants", "-4@$-7 8@$18446744073709551615 $5", elf.ET_DYN, `arg0=\-7:s32 arg1=\-1:u64 arg2=\5:u64`, nil},
		// The site is at 0x1130: gvar is 0x2ee0 (12000) past it; 16(%rip)
		// is 17 past the site, after its nop.
		{"globals", "8@gvar(%rip) -4@gvar+8(%rip) 4@16(%rip)", elf.ET_DYN, "arg0=+12000(%ip):u64 arg1=+12008(%ip):s32 arg2=+17(%ip):u32", nil},
		{"symbol plus a register, non-PIE", "8@arr+8(%rbx)", elf.ET_EXEC, "arg0=+16424(%bx):u64", nil},
		{"symbol plus a register, PIE", "8@arr(%rbx) 8@%rcx", elf.ET_DYN, "arg1=%cx:u64",
			[]string{`arg0 "8@arr(%rbx)" left out: arr plus a register in a position-independent file: the load bias has no fetch argument form`}},
		{"left out", "8@(%rbx,%rcx,8) 8f@%xmm0 4f@-4(%rbp) 8@nosuch(%rip) 8@%rdx", elf.ET_DYN, "arg4=%dx:u64", []string{
			`arg0 "8@(%rbx,%rcx,8)" left out: memory indexed by a register: fetch arguments have no such form`,
			`arg1 "8f@%xmm0" left out: floating-point: fetch arguments have no such type`,
			`arg2 "4f@-4(%rbp)" left out: floating-point: fetch arguments have no such type`,
			`arg3 "8@nosuch(%rip)" left out: no symbol "nosuch"`,
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			checkDefine(t, elf.EM_X86_64, tt.args, &Options{Symbols: syms, Type: tt.typ}, tt.want, tt.leftOut)
		})
	}
}

func TestDefineStrings(t *testing.T) {
	syms := symbolMap{"gvar": 0x4010}
	all := func(int) bool { return true }
	for _, tt := range []struct {
		name    string
		m       elf.Machine
		args    string
		word    int // Options.KernelWord
		want    string
		leftOut []string
	}{
		{"x86-64", elf.EM_X86_64, "8@%rdi 8@-8(%rbp) 8@gvar(%rip)", 8,
			"arg0=+0(%di):string arg1=+0(-8(%bp)):string arg2=+0(+12000(%ip)):string", nil},
		// The kernel reads a pointer in memory as 8 bytes: the 4 after
		// a 4-byte one are fetched to be checked.
		{"i386 on a 64-bit kernel", elf.EM_386, "4@%eax 4@8(%ebp) 4@-12(%ebp) 4@gvar $5", 8,
			`arg0=+0(%ax):string arg1=+0(+8(%bp)):string arg1_high=+12(%bp):u32 arg2=+0(-12(%bp)):string arg2_high=-8(%bp):u32 ` +
				`arg3=+0(+12000(%ip)):string arg3_high=+12004(%ip):u32 arg4=+0(\5):string`, nil},
		{"i386 on a 32-bit kernel", elf.EM_386, "4@%eax 4@8(%ebp)", 4, "arg0=+0(%ax):string arg1=+0(+8(%bp)):string", nil},
		{"i386, kernel not known", elf.EM_386, "4@8(%ebp)", 0, "arg0=+0(+8(%bp)):string", nil},
		{"i386 high byte", elf.EM_386, "1@%ah", 8, "", []string{`arg0 "1@%ah" left out: a string at a register's high byte: no such pointer`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			checkDefine(t, tt.m, tt.args, &Options{Symbols: syms, Type: elf.ET_DYN, Strings: all, KernelWord: tt.word}, tt.want, tt.leftOut)
		})
	}
}

func TestDefineSemaphore(t *testing.T) {
	s := &stapsdt.Site{Args: "8@%rdi", PC: 0x1130, PCOffset: 0x1130, Semaphore: 0x4010, SemaphoreOffset: 0x3010}
	d, err := Define(s, elf.EM_X86_64, "/bin/x", "g", "e", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := d.String(), "p:g/e /bin/x:0x1130(0x3010) arg0=%di:u64"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	s.SemaphoreOffsetErr = errors.New("semaphore in no writable segment")
	if d, err = Define(s, elf.EM_X86_64, "/bin/x", "g", "e", nil); err != nil {
		t.Fatal(err)
	}
	if d.RefCtrOffset != 0 || len(d.LeftOut) != 1 || d.LeftOut[0].String() != "semaphore not raised: semaphore in no writable segment" {
		t.Errorf("with a bad semaphore: %s, %v", d, d.LeftOut)
	}
}

func TestDefineErrors(t *testing.T) {
	s := &stapsdt.Site{PC: 0x1130, PCOffset: 0x1130}
	for _, tt := range []struct {
		m    elf.Machine
		path string
		want string
	}{
		{elf.EM_MIPS, "/bin/x", "machine not supported: EM_MIPS"},
		{elf.EM_X86_64, "bin/x", `path "bin/x": uprobe_events takes an absolute path without blanks or control characters`},
		{elf.EM_X86_64, "/my bin/x", `path "/my bin/x": uprobe_events takes an absolute path without blanks or control characters`},
		{elf.EM_X86_64, "/my\x1bbin", `path "/my\x1bbin": uprobe_events takes an absolute path without blanks or control characters`},
	} {
		if _, err := Define(s, tt.m, tt.path, "g", "e", nil); err == nil || err.Error() != tt.want {
			t.Errorf("Define(%v, %q) = %v, want %s", tt.m, tt.path, err, tt.want)
		}
	}
	thumb := &stapsdt.Site{PC: 0x1133, PCOffset: 0x1132}
	want := "site at offset 0x1132: Arm uprobes take ARM code, 4-byte aligned, not Thumb code"
	if _, err := Define(thumb, elf.EM_ARM, "/bin/x", "g", "e", nil); err == nil || err.Error() != want {
		t.Errorf("Define of a Thumb site = %v, want %s", err, want)
	}
	aligned := &stapsdt.Site{PC: 0x1134, PCOffset: 0x1134}
	for _, arm := range []func(uint64) bool{nil, func(uint64) bool { return false }} {
		if _, err := Define(aligned, elf.EM_ARM, "/bin/x", "g", "e", &Options{ARM: arm}); !errors.Is(err, errNotARM) {
			t.Errorf("Define of an aligned site not vouched for as ARM code = %v, want %v", err, errNotARM)
		}
	}
	s.PCOffsetErr = errors.New("pc in no executable segment")
	if _, err := Define(s, elf.EM_X86_64, "/bin/x", "g", "e", nil); err != s.PCOffsetErr {
		t.Errorf("Define of a site outside code = %v", err)
	}
}

func TestNames(t *testing.T) {
	var n Namer
	long := strings.Repeat("x", 70)
	for _, tt := range []struct{ group, name, want string }{
		{"sdt_p", "tick", "tick"},
		{"sdt_p", "tick", "tick_1"},
		{"sdt_q", "tick", "tick"},
		{"sdt_p", "tick", "tick_2"},
		{"sdt_p", "tick_1", "tick_1_1"},
		{"sdt_p", "gc.start", "gc_start"},
		{"sdt_p", "9lives", "_9lives"},
		{"sdt_p", "", "_"},
		{"sdt_p", long, long[:MaxName]},
		{"sdt_p", long, long[:MaxName-2] + "_1"},
	} {
		if got := n.Name(tt.group, tt.name); got != tt.want {
			t.Errorf("Name(%q, %q) = %q, want %q", tt.group, tt.name, got, tt.want)
		}
	}
	if got := Group("sdt_", "my-app"); got != "sdt_my_app" {
		t.Errorf("Group = %q", got)
	}
}

func TestLayout(t *testing.T) {
	site := FetchArg{Name: "site", Fetch: `\7:u32`}
	for _, tt := range []struct {
		name string
		d    Definition
		want string
	}{
		{"registers and memory alike", Definition{Comm: true, Args: []FetchArg{site, {Index: 0, Fetch: "%di:s32"}, {Index: 1, Fetch: "+8(%sp):u64"}}},
			"comm=$comm site=u32 arg0=s32 arg1=u64"},
		{"strings and bitfields", Definition{Args: []FetchArg{{Index: 0, Fetch: "+0(%si):string"}, {Index: 2, Fetch: "%ax:b8@8/64"}}},
			"arg0=string arg2=b8@8/64"},
		{"none", Definition{}, ""},
	} {
		if got := tt.d.Layout(); got != tt.want {
			t.Errorf("%s: Layout() = %q, want %q", tt.name, got, tt.want)
		}
	}
	d := &Definition{Group: "g", Event: "e", Path: "/bin/x", Offset: 0x10, Args: []FetchArg{site, {Index: 1, Fetch: "%di:s32"}}}
	if got, want := d.String(), `p:g/e /bin/x:0x10 site=\7:u32 arg1=%di:s32`; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

// checkDefine checks the definition of a site at 0x1130 of a file of
// machine m with the argument string args: its fetch arguments, want,
// and the arguments left out, leftOut.
func checkDefine(t *testing.T, m elf.Machine, args string, o *Options, want string, leftOut []string) {
	t.Helper()
	s := &stapsdt.Site{Provider: "p", Name: "n", Args: args, PC: 0x1130, PCOffset: 0x1130}
	d, err := Define(s, m, "/bin/x", "sdt_p", "n", o)
	if err != nil {
		t.Fatal(err)
	}
	line := "p:sdt_p/n /bin/x:0x1130"
	if want != "" {
		line += " " + want
	}
	if got := d.String(); got != line {
		t.Errorf("String() = %q\nwant       %q", got, line)
	}
	var left []string
	for _, l := range d.LeftOut {
		left = append(left, l.String())
	}
	if strings.Join(left, "\n") != strings.Join(leftOut, "\n") {
		t.Errorf("LeftOut:\n%s\nwant\n%s", strings.Join(left, "\n"), strings.Join(leftOut, "\n"))
	}
}

// symbolMap is a stapsdt.SymbolTable of names defined once.
type symbolMap map[string]uint64

func (m symbolMap) SymbolAddr(name string, pc uint64) (uint64, error) {
	if a, ok := m[name]; ok {
		return a, nil
	}
	return 0, fmt.Errorf("no symbol %q", name)
}
