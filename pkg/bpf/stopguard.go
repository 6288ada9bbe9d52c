package bpf

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/sdtkit/sdtkit/pkg/process"
)

// continueStopped sends SIGCONT to the processes of the cgroup at dir
// that have a stopped thread.
func continueStopped(dir string) error {
	f, err := os.Open(filepath.Join(dir, "cgroup.procs"))
	if err != nil {
		return err
	}
	defer f.Close()
	var errs []error
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		pid, err := strconv.Atoi(strings.TrimSpace(sc.Text()))
		if err != nil || !process.Stopped(pid) {
			continue
		}
		if err := unix.Kill(pid, unix.SIGCONT); err != nil && !errors.Is(err, unix.ESRCH) {
			errs = append(errs, fmt.Errorf("process %d: %w", pid, err))
		}
	}
	return errors.Join(append(errs, sc.Err())...)
}
