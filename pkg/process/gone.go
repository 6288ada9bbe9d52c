package process

import (
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// ReadAfterExit reports whether path, the file of device dev and inode
// ino that process pid mapped, is to be read by its path here, since the
// process cannot be read through any more: its /proc directory is gone,
// or holds a zombie whose files cannot be reached, and path names here
// the same file. It is how a tracer reads the files of a short command's
// stacks once the command has exited.
func ReadAfterExit(pid int, path string, dev, ino uint64) bool {
	if _, err := os.Stat(fmt.Sprintf("/proc/%d/root/", pid)); err == nil {
		return false
	}
	var st unix.Stat_t
	return filepath.IsAbs(path) && unix.Stat(path, &st) == nil && st.Dev == dev && st.Ino == ino
}
