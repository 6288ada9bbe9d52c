package bpf

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/cilium/ebpf"
	"golang.org/x/sys/unix"

	"github.com/sdtkit/sdtkit/internal/selfexec"
	"github.com/sdtkit/sdtkit/pkg/journal"
	"github.com/sdtkit/sdtkit/pkg/process"
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
// The keeper itself may be killed too (kill -9 of both, an OOM killer,
// though it asks the OOM killer to pass it over): it never closes a link
// with close(2), which a SIGKILL interrupts just as it interrupts a
// registration, but exits to let them go, on the tracer's request or
// once the tracer is gone: the kernel closes the descriptors of a
// process that exits when no signal can reach it any more, and the
// removal completes, however the exit began. What a keeper killed while
// the kernel registers its uprobes leaves cannot be helped: it records
// what it attaches (package journal) before it attaches it, so that a
// repair can undo it.
//
// The protocol runs over a socket pair: the tracer sends the program's
// descriptor once, then JSON-encoded keeperRequests, each answered by a
// keeperReply but a detach, which the tracer waits for by waiting for
// the keeper's exit. The end of the stream means the tracer is gone.
//
// A keeper may also guard the processes a Stopper stops (stop guard):
// should the tracer be gone while one of them is stopped, it lets the
// Stopper's uprobe go, waits until the kernel released it, and sends
// SIGCONT to the process followed, or to every process of the cgroup
// followed that has a stopped thread. That release cannot wait for its
// exit: the guard then pins the link in a bpf filesystem of its own,
// whose removal the kernel completes from a worker of its own (see
// pinDir).

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
	// Detach has a keeper exit, with no reply: the tracer waits for its
	// exit. A stop guard lets its link go and replies.
	Detach bool
	// Continued tells a stop guard, after Detach, that the tracer let
	// run on every process it saw stopped: the guard exits.
	Continued bool
	Attach    attachRequest
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
	enc    *json.Encoder
	dec    *json.Decoder
	exited chan struct{} // closed once the keeper has exited
	err    error         // its exit's, once exited
	// w sees the breakpoints of the links for every process go (see
	// witness); nil for a stop guard.
	w *witness
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
	k := &keeper{cmd: cmd, conn: conn, enc: json.NewEncoder(conn), dec: json.NewDecoder(conn), exited: make(chan struct{})}
	go func() {
		k.err = cmd.Wait()
		close(k.exited)
	}()
	return k, nil
}

// sendProg hands the keeper the program to attach.
func (k *keeper) sendProg(prog *ebpf.Program) error {
	if _, _, err := k.conn.WriteMsgUnix([]byte{0}, unix.UnixRights(prog.FD()), nil); err != nil {
		return k.failed(fmt.Errorf("send program: %w", err))
	}
	return nil
}

func (k *keeper) attach(req *attachRequest) error {
	witnessed := k.w != nil && !k.w.broken && req.Multi && req.PID == 0 && req.Symbol == "" && len(req.Offsets) > 0
	if witnessed && k.w.add(req.Path, req.Offsets) != nil {
		k.w.broken, witnessed = true, false
	}
	if !witnessed && k.w != nil {
		// Links the witness cannot see: wait for the exit.
		k.w.broken = true
	}
	err := k.call(&keeperRequest{Attach: *req})
	switch {
	case witnessed && err != nil:
		k.w.dropLast()
	case witnessed:
		k.w.attached()
	}
	return err
}

// detach has the keeper exit, which lets every link go, and waits
// until it has: the program runs no more, and every site and semaphore
// is restored. Nothing can be attached after.
func (k *keeper) detach() error {
	if err := k.enc.Encode(&keeperRequest{Detach: true}); err != nil {
		return k.failed(err)
	}
	k.w.close()
	return k.wait()
}

// close has the keeper exit, which lets every link go, and returns
// once every site and semaphore is restored in every process: where
// the witness sees the breakpoints gone, before the keeper has exited,
// while the kernel still waits for handlers of the program that may
// run (see witness); the keeper then exits by itself.
func (k *keeper) close() error {
	defer k.w.close()
	if !k.w.usable() {
		return k.wait()
	}
	k.conn.Close()
	if k.w.await(k.exited) {
		select {
		case <-k.exited: // an exit status to report
		default:
			return nil
		}
	}
	return k.wait()
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

// wait ends the keeper, which lets the links go, and waits for it, so
// that every site is restored and the program runs no more when it
// returns.
func (k *keeper) wait() error {
	k.conn.Close()
	<-k.exited
	if k.err != nil {
		return fmt.Errorf("keeper process: %w", k.err)
	}
	return nil
}

// abandon has the keeper let the links go without waiting for it, and a
// stop guard continue nothing: no process it stopped is left.
func (k *keeper) abandon() {
	k.enc.Encode(&keeperRequest{Detach: true})
	k.enc.Encode(&keeperRequest{Continued: true})
	k.conn.Close()
}

// detachGuard has a stop guard let its link go, and returns once it has:
// no thread stops from then on.
func (k *keeper) detachGuard() error {
	return k.call(&keeperRequest{Detach: true})
}

// continued tells a stop guard that every process it stopped was let run
// on, and waits for it to exit.
func (k *keeper) continued() error {
	k.enc.Encode(&keeperRequest{Continued: true})
	return k.wait()
}

// serveKeeper is the keeper, a stop guard when guard is not "": it
// answers the requests that come over its socket until the tracer asks
// it to detach, closes the socket or exits, and returns the exit status.
//
// The links go with the process: the kernel closes its descriptors as it
// exits, when no signal can interrupt the uprobes' removal any more (a
// process that exits drops every signal sent to it, SIGKILL included).
// A close(2) of a link, which a SIGKILL can interrupt half way, is made
// by a stop guard alone, which must see its uprobe gone before it lets a
// process run on: when told to detach (the tracer then lets run on the
// stops it read, and says so), and when its tracer is gone where it
// could not pin the link (see letGo).
func serveKeeper(guard string) int {
	selfexec.Serve()
	f := os.NewFile(keeperFD, "keeper")
	fc, err := net.FileConn(f)
	f.Close()
	if err != nil {
		return 1
	}
	conn := fc.(*net.UnixConn)
	prog, err := receiveProg(conn)
	if err != nil {
		return 1
	}
	s := &keeperState{links: localLinks{prog: prog}}
	s.journal, _ = journal.NewJournal()
	defer s.forget()
	if guard != "" && s.journal != nil {
		s.journal.Guard(guarded(guard))
	}
	enc, dec := json.NewEncoder(conn), json.NewDecoder(conn)
	detached := false
	for {
		var req keeperRequest
		if err := dec.Decode(&req); err != nil {
			break // the tracer is gone
		}
		switch {
		case req.Continued:
			return 0
		case req.Detach && guard == "":
			return 0 // the tracer waits for the exit
		case req.Detach:
			// No thread stops once the reply is sent; the tracer
			// then lets run on those stopped before, and says so.
			detached = true
			if enc.Encode(replyTo(s.links.detach())) != nil {
				return guardGone(guard, s, detached)
			}
		default:
			if enc.Encode(replyTo(s.attach(&req.Attach))) != nil {
				return guardGone(guard, s, detached)
			}
		}
	}
	return guardGone(guard, s, detached)
}

// guardGone is what a keeper does once its tracer is gone: a plain
// keeper exits, which lets its links go; a stop guard lets its link go
// unless detached, and lets the processes it guards run on, whose stops
// the tracer may not have. It returns the exit status.
func guardGone(guard string, s *keeperState, detached bool) int {
	if guard == "" {
		return 0
	}
	status := 0
	if !detached {
		if info, err := s.links.prog.Info(); err == nil {
			if id, ok := info.ID(); ok {
				s.id = id
			}
		}
		// Stopped processes are let run on at the latest after
		// stopWait, the kernel's release still going on, and once
		// more when it is done: a thread that hits the uprobe
		// meanwhile stops again.
		released := make(chan error, 1)
		go func() { released <- s.letGo() }()
		var err error
		select {
		case err = <-released:
		case <-time.After(stopWait):
			continueGuarded(guard)
			err = <-released
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", selfexec.Name, err)
			status = 1
		}
	}
	if err := continueGuarded(guard); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", selfexec.Name, err)
		status = 1
	}
	return status
}

// stopWait bounds how long a stop guard whose tracer is gone keeps the
// processes it guards stopped while the kernel releases its uprobe.
const stopWait = time.Second

// guarded returns what a stop guard of guard, a cgroup directory or "-"
// for the process of its pidfd, guards, as its journal records it.
func guarded(guard string) journal.Guarded {
	if guard != "-" {
		return journal.Guarded{Cgroup: guard}
	}
	b, err := os.ReadFile("/proc/self/fdinfo/" + strconv.Itoa(guardPidfdFD))
	if err != nil {
		return journal.Guarded{}
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "Pid:"); ok {
			pid, _ := strconv.Atoi(strings.TrimSpace(v))
			start, _ := process.StartTime(pid)
			return journal.Guarded{PID: pid, Start: start}
		}
	}
	return journal.Guarded{}
}

// keeperState is what a keeper holds.
type keeperState struct {
	links   localLinks
	id      ebpf.ProgramID   // of links.prog, for letGo; 0 if unknown
	journal *journal.Journal // nil if none could be kept
}

// attach records the sites of req in the journal, then attaches them.
// Without a journal, it attaches them all the same: the journal only
// serves a repair after a SIGKILL.
func (s *keeperState) attach(req *attachRequest) error {
	if s.journal != nil && len(req.Offsets) > 0 {
		var st unix.Stat_t
		if unix.Stat(req.Path, &st) == nil {
			s.journal.Add(journal.Planned{Path: req.Path, Dev: st.Dev, Inode: st.Ino, Ctime: st.Ctim.Nano(), PID: req.PID,
				Offsets: req.Offsets, RefCtrOffsets: req.RefCtrOffsets})
		}
	}
	err := s.links.attach(req)
	if s.journal != nil {
		// Made, or rolled back by a process that lives on.
		s.journal.Attached()
	}
	return err
}

// forget removes the journal, once no more uprobe can be made: those
// made are let go at the latest when the process exits, which nothing
// interrupts.
func (s *keeperState) forget() {
	if s.journal != nil {
		s.journal.Remove()
	}
}

// letGo lets every link go and waits until the kernel has released
// them, in a way no SIGKILL of this process can interrupt half way where
// it can: through pins (see pinDir), the program closed here (see
// waitGone). Elsewhere it closes them.
func (s *keeperState) letGo() error {
	pins, err := openPinDir()
	if err != nil {
		return s.links.detach()
	}
	// The mount goes with this process, however it ends, and with it
	// the links pinned there.
	defer pins.close()
	err = s.links.unpin(pins)
	s.links.prog.Close()
	s.links.prog = nil
	if s.id != 0 {
		err = errors.Join(err, waitGone(s.id, releaseWait))
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
