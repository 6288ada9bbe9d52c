package bpf

import (
	"encoding/gob"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"syscall"

	"github.com/cilium/ebpf"
	"golang.org/x/sys/unix"

	"github.com/sdtkit/sdtkit/internal/selfexec"
)

// The keeper is a child process, this same executable run again, that
// creates and closes the uprobe links of a Program and holds them while
// it is attached. The links cannot be made in the tracer itself: when a
// process is sent SIGKILL while the kernel registers its uprobes, the
// kernel's writes to the traced process fail (a fatal signal interrupts
// every page access), the registration fails part way, and its rollback,
// which fails the same way, leaves breakpoints and raised semaphores in
// the traced process with no uprobe behind them. A SIGKILL of the tracer
// does not reach the keeper: it finishes what it was doing, sees the
// tracer gone, closes the links (restoring every site and semaphore) and
// exits. A normal exit does the same, with no fatal signal pending.
//
// The protocol runs over a socket pair: the tracer sends the program's
// descriptor once, then gob-encoded keeperRequests, each answered by a
// keeperReply. The end of the stream means the tracer is gone.

// keeperEnv, when set in the environment, makes the executable a keeper
// (see init).
const keeperEnv = "SDTKIT_BPF_KEEPER"

// keeperFD is the keeper's end of the socket pair.
const keeperFD = 3

func init() {
	if os.Getenv(keeperEnv) != "" {
		os.Exit(serveKeeper(os.NewFile(keeperFD, "keeper")))
	}
}

// A keeperRequest is an attach, or a detach of everything.
type keeperRequest struct {
	Detach bool
	Attach attachRequest
}

// A keeperReply is the keeper's answer: an error, or none.
type keeperReply struct {
	Err          string
	Errno        syscall.Errno // in the error's chain, 0 if none
	NotSupported bool          // the error matches ErrNotSupported
}

// A keeperError is an error of the keeper: its text, matching the
// errno and sentinel it matched there.
type keeperError struct {
	msg  string
	errs []error
}

func (e *keeperError) Error() string   { return e.msg }
func (e *keeperError) Unwrap() []error { return e.errs }

func (r *keeperReply) err() error {
	if r.Err == "" {
		return nil
	}
	e := &keeperError{msg: r.Err}
	if r.Errno != 0 {
		e.errs = append(e.errs, r.Errno)
	}
	if r.NotSupported {
		e.errs = append(e.errs, ErrNotSupported)
	}
	return e
}

func replyTo(err error) keeperReply {
	if err == nil {
		return keeperReply{}
	}
	r := keeperReply{Err: err.Error(), NotSupported: errors.Is(err, ErrNotSupported)}
	errors.As(err, &r.Errno)
	return r
}

// keeper is the tracer's side of a keeper process.
type keeper struct {
	cmd  *exec.Cmd
	conn *net.UnixConn
	enc  *gob.Encoder
	dec  *gob.Decoder
}

// startKeeper starts a keeper process. It does not wait for it to run:
// the keeper's start overlaps the loading of the program, which sendProg
// hands it.
func startKeeper() (*keeper, error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("start keeper: socketpair: %w", err)
	}
	ours := os.NewFile(uintptr(fds[0]), "keeper")
	theirs := os.NewFile(uintptr(fds[1]), "keeper")
	defer theirs.Close()
	fc, err := net.FileConn(ours)
	ours.Close()
	if err != nil {
		theirs.Close()
		return nil, fmt.Errorf("start keeper: %w", err)
	}
	conn := fc.(*net.UnixConn)
	cmd, err := selfexec.Start(keeperEnv+"=1", theirs)
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("start keeper: %w", err)
	}
	return &keeper{cmd: cmd, conn: conn, enc: gob.NewEncoder(conn), dec: gob.NewDecoder(conn)}, nil
}

// sendProg hands the keeper the program to attach.
func (k *keeper) sendProg(prog *ebpf.Program) error {
	if _, _, err := k.conn.WriteMsgUnix([]byte{0}, unix.UnixRights(prog.FD()), nil); err != nil {
		return k.failed(fmt.Errorf("send program: %w", err))
	}
	return nil
}

func (k *keeper) attach(req *attachRequest) error {
	return k.call(&keeperRequest{Attach: *req})
}

func (k *keeper) detach() error {
	return k.call(&keeperRequest{Detach: true})
}

func (k *keeper) call(req *keeperRequest) error {
	if err := k.enc.Encode(req); err != nil {
		return k.failed(err)
	}
	var r keeperReply
	if err := k.dec.Decode(&r); err != nil {
		return k.failed(err)
	}
	return r.err()
}

// failed returns the error of a broken conversation, with how the keeper
// ended if it did.
func (k *keeper) failed(err error) error {
	k.conn.Close()
	if werr := k.cmd.Wait(); werr != nil {
		return fmt.Errorf("keeper process: %w (%w)", werr, err)
	}
	return fmt.Errorf("keeper process: exited (%w)", err)
}

// close ends the keeper, which closes the links, and waits for it, so
// that every site is restored when it returns.
func (k *keeper) close() error {
	k.conn.Close()
	if k.cmd.ProcessState != nil {
		return nil // already waited for by failed
	}
	if err := k.cmd.Wait(); err != nil {
		return fmt.Errorf("keeper process: %w", err)
	}
	return nil
}

// serveKeeper is the keeper: it answers the requests that come over
// conn until the tracer closes it or exits, then closes the links and
// returns the exit status.
func serveKeeper(f *os.File) int {
	selfexec.Serve()
	fc, err := net.FileConn(f)
	f.Close()
	if err != nil {
		return 1
	}
	conn := fc.(*net.UnixConn)
	defer conn.Close()
	prog, err := receiveProg(conn)
	if err != nil {
		return 1
	}
	defer prog.Close()
	links := &localLinks{prog: prog}
	defer links.close()
	enc, dec := gob.NewEncoder(conn), gob.NewDecoder(conn)
	for {
		var req keeperRequest
		if err := dec.Decode(&req); err != nil {
			return 0 // the tracer is gone
		}
		var err error
		if req.Detach {
			err = links.detach()
		} else {
			err = links.attach(&req.Attach)
		}
		if enc.Encode(replyTo(err)) != nil {
			return 0
		}
	}
}

// receiveProg receives the program the tracer sends first.
func receiveProg(conn *net.UnixConn) (*ebpf.Program, error) {
	b := make([]byte, 1)
	oob := make([]byte, unix.CmsgSpace(4))
	_, oobn, _, _, err := conn.ReadMsgUnix(b, oob)
	if err != nil {
		return nil, err
	}
	msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
	if err != nil || len(msgs) != 1 {
		return nil, fmt.Errorf("no program received")
	}
	fds, err := unix.ParseUnixRights(&msgs[0])
	if err != nil || len(fds) != 1 {
		return nil, fmt.Errorf("no program received")
	}
	return ebpf.NewProgramFromFD(fds[0])
}
