package bpf

import (
	"errors"
	"fmt"
	"os"

	"github.com/cilium/ebpf"
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
)

// permission adds ErrPermission to an error caused by missing privilege.
func permission(err error) error {
	if err != nil && errors.Is(err, os.ErrPermission) && !errors.Is(err, ErrPermission) {
		return fmt.Errorf("%w (%w)", err, ErrPermission)
	}
	return err
}
