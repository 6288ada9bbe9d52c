package main

import (
	"bytes"
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
	tFloat = argType{ctype: "float", size: 4, float: true}
	tDbl   = argType{ctype: "double", size: 8, float: true}
)

// testProbes stands in for a parsed provider file.
func testProbes() []*probe {
	return []*probe{
		{provider: "p", name: "q", args: []argType{tInt, tLong}},
		{provider: "p", name: "r"},
		{provider: "p", name: "all", args: []argType{tInt, tLong, tULong, tShort, tUChar, tStr, tInt, tLong, tULong, tShort, tUChar, tInt}},
		{provider: "other", name: "s", args: []argType{tStr, tUChar}},
		{provider: "other", name: "f", args: []argType{tDbl, tInt, tFloat, tStr, tDbl, tFloat, tULong}},
	}
}

func TestFloatValue(t *testing.T) {
	for _, tt := range []struct {
		k    uint64
		i    int
		want float64
	}{
		{1, 0, -1000.5},
		{2, 3, -2003.5},
		{8388, 11, -8388011.5},
	} {
		got := floatValue(tt.k, tt.i)
		if got != tt.want || float64(float32(got)) != got {
			t.Errorf("floatValue(%d, %d) = %v (as float %v), want %v", tt.k, tt.i, got, float32(got), tt.want)
		}
	}
}

func TestFormForArg(t *testing.T) {
	for _, tt := range []struct {
		f    form
		a    argType
		want form
	}{
		{formImm, tInt, formImm},
		{formImm, tStr, formReg},
		{formImm, tDbl, formRIP},
		{formFloat, tFloat, formFloat},
		{formFloat, tLong, formReg},
		{formFloat, tStr, formReg},
		{formMem, tDbl, formMem},
	} {
		if got := tt.f.forArg(tt.a); got != tt.want {
			t.Errorf("%v.forArg(%s) = %v, want %v", tt.f, tt.a.ctype, got, tt.want)
		}
	}
}

func TestSizePrefix(t *testing.T) {
	for _, tt := range []struct {
		a    argType
		want string
	}{{tInt, "-4@"}, {tULong, "8@"}, {tDbl, "8f@"}, {tFloat, "4f@"}, {tStr, "8@"}} {
		if got := sizePrefix(tt.a); got != tt.want {
			t.Errorf("sizePrefix(%s) = %q, want %q", tt.a.ctype, got, tt.want)
		}
	}
}

func TestSiteValues(t *testing.T) {
	imm := int64(-1000)
	args := []argType{tInt, tStr, tDbl, tUChar}
	types := []manifestType{{}, {Value: "p:q:arg1"}, {}, {}}
	argv := []manifestArg{{Value: &imm}, {}, {}, {}}
	got := siteValues(args, types, argv)
	want := [][]any{
		{int64(-1000), "p:q:arg1", -1002.5, int64(1003 & 0xff)},
		{int64(-1000), "p:q:arg1", -2002.5, int64(2003 & 0xff)},
		{int64(-1000), "p:q:arg1", -3002.5, int64(3003 & 0xff)},
	}
	if len(got) != len(want) {
		t.Fatalf("siteValues = %v, want %v", got, want)
	}
	for k := range want {
		for i := range want[k] {
			if got[k][i] != want[k][i] {
				t.Errorf("siteValues()[%d][%d] = %v (%T), want %v (%T)", k, i, got[k][i], got[k][i], want[k][i], want[k][i])
			}
		}
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
		{"float", options{typ: elfwriter.Exec, forms: []form{formFloat, formImm, formReg, formMem, formSIB, formRIP}, sites: 2}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			im, man, err := generate(testProbes(), tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			checkNotes(t, "amd64", im, man)
		})
	}
}

// checkNotes checks that every note of a generated program reads back,
// through pkg/stapsdt and pkg/argspec for a's machine, as the manifest
// says: the site, its semaphore, the nop at its pc, and each operand, of
// its form's kind, with the manifest's size, sign and constant.
func checkNotes(t *testing.T, a arch, im *elfwriter.Image, man *manifest) {
	t.Helper()
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
	if len(f.Sites) != len(sites) {
		t.Fatalf("%d notes, manifest has %d sites", len(f.Sites), len(sites))
	}
	for i, p := range f.Sites {
		s, mp := sites[i], probes[i]
		if p.Provider != mp.Provider || p.Name != mp.Name || p.PC != s.PC || p.PCOffset != s.PCOffset || p.Args != s.Args || p.Base != man.Base {
			t.Errorf("note %d = %s:%s pc=%#x offset=%#x args=%q base=%#x, manifest %s:%s pc=%#x offset=%#x args=%q base=%#x",
				i, p.Provider, p.Name, p.PC, p.PCOffset, p.Args, p.Base, mp.Provider, mp.Name, s.PC, s.PCOffset, s.Args, man.Base)
		}
		if p.PCOffsetErr != nil || p.SemaphoreOffsetErr != nil {
			t.Errorf("note %d: %v, %v", i, p.PCOffsetErr, p.SemaphoreOffsetErr)
		}
		if p.Semaphore != mp.Semaphore || p.SemaphoreOffset != mp.SemaphoreOffset {
			t.Errorf("note %d: semaphore %#x at %#x, manifest %#x at %#x", i, p.Semaphore, p.SemaphoreOffset, mp.Semaphore, mp.SemaphoreOffset)
		}
		if nop := archNops[a]; !bytes.HasPrefix(im.Bytes[p.PCOffset:], nop) {
			t.Errorf("note %d: bytes at pc offset %#x are % x, want the nop % x", i, p.PCOffset, im.Bytes[p.PCOffset:min(p.PCOffset+4, uint64(len(im.Bytes)))], nop)
		}
		args := argspec.ParseArgs(p.Args, a.machine())
		if len(args) != len(mp.Args) {
			t.Fatalf("note %d: %d args, want %d", i, len(args), len(mp.Args))
		}
		for j, arg := range args {
			want := s.Argv[j]
			if arg.Err != nil || arg.String() != want.Operand || arg.Size != mp.Args[j].Size || arg.Signed != mp.Args[j].Signed || arg.Float != mp.Args[j].Float {
				t.Errorf("note %d arg %d = %v (%v), want %s", i, j, arg, arg.Err, want.Operand)
			}
			// In i386 PIC code a global is relative to the GOT.
			got := want.Form == "rip" && arg.Kind == argspec.Memory && arg.Reloc == argspec.RelocGOTOFF && a == "386"
			if arg.Kind != formKinds[want.Form] && !got {
				t.Errorf("note %d arg %d = %v, kind %v, want %v for form %s", i, j, arg, arg.Kind, formKinds[want.Form], want.Form)
			}
			if want.Form == "imm" && (want.Value == nil || arg.Offset != *want.Value) {
				t.Errorf("note %d arg %d = %v, want constant %v", i, j, arg, want.Value)
			}
		}
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
		{"float", options{typ: elfwriter.PIE, forms: []form{formFloat, formMem, formReg}}, []string{"2", "0"}, ""},
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
