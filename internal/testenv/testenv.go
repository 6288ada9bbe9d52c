// Package testenv says whether the machine running the tests can make
// uprobes, for the tests that do, and what kernel it runs.
package testenv

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/sdtkit/sdtkit/internal/kernelversion"
)

// taintDie is the kernel's taint flag D, TAINT_DIE: a task has oopsed
// since boot (Documentation/admin-guide/tainted-kernels.rst).
const taintDie = 1 << 7

// KernelDied returns why this kernel cannot be trusted to return from
// the calls that make uprobes, or "" when nothing says so: a task that
// oopsed keeps the locks it held, and should it have died in the uprobe
// or trace-event code (taint flag D), every later call that needs them
// hangs, unkillable, until the machine is rebooted.
func KernelDied() string {
	b, err := os.ReadFile("/proc/sys/kernel/tainted")
	if err != nil {
		return ""
	}
	taint, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	if err != nil || taint&taintDie == 0 {
		return ""
	}
	return "the kernel has oopsed since boot (taint flag D, see dmesg): the locks its dead task held stay held, and making uprobes may hang until a reboot"
}

// RequireUprobes skips t unless it runs as root on a kernel that has not
// oopsed since boot (KernelDied).
func RequireUprobes(t testing.TB) {
	t.Helper()
	if euid := os.Geteuid(); euid != 0 {
		t.Skipf("requires root (euid %d)", euid)
	}
	if why := KernelDied(); why != "" {
		t.Skip("requires a kernel that has not oopsed: " + why)
	}
}

// KernelBefore reports whether the running kernel is older than
// major.minor; false when it cannot be told.
func KernelBefore(major, minor int) bool {
	before, _ := kernelversion.Before(major, minor)
	return before
}
