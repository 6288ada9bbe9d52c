package usdt_test

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sdtkit/sdtkit/internal/selfexec"
	"github.com/sdtkit/sdtkit/pkg/dtrace"
	"github.com/sdtkit/sdtkit/pkg/elfwriter"
	"github.com/sdtkit/sdtkit/pkg/fixture"
	"github.com/sdtkit/sdtkit/pkg/launch"
	"github.com/sdtkit/sdtkit/pkg/usdt"
)

// tracerEnv makes the test binary a tracer that attaches forms to the
// probe p:q of the file it names, says "attached", and waits to be
// killed.
const tracerEnv = "SDTKIT_USDT_TEST_TRACER"

func TestMain(m *testing.M) {
	if path := os.Getenv(tracerEnv); path != "" {
		os.Exit(tracer(path))
	}
	os.Exit(m.Run())
}

func tracer(path string) int {
	coll, err := loadCollection()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if _, err := usdt.Attach(coll.Programs["forms"], path, "p", "q", nil); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println("attached")
	time.Sleep(time.Minute)
	return 0
}

// patched returns how many sites of probe p are armed, and its
// semaphore's value, in process pid, which runs the non-PIE file path.
func patched(t *testing.T, pid int, path string, p *fixture.Probe) (armed, sema int) {
	t.Helper()
	file, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	mem, err := os.Open("/proc/" + strconv.Itoa(pid) + "/mem")
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	b := make([]byte, 2)
	for _, s := range p.Sites {
		if _, err := mem.ReadAt(b[:1], int64(s.PC)); err != nil {
			t.Fatal(err)
		}
		if b[0] != file[s.PCOffset] {
			armed++
		}
	}
	if _, err := mem.ReadAt(b, int64(p.Semaphore)); err != nil {
		t.Fatal(err)
	}
	return armed, int(binary.NativeEndian.Uint16(b))
}

// running starts a fixture of probes p:q and p:r with semaphores (see
// fixtureFile), which fires until killed, and returns it with its file
// and manifest.
func running(t *testing.T) (*exec.Cmd, string, *fixture.Manifest) {
	t.Helper()
	path, m := fixtureFile(t)
	cmd := exec.Command(path, "0", "10")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd, path, m
}

// fixtureFile writes a non-PIE fixture of probes p:q and p:r, three sites
// each, with semaphores, for this machine.
func fixtureFile(t *testing.T) (string, *fixture.Manifest) {
	t.Helper()
	providers, err := dtrace.Parse("p.d", []byte(formsD))
	if err != nil {
		t.Fatal(err)
	}
	prog, err := fixture.Generate(providers, fixture.Options{Arch: runtime.GOARCH, Type: elfwriter.Exec, Semaphores: true, Sites: 3})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "fx")
	if err := os.WriteFile(path, prog.Bytes, 0o755); err != nil {
		t.Fatal(err)
	}
	return path, prog.Manifest
}

// waitRestored waits until no site of p is armed and its semaphore is 0.
func waitRestored(t *testing.T, pid int, path string, p *fixture.Probe, what string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		armed, sema := patched(t, pid, path, p)
		if armed == 0 && sema == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %d sites armed, semaphore %d, want 0 and 0", what, armed, sema)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestClose checks that a Link arms every site of its probes and raises
// their semaphores in a running process, and that Close restores both
// before it returns: for a probe of a file, of the objects a process
// maps, and for probes named by a glob.
func TestClose(t *testing.T) {
	coll := loadForms(t)
	cmd, path, m := running(t)
	pid := cmd.Process.Pid
	for _, tt := range []struct {
		path, name string
		want       []*fixture.Probe
	}{
		{path, "q", []*fixture.Probe{&m.Probes[0]}},
		{"", "q", []*fixture.Probe{&m.Probes[0]}},
		{path, "{q,r}", []*fixture.Probe{&m.Probes[0], &m.Probes[1]}},
	} {
		l, err := usdt.Attach(coll.Programs["forms"], tt.path, "p", tt.name, &usdt.Options{PID: pid})
		if err != nil {
			t.Fatalf("Attach(%q, p:%s) = %v", tt.path, tt.name, err)
		}
		if l.Sites() != 3*len(tt.want) {
			t.Errorf("Attach(%q, p:%s).Sites() = %d, want %d", tt.path, tt.name, l.Sites(), 3*len(tt.want))
		}
		for _, p := range tt.want {
			if armed, sema := patched(t, pid, path, p); armed != 3 || sema < 1 {
				t.Errorf("Attach(%q, p:%s): p:%s has %d sites armed, semaphore %d, want 3 and at least 1 (one per uprobe)", tt.path, tt.name, p.Name, armed, sema)
			}
		}
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
		for _, p := range tt.want {
			if armed, sema := patched(t, pid, path, p); armed != 0 || sema != 0 {
				t.Errorf("Attach(%q, p:%s) closed: p:%s has %d sites armed, semaphore %d, want 0 and 0", tt.path, tt.name, p.Name, armed, sema)
			}
		}
	}
}

// TestTracerKilled checks that a tracer killed with SIGKILL while
// attached leaves no site armed and no semaphore raised: its keeper lets
// the uprobes go.
func TestTracerKilled(t *testing.T) {
	loadForms(t)
	cmd, path, m := running(t)
	q := &m.Probes[0]
	tr := exec.Command(os.Args[0], "-test.run=^$")
	tr.Env = append(os.Environ(), tracerEnv+"="+path)
	tr.Stderr = os.Stderr
	out, err := tr.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.Start(); err != nil {
		t.Fatal(err)
	}
	defer tr.Wait()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != "attached\n" {
		tr.Process.Kill()
		t.Fatalf("tracer: %q, %v", line, err)
	}
	if armed, sema := patched(t, cmd.Process.Pid, path, q); armed != 3 || sema < 1 {
		t.Errorf("attached: %d sites armed, semaphore %d, want 3 and at least 1 (one per uprobe)", armed, sema)
	}
	if !hasKeeper(t, tr.Process.Pid) {
		t.Errorf("tracer %d has no child named %s holding its uprobes", tr.Process.Pid, selfexec.Name)
	}
	if err := tr.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitRestored(t, cmd.Process.Pid, path, q, "tracer killed")
}

// hasKeeper reports whether process pid has a keeper child.
func hasKeeper(t *testing.T, pid int) bool {
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range tasks {
		b, _ := os.ReadFile(f)
		for _, c := range strings.Fields(string(b)) {
			comm, _ := os.ReadFile("/proc/" + c + "/comm")
			if strings.TrimSpace(string(comm)) == selfexec.Name {
				return true
			}
		}
	}
	return false
}

// TestLaunch traces a command from its first instruction, as sdtattach -c
// does: started stopped at its execve by package launch, attached by its
// pid in the objects it maps, then let run. Its probe fires only while
// its semaphore is raised: every hit of its three iterations is read.
func TestLaunch(t *testing.T) {
	coll := loadForms(t)
	path, _ := fixtureFile(t)
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	c, err := launch.Start([]string{path, "3", "1"}, &launch.Options{Stdout: null})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Kill()
	l, err := usdt.Attach(coll.Programs["forms"], "", "p", "q", &usdt.Options{PID: c.Pid, Libraries: c.Libraries, Cookie: 5})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if err := c.Release(); err != nil {
		t.Fatal(err)
	}
	if status, err := c.Wait(); status != 0 || err != nil {
		t.Fatalf("%s: status %d, %v", path, status, err)
	}
	for i, h := range readAll[hit](t, coll.Maps["hits"], 9) {
		if h.Cookie != 5 || h.Cnt != 12 {
			t.Errorf("hit %d: cookie %d, %d arguments, want 5 and 12", i, h.Cookie, h.Cnt)
		}
	}
}
