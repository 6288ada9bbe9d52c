package bpf

import (
	"errors"
	"fmt"
	"os"

	"github.com/cilium/ebpf"
	"golang.org/x/sys/unix"

	"github.com/sdtkit/sdtkit/internal/capability"
)

var (
	// ErrPermission is returned when the process may not load BPF
	// programs or create uprobes.
	ErrPermission = errors.New("needs root, or CAP_BPF and CAP_PERFMON")

	// ErrNotSupported is matched by errors about a kernel feature that
	// is missing, such as BPF cookies. It is ebpf.ErrNotSupported.
	ErrNotSupported = ebpf.ErrNotSupported

	// ErrClosed is returned by Read after Close.
	ErrClosed = os.ErrClosed

	// ErrNoStrings is matched by the error of Attach when a site reads
	// strings but the program was loaded with Options.NoStrings.
	ErrNoStrings = errors.New("program loaded without string support")

	// ErrNoCookies is matched, with ErrNotSupported, by the error of
	// Attach on a kernel without BPF cookies (Linux 5.15) when the
	// addresses of the sites, by which the program then tells them
	// apart, cannot be known: a position-independent file attached in
	// every process that maps it, or two sites at one address.
	ErrNoCookies = errors.New("kernel without BPF cookies (Linux 5.15)")

	// ErrVerifier is matched by the error of Load when the kernel's
	// verifier refuses the program, or finds it too large: a limit of
	// that kernel's verifier, which a later kernel, or the tracefs
	// backend, does not have. The verifier's refusals are EACCES, which
	// is not a missing privilege, and E2BIG.
	ErrVerifier = errors.New("the kernel's BPF verifier refuses the program")
)

// permission adds ErrPermission to an error caused by missing privilege;
// for root, which has every privilege, it says what else refuses. A
// refusal of the verifier, a load that fails with EACCES, or E2BIG for a
// program too large for it (a load not permitted fails with EPERM), gets
// ErrVerifier instead.
func permission(err error) error {
	var ve *ebpf.VerifierError
	if errors.As(err, &ve) && (errors.Is(ve.Cause, unix.EACCES) || errors.Is(ve.Cause, unix.E2BIG)) {
		if errors.Is(err, ErrVerifier) {
			return err
		}
		return fmt.Errorf("%w (%w)", err, ErrVerifier)
	}
	if err != nil && errors.Is(err, os.ErrPermission) && !errors.Is(err, ErrPermission) {
		if privileged() {
			return fmt.Errorf("%w (%w)", err, deniedError{})
		}
		return fmt.Errorf("%w (%w)", err, ErrPermission)
	}
	return err
}

// privileged reports whether this process has CAP_SYS_ADMIN, or CAP_BPF
// and CAP_PERFMON, in its effective set: what it is refused is then not
// for want of privilege.
func privileged() bool {
	return capability.Effective(unix.CAP_SYS_ADMIN) || capability.Effective(unix.CAP_BPF, unix.CAP_PERFMON)
}

// deniedError is ErrPermission as a privileged process meets it: a
// policy, not a missing privilege.
type deniedError struct{}

func (deniedError) Error() string {
	return "refused though privileged: a seccomp filter or a security module forbids it"
}

func (deniedError) Is(target error) bool { return target == ErrPermission }
