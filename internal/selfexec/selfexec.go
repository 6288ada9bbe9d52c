// Package selfexec starts and sets up the helper processes of sdtkit's
// packages: this same executable run again, under the command name
// Name, in a session of its own, with descriptors handed over from the
// third on. Each package's init tells, by an environment variable of its
// own, that it is to run as its helper (see Serve).
package selfexec

import (
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Name is the helpers' command name, as ps shows it: not the tracer's,
// so that pkill -9 TRACER does not reach them.
const Name = "sdtkit-keeper"

// Start starts this executable again as a helper, with env (KEY=VALUE)
// added to the environment and files as its descriptors 3 and on. The
// caller waits for it.
func Start(env string, files ...*os.File) (*exec.Cmd, error) {
	cmd := &exec.Cmd{
		// This very executable, even if its file was replaced since.
		Path:       "/proc/self/exe",
		Args:       []string{Name},
		Env:        append(os.Environ(), env),
		ExtraFiles: files,
		// In a session of its own, out of reach of the signals a
		// terminal sends to the tracer's process group.
		SysProcAttr: &syscall.SysProcAttr{Setsid: true},
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return cmd, nil
}

// Serve sets up the process as a helper, from an init function: it
// ignores the signals meant for the tracer (the helper stops when the
// tracer does), takes the command name Name, rather than "exe" (init
// runs on the main thread, whose name ps shows), and asks the OOM killer
// to pass it over, where it may: a helper holds little memory, and one
// killed while the kernel registers its uprobes leaves them half made.
func Serve() {
	signal.Ignore(unix.SIGINT, unix.SIGTERM, unix.SIGHUP, unix.SIGQUIT, unix.SIGPIPE)
	unix.Prctl(unix.PR_SET_NAME, uintptr(unsafe.Pointer(&[]byte(Name + "\x00")[0])), 0, 0, 0)
	os.WriteFile("/proc/self/oom_score_adj", []byte("-1000"), 0)
}
