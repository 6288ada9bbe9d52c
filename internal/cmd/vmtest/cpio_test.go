package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestArchive checks the archive against cpio(1), which reads newc.
func TestArchive(t *testing.T) {
	cpio, err := exec.LookPath("cpio")
	if err != nil {
		t.Skip("requires cpio")
	}
	src := filepath.Join(t.TempDir(), "src")
	if err := os.WriteFile(src, []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	a := archive{}
	a.file("/vmtest/bin/hello", src, 0o755)
	a.bytes("vmtest/plan.json", []byte("{}"), 0o644)
	a.symlink("lib", "usr/lib")
	var buf bytes.Buffer
	if err := a.write(&buf); err != nil {
		t.Fatal(err)
	}
	if buf.Len()%4 != 0 {
		t.Errorf("archive of %d bytes, not a multiple of 4", buf.Len())
	}
	cmd := exec.Command(cpio, "-it", "-v")
	cmd.Stdin = &buf
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("cpio -it: %v\n%s", err, out)
	}
	for _, want := range []string{"vmtest/bin/hello", "vmtest/plan.json", "lib -> usr/lib", "-rwxr-xr-x"} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("cpio -itv lacks %q:\n%s", want, out)
		}
	}
}
