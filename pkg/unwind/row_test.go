package unwind

import (
	"debug/elf"
	"reflect"
	"testing"
)

// TestRowKept checks that a row kept is the row made, and that a caller
// changing the Row it was given leaves the kept one alone.
func TestRowKept(t *testing.T) {
	tab, pcs := libcTable(t, maxRows-1)
	for _, pc := range pcs {
		want, err := tab.newRow(pc)
		if err != nil {
			t.Fatalf("newRow(%#x): %v", pc, err)
		}
		for range 2 { // made, then kept
			got, err := tab.Row(pc)
			if err != nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("Row(%#x) = %+v, %v, want %+v", pc, got, err, want)
			}
			got.CFA.Off++ // a copy: the kept row stays
		}
	}
	if n := len(tab.rows); n != len(pcs) {
		t.Errorf("%d rows kept of %d addresses", n, len(pcs))
	}
}

// BenchmarkRow gives the rules at addresses in 64 functions of the C
// library, over and over, as the frames of the stacks of a probe are:
// made each time (new) and kept (kept).
func BenchmarkRow(b *testing.B) {
	tab, pcs := libcTable(b, 64)
	for _, bb := range []struct {
		name string
		row  func(uint64) (*Row, error)
	}{{"new", tab.newRow}, {"kept", tab.row}} {
		b.Run(bb.name, func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				if _, err := bb.row(pcs[i%len(pcs)]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// libcTable returns the Table of the C library and an address 4 bytes
// into each of up to n of its functions that an FDE covers, each once.
func libcTable(tb testing.TB, n int) (*Table, []uint64) {
	tb.Helper()
	path := ""
	for _, p := range []string{"/lib/x86_64-linux-gnu/libc.so.6", "/lib/aarch64-linux-gnu/libc.so.6", "/usr/lib64/libc.so.6", "/lib64/libc.so.6"} {
		if f, err := elf.Open(p); err == nil {
			f.Close()
			path = p
			break
		}
	}
	if path == "" {
		tb.Skip("requires the C library at a known path")
	}
	f, err := elf.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	tab, err := NewTable(f)
	if err != nil {
		tb.Fatal(err)
	}
	syms, err := f.DynamicSymbols()
	if err != nil {
		tb.Fatal(err)
	}
	var pcs []uint64
	seen := map[uint64]bool{}
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) != elf.STT_FUNC || s.Size < 16 || len(pcs) == n || seen[s.Value] {
			continue
		}
		seen[s.Value] = true
		if _, err := tab.newRow(s.Value + 4); err == nil {
			pcs = append(pcs, s.Value+4)
		}
	}
	if len(pcs) == 0 {
		tb.Fatalf("%s: no function an FDE covers", path)
	}
	return tab, pcs
}
