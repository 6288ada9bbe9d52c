package scripttest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
	"rsc.io/script"
)

const (
	tracefsDir  = "/sys/kernel/tracing"
	uprobeGroup = "sdtkit_test"
)

// tracefs returns the tracefs mount point, mounting it first if needed.
var tracefs = sync.OnceValues(func() (string, error) {
	events := filepath.Join(tracefsDir, "uprobe_events")
	if _, err := os.Stat(events); err == nil {
		return tracefsDir, nil
	}
	if err := unix.Mount("nodev", tracefsDir, "tracefs", 0, ""); err != nil && !errors.Is(err, unix.EBUSY) {
		return "", fmt.Errorf("mount tracefs on %s: %w", tracefsDir, err)
	}
	if _, err := os.Stat(events); err != nil {
		return "", fmt.Errorf("tracefs: %w", err)
	}
	return tracefsDir, nil
})

// An uprobe is one enabled uprobe event created by a script.
type uprobe struct {
	event string // GROUP/EVENT in tracefs
}

// uprobes records the uprobes each script has added, so that they are
// removed when the script ends however it ends.
var uprobes struct {
	sync.Mutex
	seq     int
	byState map[*script.State]map[string]*uprobe
}

var eventName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// Uprobe adds and deletes enabled uprobes through tracefs. The kernel
// then writes a breakpoint at the site in every process that maps the
// file, and increments the probe's semaphore (the reference counter) in
// each of them.
func Uprobe() script.Cmd {
	return script.Command(
		script.CmdUsage{
			Summary: "add or delete an enabled uprobe through tracefs",
			Args:    "add NAME FILE OFFSET [REFCTR_OFFSET] | del NAME",
			Detail: []string{
				"OFFSET and REFCTR_OFFSET are file offsets, in decimal or 0x hex, such as the pc_offset and semaphore_offset printed by sdtlist.",
				"The event is created as sdtkit_test/NAME_PID_N, N making it unique, and enabled.",
				"Every uprobe a script adds is deleted when the script ends.",
			},
		},
		func(s *script.State, args ...string) (script.WaitFunc, error) {
			switch {
			case len(args) >= 4 && len(args) <= 5 && args[0] == "add":
				return nil, addUprobe(s, args[1], args[2], args[3:])
			case len(args) == 2 && args[0] == "del":
				return nil, delUprobe(s, args[1])
			}
			return nil, script.ErrUsage
		})
}

func addUprobe(s *script.State, name, file string, offsets []string) error {
	if !eventName.MatchString(name) {
		return fmt.Errorf("uprobe name %q: want letters, digits and _", name)
	}
	var def strings.Builder
	for i, o := range offsets {
		v, err := parseOffset(o)
		if err != nil {
			return err
		}
		if i == 0 {
			fmt.Fprintf(&def, ":%#x", v)
		} else {
			fmt.Fprintf(&def, "(%#x)", v)
		}
	}
	dir, err := tracefs()
	if err != nil {
		return err
	}

	uprobes.Lock()
	defer uprobes.Unlock()
	if uprobes.byState[s][name] != nil {
		return fmt.Errorf("uprobe %s already added", name)
	}
	uprobes.seq++
	event := fmt.Sprintf("%s/%s_%d_%d", uprobeGroup, name, os.Getpid(), uprobes.seq)
	line := fmt.Sprintf("p:%s %s%s", event, s.Path(file), def.String())
	if err := appendFile(filepath.Join(dir, "uprobe_events"), line); err != nil {
		return fmt.Errorf("uprobe_events %q: %w%s", line, err, errorLog(dir))
	}
	u := &uprobe{event: event}
	if err := os.WriteFile(filepath.Join(dir, "events", event, "enable"), []byte("1\n"), 0); err != nil {
		err = fmt.Errorf("enable %s: %w%s", event, err, errorLog(dir))
		return errors.Join(err, u.remove(dir))
	}
	s.Logf("[uprobe %s: %s]\n", name, line)

	if uprobes.byState == nil {
		uprobes.byState = make(map[*script.State]map[string]*uprobe)
	}
	if uprobes.byState[s] == nil {
		uprobes.byState[s] = make(map[string]*uprobe)
		context.AfterFunc(s.Context(), func() { removeUprobes(s) })
	}
	uprobes.byState[s][name] = u
	return nil
}

func delUprobe(s *script.State, name string) error {
	uprobes.Lock()
	defer uprobes.Unlock()
	u := uprobes.byState[s][name]
	if u == nil {
		return fmt.Errorf("uprobe %s: not added", name)
	}
	delete(uprobes.byState[s], name)
	dir, err := tracefs()
	if err != nil {
		return err
	}
	return u.remove(dir)
}

// removeUprobes deletes the uprobes left by script s, or by every script
// when s is nil. Those that cannot be deleted stay recorded, so that
// RemoveUprobes retries them and reports the error.
func removeUprobes(s *script.State) error {
	uprobes.Lock()
	defer uprobes.Unlock()
	var errs []error
	for st, m := range uprobes.byState {
		if s != nil && st != s {
			continue
		}
		for name, u := range m {
			dir, err := tracefs()
			if err == nil {
				err = u.remove(dir)
			}
			if err != nil {
				errs = append(errs, fmt.Errorf("uprobe %s: %w", name, err))
				continue
			}
			delete(m, name)
		}
		if len(m) == 0 {
			delete(uprobes.byState, st)
		}
	}
	return errors.Join(errs...)
}

// RemoveUprobes deletes every uprobe that scripts added and have not
// deleted yet. Scripts delete theirs when they end; this catches the
// ones whose script has not finished cleaning up when the test ends.
func RemoveUprobes() error { return removeUprobes(nil) }

func (u *uprobe) remove(dir string) error {
	enable := filepath.Join(dir, "events", u.event, "enable")
	err := os.WriteFile(enable, []byte("0\n"), 0)
	if errors.Is(err, os.ErrNotExist) {
		err = nil
	}
	if err2 := appendFile(filepath.Join(dir, "uprobe_events"), "-:"+u.event); err2 != nil {
		err = errors.Join(err, fmt.Errorf("delete %s: %w", u.event, err2))
	}
	return err
}

// appendFile writes one line to a tracefs control file without
// truncating it, which would delete every other uprobe event.
func appendFile(name, line string) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteString(line + "\n")
	return errors.Join(err, f.Close())
}

// errorLog returns the last line of tracefs's error_log, which says why
// the kernel rejected a definition.
func errorLog(dir string) string {
	b, err := os.ReadFile(filepath.Join(dir, "error_log"))
	b = bytes.TrimSpace(b)
	if err != nil || len(b) == 0 {
		return ""
	}
	if i := bytes.LastIndex(b, []byte("\n[")); i >= 0 {
		b = b[i+1:]
	}
	return " (error_log: " + string(b) + ")"
}

func parseOffset(s string) (uint64, error) {
	base := 10
	digits := s
	if h, ok := strings.CutPrefix(strings.ToLower(s), "0x"); ok {
		base, digits = 16, h
	}
	v, err := strconv.ParseUint(digits, base, 64)
	if err != nil {
		return 0, fmt.Errorf("offset %q: want decimal or 0x hex", s)
	}
	return v, nil
}
