package main

import (
	"bytes"
	"fmt"
	"io"
	"testing"
)

// benchEvents returns n events shaped like sdtattach's: a few probes,
// threads and argument kinds.
func benchEvents(n int) []byte {
	var b bytes.Buffer
	for i := range n {
		fmt.Fprintf(&b, `{"ts":%d,"pid":4242,"tid":%d,"comm":"postgres","cpu":%d,"provider":"postgresql","name":"%s","args":[%d,-%d,"0x%x","/var/lib/data/base/%d"]}`+"\n",
			1718000000000000000+int64(i)*1375, 4242+i%8, i%4, []string{"query__start", "query__done", "lock__wait"}[i%3], i, i%100, i*7, i%1000)
	}
	return b.Bytes()
}

// BenchmarkDefaultView formats events in the per-event view; the events/s
// metric is what the view keeps up with on one core.
func BenchmarkDefaultView(b *testing.B) {
	const n = 100_000
	in := benchEvents(n)
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		if err := run(nil, bytes.NewReader(in), io.Discard, io.Discard); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkCount counts the same events with -c --by tid.
func BenchmarkCount(b *testing.B) {
	const n = 100_000
	in := benchEvents(n)
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		if err := run([]string{"-c", "--by", "tid"}, bytes.NewReader(in), io.Discard, io.Discard); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}
