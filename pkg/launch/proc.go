package launch

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
)

// ErrForeignProc is matched by the error of Start when /proc belongs to
// another PID namespace than this process, as after unshare --fork
// --pid without --mount-proc: the command's pid names another process
// there, or none.
var ErrForeignProc = errors.New("/proc belongs to another PID namespace")

// procHint says what gives a PID namespace a /proc of its own.
const procHint = "mount a /proc of this PID namespace (unshare --fork --pid --mount-proc, or mount -t proc proc /proc in a mount namespace of its own)"

// checkProc returns an error unless the proc file system mounted at dir
// shows the processes as this one, whose pid is pid, sees them: its
// "self" link names the pid of the process that reads it as the
// namespace of the mount numbers it, and is dangling where that
// namespace does not hold the process.
func checkProc(dir string, pid int) error {
	self, err := os.Readlink(filepath.Join(dir, "self"))
	switch {
	case err == nil && self == strconv.Itoa(pid):
		return nil
	case err == nil:
		return fmt.Errorf("%w (it shows this process as pid %s, not %d): %s", ErrForeignProc, self, pid, procHint)
	case errors.Is(err, fs.ErrNotExist) && isProc(dir):
		return fmt.Errorf("%w (one that does not hold this process): %s", ErrForeignProc, procHint)
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("no proc file system on %s: mount one (mount -t proc proc %[1]s)", dir)
	}
	return fmt.Errorf("%s: %w", dir, err)
}

// isProc reports whether dir is the root of a proc file system.
func isProc(dir string) bool {
	var st unix.Statfs_t
	return unix.Statfs(dir, &st) == nil && st.Type == unix.PROC_SUPER_MAGIC
}
