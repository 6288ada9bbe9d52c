package attach

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func TestReadTypes(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "app.d")
	if err := os.WriteFile(good, []byte("provider app { probe req(char *path, int n); };\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ty, err := ReadTypes(context.Background(), good)
	if err != nil {
		t.Fatal(err)
	}
	types, names, ok := ty.lookup("app", "req")
	if ty.Source != good || !ok || len(types) != 2 || names[1] != "n" || !types[1].Signed {
		t.Errorf("ReadTypes = %+v; app:req = %v, %v, %v", ty, types, names, ok)
	}
	bad := filepath.Join(dir, "bad.d")
	os.WriteFile(bad, []byte("provider {"), 0o644)
	if _, err := ReadTypes(context.Background(), bad); err == nil {
		t.Error("ReadTypes of a malformed file succeeded")
	}
	// A named pipe whose writer never comes.
	fifo := filepath.Join(dir, "fifo.d")
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("requires a named pipe (%v)", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := ReadTypes(ctx, fifo); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("ReadTypes of a pipe never written = %v, want %v", err, context.DeadlineExceeded)
	}
	// Let the reading left behind end.
	if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
		f.Close()
	}
}
