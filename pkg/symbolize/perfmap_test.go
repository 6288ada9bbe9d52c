package symbolize_test

import (
	"strings"
	"testing"

	"github.com/sdtkit/sdtkit/pkg/symbolize"
)

func TestReadPerfMap(t *testing.T) {
	const text = `7f0000001000 40 Interpreter
7f0000001040 20 LazyCompile:*add /srv/app.js:10
0x7f0000002000 0x100 py::compute:/srv/app.py
7f0000001040 10 LazyCompile:*add2 /srv/app.js:10
not a line
7f0000003000 zz bad size
7f0000004000 8
`
	m, err := symbolize.ReadPerfMap(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	if m.Len() != 4 {
		t.Errorf("Len() = %d, want 4 (bad lines skipped)", m.Len())
	}
	for _, tt := range []struct {
		addr uint64
		sym  string
		off  uint64
	}{
		{0x7f0000001000, "Interpreter", 0},
		{0x7f000000103f, "Interpreter", 0x3f},
		// Compiled again at the same address: the later line wins
		// where it reaches, the earlier one past it.
		{0x7f0000001044, "LazyCompile:*add2 /srv/app.js:10", 4},
		{0x7f0000001054, "LazyCompile:*add /srv/app.js:10", 0x14},
		{0x7f00000020ff, "py::compute:/srv/app.py", 0xff},
		{0x7f0000002100, "", 0},
		{0x7f0000000fff, "", 0},
		{0x7f0000004000, "", 0},
	} {
		s, off, ok := m.Lookup(tt.addr)
		if s.Name != tt.sym || off != tt.off || ok != (tt.sym != "") {
			t.Errorf("Lookup(%#x) = %q+%d, %v, want %q+%d", tt.addr, s.Name, off, ok, tt.sym, tt.off)
		}
		if ok && s.Table != symbolize.PerfMapFile {
			t.Errorf("Lookup(%#x).Table = %v, want %v", tt.addr, s.Table, symbolize.PerfMapFile)
		}
	}
}
