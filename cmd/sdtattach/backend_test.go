package main

import (
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/sdtkit/sdtkit/pkg/bpf"
)

func TestWithoutBPF(t *testing.T) {
	writable := func() error { return nil }
	readOnly := func() error { return syscall.EACCES }
	for _, tt := range []struct {
		name     string
		err      error
		tracefs  func() error
		wantWhy  bool
		wantText string
	}{
		{"no cookies", fmt.Errorf("kernel without BPF cookies (Linux 5.15): %w", bpf.ErrNotSupported), readOnly, true, "cannot run"},
		{"no bpf(2)", fmt.Errorf("load: %w", syscall.ENOSYS), writable, true, "cannot run"},
		{"seccomp", fmt.Errorf("load: %w (%w)", syscall.EPERM, bpf.ErrPermission), writable, true, "not permitted"},
		{"unprivileged", fmt.Errorf("load: %w (%w)", syscall.EPERM, bpf.ErrPermission), readOnly, false, ""},
		{"other EPERM", fmt.Errorf("open /proc/1/root/x: %w", os.ErrPermission), writable, false, ""},
		{"no such probe", errors.New("no probe matches"), writable, false, ""},
	} {
		got := withoutBPF(tt.err, tt.tracefs)
		if (got != "") != tt.wantWhy || !strings.Contains(got, tt.wantText) {
			t.Errorf("%s: withoutBPF(%v) = %q, want %q", tt.name, tt.err, got, tt.wantText)
		}
	}
}

func TestFallBackNotAuto(t *testing.T) {
	err := fmt.Errorf("kernel without BPF ring buffers (Linux 5.8): %w", bpf.ErrNotSupported)
	logger := log.New(io.Discard, "", 0)
	c := config{backend: "bpf"}
	if tfs, got := c.fallBack(err, logger); tfs || got != err {
		t.Errorf("fallBack with --backend bpf = %v, %v; want false and the error", tfs, got)
	}
}
