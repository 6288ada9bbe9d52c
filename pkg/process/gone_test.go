package process

import (
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

func TestReadAfterExit(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var st unix.Stat_t
	if err := unix.Stat(exe, &st); err != nil {
		t.Fatal(err)
	}
	const noSuchPid = 1 << 30 // above the kernel's pid_max
	for _, tt := range []struct {
		name     string
		pid      int
		path     string
		dev, ino uint64
		want     bool
	}{
		{"process alive", os.Getpid(), exe, st.Dev, st.Ino, false},
		{"process gone, same file", noSuchPid, exe, st.Dev, st.Ino, true},
		{"process gone, another inode", noSuchPid, exe, st.Dev, st.Ino + 1, false},
		{"process gone, another device", noSuchPid, exe, st.Dev + 1, st.Ino, false},
		{"process gone, relative path", noSuchPid, "bin/x", st.Dev, st.Ino, false},
		{"process gone, no such file", noSuchPid, "/nonexistent/x", st.Dev, st.Ino, false},
	} {
		if got := ReadAfterExit(tt.pid, tt.path, tt.dev, tt.ino); got != tt.want {
			t.Errorf("%s: ReadAfterExit(%d, %q) = %v, want %v", tt.name, tt.pid, tt.path, got, tt.want)
		}
	}
}
