package aggregate

import (
	"encoding/json"
	"math"
	"math/big"
	"testing"
)

// The buckets of bpftrace's hist(): its log2 helper returns 0 below 0, 1
// for 0 and 2 + floor(log2(v)) above (bpftrace 0.17 prints the same for
// these values below 2**32).
func TestBucketInt(t *testing.T) {
	for _, tt := range []struct {
		v    int64
		want int
	}{
		{math.MinInt64, 0}, {-5, 0}, {-1, 0},
		{0, 1}, {1, 2}, {2, 3}, {3, 3}, {4, 4}, {7, 4}, {8, 5},
		{1023, 11}, {1024, 12}, {1<<32 - 1, 33}, {1 << 32, 34},
		{1 << 62, 64}, {math.MaxInt64, 64},
	} {
		if got := BucketInt(tt.v); got != tt.want {
			t.Errorf("BucketInt(%d) = %d, want %d", tt.v, got, tt.want)
		}
	}
}

func TestBucketUint(t *testing.T) {
	for _, tt := range []struct {
		v    uint64
		want int
	}{
		{0, 1}, {1, 2}, {3, 3}, {math.MaxInt64, 64}, {1 << 63, 65}, {math.MaxUint64, 65},
	} {
		if got := BucketUint(tt.v); got != tt.want {
			t.Errorf("BucketUint(%d) = %d, want %d", tt.v, got, tt.want)
		}
	}
}

// Bounds tiles the range of int64 and uint64 with no gap, and every
// bucket holds its bounds' values: lo, and hi-1.
func TestBounds(t *testing.T) {
	num := func(n json.Number) *big.Int {
		b, ok := new(big.Int).SetString(string(n), 10)
		if !ok {
			t.Fatalf("bound %q is not an integer", n)
		}
		return b
	}
	one := big.NewInt(1)
	lo0, _ := Bounds(0)
	if num(lo0).Cmp(big.NewInt(math.MinInt64)) != 0 {
		t.Errorf("Bounds(0) lo = %s, want %d", lo0, int64(math.MinInt64))
	}
	_, hiLast := Bounds(NumBuckets - 1)
	if want := new(big.Int).Lsh(one, 64); num(hiLast).Cmp(want) != 0 {
		t.Errorf("Bounds(%d) hi = %s, want %s", NumBuckets-1, hiLast, want)
	}
	for i := range NumBuckets {
		lo, hi := Bounds(i)
		if num(lo).Cmp(num(hi)) >= 0 {
			t.Errorf("Bounds(%d) = %s, %s: empty", i, lo, hi)
		}
		if i+1 < NumBuckets {
			if next, _ := Bounds(i + 1); next != hi {
				t.Errorf("Bounds(%d) hi = %s, Bounds(%d) lo = %s, want them equal", i, hi, i+1, next)
			}
		}
		for _, v := range []*big.Int{num(lo), new(big.Int).Sub(num(hi), one)} {
			var got int
			if v.IsInt64() {
				got = BucketInt(v.Int64())
			} else {
				got = BucketUint(v.Uint64())
			}
			if got != i {
				t.Errorf("value %s of Bounds(%d) = [%s, %s) is in bucket %d", v, i, lo, hi, got)
			}
		}
		if got, ok := (Bucket{Lo: lo, Hi: hi}).Index(); !ok || got != i {
			t.Errorf("Bucket{%s, %s}.Index() = %d, %v, want %d", lo, hi, got, ok, i)
		}
	}
}

func TestBucketIndexBad(t *testing.T) {
	for _, b := range []Bucket{
		{Lo: "1", Hi: "3"}, {Lo: "3", Hi: "4"}, {Lo: "x", Hi: "1"}, {Lo: "-1", Hi: "0"}, {},
	} {
		if i, ok := b.Index(); ok {
			t.Errorf("Bucket{%q, %q}.Index() = %d, true, want false", b.Lo, b.Hi, i)
		}
	}
}

func TestLabel(t *testing.T) {
	for _, tt := range []struct {
		i    int
		want string
	}{
		{0, "(..., 0)"}, {1, "[0]"}, {2, "[1]"}, {3, "[2, 4)"}, {11, "[512, 1K)"},
		{12, "[1K, 2K)"}, {33, "[2G, 4G)"}, {64, "[4E, 8E)"}, {65, "[8E, 16E)"},
	} {
		if got := Label(tt.i); got != tt.want {
			t.Errorf("Label(%d) = %q, want %q", tt.i, got, tt.want)
		}
	}
}

func TestHistogramCounts(t *testing.T) {
	var h Histogram
	h.AddInt(-3)
	h.AddUint(5)
	h.AddCount(4, 2)
	if h.Total() != 4 || h.Count(0) != 1 || h.Count(4) != 3 {
		t.Errorf("Total, Count(0), Count(4) = %d, %d, %d, want 4, 1, 3", h.Total(), h.Count(0), h.Count(4))
	}
	got, _ := json.Marshal(h.Buckets())
	if want := `[{"lo":-9223372036854775808,"hi":0,"count":1},{"lo":4,"hi":8,"count":3}]`; string(got) != want {
		t.Errorf("Buckets = %s, want %s", got, want)
	}
	h.Reset()
	if h.Total() != 0 || h.Buckets() != nil {
		t.Errorf("after Reset: Total = %d, Buckets = %v", h.Total(), h.Buckets())
	}
}
