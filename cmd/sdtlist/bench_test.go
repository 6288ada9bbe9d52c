package main

import (
	"io"
	"os"
	"testing"
)

// BenchmarkList lists the file named by $SDTLIST_BENCH_FILE (such as the
// 20,000-site binary scripts/bench generates), or the demo fixture.
func BenchmarkList(b *testing.B) {
	file := os.Getenv("SDTLIST_BENCH_FILE")
	if file == "" {
		file = demo
	}
	for b.Loop() {
		if err := run([]string{file}, io.Discard, io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}
