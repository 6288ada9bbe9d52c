package main

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sdtkit/sdtkit/internal/vmcheck"
)

// An env is what the checks run in.
type env struct {
	plan         *vmcheck.Plan
	major, minor int // the kernel's version
}

func newEnv(p *vmcheck.Plan) (*env, error) {
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		return nil, fmt.Errorf("uname: %w", err)
	}
	major, minor := parseRelease(unix.ByteSliceToString(u.Release[:]))
	return &env{plan: p, major: major, minor: minor}, nil
}

// parseRelease returns the major and minor numbers of a kernel release
// such as 6.1.0-56-amd64, 0 and 0 when it has none.
func parseRelease(rel string) (major, minor int) {
	f := strings.FieldsFunc(rel, func(r rune) bool { return r < '0' || r > '9' })
	if len(f) < 2 {
		return 0, 0
	}
	major, _ = strconv.Atoi(f[0])
	minor, _ = strconv.Atoi(f[1])
	return major, minor
}

// atLeast says whether the kernel is major.minor or later.
func (e *env) atLeast(major, minor int) bool {
	return e.major > major || e.major == major && e.minor >= minor
}

// fixture returns the path of the sdtgen fixture name.
func (e *env) fixture(name string) string { return filepath.Join(e.plan.Fixtures, name) }

// An output is what a command printed and how it ended.
type output struct {
	stdout, stderr string
	err            error
}

// toolTimeout bounds one run of a tool: under TCG with 16 vCPUs on two
// host cores, a run that takes a second on the host takes tens here.
const toolTimeout = 3 * time.Minute

// tool runs the static tool name with args.
func (e *env) tool(name string, args ...string) output {
	return e.toolTimeout(toolTimeout, name, args...)
}

// toolTimeout runs the static tool name with args, killed after timeout.
func (e *env) toolTimeout(timeout time.Duration, name string, args ...string) output {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(e.plan.Bin, name), args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		err = fmt.Errorf("timed out after %v: %w", timeout, err)
	}
	return output{stdout.String(), stderr.String(), err}
}

// failure describes a run that failed, with the first lines of its
// standard error.
func (o output) failure() string {
	msg := o.err.Error()
	if s := firstLines(o.stderr, 3); s != "" {
		msg += ": " + s
	}
	return msg
}

// firstLines returns the first n lines of s joined by "; ".
func firstLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "; ")
}

// backendNote returns what sdtattach said on stderr of the backend it
// chose by itself, or "".
func backendNote(stderr string) string {
	for _, l := range strings.Split(stderr, "\n") {
		if strings.Contains(l, "tracing with --backend tracefs") || strings.Contains(l, "tracing with the tracefs backend") ||
			strings.Contains(l, "tells the probe sites apart by their address") {
			return strings.TrimPrefix(l, "sdtattach: ")
		}
	}
	return ""
}

// joinNotes joins the notes of a passing check.
func joinNotes(notes []string) string { return strings.Join(notes, "; ") }
