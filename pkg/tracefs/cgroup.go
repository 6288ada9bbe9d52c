package tracefs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// followCgroup returns the id of the cgroup v2 at dir, the inode of the
// directory, once it has made sure that the perf events of its
// processes sample it as theirs.
//
// A sample carries the cgroup of its thread's perf_event controller
// (PERF_SAMPLE_CGROUP), which cgroup v2 enables implicitly in every
// cgroup. The kernel, though, gives the children of the hierarchy's
// root their implicit controllers only once it computes the root's
// subtree controllers: when the root's cgroup.subtree_control is
// written, as systemd does at boot, or when a controller moves to or
// from a cgroup v1 hierarchy. Until then, as on a system booted without
// either (an initramfs, a container's own init), every process samples
// as the root, none as the cgroup it is in, and the kernel refuses a
// perf event of that cgroup. Enabling a controller that the root's
// children lack, and disabling it again, makes the kernel compute
// them, and leaves cgroup.subtree_control as it was; warn is told so.
func followCgroup(dir string, warn func(error)) (uint64, error) {
	var st unix.Stat_t
	if err := unix.Stat(dir, &st); err != nil {
		return 0, fmt.Errorf("cgroup %s: %w", dir, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return 0, fmt.Errorf("cgroup %s: not a directory", dir)
	}
	cpus, err := onlineCPUs()
	if err != nil {
		return 0, err
	}
	own, err := ownPerfCgroup(dir, cpus[0])
	if err != nil {
		return 0, err
	}
	if own {
		return st.Ino, nil
	}
	root := hierarchyRoot(dir, st.Dev)
	ctrl, err := recompute(root)
	if err != nil {
		return 0, fmt.Errorf("cgroup %s has no perf_event controller of its own: %w", dir, err)
	}
	if own, err = ownPerfCgroup(dir, cpus[0]); err != nil {
		return 0, err
	}
	if !own {
		return 0, fmt.Errorf("cgroup %s has no perf_event controller of its own, even once %s enabled and disabled %s (is perf_event on a cgroup v1 hierarchy?): its processes' hits cannot be told from others'", dir, root, ctrl)
	}
	if warn != nil {
		warn(fmt.Errorf("the cgroups under %s had no perf_event controller of their own, as cgroup v2 gives every cgroup, until %s enabled and disabled %s", root, filepath.Join(root, "cgroup.subtree_control"), ctrl))
	}
	return st.Ino, nil
}

// ownPerfCgroup reports whether the cgroup at dir has a perf_event
// controller of its own: whether the kernel takes a perf event of the
// cgroup (PERF_FLAG_PID_CGROUP) on cpu, or refuses it with ENOENT.
func ownPerfCgroup(dir string, cpu int) (bool, error) {
	// A descriptor of O_PATH is refused.
	f, err := os.Open(dir)
	if err != nil {
		return false, fmt.Errorf("cgroup %s: %w", dir, err)
	}
	defer f.Close()
	attr := unix.PerfEventAttr{
		Type:   unix.PERF_TYPE_SOFTWARE,
		Config: unix.PERF_COUNT_SW_DUMMY,
		Size:   uint32(unsafe.Sizeof(unix.PerfEventAttr{})),
		Bits:   unix.PerfBitDisabled,
	}
	fd, err := unix.PerfEventOpen(&attr, int(f.Fd()), cpu, -1, unix.PERF_FLAG_PID_CGROUP|unix.PERF_FLAG_FD_CLOEXEC)
	if errors.Is(err, unix.ENOENT) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("cgroup %s: perf_event_open: %w", dir, err)
	}
	unix.Close(fd)
	return true, nil
}

// hierarchyRoot returns the top directory of the file system, of device
// dev, that holds dir: the root of its cgroup hierarchy, as mounted.
func hierarchyRoot(dir string, dev uint64) string {
	dir = filepath.Clean(dir)
	for {
		parent := filepath.Dir(dir)
		var st unix.Stat_t
		if parent == dir || unix.Stat(parent, &st) != nil || st.Dev != dev {
			return dir
		}
		dir = parent
	}
}

// recompute makes the kernel compute the controllers of the children of
// the cgroup at root, the implicit ones included, by enabling in its
// cgroup.subtree_control a controller it lacks and disabling it again.
// It returns the controller.
func recompute(root string) (string, error) {
	avail, err := os.ReadFile(filepath.Join(root, "cgroup.controllers"))
	if err != nil {
		return "", err
	}
	file := filepath.Join(root, "cgroup.subtree_control")
	enabled, err := os.ReadFile(file)
	if err != nil {
		return "", err
	}
	ctrl, ok := toggled(string(avail), string(enabled))
	if !ok {
		return "", fmt.Errorf("%s: no controller to enable", file)
	}
	if err := os.WriteFile(file, []byte("+"+ctrl), 0); err != nil {
		return "", fmt.Errorf("enable %s: %w", ctrl, err)
	}
	if err := os.WriteFile(file, []byte("-"+ctrl), 0); err != nil {
		return "", fmt.Errorf("%s enabled in %s, and left so: disable: %w", ctrl, file, err)
	}
	return ctrl, nil
}

// toggled picks the controller recompute enables and disables, of those
// available (cgroup.controllers) and not enabled (cgroup.subtree_control):
// pids if it can, which costs least and, being threaded, can be enabled
// where processes are; false when every one is enabled.
func toggled(available, enabled string) (string, bool) {
	on := strings.Fields(enabled)
	var off []string
	for _, c := range strings.Fields(available) {
		if !slices.Contains(on, c) {
			off = append(off, c)
		}
	}
	if len(off) == 0 {
		return "", false
	}
	if slices.Contains(off, "pids") {
		return "pids", true
	}
	return off[0], true
}
