package unwind

import (
	"bufio"
	"bytes"
	"debug/elf"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// dwarfRegs numbers the registers of each machine as readelf names
// them.
var dwarfRegs = map[elf.Machine]map[string]uint64{
	elf.EM_X86_64: func() map[string]uint64 {
		m := map[string]uint64{}
		for i, n := range []string{"rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp"} {
			m[n] = uint64(i)
		}
		for i := 8; i < 16; i++ {
			m["r"+strconv.Itoa(i)] = uint64(i)
		}
		return m
	}(),
	elf.EM_AARCH64: func() map[string]uint64 {
		m := map[string]uint64{"sp": 31}
		for i := 0; i <= 30; i++ {
			m["x"+strconv.Itoa(i)] = uint64(i)
		}
		for i := 0; i < 32; i++ {
			m["v"+strconv.Itoa(i)] = uint64(64 + i)
		}
		return m
	}(),
}

// readelfRows compares the rules of every row of every FDE of .eh_frame
// that readelf --debug-dump=frames-interp prints for path with those of
// Table.Row at the row's address, and returns the number of rows.
// readelf is the command, of the binutils of path's machine.
func readelfRows(t *testing.T, readelf, path string) int {
	t.Helper()
	// readelf exits 1 after printing libc's tables, with no message.
	out, err := exec.Command(readelf, "--debug-dump=frames-interp", path).Output()
	if err != nil && len(out) == 0 {
		t.Fatalf("readelf %s: %v", path, err)
	}
	tab, err := Open(path)
	if err != nil {
		t.Fatalf("Open(%s): %v", path, err)
	}
	var (
		cols   []string
		inFDE  bool
		rows   int
		eh     bool
		failed int
	)
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		f := strings.Fields(line)
		switch {
		case strings.HasPrefix(line, "Contents of the "):
			eh = strings.Contains(line, ".eh_frame")
			inFDE = false
		case len(f) >= 4 && f[3] == "FDE":
			inFDE = eh
		case len(f) >= 4 && f[3] == "CIE", len(f) >= 3 && f[2] == "ZERO":
			inFDE = false
		case len(f) >= 2 && f[0] == "LOC" && f[1] == "CFA":
			cols = f[2:]
		case inFDE && len(f) == 2+len(cols) && len(f[0]) == 16:
			loc, err := strconv.ParseUint(f[0], 16, 64)
			if err != nil {
				t.Fatalf("readelf line %q: %v", line, err)
			}
			rows++
			row, err := tab.Row(loc)
			if err != nil {
				t.Errorf("Row(%#x) = %v", loc, err)
				failed++
				continue
			}
			if msg := compareRow(tab.Machine, row, f[1], cols, f[2:]); msg != "" {
				t.Errorf("Row(%#x): %s (readelf: %q)", loc, msg, line)
				failed++
			}
		}
		if failed > 20 {
			t.Fatal("too many differences")
		}
	}
	return rows
}

// compareRow returns how row differs from readelf's columns, "" if not.
func compareRow(m elf.Machine, row *Row, cfa string, cols, vals []string) string {
	if got := cfaString(m, row.CFA); got != cfa {
		return fmt.Sprintf("CFA %s, want %s", got, cfa)
	}
	for i, c := range cols {
		reg := row.RA
		if c != "ra" {
			n, ok := dwarfRegs[m][c]
			if !ok {
				return "register " + c + " unknown"
			}
			reg = n
		}
		if reg > MaxReg {
			continue
		}
		if got := ruleString(m, row.Regs[reg]); got != vals[i] {
			return fmt.Sprintf("%s: %s, want %s", c, got, vals[i])
		}
	}
	return ""
}

func regName(m elf.Machine, n uint64) string {
	for k, v := range dwarfRegs[m] {
		if v == n {
			return k
		}
	}
	return "r" + strconv.FormatUint(n, 10)
}

func cfaString(m elf.Machine, r Rule) string {
	if r.Kind == CFAExpression {
		return "exp"
	}
	return fmt.Sprintf("%s%+d", regName(m, r.Reg), r.Off)
}

func ruleString(m elf.Machine, r Rule) string {
	switch r.Kind {
	case Unspecified, Undefined:
		return "u"
	case SameValue:
		return "s"
	case Offset:
		return fmt.Sprintf("c%+d", r.Off)
	case ValOffset:
		return fmt.Sprintf("v%+d", r.Off)
	case Register:
		return regName(m, r.Reg)
	case Expression:
		return "exp"
	case ValExpression:
		return "vexp"
	}
	return r.Kind.String()
}

// TestReadelf checks the rules of every row of the fixtures, built
// without frame pointers, and of the C library against readelf's.
func TestReadelf(t *testing.T) {
	if _, err := exec.LookPath("readelf"); err != nil {
		t.Skip("requires readelf (binutils)")
	}
	fx := buildChain(t, false)
	for _, path := range []string{fx.exe, fx.lib, libc(t)} {
		t.Run(filepath.Base(path), func(t *testing.T) {
			n := readelfRows(t, "readelf", path)
			if n == 0 {
				t.Fatalf("readelf printed no rows of %s", path)
			}
			t.Logf("%d rows", n)
		})
	}
}

// TestReadelfArm64 checks the rules of every row of arm64 code built by
// the cross compiler at -O2 without frame pointers, with return
// addresses signed (-mbranch-protection=standard) and not, of the chain
// fixture, and of the cross C library, against the cross readelf's.
func TestReadelfArm64(t *testing.T) {
	const triple = "aarch64-linux-gnu"
	for _, tool := range []string{"-gcc", "-readelf"} {
		if _, err := exec.LookPath(triple + tool); err != nil {
			t.Skipf("requires %s%s (package gcc-%s)", triple, tool, triple)
		}
	}
	dir := t.TempDir()
	cc := func(out string, args ...string) string {
		t.Helper()
		path := filepath.Join(dir, out)
		args = append([]string{"-O2", "-fomit-frame-pointer", "-o", path}, args...)
		if out, err := exec.Command(triple+"-gcc", args...).CombinedOutput(); err != nil {
			t.Fatalf("%s-gcc %v: %v\n%s", triple, args, err, out)
		}
		return path
	}
	paths := []string{
		cc("frames", "testdata/frames.c"),
		cc("frames-pac", "-mbranch-protection=standard", "testdata/frames.c"),
		cc("libchain.so", "-fno-optimize-sibling-calls", "-shared", "-fPIC", "testdata/chainlib.c"),
	}
	out, err := exec.Command(triple+"-gcc", "-print-file-name=libc.so.6").Output()
	if libc := strings.TrimSpace(string(out)); err == nil && filepath.IsAbs(libc) {
		paths = append(paths, libc)
	}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			tab, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			if tab.Machine != elf.EM_AARCH64 {
				t.Fatalf("Open(%s).Machine = %v, want EM_AARCH64", path, tab.Machine)
			}
			n := readelfRows(t, triple+"-readelf", path)
			if n == 0 {
				t.Fatalf("readelf printed no rows of %s", path)
			}
			t.Logf("%d rows", n)
		})
	}
}
