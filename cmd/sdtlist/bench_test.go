package main

import (
	"io"
	"os"
	"testing"

	"github.com/sdtkit/sdtkit/pkg/stapsdt"
)

// benchFile is the file named by $SDTLIST_BENCH_FILE (such as the
// 20,000-site binary scripts/bench generates), or the demo fixture.
func benchFile() string {
	if file := os.Getenv("SDTLIST_BENCH_FILE"); file != "" {
		return file
	}
	return demo
}

// BenchmarkList lists the benchmark file.
func BenchmarkList(b *testing.B) {
	file := benchFile()
	for b.Loop() {
		if err := run([]string{file}, io.Discard, io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNDJSON encodes the sites of the benchmark file on one
// goroutine, without reading the file again: the part of listing that
// grows with the output. sites/s is per core.
func BenchmarkNDJSON(b *testing.B) {
	name := benchFile()
	f, err := stapsdt.Open(name)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := writeProbes(name, f, nil, nil, newNDJSON(io.Discard)); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(f.Sites))*float64(b.N)/b.Elapsed().Seconds(), "sites/s")
}
