package main

import (
	"bytes"
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sdtkit/sdtkit/pkg/argspec"
	"github.com/sdtkit/sdtkit/pkg/elfwriter"
)

// valueIters is the number of iterations TestArchValues runs.
const valueIters = 2

// TestArchValues runs programs written for other machines under qemu's
// gdbstub and checks, with gdb-multiarch as the reader, that at each stop
// on a probe site every integer and string argument holds the value of the
// value rule and of the manifest, on each iteration: read by gdb's own
// parser of the note ($_probe_argN), and by gdb from the registers and
// memory the operand names as argspec decodes it. gdb must parse every
// operand but those gdbRejects lists. With --semaphores, gdb raises the
// semaphores of every other probe only, and the program must stop at the
// sites of those alone, and print them.
func TestArchValues(t *testing.T) {
	gdb, err := exec.LookPath("gdb-multiarch")
	if err != nil {
		t.Skip("requires gdb-multiarch (package gdb-multiarch)")
	}
	probes := valueProbes(t)
	// gdb parses every operand of the reg, mem and imm forms itself.
	parsable := []form{formReg, formMem, formImm}
	for _, a := range []arch{"arm64", "s390x", "386"} {
		for _, tt := range []struct {
			typ        elfwriter.Type
			forms      []form
			semaphores bool
		}{
			{elfwriter.Exec, allForms, false},
			{elfwriter.PIE, allForms, false},
			{elfwriter.Exec, allForms, true},
			{elfwriter.PIE, allForms, true},
			{elfwriter.Exec, parsable, false},
			{elfwriter.PIE, parsable, true},
		} {
			names := make([]string, len(tt.forms))
			for i, f := range tt.forms {
				names[i] = f.String()
			}
			name := fmt.Sprintf("%s/%v/%s", a, tt.typ, strings.Join(names, ","))
			if tt.semaphores {
				name += "/semaphores"
			}
			t.Run(name, func(t *testing.T) {
				qemu, err := exec.LookPath(qemuCommands[a])
				if err != nil {
					t.Skipf("requires %s (package qemu-user)", qemuCommands[a])
				}
				t.Parallel()
				opts := options{arch: a, typ: tt.typ, forms: tt.forms, sites: 2, semaphores: tt.semaphores}
				checkValues(t, qemu, gdb, probes, opts)
			})
		}
	}
}

// valueProbes returns testProbes and a probe of the integer types whose
// size or signedness differs between machines: 8-byte values in register
// pairs on i386, plain char unsigned on aarch64 and s390x.
func valueProbes(t *testing.T) []*probe {
	p := &probe{provider: "v", name: "wide"}
	for _, ctype := range []string{"long long", "unsigned long long", "char", "signed char", "unsigned short", "void *", "size_t", "int64_t", "uint8_t", "long long"} {
		a, err := argTypeOf(ctype)
		if err != nil {
			t.Fatal(err)
		}
		p.args = append(p.args, a)
	}
	return append(testProbes(), p)
}

// A valueStop is a stop on a site that gdb is to make: on iteration k of
// site s of probe p.
type valueStop struct {
	p *manifestProbe
	s *manifestSite
	k int
}

func checkValues(t *testing.T, qemu, gdb string, probes []*probe, opts options) {
	im, man, err := generate(probes, opts)
	if err != nil {
		t.Fatal(err)
	}
	prog := filepath.Join(t.TempDir(), "prog")
	if err := os.WriteFile(prog, im.Bytes, 0o755); err != nil {
		t.Fatal(err)
	}
	ef, err := elf.NewFile(bytes.NewReader(im.Bytes))
	if err != nil {
		t.Fatal(err)
	}
	m := opts.arch.machine()

	// Without semaphores, gdb breaks on every probe, by name; with them,
	// on every site by address, and only the probes whose semaphore it
	// raises may stop.
	setup := []string{fmt.Sprintf("set $bias = $pc - %#x", ef.Entry)}
	enabled := func(i int) bool { return !opts.semaphores || i%2 == 0 }
	for i, p := range man.Probes {
		if !opts.semaphores {
			setup = append(setup, "break -probe-stap "+p.Provider+":"+p.Name)
			continue
		}
		for _, s := range p.Sites {
			setup = append(setup, fmt.Sprintf("break *($bias + %#x)", s.PC))
		}
		if enabled(i) {
			setup = append(setup, fmt.Sprintf("set var *(unsigned short *)($bias + %#x) = 1", p.Semaphore))
		}
	}
	var stops []valueStop
	var run []string
	var wantOut strings.Builder
	for k := 1; k <= valueIters; k++ {
		fmt.Fprint(&wantOut, k)
		for i := range man.Probes {
			p := &man.Probes[i]
			if !enabled(i) {
				continue
			}
			for j := range p.Sites {
				s := &p.Sites[j]
				stops = append(stops, valueStop{p, s, k})
				cmds, err := gdbStopCommands(m, argspec.ParseArgs(s.Args, m), p.Args)
				if err != nil {
					t.Fatalf("%s:%s at %#x: %v", p.Provider, p.Name, s.PC, err)
				}
				run = append(run, cmds...)
				fmt.Fprintf(&wantOut, " %s:%s", p.Provider, p.Name)
			}
		}
		fmt.Fprintln(&wantOut)
	}
	// After the last stop the program exits: a further stop is an error.
	// gdb exits with the status of its last command.
	run = append(run, "continue", `printf "@stop %llu\n", (unsigned long long)($pc - $bias)`, `printf "@end\n"`)
	if !opts.semaphores {
		wantOut.Reset()
	}

	sess, err := runGDB(qemu, gdb, prog, []string{strconv.Itoa(valueIters), "0"}, func(port string) []string {
		cmds := []string{"set architecture " + gdbArches[opts.arch], "file " + prog, "target remote :" + port}
		return append(append(cmds, setup...), run...)
	})
	if err != nil {
		if sess != nil {
			t.Logf("gdb stderr:\n%s", sess.diagnostics())
		}
		t.Fatal(err)
	}
	defer func() {
		if t.Failed() {
			t.Logf("gdb stderr:\n%s", sess.diagnostics())
		}
	}()
	if sess.progErr != nil || sess.progOut != wantOut.String() {
		t.Errorf("prog %d 0 under gdb: output %q, %v; want %q, exit status 0", valueIters, sess.progOut, sess.progErr, wantOut.String())
	}
	got, err := parseGDBStops(sess.gdbOut)
	if err != nil {
		t.Fatal(err)
	}
	var nGDB, nOperand int
	for n, want := range stops {
		if n >= len(got) {
			t.Errorf("gdb stopped %d times, want %d", len(got), len(stops))
			break
		}
		if got[n].pc != want.s.PC {
			t.Errorf("stop %d at pc %#x, want %s:%s at %#x on iteration %d", n, got[n].pc, want.p.Provider, want.p.Name, want.s.PC, want.k)
			break
		}
		byGDB, byOperand := checkStop(t, m, want, got[n])
		nGDB += byGDB
		nOperand += byOperand
	}
	t.Logf("%d stops; values compared: %d as $_probe_argN, %d read at their operands", len(stops), nGDB, nOperand)
	for _, g := range got[min(len(stops), len(got)):] {
		t.Errorf("stop at pc %#x after the %d expected ones", g.pc, len(stops))
	}
}

// checkStop compares the values gdb printed at a stop with the value rule
// and the manifest, and returns how many values it compared as gdb reads
// the note and as gdb reads the operands.
func checkStop(t *testing.T, m elf.Machine, want valueStop, got gdbStop) (byGDB, byOperand int) {
	p, s, k := want.p, want.s, want.k
	args := argspec.ParseArgs(s.Args, m)
	if len(args) != len(p.Args) {
		t.Fatalf("%s:%s at %#x: note has %d arguments, want %d", p.Provider, p.Name, s.PC, len(args), len(p.Args))
	}
	parsed := len(args) // how many operands gdb must parse
	for i, a := range args {
		if gdbRejects(m, a) {
			parsed = i
			break
		}
	}
	site := fmt.Sprintf("%s:%s at %#x, iteration %d", p.Provider, p.Name, s.PC, k)
	if got.argc < parsed || got.argc > len(args) {
		t.Errorf("%s: gdb parses %d of the arguments %q, want %d", site, got.argc, s.Args, parsed)
	}
	for i, mt := range p.Args {
		if mt.Float {
			continue // gdb 13 cannot evaluate 4f@ and 8f@ operands
		}
		// A constant is the value of iteration 1.
		want := ruleValue(p, i, k)
		if args[i].Kind == argspec.Const {
			want = ruleValue(p, i, 1)
		}
		if mv := manifestValue(s, i, k); mv != want {
			t.Errorf("%s: manifest value of arg %d (%s) = %s, want %s", site, i, s.Argv[i].Operand, mv, want)
		}
		if s.Argv[i].Form == "imm" {
			if v := s.Argv[i].Value; v == nil || strconv.FormatInt(*v, 10) != want {
				t.Errorf("%s: manifest constant of arg %d (%s) = %v, want %s", site, i, s.Argv[i].Operand, v, want)
			}
		}
		if i < got.argc {
			byGDB++
			if v, ok := got.arg[i]; !ok || v != want {
				t.Errorf("%s: $_probe_arg%d (%s, %s) = %q, want %s", site, i, s.Argv[i].Operand, s.Argv[i].Form, v, want)
			}
		}
		byOperand++
		if v, ok := got.raw[i]; !ok || v != want {
			t.Errorf("%s: arg %d (%s, %s) read at its operand = %q, want %s", site, i, s.Argv[i].Operand, s.Argv[i].Form, v, want)
		}
	}
	return byGDB, byOperand
}

// ruleValue returns the value of argument i of p on iteration k by the
// value rule, as gdb prints it: k*1000+i, negated when signed, truncated
// to the argument's size; a string argument points to
// "PROVIDER:NAME:argI".
func ruleValue(p *manifestProbe, i, k int) string {
	mt := p.Args[i]
	if mt.String {
		return fmt.Sprintf("%s:%s:arg%d", p.Provider, p.Name, i)
	}
	v := uint64(k*1000 + i)
	if mt.Signed {
		v = -v
	}
	shift := 64 - 8*uint(mt.Size)
	if mt.Signed {
		return strconv.FormatInt(int64(v<<shift)>>shift, 10)
	}
	return strconv.FormatUint(v<<shift>>shift, 10)
}

// manifestValue returns the manifest's value of argument i of site s on
// iteration k, formatted as ruleValue formats it.
func manifestValue(s *manifestSite, i, k int) string {
	if k > len(s.Values) || i >= len(s.Values[k-1]) {
		return "(none)"
	}
	switch v := s.Values[k-1][i].(type) {
	case string:
		return v
	case int64:
		return strconv.FormatInt(v, 10)
	default:
		return fmt.Sprintf("%v (%T)", v, v)
	}
}
