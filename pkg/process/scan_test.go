package process

import (
	"errors"
	"os"
	"slices"
	"syscall"
	"testing"
)

func TestMappers(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var st syscall.Stat_t
	if err := syscall.Stat(exe, &st); err != nil {
		t.Fatal(err)
	}
	pids, err := Mappers(FileID{uint64(st.Dev), st.Ino})
	var se *ScanError
	if err != nil && !errors.As(err, &se) {
		t.Fatalf("Mappers(test binary) error = %v", err)
	}
	if !slices.Contains(pids, os.Getpid()) {
		t.Errorf("Mappers(test binary) = %v, want it to hold this process %d", pids, os.Getpid())
	}
	if pids, err := Mappers(FileID{^uint64(0), ^uint64(0)}); len(pids) != 0 {
		t.Errorf("Mappers(no such file) = %v, %v, want none", pids, err)
	}
}
