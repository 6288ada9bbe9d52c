package scripttest

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// KillStrays sends SIGKILL to the processes, other than this one, whose
// working directory is dir or below it, and returns how many: the
// fixtures that scripts start in the background in their $WORK (sh -c
// './prog &'), which a script that fails before stopping them leaves
// running. Give it a directory that holds the scripts' work directories
// alone (see the package documentation); a process that cannot be
// inspected is passed over.
func KillStrays(dir string) (int, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return 0, err
	}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return 0, err
	}
	self := os.Getpid()
	n := 0
	var errs []error
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		cwd, err := os.Readlink("/proc/" + e.Name() + "/cwd")
		if err != nil {
			continue
		}
		cwd = strings.TrimSuffix(cwd, " (deleted)")
		if cwd != dir && !strings.HasPrefix(cwd, dir+"/") {
			continue
		}
		if err := unix.Kill(pid, unix.SIGKILL); err == nil {
			n++
		} else if !errors.Is(err, unix.ESRCH) {
			errs = append(errs, err)
		}
	}
	return n, errors.Join(errs...)
}
