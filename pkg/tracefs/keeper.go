package tracefs

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/sdtkit/sdtkit/internal/selfexec"
)

// The keeper is a child process, this same executable run again, that
// opens the perf events of a Tracer, hands them over, and holds copies
// until the tracer is gone. The events cannot be opened in the tracer
// itself: the first perf event of an event registers the uprobes of
// every probe appended to it, and when a SIGKILL reaches the process
// meanwhile, the kernel's writes to the traced process fail (a fatal
// signal interrupts every page access), the registration fails part way,
// and its rollback, which fails the same way, leaves breakpoints and
// raised semaphores behind with no uprobe. The keeper is not sent the
// tracer's signals: it finishes the open in progress, sees the tracer
// gone, closes its copies, which unregisters the uprobes in a process
// with no fatal signal pending, and exits. (pkg/bpf has a keeper of the
// same kind for its links.)
//
// The protocol runs over a SOCK_SEQPACKET pair, one packet per
// keeperRequest, each answered by a packet holding an errno (0 for
// success) and, on success, the perf event's descriptor.

// keeperEnv, when set in the environment, makes the executable a
// tracefs keeper (see init).
const keeperEnv = "SDTKIT_TRACEFS_KEEPER"

// keeperFD is the keeper's end of the socket pair.
const keeperFD = 3

func init() {
	if os.Getenv(keeperEnv) != "" {
		os.Exit(serveKeeper(keeperFD))
	}
}

// A keeperRequest is the arguments of one openEvent.
type keeperRequest struct {
	ID        uint32
	PID, CPU  int32
	Inherit   uint32
	Cgroup    uint32
	Watermark uint32
}

const requestSize = int(unsafe.Sizeof(keeperRequest{}))

// keeper is the tracer's side of a keeper process.
type keeper struct {
	cmd *exec.Cmd
	fd  int
}

// startKeeper starts a keeper process.
func startKeeper() (*keeper, error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("start keeper: socketpair: %w", err)
	}
	theirs := os.NewFile(uintptr(fds[1]), "keeper")
	defer theirs.Close()
	cmd, err := selfexec.Start(keeperEnv+"=1", theirs)
	if err != nil {
		unix.Close(fds[0])
		return nil, fmt.Errorf("start keeper: %w", err)
	}
	return &keeper{cmd: cmd, fd: fds[0]}, nil
}

// open has the keeper open a perf event (see openEvent) and returns the
// tracer's descriptor of it.
func (k *keeper) open(id uint32, pid, cpu int, inherit, cgroup bool, watermark uint32) (int, error) {
	req := keeperRequest{ID: id, PID: int32(pid), CPU: int32(cpu), Watermark: watermark}
	if inherit {
		req.Inherit = 1
	}
	if cgroup {
		req.Cgroup = 1
	}
	b := unsafe.Slice((*byte)(unsafe.Pointer(&req)), requestSize)
	if _, err := unix.Write(k.fd, b); err != nil {
		return -1, fmt.Errorf("keeper process: %w", err)
	}
	var reply [4]byte
	oob := make([]byte, unix.CmsgSpace(4))
	n, oobn, _, _, err := unix.Recvmsg(k.fd, reply[:], oob, unix.MSG_CMSG_CLOEXEC)
	if err != nil || n != len(reply) {
		return -1, fmt.Errorf("keeper process: no reply (%v)", err)
	}
	if errno := syscall.Errno(le.Uint32(reply[:])); errno != 0 {
		return -1, fmt.Errorf("perf_event_open: %w", errno)
	}
	msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
	if err != nil || len(msgs) != 1 {
		return -1, errors.New("keeper process: no perf event received")
	}
	fds, err := unix.ParseUnixRights(&msgs[0])
	if err != nil || len(fds) != 1 {
		return -1, errors.New("keeper process: no perf event received")
	}
	return fds[0], nil
}

// close ends the keeper, which closes its copies of the perf events, and
// waits for it: once the tracer's copies are closed too, every site is
// restored when it returns.
func (k *keeper) close() error {
	unix.Close(k.fd)
	if err := k.cmd.Wait(); err != nil {
		return fmt.Errorf("keeper process: %w", err)
	}
	return nil
}

// serveKeeper is the keeper: it opens the perf events asked for on the
// socket fd until the tracer closes it or exits, then closes them and
// returns the exit status.
func serveKeeper(fd int) int {
	selfexec.Serve()
	var held []int
	defer func() {
		for _, fd := range held {
			unix.Close(fd)
		}
	}()
	var req keeperRequest
	b := unsafe.Slice((*byte)(unsafe.Pointer(&req)), requestSize)
	for {
		n, err := unix.Read(fd, b)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil || n != requestSize {
			return 0 // the tracer is gone
		}
		var reply [4]byte
		var oob []byte
		pfd, err := openEvent(req.ID, int(req.PID), int(req.CPU), req.Inherit != 0, req.Cgroup != 0, req.Watermark)
		if err != nil {
			errno := syscall.EINVAL
			errors.As(err, &errno)
			le.PutUint32(reply[:], uint32(errno))
		} else {
			held = append(held, pfd)
			oob = unix.UnixRights(pfd)
		}
		if err := unix.Sendmsg(fd, reply[:], oob, nil, 0); err != nil {
			return 0
		}
	}
}
