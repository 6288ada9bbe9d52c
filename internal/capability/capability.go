// Package capability tells which capabilities this process has in its
// effective set, for the errors that say what a refusal was for.
package capability

import "golang.org/x/sys/unix"

// Effective reports whether this process has every capability of caps
// (unix.CAP_*) in its effective set; false if they cannot be read.
func Effective(caps ...uint) bool {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if unix.Capget(&hdr, &data[0]) != nil {
		return false
	}
	for _, c := range caps {
		if c >= 64 || data[c/32].Effective&(1<<(c%32)) == 0 {
			return false
		}
	}
	return true
}
