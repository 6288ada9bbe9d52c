package regfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

func TestOpen(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, []byte("data"), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name    string
		wantErr string // "" for success
		notReg  bool
	}{
		{file, "", false},
		{dir, "open " + dir + ": is a directory", true},
		{fifo, "open " + fifo + ": is a named pipe", true},
		{"/dev/null", "open /dev/null: is a character device", true},
		{filepath.Join(dir, "missing"), "open " + filepath.Join(dir, "missing") + ": no such file or directory", false},
	} {
		done := make(chan struct{})
		var (
			f   *os.File
			err error
		)
		go func() {
			defer close(done)
			f, err = Open(tt.name)
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("Open(%q) blocks", tt.name)
		}
		if f != nil {
			f.Close()
		}
		switch {
		case tt.wantErr == "" && err != nil:
			t.Errorf("Open(%q) = %v, want no error", tt.name, err)
		case tt.wantErr != "" && (err == nil || err.Error() != tt.wantErr):
			t.Errorf("Open(%q) = %v, want %s", tt.name, err, tt.wantErr)
		}
		if got := errors.Is(err, ErrNotRegular); got != tt.notReg {
			t.Errorf("errors.Is(Open(%q), ErrNotRegular) = %v, want %v", tt.name, got, tt.notReg)
		}
	}
}

func TestTypeName(t *testing.T) {
	for _, tt := range []struct {
		mode fs.FileMode
		want string
	}{
		{0o644, "regular file"},
		{fs.ModeDir, "directory"},
		{fs.ModeNamedPipe, "named pipe"},
		{fs.ModeSocket, "socket"},
		{fs.ModeDevice | fs.ModeCharDevice, "character device"},
		{fs.ModeDevice, "block device"},
		{fs.ModeSymlink, "symbolic link"},
		{fs.ModeIrregular, "file of unknown type"},
	} {
		if got := TypeName(tt.mode); got != tt.want {
			t.Errorf("TypeName(%v) = %q, want %q", tt.mode, got, tt.want)
		}
	}
}
