package bpf

import (
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sdtkit/sdtkit/internal/selfexec"
	"github.com/sdtkit/sdtkit/internal/testdemo"
	"github.com/sdtkit/sdtkit/pkg/dtrace"
	"github.com/sdtkit/sdtkit/pkg/elfwriter"
	"github.com/sdtkit/sdtkit/pkg/fixture"
	"github.com/sdtkit/sdtkit/pkg/stapsdt"
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

// TestKeeperKilledLettingGo checks that a keeper sent SIGKILL while it
// lets its links go, the tracer gone (kill -9 of the tracer, then of the
// keeper), leaves every semaphore 0 and every site as the file has it:
// it lets them go by exiting, which no signal interrupts. A keeper that
// closed its links itself, killed so, left sites armed and semaphores
// up.
func TestKeeperKilledLettingGo(t *testing.T) {
	requireRoot(t)
	requireAMD64(t)
	// A thousand sites in one link: the kernel takes a while to take
	// their breakpoints out.
	path, file := manySites(t)
	ss, f := sites(t, path, nil)
	cmd := exec.Command(path, "0", "1000")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	testdemo.WaitRunning(t, cmd.Process.Pid, path)
	mem, err := os.Open("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/mem")
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	left := func() (armed, raised int) { return leftBehind(t, mem, f, file) }
	for _, delay := range []time.Duration{0, 100 * time.Microsecond, 300 * time.Microsecond, time.Millisecond,
		1500 * time.Microsecond, 2 * time.Millisecond, 3 * time.Millisecond, 4 * time.Millisecond} {
		p := load(t, Options{NoStrings: true})
		start := time.Now()
		if err := p.Attach(path, ss); err != nil {
			t.Fatal(err)
		}
		// The kernel lets the uprobes go in a few times what it took
		// to put them in: 3 s, or 20 times that on a slower machine
		// (an emulated one of many CPUs takes seconds).
		wait := max(3*time.Second, 20*time.Since(start))
		if armed, raised := left(); armed != len(f.Sites) || raised != len(f.Sites) {
			t.Fatalf("attached: %d sites armed, %d with a raised semaphore, want %d", armed, raised, len(f.Sites))
		}
		k := p.links.(*keeper)
		k.conn.Close() // as when the tracer is killed
		time.Sleep(delay)
		k.cmd.Process.Kill()
		<-k.exited
		p.links = nil
		deadline := time.Now().Add(wait)
		for {
			armed, raised := left()
			if armed == 0 && raised == 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("keeper killed %v after the tracer was gone: %d sites armed, %d with a raised semaphore %v later", delay, armed, raised, wait)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// manySites writes a program, not position-independent, with a thousand
// sites and their semaphores (250 of each of four probes), and returns
// its path and its bytes.
func manySites(t *testing.T) (path string, file []byte) {
	t.Helper()
	providers, err := dtrace.Parse("p.d", []byte("provider p { probe a(int); probe b(long); probe c(int); probe d(long); };"))
	if err != nil {
		t.Fatal(err)
	}
	prog, err := fixture.Generate(providers, fixture.Options{Type: elfwriter.Exec, Semaphores: true, Sites: 250})
	if err != nil {
		t.Fatal(err)
	}
	path = filepath.Join(t.TempDir(), "many")
	if err := os.WriteFile(path, prog.Bytes, 0o755); err != nil {
		t.Fatal(err)
	}
	return path, prog.Bytes
}

// leftBehind counts the sites of f that read patched, and the semaphores
// of f that read raised, in mem, the memory of a process running file, a
// program not position-independent: its run-time addresses are the
// file's.
func leftBehind(t *testing.T, mem *os.File, f *stapsdt.File, file []byte) (armed, raised int) {
	t.Helper()
	b := make([]byte, 2)
	for _, s := range f.Sites {
		if _, err := mem.ReadAt(b[:1], int64(s.PC)); err != nil {
			t.Fatal(err)
		}
		if b[0] != file[s.PCOffset] {
			armed++
		}
		if _, err := mem.ReadAt(b, int64(s.Semaphore)); err != nil {
			t.Fatal(err)
		}
		if binary.NativeEndian.Uint16(b) != 0 {
			raised++
		}
	}
	return armed, raised
}
