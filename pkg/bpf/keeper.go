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
	"github.com/sdtkit/sdtkit/pkg/journal"
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
// tracer gone, lets the links go (restoring every site and semaphore)
// and exits. A normal exit does the same, with no fatal signal pending.
//
// The keeper itself may be killed too (kill -9 of both, an OOM killer):
// it pins each link in a bpf filesystem of its own and closes the link's
// descriptor (see pinDir), so that the kernel releases the links from a
// worker of its own when the pins or the keeper go, never from a close
// that a signal interrupts. Where it cannot mount one (no CAP_SYS_ADMIN,
// Linux before 5.2), it holds the links by their descriptors; it then
// records what it attaches (see linkRecord) before it attaches it, so
// that a repair can undo what a keeper killed part way left.
//
// The protocol runs over a socket pair: the tracer sends the program's
// descriptor once, then gob-encoded keeperRequests, each answered by a
// keeperReply. The end of the stream means the tracer is gone. The
// tracer closes its own descriptor of the program once the keeper has
// it: a detach then waits until the program is gone from the kernel,
// which it is once its links are released (see waitGone).
//
// A keeper may also guard the processes a Stopper stops (stop guard):
// should the tracer be gone while one of them is stopped, it lets the
// Stopper's uprobe go, waits until the kernel released it, and sends
// SIGCONT to the process followed, or to every process of the cgroup
// followed that has a stopped thread.

// keeperEnv, when set in the environment, makes the executable a keeper
// (see init); stopGuardEnv makes it a stop guard, of the cgroup
// directory it holds, or "-" for the process given as a pidfd.
const (
	keeperEnv    = "SDTKIT_BPF_KEEPER"
	stopGuardEnv = "SDTKIT_STOP_GUARD"
)

// The keeper's descriptors: its end of the socket pair and, for a stop
// guard of one process, a pidfd of it.
const (
	keeperFD     = 3
	guardPidfdFD = 4
)

func init() {
	if os.Getenv(keeperEnv) != "" {
		os.Exit(serveKeeper(""))
	}
	if dir := os.Getenv(stopGuardEnv); dir != "" {
		os.Exit(serveKeeper(dir))
	}
}

// A keeperRequest is an attach, or a detach of everything.
type keeperRequest struct {
	Detach bool
	// Abandon, with Detach, lets the links go with no reply and no
	// wait, and no process continued: the tracer is done with them.
	Abandon bool
	Attach  attachRequest
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
	cmd    *exec.Cmd
	conn   *net.UnixConn
	enc    *gob.Encoder
	dec    *gob.Decoder
	exited chan struct{} // closed once the keeper has exited
	err    error         // its exit's, once exited
}

// startKeeper starts a keeper process. It does not wait for it to run:
// the keeper's start overlaps the loading of the program, which sendProg
// hands it. With guard not "", it is a stop guard of the cgroup at that
// directory or, for "-", of the process of pidfd.
func startKeeper(guard string, pidfd int) (*keeper, error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("start keeper: socketpair: %w", err)
	}
	ours := os.NewFile(uintptr(fds[0]), "keeper")
	theirs := os.NewFile(uintptr(fds[1]), "keeper")
	files := []*os.File{theirs}
	defer func() {
		for _, f := range files {
			f.Close()
		}
	}()
	fc, err := net.FileConn(ours)
	ours.Close()
	if err != nil {
		return nil, fmt.Errorf("start keeper: %w", err)
	}
	conn := fc.(*net.UnixConn)
	env := keeperEnv + "=1"
	if guard != "" {
		env = stopGuardEnv + "=" + guard
	}
	if pidfd >= 0 {
		// A copy, closed once the keeper has its own.
		dup, err := unix.FcntlInt(uintptr(pidfd), unix.F_DUPFD_CLOEXEC, 0)
		if err != nil {
			conn.Close()
			return nil, fmt.Errorf("start keeper: %w", err)
		}
		files = append(files, os.NewFile(uintptr(dup), "pidfd"))
	}
	cmd, err := selfexec.Start(env, files...)
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("start keeper: %w", err)
	}
	k := &keeper{cmd: cmd, conn: conn, enc: gob.NewEncoder(conn), dec: gob.NewDecoder(conn), exited: make(chan struct{})}
	go func() {
		k.err = cmd.Wait()
		close(k.exited)
	}()
	return k, nil
}

// sendProg hands the keeper the program to attach. The caller then
// closes its own descriptor of it, so that the program goes with the
// links (see waitGone).
func (k *keeper) sendProg(prog *ebpf.Program) error {
	if _, _, err := k.conn.WriteMsgUnix([]byte{0}, unix.UnixRights(prog.FD()), nil); err != nil {
		return k.failed(fmt.Errorf("send program: %w", err))
	}
	return nil
}

func (k *keeper) attach(req *attachRequest) error {
	return k.call(&keeperRequest{Attach: *req})
}

// detach lets every link go and waits until the kernel has released
// them: the program runs no more, and every site and semaphore is
// restored. Nothing can be attached after.
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
	<-k.exited
	if k.err != nil {
		return fmt.Errorf("keeper process: %w (%w)", k.err, err)
	}
	return fmt.Errorf("keeper process: exited (%w)", err)
}

// close ends the keeper, which lets the links go, and waits for it, so
// that every site is restored when it returns.
func (k *keeper) close() error {
	k.conn.Close()
	<-k.exited
	if k.err != nil {
		return fmt.Errorf("keeper process: %w", k.err)
	}
	return nil
}

// abandon has the keeper let the links go without waiting for it.
func (k *keeper) abandon() {
	k.enc.Encode(&keeperRequest{Detach: true, Abandon: true})
	k.conn.Close()
}

// serveKeeper is the keeper, a stop guard when guard is not "": it
// answers the requests that come over its socket until the tracer
// closes it or exits, then lets the links go and returns the exit
// status.
func serveKeeper(guard string) int {
	selfexec.Serve()
	f := os.NewFile(keeperFD, "keeper")
	fc, err := net.FileConn(f)
	f.Close()
	if err != nil {
		return 1
	}
	conn := fc.(*net.UnixConn)
	defer conn.Close()
	// The mount goes with this process, however it ends, and with it
	// the links still pinned.
	pins, _ := openPinDir()
	prog, err := receiveProg(conn)
	if err != nil {
		return 1
	}
	s := &keeperState{links: localLinks{prog: prog, pins: pins}, guard: guard}
	s.journal, _ = journal.NewJournal()
	if info, err := prog.Info(); err == nil {
		s.id, _ = info.ID()
	}
	defer s.letGo()
	enc, dec := gob.NewEncoder(conn), gob.NewDecoder(conn)
	for {
		var req keeperRequest
		if err := dec.Decode(&req); err != nil {
			break // the tracer is gone
		}
		if req.Abandon {
			// Nobody waits: the kernel releases the links after.
			s.guard, s.id = "", 0
			return 0
		}
		var err error
		if req.Detach {
			s.guard = "" // the tracer continues what it stopped
			err = s.letGo()
		} else {
			err = s.attach(&req.Attach)
		}
		if enc.Encode(replyTo(err)) != nil {
			break
		}
	}
	if err := s.letGo(); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", selfexec.Name, err)
	}
	if s.guard == "" {
		return 0
	}
	if err := continueGuarded(s.guard); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", selfexec.Name, err)
		return 1
	}
	return 0
}

// keeperState is what a keeper holds.
type keeperState struct {
	links   localLinks
	id      ebpf.ProgramID // of links.prog, 0 if unknown
	guard   string
	journal *journal.Journal // nil if none could be kept
}

// attach records the sites of req in the journal, then attaches them.
// Without a journal, it attaches them all the same: the journal only
// serves a repair after a SIGKILL.
func (s *keeperState) attach(req *attachRequest) error {
	if s.journal != nil && len(req.Offsets) > 0 {
		var st unix.Stat_t
		if unix.Stat(req.Path, &st) == nil {
			s.journal.Add(journal.Planned{Path: req.Path, Dev: st.Dev, Inode: st.Ino, PID: req.PID,
				Offsets: req.Offsets, RefCtrOffsets: req.RefCtrOffsets})
		}
	}
	return s.links.attach(req)
}

// letGo lets every link go and, once the program is closed, waits until
// the kernel has released them; the journal then goes.
func (s *keeperState) letGo() error {
	if s.links.prog == nil {
		return nil
	}
	err := s.links.detach()
	s.links.prog.Close()
	s.links.prog = nil
	if s.id != 0 && s.links.pins != nil {
		err = errors.Join(err, waitGone(s.id, releaseWait))
	}
	if err == nil && s.journal != nil {
		err = s.journal.Remove()
	}
	return err
}

// continueGuarded sends SIGCONT to the process of the guard's pidfd,
// for "-", or to the stopped processes of the cgroup at dir.
func continueGuarded(dir string) error {
	if dir == "-" {
		return unix.PidfdSendSignal(guardPidfdFD, unix.SIGCONT, nil, 0)
	}
	return continueStopped(dir)
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
