package uprobes

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// perfEventLink is what /proc/PID/fd/N links to for a perf event.
const perfEventLink = "anon_inode:[perf_event]"

// listPerfEvents adds the uprobes of the perf events with a BPF program
// that any process holds open, through BPF_TASK_FD_QUERY. Perf events
// attached by ioctl rather than by a BPF link, as older bcc and bpftrace
// attach them, are seen only this way.
func listPerfEvents(s *Set) error {
	procs, err := os.ReadDir("/proc")
	if err != nil {
		return err
	}
	var denied int
	var first error
	for _, p := range procs {
		pid, err := strconv.Atoi(p.Name())
		if err != nil {
			continue
		}
		fdDir := filepath.Join("/proc", p.Name(), "fd")
		fds, err := os.ReadDir(fdDir)
		if err != nil {
			if errors.Is(err, os.ErrPermission) {
				denied++
				if first == nil {
					first = err
				}
			}
			continue // gone, or a kernel thread
		}
		for _, fd := range fds {
			target, err := os.Readlink(filepath.Join(fdDir, fd.Name()))
			if err != nil || target != perfEventLink {
				continue
			}
			n, err := strconv.Atoi(fd.Name())
			if err != nil {
				continue
			}
			q, err := taskFDQuery(pid, n)
			if err != nil {
				if errors.Is(err, unix.EPERM) || errors.Is(err, unix.EACCES) {
					denied++
					if first == nil {
						first = err
					}
				}
				continue // no BPF program, or closed since
			}
			if q.fdType != unix.BPF_FD_TYPE_UPROBE && q.fdType != unix.BPF_FD_TYPE_URETPROBE {
				continue
			}
			u := Uprobe{Kind: PerfEvent, File: q.name, Offset: q.offset, Holder: fmt.Sprintf("pid %d%s fd %d", pid, comm(pid), n)}
			if filepath.IsAbs(q.name) {
				// The path as the holder sees it.
				identify(&u, filepath.Join("/proc", p.Name(), "root", q.name))
			}
			s.Add(u)
		}
	}
	if denied > 0 {
		return fmt.Errorf("%d descriptors or processes could not be inspected: %w", denied, first)
	}
	return nil
}

// fdQuery is the answer of BPF_TASK_FD_QUERY.
type fdQuery struct {
	fdType uint32
	name   string
	offset uint64
}

// taskFDQuery asks the kernel what BPF program descriptor fd of process
// pid runs, and on what.
func taskFDQuery(pid, fd int) (fdQuery, error) {
	buf := make([]byte, unix.PathMax)
	attr := struct {
		pid, fd, flags, bufLen uint32
		buf                    uint64
		progID, fdType         uint32
		probeOffset, probeAddr uint64
	}{pid: uint32(pid), fd: uint32(fd), bufLen: uint32(len(buf)), buf: uint64(uintptr(unsafe.Pointer(&buf[0])))}
	_, _, errno := unix.Syscall(unix.SYS_BPF, unix.BPF_TASK_FD_QUERY, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr))
	if errno != 0 {
		return fdQuery{}, errno
	}
	n := min(int(attr.bufLen), len(buf))
	return fdQuery{fdType: attr.fdType, name: unix.ByteSliceToString(buf[:n]), offset: attr.probeOffset}, nil
}

// comm returns " (COMM)" for process pid, control bytes escaped, or ""
// if it cannot be read.
func comm(pid int) string {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "comm"))
	if err != nil {
		return ""
	}
	q := strconv.QuoteToGraphic(strings.TrimSuffix(string(b), "\n"))
	return " (" + q[1:len(q)-1] + ")"
}
