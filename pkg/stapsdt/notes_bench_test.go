package stapsdt_test

import (
	"bytes"
	"os"
	"testing"

	"github.com/sdtkit/sdtkit/pkg/stapsdt"
)

// BenchmarkNewFile decodes the stapsdt notes of the file named by
// $STAPSDT_BENCH_FILE (such as the 20,000-site program scripts/bench
// generates), or of testdata/demo, held in memory so that only the parsing
// is measured. The notes/s metric is probe sites decoded per second.
func BenchmarkNewFile(b *testing.B) {
	name := os.Getenv("STAPSDT_BENCH_FILE")
	if name == "" {
		name = "testdata/demo"
	}
	data, err := os.ReadFile(name)
	if err != nil {
		b.Fatal(err)
	}
	r := bytes.NewReader(data)
	f, err := stapsdt.NewFile(r)
	if err != nil {
		b.Fatal(err)
	}
	n := len(f.Sites)
	if n == 0 {
		b.Fatalf("%s: no probe sites", name)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := stapsdt.NewFile(r); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "notes/s")
}
