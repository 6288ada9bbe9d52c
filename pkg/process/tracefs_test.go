package process

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"golang.org/x/sys/unix"
)

const tracefsDir = "/sys/kernel/tracing"

// tracefs returns the directory of tracefs, mounting it there if it is not
// mounted yet. The mount is left in place, where tracing tools expect it.
func tracefs(t *testing.T) string {
	t.Helper()
	events := filepath.Join(tracefsDir, "uprobe_events")
	if _, err := os.Stat(events); err == nil {
		return tracefsDir
	}
	if err := unix.Mount("nodev", tracefsDir, "tracefs", 0, ""); err != nil {
		t.Skipf("requires tracefs (mount at %s: %v)", tracefsDir, err)
	}
	if _, err := os.Stat(events); err != nil {
		t.Skipf("requires uprobe events (CONFIG_UPROBE_EVENTS): %v", err)
	}
	return tracefsDir
}

// attachUprobe adds a uprobe event group/event at file offset off of path,
// with a reference counter (semaphore) at file offset refOff, and enables
// it. The returned function disables and removes it; it is also run at
// cleanup.
func attachUprobe(t *testing.T, group, event, path string, off, refOff uint64) (detach func() error) {
	t.Helper()
	dir := tracefs(t)
	name := group + "/" + event
	def := fmt.Sprintf("p:%s %s:%#x(%#x)", name, path, off, refOff)
	if err := appendUprobeEvents(dir, def); err != nil {
		t.Fatalf("add uprobe %q: %v%s", def, err, errorLog(dir))
	}
	enable := filepath.Join(dir, "events", group, event, "enable")
	detach = sync.OnceValue(func() error {
		errEnable := os.WriteFile(enable, []byte("0\n"), 0)
		errRemove := appendUprobeEvents(dir, "-:"+name)
		return errors.Join(errEnable, errRemove)
	})
	t.Cleanup(func() {
		if err := detach(); err != nil {
			t.Errorf("remove uprobe %s: %v", name, err)
		}
	})
	if err := os.WriteFile(enable, []byte("1\n"), 0); err != nil {
		t.Fatalf("enable uprobe %s: %v%s", name, err, errorLog(dir))
	}
	return detach
}

// appendUprobeEvents writes one command to uprobe_events. Appending matters:
// opening it with O_TRUNC would remove every uprobe event of the system.
func appendUprobeEvents(dir, cmd string) error {
	f, err := os.OpenFile(filepath.Join(dir, "uprobe_events"), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteString(cmd + "\n")
	return errors.Join(err, f.Close())
}

// errorLog returns the last lines of tracefs's error_log, which explains
// why a probe definition was rejected.
func errorLog(dir string) string {
	b, err := os.ReadFile(filepath.Join(dir, "error_log"))
	if err != nil || len(b) == 0 {
		return ""
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return "\nerror_log:\n" + strings.Join(lines[max(0, len(lines)-3):], "\n")
}
