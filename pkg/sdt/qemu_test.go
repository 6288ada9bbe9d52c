//go:build linux && amd64

package sdt

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestArm64 runs this package's tests built for arm64 under qemu-aarch64:
// the trampoline, the object's notes and mapping, Enabled, Fire and
// Close on the other supported machine.
func TestArm64(t *testing.T) {
	qemu, err := exec.LookPath("qemu-aarch64")
	if err != nil {
		t.Skip("requires qemu-aarch64 (package qemu-user)")
	}
	if testing.Short() {
		t.Skip("builds and emulates the arm64 tests")
	}
	bin := filepath.Join(t.TempDir(), "usdt.test")
	build := exec.Command("go", "test", "-c", "-o", bin, ".")
	build.Env = append(os.Environ(), "GOARCH=arm64", "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go test -c for arm64: %v\n%s", err, out)
	}
	out, err := exec.Command(qemu, bin, "-test.v", "-test.count=1").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestCallRegisters") {
		t.Fatalf("arm64 tests under %s: %v\n%s", qemu, err, out)
	}
}
