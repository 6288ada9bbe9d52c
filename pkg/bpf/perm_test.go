package bpf

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// TestPermission runs Load as user nobody, in a copy of the test binary,
// and checks that the error names the privilege needed.
func TestPermission(t *testing.T) {
	if os.Getenv("BPF_TEST_UNPRIVILEGED") == "1" {
		_, err := Load(nil)
		if !errors.Is(err, ErrPermission) {
			fmt.Printf("Load() = %v, want an error matching ErrPermission\n", err)
			os.Exit(1)
		}
		fmt.Printf("%v\n", err)
		os.Exit(0)
	}
	requireRoot(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// t.TempDir's parent is closed to other users.
	dir, err := os.MkdirTemp("", "bpftest")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cp := filepath.Join(dir, "bpf.test")
	if err := copyFile(cp, exe); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(cp, "-test.run=^TestPermission$")
	cmd.Env = append(os.Environ(), "BPF_TEST_UNPRIVILEGED=1")
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("Load as nobody: %v\n%s", err, out)
	}
	t.Logf("Load as nobody: %s", out)
}

func copyFile(dst, src string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
