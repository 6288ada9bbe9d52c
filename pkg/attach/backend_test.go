package attach

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/cilium/ebpf"

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
		{"no ring buffers", fmt.Errorf("kernel without BPF ring buffers (Linux 5.8): %w", bpf.ErrNotSupported), readOnly, true, "cannot run"},
		{"no cookies", fmt.Errorf("attach x: %w: a PIE: %w", bpf.ErrNoCookies, bpf.ErrNotSupported), readOnly, true, "cannot tell these probe sites apart"},
		{"no bpf(2)", fmt.Errorf("load: %w", syscall.ENOSYS), writable, true, "cannot run"},
		{"seccomp", fmt.Errorf("load: %w (%w)", syscall.EPERM, bpf.ErrPermission), writable, true, "not permitted"},
		{"verifier", fmt.Errorf("load: %w (%w)", &ebpf.VerifierError{Cause: syscall.EACCES, Log: []string{"R2 unbounded memory access"}}, bpf.ErrVerifier), writable, true, "verifier refuses"},
		{"verifier, tracefs read-only", fmt.Errorf("load: %w (%w)", &ebpf.VerifierError{Cause: syscall.EACCES}, bpf.ErrVerifier), readOnly, false, ""},
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

// TestWithBackend checks which backend each Backend runs, and that only
// BackendAuto falls back, telling Options.Warn why.
func TestWithBackend(t *testing.T) {
	noBPF := fmt.Errorf("kernel without BPF ring buffers (Linux 5.8): %w", bpf.ErrNotSupported)
	other := errors.New("no probe matches")
	for _, tt := range []struct {
		backend Backend
		bpfErr  error
		want    string
		err     error
		warned  bool
	}{
		{BackendAuto, nil, "bpf", nil, false},
		{BackendAuto, noBPF, "tracefs", nil, true},
		{BackendAuto, other, "", other, false},
		{BackendBPF, noBPF, "", noBPF, false},
		{BackendTracefs, nil, "tracefs", nil, false},
	} {
		var warned []error
		p := &Plan{opts: Options{Backend: tt.backend, Warn: func(err error) { warned = append(warned, err) }}}
		got, err := withBackend(p,
			func() (string, error) { return "bpf", tt.bpfErr },
			func() (string, error) { return "tracefs", nil })
		if tt.bpfErr != nil && got == "bpf" {
			got = ""
		}
		if got != tt.want || !errors.Is(err, tt.err) || (err == nil) != (tt.err == nil) {
			t.Errorf("%v with BPF failing %v: %q, %v, want %q, %v", tt.backend, tt.bpfErr, got, err, tt.want, tt.err)
		}
		var fb *Fallback
		if tt.warned != (len(warned) == 1 && errors.As(warned[0], &fb) && errors.Is(fb, bpf.ErrNotSupported)) {
			t.Errorf("%v with BPF failing %v: warned %v, want a Fallback: %v", tt.backend, tt.bpfErr, warned, tt.warned)
		}
	}
}

func TestParseBackend(t *testing.T) {
	for _, b := range []Backend{BackendAuto, BackendBPF, BackendTracefs} {
		if got, err := ParseBackend(b.String()); got != b || err != nil {
			t.Errorf("ParseBackend(%q) = %v, %v, want %v", b.String(), got, err, b)
		}
	}
	if _, err := ParseBackend("ftrace"); err == nil || err.Error() != `"ftrace": not auto, bpf or tracefs` {
		t.Errorf(`ParseBackend("ftrace") = %v`, err)
	}
}
