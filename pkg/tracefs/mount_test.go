package tracefs

import (
	"errors"
	"fmt"
	"io/fs"
	"testing"

	"golang.org/x/sys/unix"
)

func TestUnavailable(t *testing.T) {
	stat := func(err error) error {
		return &fs.PathError{Op: "stat", Path: "/t/uprobe_events", Err: err}
	}
	for _, tt := range []struct {
		err        error
		privileged bool
		want       string
		perm, none bool // matches ErrPermission, ErrNoTracefs
	}{
		{stat(unix.EACCES), false,
			"stat /t/uprobe_events: permission denied (needs root, or CAP_PERFMON and write access to tracefs)", true, false},
		{fmt.Errorf("mount tracefs on /t: %w", unix.EPERM), false,
			"mount tracefs on /t: operation not permitted (needs root, or CAP_PERFMON and write access to tracefs)", true, false},
		{stat(unix.EPERM), true,
			"stat /t/uprobe_events: operation not permitted (refused though privileged: a security module or the kernel's lockdown forbids it)", true, false},
		{stat(unix.ENOENT), false,
			"tracefs with uprobe_events not available: stat /t/uprobe_events: no such file or directory (a kernel without CONFIG_UPROBE_EVENTS?)", false, true},
		{fmt.Errorf("mount tracefs on /t: %w", unix.ENODEV), true,
			"tracefs with uprobe_events not available: mount tracefs on /t: no such device", false, true},
	} {
		err := unavailable(tt.err, tt.privileged)
		if err == nil || err.Error() != tt.want {
			t.Errorf("unavailable(%v, %v) = %v, want %q", tt.err, tt.privileged, err, tt.want)
		}
		if errors.Is(err, ErrPermission) != tt.perm {
			t.Errorf("unavailable(%v, %v) matches ErrPermission: %v, want %v", tt.err, tt.privileged, !tt.perm, tt.perm)
		}
		if errors.Is(err, ErrNoTracefs) != tt.none {
			t.Errorf("unavailable(%v, %v) matches ErrNoTracefs: %v, want %v", tt.err, tt.privileged, !tt.none, tt.none)
		}
		if !errors.Is(err, tt.err) {
			t.Errorf("unavailable(%v, %v) does not wrap its cause", tt.err, tt.privileged)
		}
	}
}

func TestPermission(t *testing.T) {
	perm := fmt.Errorf("enable sdtkit_1/e: perf_event_open: %w", unix.EACCES)
	for _, tt := range []struct {
		err        error
		privileged bool
		want       string
	}{
		{nil, false, "<nil>"},
		{perm, false, "enable sdtkit_1/e: perf_event_open: permission denied (needs root, or CAP_PERFMON and write access to tracefs)"},
		{perm, true, "enable sdtkit_1/e: perf_event_open: permission denied (refused though privileged: a security module or the kernel's lockdown forbids it)"},
		{fmt.Errorf("process 7: %w", unix.ESRCH), false, "process 7: no such process"},
		// Said once.
		{permission(perm, false), false, "enable sdtkit_1/e: perf_event_open: permission denied (needs root, or CAP_PERFMON and write access to tracefs)"},
	} {
		if got := fmt.Sprint(permission(tt.err, tt.privileged)); got != tt.want {
			t.Errorf("permission(%v, %v) = %s, want %s", tt.err, tt.privileged, got, tt.want)
		}
	}
}
