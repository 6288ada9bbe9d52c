package process

import (
	"slices"
	"testing"
)

func TestInsert(t *testing.T) {
	lib := func(start, end, off uint64) Mapping {
		return Mapping{Start: start, End: end, Offset: off, Perms: "r-xp", Path: "/lib/a.so"}
	}
	newer := Mapping{Start: 0x3000, End: 0x5000, Offset: 0x1000, Perms: "r-xp", Path: "/lib/b.so"}
	for _, tt := range []struct {
		name string
		maps []Mapping
		want []Mapping
	}{
		{"empty", nil, []Mapping{newer}},
		{"apart", []Mapping{lib(0x1000, 0x2000, 0), lib(0x8000, 0x9000, 0)}, []Mapping{lib(0x1000, 0x2000, 0), newer, lib(0x8000, 0x9000, 0)}},
		{"adjacent", []Mapping{lib(0x2000, 0x3000, 0), lib(0x5000, 0x6000, 0)}, []Mapping{lib(0x2000, 0x3000, 0), newer, lib(0x5000, 0x6000, 0)}},
		{"same", []Mapping{lib(0x3000, 0x5000, 0)}, []Mapping{newer}},
		{"inside", []Mapping{lib(0x1000, 0x8000, 0x10000)}, []Mapping{lib(0x1000, 0x3000, 0x10000), newer, lib(0x5000, 0x8000, 0x14000)}},
		{"over two", []Mapping{lib(0x2000, 0x4000, 0), lib(0x4000, 0x6000, 0x2000)}, []Mapping{lib(0x2000, 0x3000, 0), newer, lib(0x5000, 0x6000, 0x3000)}},
		{"covered", []Mapping{lib(0x3000, 0x4000, 0), lib(0x4000, 0x5000, 0x1000)}, []Mapping{newer}},
	} {
		if got := Insert(tt.maps, newer); !slices.Equal(got, tt.want) {
			t.Errorf("%s: Insert(%v) = %v, want %v", tt.name, tt.maps, got, tt.want)
		}
	}
}
