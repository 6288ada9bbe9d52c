package tracefs

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// OwnerPrefix starts the group of the events a tracing process defines
// for itself: OwnerPrefix and its PID (OwnerGroup). Only groups of that
// exact form are ever removed by RemoveStale.
const OwnerPrefix = "sdtkit_"

// OwnerGroup returns the group of the events of process pid.
func OwnerGroup(pid int) string { return OwnerPrefix + strconv.Itoa(pid) }

// groupOwner returns the PID of an OwnerGroup, false for any other group.
func groupOwner(group string) (int, bool) {
	s, ok := strings.CutPrefix(group, OwnerPrefix)
	if !ok || s == "" || s[0] == '0' || len(s) > 10 {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	pid, err := strconv.Atoi(s)
	return pid, err == nil
}

// Events returns the events uprobe_events defines in dir, as
// "GROUP/EVENT", read whole before anything else is done with them: a
// read of uprobe_events while events are removed skips some.
func Events(dir string) ([]string, error) {
	b, err := os.ReadFile(filepath.Join(dir, "uprobe_events"))
	if err != nil {
		return nil, err
	}
	return parseEvents(b), nil
}

// parseEvents returns the GROUP/EVENT of each definition line.
func parseEvents(b []byte) []string {
	var evs []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		l := sc.Text()
		if len(l) < 2 || l[1] != ':' {
			continue
		}
		name, _, _ := strings.Cut(l[2:], " ")
		if strings.Contains(name, "/") {
			evs = append(evs, name)
		}
	}
	return evs
}

// Add writes the definitions to uprobe_events in dir, one write each.
// The error of a definition the kernel refuses quotes the kernel's
// error_log.
func Add(dir string, defs []*Definition) error {
	f, err := os.OpenFile(filepath.Join(dir, "uprobe_events"), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	// error_log keeps older messages, of others too: one is quoted only
	// when it is new.
	before := lastError(dir)
	for _, d := range defs {
		line := d.String()
		if _, err := f.WriteString(line + "\n"); err != nil {
			e := &DefineError{Line: line, Err: err}
			if l := lastError(dir); l != before {
				e.Log = messageOf(l)
			}
			return e
		}
	}
	return nil
}

// A DefineError is a definition the kernel refused.
type DefineError struct {
	Line string
	Log  string // the kernel's explanation, from error_log; may be ""
	Err  error
}

func (e *DefineError) Error() string {
	s := fmt.Sprintf("uprobe_events %q: %v", e.Line, e.Err)
	if e.Log != "" {
		s += ": " + e.Log
	}
	return s
}

func (e *DefineError) Unwrap() error { return e.Err }

// lastError returns the last message of error_log with the command it
// is about, "" if none.
func lastError(dir string) string {
	b, err := os.ReadFile(filepath.Join(dir, "error_log"))
	if err != nil {
		return ""
	}
	var last, cmd string
	for l := range strings.Lines(string(b)) {
		if _, msg, ok := strings.Cut(l, "error: "); ok {
			last, cmd = strings.TrimSpace(msg), ""
		} else if c, ok := strings.CutPrefix(strings.TrimSpace(l), "Command: "); ok {
			cmd = c
		}
	}
	if last == "" {
		return ""
	}
	return last + " (" + cmd + ")"
}

// messageOf returns the message of a lastError.
func messageOf(s string) string {
	msg, _, _ := strings.Cut(s, " (")
	return msg
}

// Remove deletes the events, given as "GROUP/EVENT", from uprobe_events
// in dir. An event already gone is no error; one still in use (EBUSY)
// is.
func Remove(dir string, events []string) error {
	if len(events) == 0 {
		return nil
	}
	f, err := os.OpenFile(filepath.Join(dir, "uprobe_events"), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	var errs []error
	for _, ev := range events {
		if _, err := f.WriteString("-:" + ev + "\n"); err != nil && !errors.Is(err, unix.ENOENT) {
			errs = append(errs, fmt.Errorf("remove %s: %w", ev, err))
		}
	}
	return errors.Join(errs...)
}

// removeRounds bounds how many times RemoveGroup lists the group's
// events again to remove those a list missed.
const removeRounds = 5

// RemoveGroup deletes every event of group from uprobe_events in dir.
// It first asks the kernel to remove the whole group ("-:GROUP/", which
// recent kernels take); then it lists what is left and removes that event
// by event, again while some remain: a read of uprobe_events while others
// remove events can skip some of those it should list.
func RemoveGroup(dir, group string) error {
	if f, err := os.OpenFile(filepath.Join(dir, "uprobe_events"), os.O_WRONLY|os.O_APPEND, 0); err == nil {
		f.WriteString("-:" + group + "/\n") // an older kernel's refusal leaves the events to the loop below
		f.Close()
	}
	for range removeRounds {
		evs, err := Events(dir)
		if err != nil {
			return err
		}
		left := inGroups(evs, func(g string) bool { return g == group })
		if len(left) == 0 {
			return nil
		}
		if err := Remove(dir, left); err != nil {
			return err
		}
	}
	return fmt.Errorf("remove the events of %s: some still listed after %d rounds", group, removeRounds)
}

// RemoveStale deletes the events of the groups of processes that no
// longer exist (OwnerGroup of a PID that this PID namespace has no
// process of), and those of self's own group, which can only be left by
// an earlier process with the same PID. Other groups are never touched.
// A group whose events are still in use (its owner's keeper still holds
// them as it exits) is left for a later call. It returns the groups it
// removed events of.
func RemoveStale(dir string, self int) ([]string, error) {
	evs, err := Events(dir)
	if err != nil {
		return nil, err
	}
	stale := make(map[string]bool)
	inGroups(evs, func(g string) bool {
		pid, ok := groupOwner(g)
		if !ok {
			return false
		}
		if pid != self && unix.Kill(pid, 0) != unix.ESRCH {
			return false
		}
		stale[g] = true
		return true
	})
	var groups []string
	var errs []error
	for g := range stale {
		err := RemoveGroup(dir, g)
		if errors.Is(err, unix.EBUSY) {
			continue
		}
		groups = append(groups, g)
		errs = append(errs, err)
	}
	return groups, errors.Join(errs...)
}

// inGroups returns the events whose group keep accepts.
func inGroups(evs []string, keep func(group string) bool) []string {
	var out []string
	for _, ev := range evs {
		g, _, _ := strings.Cut(ev, "/")
		if keep(g) {
			out = append(out, ev)
		}
	}
	return out
}
