package aggregate

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"strconv"
	"strings"

	"github.com/sdtkit/sdtkit/pkg/ndjson"
)

// NumBuckets is the number of buckets of a Histogram: the negative
// values, 0, 1, then [2**k, 2**(k+1)) for k from 1 to 63.
const NumBuckets = 66

// BucketInt returns the bucket of v as bpftrace's hist() computes it: 0
// for a negative value, 1 for 0, and 2 + floor(log2(v)) above, up to 64
// for the int64 values from 2**62.
func BucketInt(v int64) int {
	if v < 0 {
		return 0
	}
	return BucketUint(uint64(v))
}

// BucketUint returns the bucket of an unsigned value: that of BucketInt
// below 2**63, and the last, 65, from there on. bpftrace, which takes
// every value for an int64, counts those as negative.
func BucketUint(v uint64) int {
	if v == 0 {
		return 1
	}
	return bits.Len64(v) + 1
}

// BucketValue returns the bucket of a value that is a number: an integer
// as BucketInt or BucketUint counts it, a hex string such as "0x1f" as
// its unsigned value, another number (2.5, 1e400) by its integer part,
// the largest in the last bucket. It reports false for null and for
// strings and other values that are not numbers.
func BucketValue(v ndjson.Value) (int, bool) {
	switch v.Kind {
	case ndjson.Int:
		return BucketInt(v.Int), true
	case ndjson.Number:
		f, err := strconv.ParseFloat(v.Str, 64)
		switch {
		case err != nil && !errors.Is(err, strconv.ErrRange):
			return 0, false
		case f < 0:
			return 0, true
		case f >= math.MaxUint64:
			return NumBuckets - 1, true
		}
		return BucketUint(uint64(f)), true
	}
	u, ok := v.Uint64()
	return BucketUint(u), ok
}

// Bounds returns the values bucket i holds, from lo, inclusive, to hi,
// exclusive: [-2**63, 0) for bucket 0, [0, 1) for 1, [1, 2) for 2, then
// [2, 4), [4, 8) and on to [2**63, 2**64) for bucket 65. The bounds are
// JSON numbers, the form aggregate records carry them in, since no Go
// integer type holds them all.
func Bounds(i int) (lo, hi json.Number) {
	switch {
	case i == 0:
		return "-9223372036854775808", "0"
	case i == NumBuckets-1:
		return "9223372036854775808", "18446744073709551616"
	}
	return json.Number(strconv.FormatUint(lowest(i), 10)), json.Number(strconv.FormatUint(lowest(i+1), 10))
}

// lowest returns the least value of bucket i from 1.
func lowest(i int) uint64 {
	if i == 1 {
		return 0
	}
	return 1 << (i - 2)
}

// Label returns the name bpftrace gives bucket i: (..., 0), [0], [1],
// then [2, 4), [4, 8) and so on, with the suffixes K, M, G, T, P and E
// for powers of 1024: [512, 1K), [1K, 2K), up to [8E, 16E).
func Label(i int) string {
	switch i {
	case 0:
		return "(..., 0)"
	case 1:
		return "[0]"
	case 2:
		return "[1]"
	}
	return "[" + power(i-2) + ", " + power(i-1) + ")"
}

// power writes 2**p with the suffix K, M, G, T, P or E when p allows.
func power(p int) string {
	const suffixes = " KMGTPE"
	unit := min(p/10, len(suffixes)-1)
	s := strconv.FormatUint(1<<(p-10*unit), 10)
	if unit > 0 {
		s += suffixes[unit : unit+1]
	}
	return s
}

// A Bucket is a bucket of a histogram as an aggregate record carries
// it: {"lo":0,"hi":1,"count":1}.
type Bucket struct {
	Lo    json.Number `json:"lo"` // inclusive
	Hi    json.Number `json:"hi"` // exclusive
	Count uint64      `json:"count"`
}

// Index returns the number of the bucket b stands for; false when its
// bounds are not those of a bucket.
func (b Bucket) Index() (int, bool) {
	i := 0
	if b.Lo != "-9223372036854775808" {
		u, err := strconv.ParseUint(string(b.Lo), 10, 64)
		if err != nil {
			return 0, false
		}
		i = BucketUint(u)
	}
	if lo, hi := Bounds(i); lo != b.Lo || hi != b.Hi {
		return 0, false
	}
	return i, true
}

// A Histogram counts values in the log2 buckets of bpftrace's hist().
// The zero value is empty and ready to use.
type Histogram struct {
	counts [NumBuckets]uint64
}

// AddInt counts a signed value.
func (h *Histogram) AddInt(v int64) { h.counts[BucketInt(v)]++ }

// AddUint counts an unsigned value.
func (h *Histogram) AddUint(v uint64) { h.counts[BucketUint(v)]++ }

// AddValue counts a value as BucketValue places it; it reports false,
// and counts nothing, for a value that is not a number.
func (h *Histogram) AddValue(v ndjson.Value) bool {
	i, ok := BucketValue(v)
	if ok {
		h.counts[i]++
	}
	return ok
}

// AddCount adds n values to bucket i, from 0 to NumBuckets-1: for counts
// taken per bucket, such as those of a BPF map or of a record's Buckets.
func (h *Histogram) AddCount(i int, n uint64) { h.counts[i] += n }

// Count returns the number of values in bucket i.
func (h *Histogram) Count(i int) uint64 { return h.counts[i] }

// Total returns the number of values counted.
func (h *Histogram) Total() uint64 {
	var n uint64
	for _, c := range h.counts {
		n += c
	}
	return n
}

// Buckets returns the buckets that hold values, in order.
func (h *Histogram) Buckets() []Bucket {
	var bs []Bucket
	for i, n := range h.counts {
		if n > 0 {
			lo, hi := Bounds(i)
			bs = append(bs, Bucket{lo, hi, n})
		}
	}
	return bs
}

// Reset empties h.
func (h *Histogram) Reset() { *h = Histogram{} }

// barWidth is the width of the bar of the fullest bucket.
const barWidth = 52

// WriteTo draws the histogram as bpftrace prints one: a line per bucket,
// from the first to the last that holds values, with its label, its
// count and a bar 52 wide for the fullest. An empty histogram writes
// nothing.
func (h *Histogram) WriteTo(w io.Writer) (int64, error) {
	lo, hi := -1, -1
	var most uint64
	for i, n := range h.counts {
		if n == 0 {
			continue
		}
		if lo < 0 {
			lo = i
		}
		hi = i
		most = max(most, n)
	}
	if lo < 0 {
		return 0, nil
	}
	var b strings.Builder
	for i := lo; i <= hi; i++ {
		n := h.counts[i]
		bar := int(float64(n) / float64(most) * barWidth)
		fmt.Fprintf(&b, "%-16s%8d |%s%s|\n", Label(i), n, strings.Repeat("@", bar), strings.Repeat(" ", barWidth-bar))
	}
	n, err := io.WriteString(w, b.String())
	return int64(n), err
}
