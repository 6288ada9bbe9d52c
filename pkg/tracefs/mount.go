package tracefs

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// DefaultDir is where tracefs is mounted when it is not mounted yet.
const DefaultDir = "/sys/kernel/tracing"

var (
	// ErrNoTracefs is the error of Mount when tracefs is not mounted and
	// cannot be, or has no uprobe_events file; a refusal matches
	// ErrPermission instead.
	ErrNoTracefs = errors.New("tracefs with uprobe_events not available")

	// ErrPermission is matched by the errors of Mount and Open when this
	// process lacks the privilege they take: mounting tracefs takes
	// CAP_SYS_ADMIN, its files are root's (the directory's mode is 0700
	// unless it is mounted with other options), and the perf events
	// that enable the uprobes take CAP_PERFMON (or a perf_event_paranoid
	// of -1).
	ErrPermission = errors.New("needs root, or CAP_PERFMON and write access to tracefs")
)

// Mount returns the directory where tracefs is mounted, as
// /proc/self/mountinfo lists it, mounting it at DefaultDir first when it
// is mounted nowhere (which takes root).
func Mount() (string, error) {
	if dir, err := findMount("/proc/self/mountinfo"); err == nil && dir != "" {
		return checkDir(dir)
	}
	if err := unix.Mount("nodev", DefaultDir, "tracefs", 0, ""); err != nil && !errors.Is(err, unix.EBUSY) {
		return "", unavailable(fmt.Errorf("mount tracefs on %s: %w", DefaultDir, err), privileged())
	}
	return checkDir(DefaultDir)
}

// checkDir returns dir if it has an uprobe_events file.
func checkDir(dir string) (string, error) {
	if _, err := os.Stat(filepath.Join(dir, "uprobe_events")); err != nil {
		return "", unavailable(err, privileged())
	}
	return dir, nil
}

// unavailable returns the error of Mount for err, the failure of
// mounting tracefs or of finding its uprobe_events file. A refusal is
// not a kernel without uprobes: it says what privilege is missing or,
// when the process has it all, that something else refuses.
func unavailable(err error, privileged bool) error {
	if errors.Is(err, os.ErrPermission) {
		return permission(err, privileged)
	}
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%w: %w (a kernel without CONFIG_UPROBE_EVENTS?)", ErrNoTracefs, err)
	}
	return fmt.Errorf("%w: %w", ErrNoTracefs, err)
}

// findMount returns the mount point of the first tracefs in the
// mountinfo file name, "" if none.
func findMount(name string) (string, error) {
	b, err := os.ReadFile(name)
	if err != nil {
		return "", err
	}
	return parseMountinfo(b), nil
}

// parseMountinfo returns the mount point of the first tracefs that
// mountinfo lists (proc(5): the fifth field is the mount point, the
// filesystem type follows the " - " separator), "" if none.
func parseMountinfo(b []byte) string {
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		if !ok {
			continue
		}
		f := strings.Fields(pre)
		if len(f) < 5 || !strings.HasPrefix(post, "tracefs ") {
			continue
		}
		return unescapeOctal(f[4])
	}
	return ""
}

// unescapeOctal undoes the \NNN escapes of blanks and backslashes in
// mountinfo paths.
func unescapeOctal(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) && isOctal(s[i+1]) && isOctal(s[i+2]) && isOctal(s[i+3]) {
			b.WriteByte((s[i+1]-'0')<<6 | (s[i+2]-'0')<<3 | (s[i+3] - '0'))
			i += 3
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }
