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
	"github.com/sdtkit/sdtkit/pkg/stapsdt"
)

var (
	tInt   = argType{ctype: "int", size: 4, signed: true}
	tLong  = argType{ctype: "long", size: 8, signed: true}
	tULong = argType{ctype: "unsigned long", size: 8}
	tShort = argType{ctype: "short", size: 2, signed: true}
	tUChar = argType{ctype: "unsigned char", size: 1}
	tStr   = argType{ctype: "char *", size: 8, str: true}
)

// testProbes stands in for a parsed provider file.
func testProbes() []*probe {
	return []*probe{
		{provider: "p", name: "q", args: []argType{tInt, tLong}},
		{provider: "p", name: "r"},
		{provider: "p", name: "all", args: []argType{tInt, tLong, tULong, tShort, tUChar, tStr, tInt, tLong, tULong, tShort, tUChar, tInt}},
		{provider: "other", name: "s", args: []argType{tStr, tUChar}},
	}
}

func TestValue(t *testing.T) {
	for _, tt := range []struct {
		a    argType
		k    uint64
		i    int
		want int64
	}{
		{tInt, 1, 0, -1000},
		{tInt, 3, 1, -3001},
		{tULong, 2, 2, 2002},
		{tShort, 40, 0, -(40000 - 65536)},
		{tUChar, 1, 0, 1000 & 0xff},
		{argType{size: 1, signed: true}, 1, 1, int64(int8(-1001 & 0xff))},
	} {
		if got := tt.a.value(tt.k, tt.i); got != tt.want {
			t.Errorf("%+v.value(%d, %d) = %d, want %d", tt.a, tt.k, tt.i, got, tt.want)
		}
	}
}

// TestGenerate checks that every note of a generated program reads back,
// through pkg/stapsdt and pkg/argspec, as the manifest says.
func TestGenerate(t *testing.T) {
	for _, tt := range []struct {
		name string
		opts options
	}{
		{"reg", options{typ: elfwriter.Exec}},
		{"pie", options{typ: elfwriter.PIE}},
		{"forms", options{typ: elfwriter.Exec, forms: []form{formReg, formMem, formSIB, formRIP, formImm}, sites: 2}},
		{"pie-forms-sema", options{typ: elfwriter.PIE, forms: []form{formImm, formRIP, formSIB, formMem, formReg}, sites: 3, semaphores: true}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			im, man, err := generate(testProbes(), tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			f, err := stapsdt.NewFile(bytes.NewReader(im.Bytes))
			if err != nil {
				t.Fatal(err)
			}
			var sites []manifestSite
			var probes []manifestProbe
			for _, mp := range man.Probes {
				for _, s := range mp.Sites {
					sites = append(sites, s)
					probes = append(probes, mp)
				}
			}
			if len(f.Probes) != len(sites) {
				t.Fatalf("%d notes, manifest has %d sites", len(f.Probes), len(sites))
			}
			for i, p := range f.Probes {
				s, mp := sites[i], probes[i]
				if p.Provider != mp.Provider || p.Name != mp.Name || p.PC != s.PC || p.PCOffset != s.PCOffset || p.Args != s.Args {
					t.Errorf("note %d = %s:%s pc=%#x offset=%#x args=%q, manifest %s:%s pc=%#x offset=%#x args=%q",
						i, p.Provider, p.Name, p.PC, p.PCOffset, p.Args, mp.Provider, mp.Name, s.PC, s.PCOffset, s.Args)
				}
				if p.PCOffsetErr != nil || p.SemaphoreOffsetErr != nil {
					t.Errorf("note %d: %v, %v", i, p.PCOffsetErr, p.SemaphoreOffsetErr)
				}
				if p.Semaphore != mp.Semaphore || p.SemaphoreOffset != mp.SemaphoreOffset {
					t.Errorf("note %d: semaphore %#x at %#x, manifest %#x at %#x", i, p.Semaphore, p.SemaphoreOffset, mp.Semaphore, mp.SemaphoreOffset)
				}
				if p.Base != man.Base {
					t.Errorf("note %d: base %#x, manifest %#x", i, p.Base, man.Base)
				}
				if im.Bytes[p.PCOffset] != 0x90 {
					t.Errorf("note %d: byte at pc offset %#x is %#x, want nop", i, p.PCOffset, im.Bytes[p.PCOffset])
				}
				args := argspec.ParseArgs(p.Args, elf.EM_X86_64)
				if len(args) != len(mp.Args) {
					t.Fatalf("note %d: %d args, want %d", i, len(args), len(mp.Args))
				}
				for j, a := range args {
					want := s.Argv[j]
					if a.Err != nil || a.String() != want.Operand || a.Size != mp.Args[j].Size || a.Signed != mp.Args[j].Signed {
						t.Errorf("note %d arg %d = %v (%v), want %s", i, j, a, a.Err, want.Operand)
					}
					if want.Form == "imm" && (a.Kind != argspec.Const || want.Value == nil || a.Offset != *want.Value) {
						t.Errorf("note %d arg %d = %v, want constant %v", i, j, a, want.Value)
					}
				}
			}
		})
	}
}

// TestRun runs generated programs; they use raw Linux x86-64 system calls.
func TestRun(t *testing.T) {
	for _, tt := range []struct {
		name string
		opts options
		args []string
		want string
	}{
		{"exec", options{typ: elfwriter.Exec}, nil, ""},
		{"pie", options{typ: elfwriter.PIE, forms: []form{formMem, formSIB, formRIP, formImm, formReg}}, []string{"3", "0"}, ""},
		// No tracer: no semaphore is raised and no probe fires.
		{"semaphores", options{typ: elfwriter.Exec, semaphores: true}, []string{"2", "1"}, "1\n2\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			im, _, err := generate(testProbes(), tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			prog := filepath.Join(t.TempDir(), "prog")
			if err := os.WriteFile(prog, im.Bytes, 0o755); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(prog, tt.args...).Output()
			if err != nil || string(out) != tt.want {
				t.Errorf("prog %s = %q, %v, want %q", strings.Join(tt.args, " "), out, err, tt.want)
			}
		})
	}
}

func TestRunUsage(t *testing.T) {
	im, _, err := generate(testProbes(), options{})
	if err != nil {
		t.Fatal(err)
	}
	prog := filepath.Join(t.TempDir(), "prog")
	if err := os.WriteFile(prog, im.Bytes, 0o755); err != nil {
		t.Fatal(err)
	}
	err = exec.Command(prog, "x").Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 {
		t.Errorf("prog x: %v, want exit status 2", err)
	}
}
