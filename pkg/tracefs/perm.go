package tracefs

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"

	"github.com/sdtkit/sdtkit/internal/capability"
)

// permission adds ErrPermission to err when it is a refusal (EACCES,
// EPERM) met by a process without privilege. A privileged process is
// refused by a policy, not for want of privilege: telling it to be root
// would mislead it.
func permission(err error, privileged bool) error {
	if err == nil || !errors.Is(err, os.ErrPermission) || errors.Is(err, ErrPermission) {
		return err
	}
	if privileged {
		return fmt.Errorf("%w (%w)", err, deniedError{})
	}
	return fmt.Errorf("%w (%w)", err, ErrPermission)
}

// privileged reports whether this process has CAP_SYS_ADMIN and
// CAP_DAC_OVERRIDE in its effective set, which root has: enough to mount
// tracefs, write its files and open its perf events.
func privileged() bool {
	return capability.Effective(unix.CAP_SYS_ADMIN, unix.CAP_DAC_OVERRIDE)
}

// deniedError is ErrPermission as a privileged process meets it.
type deniedError struct{}

func (deniedError) Error() string {
	return "refused though privileged: a security module or the kernel's lockdown forbids it"
}

func (deniedError) Is(target error) bool { return target == ErrPermission }
