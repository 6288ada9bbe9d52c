package tracefs

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/sdtkit/sdtkit/internal/selfexec"
	"github.com/sdtkit/sdtkit/pkg/journal"
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
// gone, and exits, which closes its copies and unregisters the uprobes
// in a process no signal reaches any more. (pkg/bpf has a keeper of the
// same kind for its links.)
//
// The protocol runs over a SOCK_SEQPACKET pair, one packet per request,
// each answered by a packet holding an errno (0 for success). A request
// is a kind byte then its body: kindOpen, a keeperRequest, answered on
// success with the perf event's descriptor too; kindJournal, the JSON of
// a journal.Planned the keeper records before it opens the events that
// register those uprobes (see package journal), so that a repair knows
// the sites and semaphores a keeper killed while the kernel registered
// or removed them left behind.

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
	Watermark uint32
	Sampling  sampling
}

const requestSize = int(unsafe.Sizeof(keeperRequest{}))

// Kinds of request.
const (
	kindOpen    = 'o'
	kindJournal = 'j'
)

// journalChunk is the most sites of one kindJournal request, which a
// packet of the socket's default buffer holds.
const journalChunk = 2048

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
func (k *keeper) open(id uint32, pid, cpu int, inherit bool, watermark uint32, s *sampling) (int, error) {
	req := keeperRequest{ID: id, PID: int32(pid), CPU: int32(cpu), Watermark: watermark, Sampling: *s}
	if inherit {
		req.Inherit = 1
	}
	b := append([]byte{kindOpen}, unsafe.Slice((*byte)(unsafe.Pointer(&req)), requestSize)...)
	oob, err := k.call(b, true)
	if errno, ok := err.(syscall.Errno); ok {
		return -1, fmt.Errorf("perf_event_open: %w", errno)
	}
	if err != nil {
		return -1, err
	}
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil || len(msgs) != 1 {
		return -1, errors.New("keeper process: no perf event received")
	}
	fds, err := unix.ParseUnixRights(&msgs[0])
	if err != nil || len(fds) != 1 {
		return -1, errors.New("keeper process: no perf event received")
	}
	return fds[0], nil
}

// journal has the keeper record the uprobes of p, before the events
// that register them are opened.
func (k *keeper) journal(p journal.Planned) error {
	for len(p.Offsets) > 0 {
		chunk := p
		n := min(len(p.Offsets), journalChunk)
		chunk.Offsets, chunk.RefCtrOffsets = p.Offsets[:n], p.RefCtrOffsets[:n]
		p.Offsets, p.RefCtrOffsets = p.Offsets[n:], p.RefCtrOffsets[n:]
		b, err := json.Marshal(&chunk)
		if err != nil {
			return err
		}
		if _, err := k.call(append([]byte{kindJournal}, b...), false); err != nil {
			return fmt.Errorf("journal: %w", err)
		}
	}
	return nil
}

// call sends the request b and returns the reply's control message,
// when withFD, or the errno it holds.
func (k *keeper) call(b []byte, withFD bool) ([]byte, error) {
	if _, err := unix.Write(k.fd, b); err != nil {
		return nil, fmt.Errorf("keeper process: %w", err)
	}
	var reply [4]byte
	var oob []byte
	if withFD {
		oob = make([]byte, unix.CmsgSpace(4))
	}
	n, oobn, _, _, err := unix.Recvmsg(k.fd, reply[:], oob, unix.MSG_CMSG_CLOEXEC)
	if err != nil || n != len(reply) {
		return nil, fmt.Errorf("keeper process: no reply (%v)", err)
	}
	if errno := syscall.Errno(le.Uint32(reply[:])); errno != 0 {
		return nil, errno
	}
	return oob[:oobn], nil
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
// socket fd, and holds them, until the tracer closes it or exits, then
// returns the exit status.
//
// The events go with the process: the kernel closes its descriptors as
// it exits, when no signal can interrupt the uprobes' removal any more,
// where a close(2) of its own, which a SIGKILL interrupts half way,
// could leave sites armed.
func serveKeeper(fd int) int {
	selfexec.Serve()
	jr, _ := journal.NewJournal()
	defer func() {
		if jr != nil {
			jr.Remove()
		}
	}()
	b := make([]byte, 1<<20)
	for {
		n, err := unix.Read(fd, b)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil || n == 0 {
			return 0 // the tracer is gone
		}
		var reply [4]byte
		var oob []byte
		switch {
		case b[0] == kindOpen && n == 1+requestSize:
			var req keeperRequest
			copy(unsafe.Slice((*byte)(unsafe.Pointer(&req)), requestSize), b[1:n])
			pfd, err := openEvent(req.ID, int(req.PID), int(req.CPU), req.Inherit != 0, req.Watermark, &req.Sampling)
			if err != nil {
				errno := syscall.EINVAL
				errors.As(err, &errno)
				le.PutUint32(reply[:], uint32(errno))
			} else {
				oob = unix.UnixRights(pfd)
			}
		case b[0] == kindJournal:
			// Without a journal the events are opened all the same: it
			// only serves a repair after a SIGKILL.
			var p journal.Planned
			if json.Unmarshal(b[1:n], &p) != nil {
				le.PutUint32(reply[:], uint32(syscall.EINVAL))
			} else if jr != nil {
				jr.Add(p)
			}
		default:
			le.PutUint32(reply[:], uint32(syscall.EINVAL))
		}
		if err := unix.Sendmsg(fd, reply[:], oob, nil, 0); err != nil {
			return 0
		}
	}
}
