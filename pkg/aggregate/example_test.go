package aggregate_test

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/sdtkit/sdtkit/pkg/aggregate"
	"github.com/sdtkit/sdtkit/pkg/ndjson"
)

func ExampleBucketInt() {
	for _, v := range []int64{-7, 0, 1, 3, 1000, 1 << 40} {
		i := aggregate.BucketInt(v)
		lo, hi := aggregate.Bounds(i)
		fmt.Printf("%d: bucket %d [%s, %s) %s\n", v, i, lo, hi, aggregate.Label(i))
	}
	// Output:
	// -7: bucket 0 [-9223372036854775808, 0) (..., 0)
	// 0: bucket 1 [0, 1) [0]
	// 1: bucket 2 [1, 2) [1]
	// 3: bucket 3 [2, 4) [2, 4)
	// 1000: bucket 11 [512, 1024) [512, 1K)
	// 1099511627776: bucket 42 [1099511627776, 2199023255552) [1T, 2T)
}

func ExampleHistogram() {
	var h aggregate.Histogram
	for _, v := range []int64{-1, 0, 1, 2, 3, 3, 9} {
		h.AddInt(v)
	}
	h.WriteTo(os.Stdout)
	// Output:
	// (..., 0)               1 |@@@@@@@@@@@@@@@@@                                   |
	// [0]                    1 |@@@@@@@@@@@@@@@@@                                   |
	// [1]                    1 |@@@@@@@@@@@@@@@@@                                   |
	// [2, 4)                 3 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|
	// [4, 8)                 0 |                                                    |
	// [8, 16)                1 |@@@@@@@@@@@@@@@@@                                   |
}

// A histogram kept per bucket elsewhere, such as in the array map of a
// BPF program, is added bucket by bucket; Buckets gives the buckets of an
// aggregate record.
func ExampleHistogram_AddCount() {
	perBucket := map[int]uint64{1: 1, 3: 2, 12: 5} // bucket: count
	var h aggregate.Histogram
	for i, n := range perBucket {
		h.AddCount(i, n)
	}
	b, _ := json.Marshal(h.Buckets())
	fmt.Printf("%d values: %s\n", h.Total(), b)
	// Output:
	// 8 values: [{"lo":0,"hi":1,"count":1},{"lo":2,"hi":4,"count":2},{"lo":1024,"hi":2048,"count":5}]
}

func ExampleWriteCounts() {
	by, _ := aggregate.ParseKey("pid")
	counts := make(map[aggregate.Group]uint64)
	for _, e := range []ndjson.Event{
		{PID: 42, Provider: "app", Name: "request__start"},
		{PID: 42, Provider: "app", Name: "request__start"},
		{PID: 7, Provider: "app", Name: "request__start"},
		{PID: 42, Provider: "app", Name: "request__done"},
	} {
		counts[aggregate.GroupOf(&e, by)]++
	}
	aggregate.WriteCounts(os.Stdout, counts, by)
	// Output:
	// PROBE               PID  COUNT
	// app:request__start  42       2
	// app:request__done   42       1
	// app:request__start  7        1
}

func ExampleLatency() {
	l := aggregate.NewLatency(aggregate.Key{}, 10) // pairs by thread
	for _, e := range []ndjson.Event{
		{TS: 1000, PID: 42, TID: 42, Comm: "server", Name: "start"},
		{TS: 1200, PID: 42, TID: 43, Comm: "worker", Name: "start"},
		{TS: 5000, PID: 42, TID: 42, Comm: "server", Name: "done"},
		{TS: 9000, PID: 42, TID: 44, Comm: "worker", Name: "done"},
		{TS: 9500, PID: 42, TID: 43, Comm: "worker", Name: "done"},
	} {
		l.Event(&e, e.Name == "start", e.Name == "done")
	}
	l.WriteText(os.Stdout, "start", "done", nil)
	// Output:
	// start -> done by tid: pairs 2, latency in ns
	// [2K, 4K)               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|
	// [4K, 8K)               0 |                                                    |
	// [8K, 16K)              1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|
	//
	// min 4µs  avg 6.15µs  max 8.3µs
	// 1 END without START, 0 START without END yet
	//
	// LATENCY  PID  TID  COMM
	//   8.3µs  42   43   worker
	//     4µs  42   42   server
}
