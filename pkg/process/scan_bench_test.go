package process

import (
	"os"
	"syscall"
	"testing"
)

// BenchmarkMappers scans every process for the mappers of this test's
// executable, which one process maps.
func BenchmarkMappers(b *testing.B) {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	var st syscall.Stat_t
	if err := syscall.Stat(exe, &st); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if pids, _ := Mappers(FileID{uint64(st.Dev), st.Ino}); len(pids) != 1 {
			b.Fatalf("Mappers(test binary) = %v, want this process", pids)
		}
	}
}
