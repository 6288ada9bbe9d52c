package launch

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// A Cgroup is a cgroup v2 made for a command: given in Options, the
// command starts in it, and its descendants stay in it whatever they
// execute, unless one moves itself out; a BPF program tells their hits
// from those of other processes by its ID (bpf_get_current_cgroup_id).
type Cgroup struct {
	// Path is its directory in the cgroup2 file system.
	Path string
	// ID is the kernel's id of the cgroup, the inode of its directory.
	ID uint64

	parent string // the cgroup of this process, where Remove moves what is left
	dir    *os.File

	watchOnce  sync.Once
	empty      chan struct{} // closed by watch once the cgroup is empty
	removed    chan struct{} // closed by Remove, to end watch
	removeOnce sync.Once
}

// NewCgroup makes a cgroup, named by pattern as os.MkdirTemp names a
// directory, as a child of the cgroup v2 of this process. It needs
// write access to that cgroup (root, or a delegated cgroup) and the
// cgroup2 file system mounted (on its own or, on a hybrid system, at
// /sys/fs/cgroup/unified).
func NewCgroup(pattern string) (*Cgroup, error) {
	parent, err := selfCgroup()
	if err != nil {
		return nil, fmt.Errorf("cgroup: %w", err)
	}
	path, err := os.MkdirTemp(parent, pattern)
	if err != nil {
		return nil, fmt.Errorf("cgroup: %w", err)
	}
	var st unix.Stat_t
	dir, err := os.OpenFile(path, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err == nil {
		err = unix.Fstat(int(dir.Fd()), &st)
	}
	if err != nil {
		if dir != nil {
			dir.Close()
		}
		os.Remove(path)
		return nil, fmt.Errorf("cgroup: %w", err)
	}
	return &Cgroup{Path: path, ID: st.Ino, parent: parent, dir: dir}, nil
}

// Remove removes the cgroup. Processes still in it, which the command
// left running, are first moved to the cgroup of this process, where
// they would have started without one; Remove returns how many. A
// process that forks faster than they are moved can keep the cgroup
// from being removed: the error says so, and the cgroup is left.
func (c *Cgroup) Remove() (moved int, err error) {
	c.removeOnce.Do(func() {
		c.watchOnce.Do(func() {})
		if c.removed != nil {
			close(c.removed)
		}
		c.dir.Close()
	})
	for try := 0; ; try++ {
		err := unix.Rmdir(c.Path)
		if err == nil || errors.Is(err, unix.ENOENT) {
			return moved, nil
		}
		if !errors.Is(err, unix.EBUSY) || try == 10 {
			return moved, fmt.Errorf("remove cgroup: %w", err)
		}
		n, err := c.moveOut()
		if err != nil {
			return moved, fmt.Errorf("remove cgroup: %w", err)
		}
		moved += n
		if n == 0 {
			// An exited process leaves its cgroup a moment after its
			// parent can reap it.
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// moveOut moves the processes of the cgroup to its parent.
func (c *Cgroup) moveOut() (int, error) {
	b, err := os.ReadFile(filepath.Join(c.Path, "cgroup.procs"))
	if err != nil {
		return 0, err
	}
	f, err := os.OpenFile(filepath.Join(c.parent, "cgroup.procs"), os.O_WRONLY, 0)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	n := 0
	for _, pid := range strings.Fields(string(b)) {
		// One pid a write; a process gone meanwhile fails with ESRCH.
		if _, err := f.WriteString(pid); err == nil {
			n++
		} else if !errors.Is(err, unix.ESRCH) {
			return n, err
		}
	}
	return n, nil
}

// selfCgroup returns the directory of this process's cgroup v2.
func selfCgroup() (string, error) { return cgroupOf("self") }

// CgroupOf returns the directory of the cgroup v2 of process pid, as this
// process's mounts show it.
func CgroupOf(pid int) (string, error) { return cgroupOf(strconv.Itoa(pid)) }

// cgroupOf returns the directory of the cgroup v2 of the process /proc
// names proc.
func cgroupOf(proc string) (string, error) {
	b, err := os.ReadFile("/proc/" + proc + "/cgroup")
	if err != nil {
		return "", err
	}
	var rel string
	found := false
	for _, line := range strings.Split(string(b), "\n") {
		if p, ok := strings.CutPrefix(line, "0::"); ok {
			rel, found = p, true
		}
	}
	if !found {
		return "", fmt.Errorf("no cgroup v2 in /proc/%s/cgroup", proc)
	}
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [TAGS...] - FSTYPE SOURCE SUPER
		fields := strings.Fields(sc.Text())
		sep := -1
		for i, fl := range fields {
			if fl == "-" {
				sep = i
				break
			}
		}
		if len(fields) < 5 || sep < 0 || sep+1 >= len(fields) || fields[sep+1] != "cgroup2" {
			continue
		}
		root, mnt := unescape(fields[3]), unescape(fields[4])
		if r, ok := strings.CutPrefix(rel, root); ok && (root == "/" || r == "" || r[0] == '/') {
			return filepath.Join(mnt, r), nil
		}
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	return "", fmt.Errorf("cgroup %s: no cgroup2 file system mounted that holds it", rel)
}

// unescape undoes the octal escapes of mountinfo (\040 for a blank).
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// Emptied returns a channel that is closed once no process is left in
// the cgroup: cgroup.events says "populated 0", which the kernel
// updates as the last process exits, before its parent reaps it. It
// watches the file with inotify, which the kernel signals with a modify
// event, and stops watching when Remove is called.
func (c *Cgroup) Emptied() <-chan struct{} {
	c.watchOnce.Do(func() {
		c.empty = make(chan struct{})
		c.removed = make(chan struct{})
		go c.watch()
	})
	return c.empty
}

func (c *Cgroup) watch() {
	events := filepath.Join(c.Path, "cgroup.events")
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err == nil {
		defer unix.Close(fd)
		if _, err := unix.InotifyAddWatch(fd, events, unix.IN_MODIFY); err != nil {
			unix.Close(fd)
			fd = -1
		}
	}
	buf := make([]byte, 4096)
	for {
		if !c.populated(events) {
			close(c.empty)
			return
		}
		// Without inotify, or should an event be missed, the file is
		// read again every poll interval.
		if fd >= 0 {
			fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
			if n, _ := unix.Poll(fds, 100); n > 0 {
				unix.Read(fd, buf)
			}
		} else {
			time.Sleep(100 * time.Millisecond)
		}
		select {
		case <-c.removed:
			return
		default:
		}
	}
}

// populated reports whether cgroup.events says processes are left; a
// file that cannot be read is taken for a cgroup removed, and empty.
func (c *Cgroup) populated(events string) bool {
	b, err := os.ReadFile(events)
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "populated "); ok {
			return v != "0"
		}
	}
	return false
}

// Signal sends sig to every process in the cgroup. A process that
// forks as its list is read may leave a child without the signal.
func (c *Cgroup) Signal(sig unix.Signal) error {
	b, err := os.ReadFile(filepath.Join(c.Path, "cgroup.procs"))
	if err != nil {
		return fmt.Errorf("signal cgroup: %w", err)
	}
	for _, f := range strings.Fields(string(b)) {
		if pid, err := strconv.Atoi(f); err == nil {
			// A process gone meanwhile fails with ESRCH.
			unix.Kill(pid, sig)
		}
	}
	return nil
}

// Kill kills every process in the cgroup with SIGKILL, those it forks
// meanwhile included, through cgroup.kill (Linux 5.14), or else by
// Signal.
func (c *Cgroup) Kill() error {
	err := os.WriteFile(filepath.Join(c.Path, "cgroup.kill"), []byte("1"), 0)
	if err != nil {
		return c.Signal(unix.SIGKILL)
	}
	return nil
}

// OwnerPattern returns the NewCgroup pattern of a cgroup of this
// process's own: prefix, the inode of its PID namespace, its pid, then
// NewCgroup's random part, as sdtattach-4026531836-4242-1951. By them
// RemoveStale tells whether the owner is gone.
func OwnerPattern(prefix string) string {
	return prefix + strconv.FormatUint(pidNamespace(), 10) + "-" + strconv.Itoa(os.Getpid()) + "-*"
}

// pidNamespace returns the inode of this process's PID namespace, 0 when
// it cannot be told.
func pidNamespace() uint64 {
	var st unix.Stat_t
	if unix.Stat("/proc/self/ns/pid", &st) != nil {
		return 0
	}
	return st.Ino
}

// RemoveStale removes the cgroups, children of the cgroup v2 of this
// process, that an earlier tracer made with OwnerPattern(prefix) and left
// when it was killed: those whose owner, a process of this PID namespace,
// is gone, and that are empty. A cgroup whose processes still run is
// left, for a later call, and so is one of another PID namespace, whose
// owner cannot be told from here. It returns how many it removed.
func RemoveStale(prefix string) (int, error) {
	parent, err := selfCgroup()
	if err != nil {
		return 0, fmt.Errorf("cgroup: %w", err)
	}
	ents, err := os.ReadDir(parent)
	if err != nil {
		return 0, fmt.Errorf("cgroup: %w", err)
	}
	ns := pidNamespace()
	n := 0
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), prefix)
		if !e.IsDir() || !ok || ns == 0 {
			continue
		}
		parts := strings.SplitN(rest, "-", 3)
		if len(parts) != 3 || parts[0] != strconv.FormatUint(ns, 10) {
			continue
		}
		pid, err := strconv.Atoi(parts[1])
		if err != nil || pid <= 0 || !errors.Is(unix.Kill(pid, 0), unix.ESRCH) {
			continue
		}
		if unix.Rmdir(filepath.Join(parent, e.Name())) == nil {
			n++
		}
	}
	return n, nil
}
