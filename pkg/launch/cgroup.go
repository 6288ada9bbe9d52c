package launch

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
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
	c.dir.Close()
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
func selfCgroup() (string, error) {
	b, err := os.ReadFile("/proc/self/cgroup")
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
		return "", errors.New("no cgroup v2 in /proc/self/cgroup")
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
