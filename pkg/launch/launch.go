package launch

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// Options adjust Start. The zero value runs the command with this
// process's environment, standard input, output and error.
type Options struct {
	// Env is the command's environment (os.Environ() if nil).
	Env []string
	// Stdin, Stdout and Stderr are the command's standard files; nil
	// is the corresponding file of this process.
	Stdin, Stdout, Stderr *os.File
	// Cgroup, when not nil, is the cgroup the command starts in: the
	// kernel puts it there as it forks (clone3's CLONE_INTO_CGROUP,
	// Linux 5.7), before it runs anything.
	Cgroup *Cgroup
	// OwnCgroup, when not "", has Start make a cgroup for the command
	// and its descendants alone, a child of this process's cgroup
	// named by OwnerPattern(OwnCgroup), after removing those of that
	// prefix that tracers killed before left (RemoveStale); End
	// removes it. It excludes Cgroup.
	OwnCgroup string
}

// A Command is a program started by Start, stopped before its first
// instruction until Release.
type Command struct {
	// Pid is the process ID of the command, which its program keeps.
	Pid int
	// Path is the executable the process runs, through /proc/PID/exe.
	Path string
	// Libraries are the shared libraries the dynamic loader will load
	// at its start (see Libraries).
	Libraries []string
	// Cgroup is the cgroup the command started in (Options.Cgroup or
	// Options.OwnCgroup), nil without.
	Cgroup *Cgroup

	cmd      *exec.Cmd
	ownCg    bool          // Cgroup was made by Start, and End removes it
	release  chan struct{} // closed by Release, to the tracing thread
	released chan error    // the tracing thread's PTRACE_DETACH
	once     sync.Once
	err      error
	running  bool // released

	waitOnce sync.Once
	status   int
	waitErr  error
}

// Start starts the program argv[0], looked up in $PATH as a shell does
// when it has no '/', with the arguments argv[1:], and returns once the
// execve has succeeded and the process is stopped at its first
// instruction, in the dynamic loader or, for a static program, at its
// entry point. The Command must be released or killed.
//
// A program that cannot be run is a *StartError. Where /proc belongs to
// another PID namespace, whose /proc/PID is not the command, the error
// matches ErrForeignProc and nothing is started.
func Start(argv []string, opts *Options) (*Command, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if len(argv) == 0 || argv[0] == "" {
		return nil, &StartError{Err: exec.ErrNotFound}
	}
	if err := checkProc("/proc", os.Getpid()); err != nil {
		return nil, err
	}
	if o.OwnCgroup == "" {
		return start(argv, &o)
	}
	if o.Cgroup != nil {
		return nil, errors.New("start: both Cgroup and OwnCgroup given")
	}
	RemoveStale(o.OwnCgroup)
	cg, err := NewCgroup(OwnerPattern(o.OwnCgroup))
	if err != nil {
		return nil, err
	}
	o.Cgroup = cg
	c, err := start(argv, &o)
	if err != nil {
		cg.Remove()
		return nil, err
	}
	c.ownCg = true
	return c, nil
}

// start is Start once the cgroup is made.
func start(argv []string, opts *Options) (*Command, error) {
	o := *opts
	path, err := exec.LookPath(argv[0])
	if err != nil && !errors.Is(err, exec.ErrDot) {
		return nil, &StartError{Name: argv[0], Err: lookErr(err)}
	}
	cmd := exec.Command(path)
	cmd.Args = argv
	cmd.Env = o.Env
	cmd.Stdin = or(o.Stdin, os.Stdin)
	cmd.Stdout = or(o.Stdout, os.Stdout)
	cmd.Stderr = or(o.Stderr, os.Stderr)
	cmd.SysProcAttr = &syscall.SysProcAttr{
		// Stopped with SIGTRAP once execve has succeeded.
		Ptrace: true,
		// As bpftrace -c: the command ends when the tracer does.
		Pdeathsig: syscall.SIGTERM,
	}
	if o.Cgroup != nil {
		cmd.SysProcAttr.UseCgroupFD = true
		cmd.SysProcAttr.CgroupFD = int(o.Cgroup.dir.Fd())
	}
	c := &Command{cmd: cmd, Cgroup: o.Cgroup, release: make(chan struct{}), released: make(chan error, 1)}
	started := make(chan error, 1)
	go c.trace(started)
	if err := <-started; err != nil {
		return nil, err
	}
	c.Pid = cmd.Process.Pid
	c.Path = "/proc/" + strconv.Itoa(c.Pid) + "/exe"
	env := o.Env
	if env == nil {
		env = os.Environ()
	}
	if c.Libraries, err = Libraries(c.Path, env); err != nil {
		c.Kill()
		return nil, err
	}
	return c, nil
}

func or(f, def *os.File) *os.File {
	if f != nil {
		return f
	}
	return def
}

// lookErr returns the cause of exec.LookPath's error: ErrNotFound, or
// why the file cannot be run.
func lookErr(err error) error {
	var ee *exec.Error
	if errors.As(err, &ee) {
		return ee.Err
	}
	return err
}

// trace starts the command and is its tracer until Release: a ptrace
// tracer is a thread, so this goroutine keeps to one.
func (c *Command) trace(started chan<- error) {
	runtime.LockOSThread()
	// Locked until the end: were the thread to end, the command would
	// get its Pdeathsig.
	defer runtime.UnlockOSThread()
	if err := c.cmd.Start(); err != nil {
		started <- &StartError{Name: c.cmd.Args[0], Err: lookErr(err)}
		return
	}
	pid := c.cmd.Process.Pid
	var ws unix.WaitStatus
	for {
		_, err := unix.Wait4(pid, &ws, unix.WALL, nil)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			c.cmd.Process.Kill()
			started <- fmt.Errorf("wait for %s to start: %w", c.cmd.Path, err)
			return
		}
		break
	}
	if !ws.Stopped() {
		// Killed before its first instruction, and reaped here.
		c.waitOnce.Do(func() { c.status = waitStatus(ws) })
		started <- fmt.Errorf("%s ended before it started: %s", c.cmd.Path, StatusString(c.status))
		return
	}
	// Should sdtattach die before Release, the command dies too,
	// rather than run untraced.
	if err := unix.PtraceSetOptions(pid, unix.PTRACE_O_EXITKILL); err != nil {
		c.cmd.Process.Kill()
		started <- fmt.Errorf("ptrace %s: %w", c.cmd.Path, err)
		return
	}
	started <- nil
	<-c.release
	// Detaching drops the SIGTRAP of the stop: the command runs on as if
	// never stopped.
	c.released <- unix.PtraceDetach(pid)
}

// Release lets the command run. Calling it again does nothing.
func (c *Command) Release() error {
	c.once.Do(func() {
		close(c.release)
		if err := <-c.released; err != nil {
			c.err = fmt.Errorf("release %s: %w", c.cmd.Path, err)
		} else {
			c.running = true
		}
	})
	return c.err
}

// Released reports whether Release let the command run.
func (c *Command) Released() bool {
	c.once.Do(func() {}) // a Release in progress is done
	return c.running
}

// Kill kills the command, released or not, and waits for it.
func (c *Command) Kill() {
	c.cmd.Process.Kill()
	c.Release()
	c.Wait()
}

// Signal sends sig to the command.
func (c *Command) Signal(sig os.Signal) error { return c.cmd.Process.Signal(sig) }

// Wait waits for the command to exit and returns its exit status as a
// shell gives it: the status it exited with, or 128+N when killed by
// signal N. It may be called more than once.
func (c *Command) Wait() (int, error) {
	c.waitOnce.Do(func() {
		err := c.cmd.Wait()
		var ee *exec.ExitError
		switch {
		case errors.As(err, &ee):
			c.status = waitStatus(unix.WaitStatus(ee.Sys().(syscall.WaitStatus)))
		case err != nil:
			c.waitErr = err
		}
	})
	return c.status, c.waitErr
}
