package unwind

import (
	"bufio"
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// dwarfRegs numbers the registers as readelf names them.
var dwarfRegs = func() map[string]uint64 {
	m := map[string]uint64{}
	for i, n := range []string{"rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp"} {
		m[n] = uint64(i)
	}
	for i := 8; i < 16; i++ {
		m["r"+strconv.Itoa(i)] = uint64(i)
	}
	for i := 0; i <= 30; i++ {
		m["x"+strconv.Itoa(i)] = uint64(i)
	}
	m["sp"] = 31
	return m
}()

// readelfRows compares the rules of every row of every FDE of .eh_frame
// that readelf --debug-dump=frames-interp prints for path with those of
// Table.Row at the row's address, and returns the number of rows.
func readelfRows(t *testing.T, path string) int {
	t.Helper()
	if _, err := exec.LookPath("readelf"); err != nil {
		t.Skip("requires readelf (binutils)")
	}
	// readelf exits 1 after printing libc's tables, with no message.
	out, err := exec.Command("readelf", "--debug-dump=frames-interp", path).Output()
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
			if msg := compareRow(row, f[1], cols, f[2:]); msg != "" {
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
func compareRow(row *Row, cfa string, cols, vals []string) string {
	if got := cfaString(row.CFA); got != cfa {
		return fmt.Sprintf("CFA %s, want %s", got, cfa)
	}
	for i, c := range cols {
		reg := row.RA
		if c != "ra" {
			n, ok := dwarfRegs[c]
			if !ok {
				return "register " + c + " unknown"
			}
			reg = n
		}
		if reg > MaxReg {
			continue
		}
		if got := ruleString(row.Regs[reg]); got != vals[i] {
			return fmt.Sprintf("%s: %s, want %s", c, got, vals[i])
		}
	}
	return ""
}

func regName(n uint64) string {
	for k, v := range dwarfRegs {
		if v == n && (n > 15 || !strings.HasPrefix(k, "x")) {
			return k
		}
	}
	return "r" + strconv.FormatUint(n, 10)
}

func cfaString(r Rule) string {
	if r.Kind == CFAExpression {
		return "exp"
	}
	return fmt.Sprintf("%s%+d", regName(r.Reg), r.Off)
}

func ruleString(r Rule) string {
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
		return regName(r.Reg)
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
	fx := buildChain(t, false)
	for _, path := range []string{fx.exe, fx.lib, libc(t)} {
		t.Run(filepath.Base(path), func(t *testing.T) {
			n := readelfRows(t, path)
			if n == 0 {
				t.Fatalf("readelf printed no rows of %s", path)
			}
			t.Logf("%d rows", n)
		})
	}
}
