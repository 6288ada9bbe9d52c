package attach

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/sdtkit/sdtkit/pkg/bpf"
	"github.com/sdtkit/sdtkit/pkg/process"
)

// uprobePMU is the directory in which the kernel describes its uprobe perf
// events (Linux 4.17), and the ref_ctr_offset field that raises
// semaphores (Linux 4.20).
var uprobePMU = "/sys/bus/event_source/devices/uprobe"

// attachError names the kernel feature whose absence made attaching fail,
// and the Linux version that added it. semaphores says whether a site
// to attach has a semaphore.
func attachError(err error, semaphores bool) error {
	switch {
	case missing(uprobePMU):
		return fmt.Errorf("kernel without uprobes (CONFIG_UPROBE_EVENTS, Linux 4.17): %w", err)
	case semaphores && errors.Is(err, bpf.ErrNotSupported) && missing(filepath.Join(uprobePMU, "format", "ref_ctr_offset")):
		return fmt.Errorf("kernel without uprobe ref_ctr_offset to raise probe semaphores (Linux 4.20): %w", err)
	}
	return err
}

func missing(name string) bool {
	_, err := os.Stat(name)
	return errors.Is(err, fs.ErrNotExist)
}

func hasSemaphores(sites []bpf.Site) bool {
	for _, s := range sites {
		if s.RefCtrOffset != 0 {
			return true
		}
	}
	return false
}

// exitedError returns err, or when process pid has exited since it was
// found, an error that says so: the files it mapped, reached through
// /proc/PID/root, are gone with it. An error that already says the
// process is gone is returned as it is.
func exitedError(pid int, err error) error {
	if err != nil && pid != 0 && !errors.Is(err, process.ErrNoProcess) && errors.Is(process.Exists(pid), process.ErrNoProcess) {
		return fmt.Errorf("process %d exited while attaching", pid)
	}
	return err
}
