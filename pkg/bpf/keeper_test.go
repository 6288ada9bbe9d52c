package bpf

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sdtkit/sdtkit/internal/selfexec"
)

// TestKeeperErrors checks that an error of Attach reads and matches the
// same whether the keeper or this process made the links.
func TestKeeperErrors(t *testing.T) {
	requireRoot(t)
	requireAMD64(t)
	ss, _ := sites(t, demo, nil)
	bad := []Site{{Offset: 1 << 40, Spec: ss[0].Spec}}
	for _, tt := range []struct {
		name  string
		path  string
		sites []Site
		is    error
	}{
		{"missing", "/nonexistent/sdtkit", ss, os.ErrNotExist},
		{"offset", demo, bad, unix.EINVAL},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var msgs []string
			for _, inProcess := range []bool{false, true} {
				p := load(t, Options{InProcess: inProcess})
				err := p.Attach(tt.path, tt.sites)
				if !errors.Is(err, tt.is) {
					t.Errorf("InProcess %v: Attach(%s) = %v, want an error matching %v", inProcess, tt.path, err, tt.is)
				}
				if err != nil {
					msgs = append(msgs, err.Error())
				}
			}
			if len(msgs) == 2 && msgs[0] != msgs[1] {
				t.Errorf("errors differ: keeper %q, in process %q", msgs[0], msgs[1])
			}
		})
	}
}

// TestKeeperTracerGone checks that when the tracer's end of the keeper's
// socket closes, as when the tracer is killed, the keeper closes the
// links, which lowers the semaphores, and exits.
func TestKeeperTracerGone(t *testing.T) {
	requireRoot(t)
	requireAMD64(t)
	ss, f := sites(t, demo, nil)
	cmd := startDemo(t)
	p := load(t, Options{})
	if err := p.Attach(demo, ss); err != nil {
		t.Fatal(err)
	}
	k := p.links.(*keeper)
	keeperPID := k.cmd.Process.Pid
	comm, err := os.ReadFile("/proc/" + strconv.Itoa(keeperPID) + "/comm")
	if err != nil || strings.TrimSpace(string(comm)) != selfexec.Name {
		t.Errorf("keeper's comm = %q, %v, want %q", comm, err, selfexec.Name)
	}
	// Signals meant for the tracer do not stop the keeper.
	for _, sig := range []unix.Signal{unix.SIGINT, unix.SIGTERM, unix.SIGHUP} {
		unix.Kill(keeperPID, sig)
	}
	sema := func() uint16 {
		b := make([]byte, 2)
		mem, err := os.Open("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/mem")
		if err != nil {
			t.Fatal(err)
		}
		defer mem.Close()
		if _, err := mem.ReadAt(b, int64(f.Sites[1].Semaphore)); err != nil {
			t.Fatal(err)
		}
		return uint16(b[0]) | uint16(b[1])<<8
	}
	time.Sleep(50 * time.Millisecond)
	if v := sema(); v != 2 {
		t.Fatalf("attached, after signals to the keeper: semaphore of demo:tick = %d, want 2", v)
	}
	k.conn.Close()
	<-k.exited
	if k.err != nil {
		t.Errorf("keeper ended with %v, want exit 0", k.err)
	}
	if v := sema(); v != 0 {
		t.Errorf("keeper gone: semaphore of demo:tick = %d, want 0", v)
	}
}
