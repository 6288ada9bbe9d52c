package argspec

import "testing"

func TestExtend(t *testing.T) {
	for _, tt := range []struct {
		v      uint64
		size   int
		signed bool
		want   uint64
	}{
		{0x1ff, 1, false, 0xff},
		{0x1ff, 1, true, ^uint64(0)},
		{0x17f, 1, true, 0x7f},
		{0xffff8000, 2, true, ^uint64(0x7fff)},
		{0x1_ffff_ffff, 4, false, 0xffff_ffff},
		{0x1_8000_0000, 4, true, 0xffff_ffff_8000_0000},
		{^uint64(0), 8, false, ^uint64(0)},
		{^uint64(0), 0, true, ^uint64(0)},
	} {
		if got := Extend(tt.v, tt.size, tt.signed); got != tt.want {
			t.Errorf("Extend(%#x, %d, %v) = %#x, want %#x", tt.v, tt.size, tt.signed, got, tt.want)
		}
	}
}
