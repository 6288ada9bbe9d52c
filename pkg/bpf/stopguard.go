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
		if err != nil || !stopped(pid) {
			continue
		}
		if err := unix.Kill(pid, unix.SIGCONT); err != nil && !errors.Is(err, unix.ESRCH) {
			errs = append(errs, fmt.Errorf("process %d: %w", pid, err))
		}
	}
	return errors.Join(append(errs, sc.Err())...)
}

// stopped reports whether a thread of process pid is stopped by a
// signal: not only the main thread, which may have exited (a zombie
// while the others run, or wait stopped).
func stopped(pid int) bool {
	task := "/proc/" + strconv.Itoa(pid) + "/task"
	ents, err := os.ReadDir(task)
	if err != nil {
		return false
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(task, e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(b)
		if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) && s[i+2] == 'T' {
			return true
		}
	}
	return false
}
