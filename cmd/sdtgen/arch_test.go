package main

import (
	"bytes"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sdtkit/sdtkit/pkg/argspec"
	"github.com/sdtkit/sdtkit/pkg/elfwriter"
)

// archNops are the probe nops of the machines.
var archNops = map[arch][]byte{
	"arm64": {0x1f, 0x20, 0x03, 0xd5},
	"amd64": {0x90},
	"s390x": {0x47, 0, 0, 0},
	"386":   {0x90},
}

// formKinds are the kinds argspec gives the operands of each form.
var formKinds = map[string]argspec.Kind{
	"reg": argspec.Register, "mem": argspec.Memory, "sib": argspec.SIB,
	"rip": argspec.Symbol, "imm": argspec.Const, "float": argspec.FloatRegister,
}

var allForms = []form{formReg, formMem, formSIB, formRIP, formImm, formFloat}

// TestGenerateArch checks that every note of a program generated for
// another machine reads back, through pkg/stapsdt and pkg/argspec for
// that machine, as the manifest says, and that each operand is of its
// form's kind.
func TestGenerateArch(t *testing.T) {
	for _, a := range []arch{"arm64", "s390x", "386"} {
		for _, tt := range []struct {
			name string
			opts options
		}{
			{"reg", options{typ: elfwriter.Exec}},
			{"pie", options{typ: elfwriter.PIE}},
			{"forms", options{typ: elfwriter.Exec, forms: allForms, sites: 2}},
			{"pie-forms-sema", options{typ: elfwriter.PIE, forms: []form{formImm, formRIP, formSIB, formMem, formReg, formFloat}, sites: 3, semaphores: true}},
			{"sib", options{typ: elfwriter.Exec, forms: []form{formSIB}}},
			{"shared-forms-sema", options{typ: elfwriter.Shared, forms: allForms, sites: 2, semaphores: true}},
		} {
			t.Run(string(a)+"/"+tt.name, func(t *testing.T) {
				tt.opts.arch = a
				im, man, err := generate(testProbes(), tt.opts)
				if err != nil {
					t.Fatal(err)
				}
				ef, err := elf.NewFile(bytes.NewReader(im.Bytes))
				if err != nil {
					t.Fatal(err)
				}
				if ef.Machine != a.machine() || man.Machine != a.machineName() {
					t.Errorf("machine %v, manifest %q, want %v", ef.Machine, man.Machine, a.machine())
				}
				checkNotes(t, a, im, man)
			})
		}
	}
}

func TestArchForms(t *testing.T) {
	for _, tt := range []struct {
		arch arch
		typ  elfwriter.Type
		f    form
		a    argType
		want form
	}{
		{"arm64", elfwriter.Exec, formRIP, tInt, formMem},
		{"arm64", elfwriter.Exec, formFloat, tDbl, formFloat},
		{"arm64", elfwriter.Exec, formSIB, tInt, formSIB},
		{"s390x", elfwriter.PIE, formRIP, tLong, formMem},
		{"s390x", elfwriter.Exec, formFloat, tFloat, formReg},
		{"386", elfwriter.Exec, formRIP, tInt, formRIP},
		{"386", elfwriter.PIE, formRIP, tInt, formRIP},
		{"386", elfwriter.Shared, formRIP, tInt, formRIP},
		{"386", elfwriter.Exec, formReg, tDbl, formMem},
		{"386", elfwriter.Exec, formFloat, tFloat, formMem},
		{"386", elfwriter.Exec, formReg, tLong, formReg},
	} {
		b := tt.arch.newBackend(elfwriter.NewFor(tt.arch.machine(), tt.typ))
		if got := b.form(tt.f, tt.a, tt.typ); got != tt.want {
			t.Errorf("%s %v: form(%v, %s) = %v, want %v", tt.arch, tt.typ, tt.f, tt.a.ctype, got, tt.want)
		}
	}
}

// TestAllocate checks that an i386 site runs out of registers as a
// compiler does: 8-byte values take pairs, and the rest go to memory.
func TestAllocate(t *testing.T) {
	ll := argType{ctype: "long long", size: 8, signed: true}
	for _, tt := range []struct {
		arch  arch
		args  []argType
		forms []form
		want  []form
		regs  []reg
	}{
		{"386", []argType{tInt, ll, tInt}, []form{formReg, formReg, formReg}, []form{formReg, formReg, formReg}, []reg{0, 2, 3}},
		{"386", []argType{ll, ll, ll, ll}, []form{formReg, formReg, formReg, formReg}, []form{formReg, formReg, formReg, formMem}, []reg{0, 1, 6, 0}},
		{"386", []argType{tInt, tInt, tInt, tInt, tInt, tInt}, []form{formSIB, formReg, formReg, formReg, formReg, formReg}, []form{formSIB, formReg, formReg, formReg, formReg, formMem}, []reg{0, 2, 1, 3, 0, 0}},
		{"arm64", []argType{tInt, tInt, tInt}, []form{formSIB, formReg, formSIB}, []form{formSIB, formReg, formSIB}, []reg{27, 1, 26}},
	} {
		g := &archGen{b: tt.arch.newBackend(elfwriter.NewFor(tt.arch.machine(), elfwriter.Exec)), nsites: 1}
		forms := append([]form(nil), tt.forms...)
		sr := g.allocate(tt.args, forms)
		for i := range forms {
			if forms[i] != tt.want[i] || (forms[i] != formMem && sr.arg[i] != tt.regs[i]) {
				t.Errorf("%s allocate(%v) = %v %v, want %v %v", tt.arch, tt.forms, forms, sr.arg, tt.want, tt.regs)
				break
			}
		}
	}
}

func TestSized(t *testing.T) {
	char := argType{ctype: "char", size: 1, signed: true}
	ptr := argType{ctype: "void *", size: 8}
	ll := argType{ctype: "unsigned long long", size: 8}
	sz := argType{ctype: "size_t", size: 8}
	in := []*probe{{provider: "p", name: "q", args: []argType{char, tLong, tULong, ptr, tStr, ll, sz, tDbl, tInt}}}
	for _, tt := range []struct {
		arch   arch
		sizes  []int
		signed []bool
	}{
		{"arm64", []int{1, 8, 8, 8, 8, 8, 8, 8, 4}, []bool{false, true, false, false, false, false, false, false, true}},
		{"s390x", []int{1, 8, 8, 8, 8, 8, 8, 8, 4}, []bool{false, true, false, false, false, false, false, false, true}},
		{"386", []int{1, 4, 4, 4, 4, 8, 4, 8, 4}, []bool{true, true, false, false, false, false, false, false, true}},
	} {
		g := &archGen{b: tt.arch.newBackend(elfwriter.NewFor(tt.arch.machine(), elfwriter.Exec))}
		out := g.sized(in)
		for i, a := range out[0].args {
			if a.size != tt.sizes[i] || a.signed != tt.signed[i] {
				t.Errorf("%s: %s is %d bytes, signed %v; want %d, %v", tt.arch, a.ctype, a.size, a.signed, tt.sizes[i], tt.signed[i])
			}
		}
		if in[0].args[1].size != 8 || !in[0].args[0].signed {
			t.Fatalf("%s: sized changed its input", tt.arch)
		}
	}
}

func TestParseArch(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want arch
		ok   bool
	}{{"amd64", "amd64", true}, {"arm64", "arm64", true}, {"386", "386", true}, {"s390x", "s390x", true}, {"aarch64", "", false}, {"", "", false}} {
		got, err := parseArch(tt.in)
		if got != tt.want || (err == nil) != tt.ok {
			t.Errorf("parseArch(%q) = %q, %v, want %q", tt.in, got, err, tt.want)
		}
	}
}

// TestRunArch runs generated programs under qemu's user-mode emulator.
func TestRunArch(t *testing.T) {
	for _, a := range []arch{"arm64", "s390x", "386"} {
		qemu := map[arch]string{"arm64": "qemu-aarch64", "s390x": "qemu-s390x", "386": "qemu-i386"}[a]
		t.Run(string(a), func(t *testing.T) {
			path, err := exec.LookPath(qemu)
			if err != nil {
				t.Skipf("requires %s (package qemu-user)", qemu)
			}
			for _, tt := range []struct {
				opts   options
				args   []string
				want   string
				status int
			}{
				{options{typ: elfwriter.Exec}, nil, "", 0},
				{options{typ: elfwriter.PIE, forms: allForms, sites: 2}, []string{"3", "0"}, "", 0},
				// No tracer: no semaphore is raised and no probe fires.
				{options{typ: elfwriter.Exec, forms: allForms, semaphores: true}, []string{"2", "1"}, "1\n2\n", 0},
				{options{typ: elfwriter.PIE, semaphores: true, sites: 3}, []string{"12", "0"}, "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n", 0},
				{options{typ: elfwriter.Exec}, []string{"x"}, "", 2},
				{options{typ: elfwriter.PIE}, []string{"1", "1x"}, "", 2},
			} {
				tt.opts.arch = a
				im, _, err := generate(testProbes(), tt.opts)
				if err != nil {
					t.Fatal(err)
				}
				prog := filepath.Join(t.TempDir(), "prog")
				if err := os.WriteFile(prog, im.Bytes, 0o755); err != nil {
					t.Fatal(err)
				}
				var stderr bytes.Buffer
				cmd := exec.Command(path, append([]string{prog}, tt.args...)...)
				cmd.Stderr = &stderr
				out, err := cmd.Output()
				status := 0
				if ee, ok := err.(*exec.ExitError); ok {
					status = ee.ExitCode()
				} else if err != nil {
					t.Fatal(err)
				}
				if string(out) != tt.want || status != tt.status {
					t.Errorf("%v prog %s = %q, status %d, want %q, status %d", tt.opts.typ, strings.Join(tt.args, " "), out, status, tt.want, tt.status)
				}
				if tt.status == 2 && stderr.String() != usageLine {
					t.Errorf("prog %s: stderr %q, want %q", strings.Join(tt.args, " "), stderr.String(), usageLine)
				}
			}
		})
	}
}
