package uprobes

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// tracefsDirs are where tracefs is found mounted.
var tracefsDirs = []string{"/sys/kernel/tracing", "/sys/kernel/debug/tracing"}

// errNoTracefs is returned when tracefs is mounted nowhere known: events
// defined there cannot be seen.
var errNoTracefs = errors.New("tracefs is not mounted, and could not be mounted to look")

// listTracefs adds the uprobe events defined in tracefs. Where it is not
// mounted, it is mounted for the time of reading in a mount namespace of
// a thread's own, seen by no other process; that needs CAP_SYS_ADMIN.
func listTracefs(s *Set) error {
	for _, dir := range tracefsDirs {
		err := readEvents(s, dir)
		if !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	if err := privateTracefs(s); err != nil {
		return fmt.Errorf("%w: %w", errNoTracefs, err)
	}
	return nil
}

// privateTracefs mounts tracefs in a new mount namespace of one thread
// and reads the events there.
func privateTracefs(s *Set) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		if unix.Gettid() == unix.Getpid() {
			// The main thread's namespace is the process's, as
			// /proc/PID shows it: work on another thread, which
			// this locked goroutine keeps off the main one.
			done := make(chan error)
			go func() {
				runtime.LockOSThread()
				done <- mountAndRead(s)
			}()
			errc <- <-done
			runtime.UnlockOSThread()
			return
		}
		errc <- mountAndRead(s)
	}()
	return <-errc
}

// mountAndRead mounts tracefs in a mount namespace of the calling thread's
// own, which must be locked and is not unlocked: the thread ends with its
// goroutine.
func mountAndRead(s *Set) error {
	if err := unix.Unshare(unix.CLONE_NEWNS); err != nil {
		return err
	}
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return err
	}
	dir := tracefsDirs[0]
	if err := unix.Mount("nodev", dir, "tracefs", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC|unix.MS_RDONLY, ""); err != nil {
		return err
	}
	return readEvents(s, dir)
}

// readEvents adds the events of dir/uprobe_events.
func readEvents(s *Set, dir string) error {
	f, err := os.Open(filepath.Join(dir, "uprobe_events"))
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		u, ok := parseEvent(sc.Text())
		if !ok {
			return fmt.Errorf("%s: unexpected line %q", f.Name(), sc.Text())
		}
		identify(&u, u.File)
		s.Add(u)
	}
	return sc.Err()
}

// parseEvent parses a line of uprobe_events:
//
//	p:uprobes/p_demo_0x1ef /usr/bin/demo:0x00000000000001ef(0x4022) arg1=%ax
func parseEvent(line string) (Uprobe, bool) {
	fields := strings.Fields(line)
	if len(fields) < 2 {
		return Uprobe{}, false
	}
	kind, name, ok := strings.Cut(fields[0], ":")
	if !ok || kind != "p" && kind != "r" {
		return Uprobe{}, false
	}
	loc := fields[1]
	i := strings.LastIndex(loc, ":0x")
	if i < 0 {
		return Uprobe{}, false
	}
	file, off := loc[:i], loc[i+1:]
	var ref string
	if j := strings.IndexByte(off, '('); j >= 0 && strings.HasSuffix(off, ")") {
		off, ref = off[:j], off[j+1:len(off)-1]
	}
	u := Uprobe{Kind: Tracefs, File: file, Holder: name}
	var err error
	if u.Offset, err = strconv.ParseUint(off, 0, 64); err != nil {
		return Uprobe{}, false
	}
	if ref != "" {
		if u.RefCtrOffset, err = strconv.ParseUint(ref, 0, 64); err != nil {
			return Uprobe{}, false
		}
	}
	return u, true
}
