package bpf

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/cilium/ebpf"
	"golang.org/x/sys/unix"
)

// TestPermissionVerifier checks that a refusal of the verifier, an
// EACCES, is not taken for a missing privilege or a policy.
func TestPermissionVerifier(t *testing.T) {
	refused := &ebpf.VerifierError{Cause: unix.EACCES, Log: []string{"R2 unbounded memory access, make sure to bounds check any such access"}}
	for _, tt := range []struct {
		name           string
		err            error
		verifier, perm bool
	}{
		{"verifier", fmt.Errorf("load: %w", refused), true, false},
		{"verifier, wrapped twice", permission(fmt.Errorf("load: %w", refused)), true, false},
		{"too large", fmt.Errorf("load: %w", &ebpf.VerifierError{Cause: unix.E2BIG, Log: []string{"BPF program is too large. Processed 1000001 insn"}}), true, false},
		{"EPERM", fmt.Errorf("load: %w", unix.EPERM), false, true},
		{"load not permitted", fmt.Errorf("probe BPF cookies: %w", &ebpf.VerifierError{Cause: unix.EPERM}), false, true},
		{"other", fmt.Errorf("load: %w", os.ErrNotExist), false, false},
	} {
		err := permission(tt.err)
		if errors.Is(err, ErrVerifier) != tt.verifier || errors.Is(err, ErrPermission) != tt.perm {
			t.Errorf("%s: permission(%v) = %v: matches ErrVerifier %v, ErrPermission %v; want %v, %v",
				tt.name, tt.err, err, errors.Is(err, ErrVerifier), errors.Is(err, ErrPermission), tt.verifier, tt.perm)
		}
		if tt.verifier && strings.Count(err.Error(), ErrVerifier.Error()) != 1 {
			t.Errorf("%s: %q should name the verifier once", tt.name, err)
		}
	}
}
