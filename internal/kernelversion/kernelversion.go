// Package kernelversion tells the version of the running kernel, for the
// code and tests that choose by it.
package kernelversion

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// Running returns the major and minor numbers of the running kernel's
// release, as uname gives it ("6.18.4-generic" is 6 and 18).
func Running() (major, minor int, err error) {
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		return 0, 0, fmt.Errorf("uname: %w", err)
	}
	rel := unix.ByteSliceToString(u.Release[:])
	if n, _ := fmt.Sscanf(rel, "%d.%d", &major, &minor); n != 2 {
		return 0, 0, fmt.Errorf("kernel release %q: no MAJOR.MINOR", rel)
	}
	return major, minor, nil
}

// Before reports whether the running kernel is older than major.minor;
// ok is false, and before too, when its version cannot be told.
func Before(major, minor int) (before, ok bool) {
	ma, mi, err := Running()
	if err != nil {
		return false, false
	}
	return ma < major || ma == major && mi < minor, true
}
