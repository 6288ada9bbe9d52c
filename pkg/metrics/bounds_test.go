package metrics

import (
	"math"
	"testing"

	"github.com/sdtkit/sdtkit/pkg/aggregate"
)

// The bound of a value's bucket holds it, and that of the bucket below
// does not: le is inclusive, as Prometheus reads it.
func TestUpper(t *testing.T) {
	for _, v := range []int64{math.MinInt64, -5, -1, 0, 1, 2, 3, 4, 7, 8, 1000, 1 << 40, 1<<40 - 1, 1<<52 + 1} {
		i := aggregate.BucketInt(v)
		if up := upper(i); float64(v) > up {
			t.Errorf("upper(BucketInt(%d)) = %g, want at least %d", v, up, v)
		}
		if i > 0 {
			if below := upper(i - 1); float64(v) <= below {
				t.Errorf("upper(BucketInt(%d)-1) = %g, want less than %d", v, below, v)
			}
		}
	}
	for i := 1; i < aggregate.NumBuckets-1; i++ {
		if upper(i) <= upper(i-1) {
			t.Errorf("upper(%d) = %g, not above upper(%d) = %g", i, upper(i), i-1, upper(i-1))
		}
	}
}
