package process

import (
	"os"
	"path/filepath"
)

// Stopped reports whether a thread of process pid is stopped by a signal
// (SIGSTOP, or a job-control stop): not only its main thread, which may
// have exited while the others run.
func Stopped(pid int) bool {
	task := procPath(pid, "task")
	ents, err := os.ReadDir(task)
	if err != nil {
		return false
	}
	for _, e := range ents {
		if b, err := os.ReadFile(filepath.Join(task, e.Name(), "stat")); err == nil && state(b) == 'T' {
			return true
		}
	}
	return false
}
