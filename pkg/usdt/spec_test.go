package usdt

import (
	"errors"
	"testing"

	"github.com/cilium/ebpf"
)

// TestAllocIDs checks that the attachments of one map get ranges of spec
// ids that do not overlap, that a freed range is used again, and that a
// range that does not fit is refused. The steps run in turn on one map
// of 10 specs.
func TestAllocIDs(t *testing.T) {
	const m ebpf.MapID = 1 << 30 // no map of the tests
	for _, tt := range []struct {
		n    int // ids to allocate; with free, to free from want
		free bool
		want int // the first id, or -1 for ErrTooManySites
	}{
		{n: 3, want: 0},
		{n: 4, want: 3},
		{n: 3, free: true, want: 0},
		{n: 2, want: 0},
		{n: 2, want: 7},
		{n: 2, want: -1}, // ids 2 and 9 are free, apart
		{n: 1, want: 2},
	} {
		if tt.free {
			freeIDs(m, tt.want, tt.n)
			continue
		}
		first, err := allocIDs(m, tt.n, 10)
		switch {
		case tt.want < 0 && !errors.Is(err, ErrTooManySites):
			t.Fatalf("allocIDs(%d) = %d, %v, want ErrTooManySites", tt.n, first, err)
		case tt.want >= 0 && (err != nil || first != tt.want):
			t.Fatalf("allocIDs(%d) = %d, %v, want %d", tt.n, first, err, tt.want)
		}
	}
}
