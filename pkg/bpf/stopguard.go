package bpf

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/sdtkit/sdtkit/internal/selfexec"
)

// A stop guard is a child process, this same executable run again,
// that lets the processes a Stopper follows run on should the tracer die
// while one of them is stopped: a SIGKILL between the stop and the
// tracer's SIGCONT would leave it stopped for good. It holds a copy of
// the Stopper's link, so that the uprobe outlives the tracer until the
// guard lets it go. When the tracer closes the guard's socket without a
// word, the guard waits until the tracer has exited (its copy of the
// link is closed then; the tracer hands the guard a pidfd of itself, as
// the guard's parent may already be a subreaper when it asks), closes
// its own (no thread stops from then on) and sends SIGCONT to the
// process followed, or to every process of the cgroup followed that has
// a stopped thread. When the tracer detaches, it says so first, and the
// guard only closes its link.

// stopGuardEnv, when set in the environment, makes the executable a
// stop guard, of the cgroup directory it holds, or "-" for the process
// given as a pidfd.
const stopGuardEnv = "SDTKIT_STOP_GUARD"

// The guard's descriptors: its end of the socket, the link, a pidfd of
// the tracer, and a pidfd of the process followed.
const (
	guardConnFD   = 3
	guardLinkFD   = 4
	guardTracerFD = 5
	guardPidfdFD  = 6
)

func init() {
	if dir := os.Getenv(stopGuardEnv); dir != "" {
		os.Exit(serveStopGuard(dir))
	}
}

// A stopGuard is the tracer's side of a stop guard process.
type stopGuard struct {
	cmd    *exec.Cmd
	conn   *os.File
	exited chan struct{} // closed once the guard has exited
	err    error         // its exit's, once exited
}

// startStopGuard starts the guard of the process of pidfd (when not -1)
// or of the processes of the cgroup at dir, holding a copy of link.
func startStopGuard(linkFD, pidfd int, dir string) (*stopGuard, error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("start stop guard: socketpair: %w", err)
	}
	ours := os.NewFile(uintptr(fds[0]), "stop guard")
	theirs := os.NewFile(uintptr(fds[1]), "stop guard")
	files := []*os.File{theirs}
	defer func() {
		for _, f := range files {
			f.Close()
		}
	}()
	// The tracer, named by a pidfd of its own: the guard's parent may
	// be another by the time it asks (a subreaper's, should the tracer
	// die at once).
	tracer, err := unix.PidfdOpen(os.Getpid(), 0)
	if err != nil {
		ours.Close()
		return nil, fmt.Errorf("start stop guard: %w", err)
	}
	defer unix.Close(tracer)
	// Copies, closed once the guard has its own: the originals stay
	// the Stopper's.
	for _, fd := range []int{linkFD, tracer, pidfd} {
		if fd < 0 {
			continue
		}
		dup, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0)
		if err != nil {
			ours.Close()
			return nil, fmt.Errorf("start stop guard: %w", err)
		}
		files = append(files, os.NewFile(uintptr(dup), "stop guard"))
	}
	env := "-"
	if pidfd < 0 {
		env = dir
	}
	cmd, err := selfexec.Start(stopGuardEnv+"="+env, files...)
	if err != nil {
		ours.Close()
		return nil, fmt.Errorf("start stop guard: %w", err)
	}
	g := &stopGuard{cmd: cmd, conn: ours, exited: make(chan struct{})}
	go func() {
		g.err = cmd.Wait()
		close(g.exited)
	}()
	return g, nil
}

// release tells the guard that the tracer detaches, and waits until it
// has closed its copy of the link and exited.
func (g *stopGuard) release() error {
	if g == nil || g.conn == nil {
		return nil
	}
	g.conn.Write([]byte{1})
	g.conn.Close()
	g.conn = nil
	<-g.exited
	if g.err != nil {
		return fmt.Errorf("stop guard: %w", g.err)
	}
	return nil
}

// abandon tells the guard that the tracer detaches, without waiting for
// it to let the uprobe go.
func (g *stopGuard) abandon() {
	if g == nil || g.conn == nil {
		return
	}
	g.conn.Write([]byte{1})
	g.conn.Close()
	g.conn = nil
}

// serveStopGuard is the guard, of the cgroup at dir or, for "-", of the
// process of its pidfd. It returns the exit status.
func serveStopGuard(dir string) int {
	selfexec.Serve()
	var b [1]byte
	if n, _ := unix.Read(guardConnFD, b[:]); n == 1 {
		unix.Close(guardLinkFD) // the tracer detaches
		return 0
	}
	// The tracer is gone, or going: once it has exited, its copy of
	// the link is closed, and with this one no thread stops.
	unix.Poll([]unix.PollFd{{Fd: guardTracerFD, Events: unix.POLLIN}}, 10000)
	unix.Close(guardLinkFD)
	if dir == "-" {
		unix.PidfdSendSignal(guardPidfdFD, unix.SIGCONT, nil, 0)
		return 0
	}
	if err := continueStopped(dir); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", selfexec.Name, err)
		return 1
	}
	return 0
}

// continueStopped sends SIGCONT to the processes of the cgroup at dir
// that have a stopped thread.
func continueStopped(dir string) error {
	f, err := os.Open(filepath.Join(dir, "cgroup.procs"))
	if err != nil {
		return err
	}
	defer f.Close()
	var errs []error
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		pid, err := strconv.Atoi(strings.TrimSpace(sc.Text()))
		if err != nil || !stopped(pid) {
			continue
		}
		if err := unix.Kill(pid, unix.SIGCONT); err != nil && !errors.Is(err, unix.ESRCH) {
			errs = append(errs, fmt.Errorf("process %d: %w", pid, err))
		}
	}
	return errors.Join(append(errs, sc.Err())...)
}

// stopped reports whether a thread of process pid is stopped by a
// signal: not only the main thread, which may have exited (a zombie
// while the others run, or wait stopped).
func stopped(pid int) bool {
	task := "/proc/" + strconv.Itoa(pid) + "/task"
	ents, err := os.ReadDir(task)
	if err != nil {
		return false
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(task, e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(b)
		if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) && s[i+2] == 'T' {
			return true
		}
	}
	return false
}
