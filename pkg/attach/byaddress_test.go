package attach

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sdtkit/sdtkit/internal/bpfhook"
	"github.com/sdtkit/sdtkit/internal/testenv"
	"github.com/sdtkit/sdtkit/pkg/bpf"
	"github.com/sdtkit/sdtkit/pkg/launch"
)

// buildProg builds testdata/prog.c, a PIE, linked with libwork.so from
// testdata/work.c, into a directory of the test's.
func buildProg(t *testing.T) string {
	t.Helper()
	if runtime.GOARCH != "amd64" && runtime.GOARCH != "arm64" {
		t.Skipf("requires amd64 or arm64, not %s", runtime.GOARCH)
	}
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("requires gcc")
	}
	dir := t.TempDir()
	for _, args := range [][]string{
		{"-O2", "-shared", "-fPIC", "-o", filepath.Join(dir, "libwork.so"), "testdata/work.c"},
		{"-O2", "-fPIE", "-pie", "-o", filepath.Join(dir, "prog"), "testdata/prog.c", "-L" + dir, "-lwork", "-Wl,-rpath," + dir},
	} {
		if out, err := exec.Command("gcc", args...).CombinedOutput(); err != nil {
			if _, err := os.Stat("/usr/include/sys/sdt.h"); err != nil {
				t.Skip("requires sys/sdt.h (systemtap-sdt-dev)")
			}
			t.Fatalf("gcc %v: %v\n%s", args, err, out)
		}
	}
	return filepath.Join(dir, "prog")
}

// addressModes runs f as a subtest with the sites told apart by cookie
// and by address, as on a kernel without BPF cookies; by cookie only
// where the kernel has them.
func addressModes(t *testing.T, f func(t *testing.T)) {
	for _, byIP := range []bool{false, true} {
		t.Run(fmt.Sprintf("by-address=%v", byIP), func(t *testing.T) {
			if !byIP && kernelBefore(5, 15) {
				t.Skip("requires kernel 5.15 (due to missing BPF cookies)")
			}
			bpfhook.NoCookies.Store(byIP)
			defer bpfhook.NoCookies.Store(false)
			f(t)
		})
	}
}

// pairs reports whether evs, 4 events as text gives them, are a tick
// i, a call 10*i, a tick i+1 and a call 10*(i+1).
func pairs(evs []string) bool {
	var i int64
	if _, err := fmt.Sscanf(evs[0], "p:tick [%d]", &i); err != nil {
		return false
	}
	want := []string{evs[0], fmt.Sprintf("work:call [%d]", 10*i), fmt.Sprintf("p:tick [%d]", i+1), fmt.Sprintf("work:call [%d]", 10*(i+1))}
	return slices.Equal(evs, want)
}

// text returns the probe and arguments of ev.
func text(ev *Event) string {
	return fmt.Sprintf("%s %v", ev.Probe(), ev.Args)
}

// TestByAddress checks the events of a PIE and of its shared library,
// in a process given by pid, in a command and in the processes of its
// cgroup, forked ones that execute no program included, and of a
// program that is not position-independent by path, with the sites told
// apart by address as by cookie: the same values.
func TestByAddress(t *testing.T) {
	testenv.RequireUprobes(t)
	prog := buildProg(t)
	ctx := context.Background()
	both := specs(t, "p:tick", "work:call")
	addressModes(t, func(t *testing.T) {
		t.Run("pid", func(t *testing.T) {
			cmd := exec.Command(prog, "0", "10")
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Wait()
			defer cmd.Process.Kill()
			waitMaps(t, cmd.Process.Pid, "libwork.so")
			tr, err := Open(ctx, both, &Options{PID: cmd.Process.Pid, Backend: BackendBPF})
			if err != nil {
				t.Fatal(err)
			}
			defer tr.Close()
			// The files are attached one after the other: the
			// executable's ticks come first, then, from a tick whose
			// call follows, i, 10*i in the library, i+1, 10*(i+1).
			var got []string
			for ev, err := range tr.Events(ctx) {
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, text(ev))
				if n := len(got); n >= 4 && pairs(got[n-4:]) || n == 200 {
					break
				}
			}
			if n := len(got); n < 4 || !pairs(got[n-4:]) {
				t.Errorf("events %q: no tick i followed by a call 10*i, a tick i+1 and a call 10*(i+1)", got)
			}
		})
		t.Run("command", func(t *testing.T) {
			cmd, err := launch.Start([]string{prog, "3"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			tr, err := Open(ctx, both, &Options{Command: cmd, Dlopen: true, Backend: BackendBPF})
			if err != nil {
				cmd.End(nil, nil)
				t.Fatal(err)
			}
			var got []string
			err = tr.Run(ctx, func(ev *Event) error {
				got = append(got, text(ev))
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			cmd.Wait()
			want := []string{"p:tick [1]", "work:call [10]", "p:tick [2]", "work:call [20]", "p:tick [3]", "work:call [30]"}
			if !slices.Equal(got, want) {
				t.Errorf("events %q, want %q", got, want)
			}
		})
		t.Run("cgroup", func(t *testing.T) {
			// Two processes of the command's cgroup run the PIE at
			// once, each mapping it and its library where it will.
			got := cgroupEvents(t, prog, `"$0" 3 20 & "$0" 3 20; wait`)
			if len(got) != 2 {
				t.Errorf("events of %d processes, want 2: %v", len(got), got)
			}
		})
		t.Run("fork", func(t *testing.T) {
			// The PIE forks a child that executes no program: the
			// child maps the files where its parent did, and hits
			// the probes after its parent exited and another
			// process of the cgroup started, whose stops in the
			// loader forget the addresses of the parent.
			mark := filepath.Join(t.TempDir(), "mark")
			got := cgroupEvents(t, prog, `"$0" 3 20 fork "$1" && "$0" 3 20 mark "$1"`, mark)
			if len(got) != 3 {
				t.Errorf("events of %d processes, want 3 (parent, child, the next): %v", len(got), got)
			}
		})
		t.Run("path", func(t *testing.T) {
			tr, err := Open(ctx, specs(t, demo+":demo:tick"), &Options{Backend: BackendBPF})
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(demo, "2")
			if err := cmd.Run(); err != nil {
				t.Fatal(err)
			}
			tr.Stop()
			var got []string
			err = tr.Run(ctx, func(ev *Event) error {
				if int(ev.PID) == cmd.Process.Pid {
					got = append(got, text(ev))
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			want := []string{"demo:tick [1]", "demo:tick [-1]", "demo:tick [2]", "demo:tick [-2]"}
			if !slices.Equal(got, want) {
				t.Errorf("events %q, want %q", got, want)
			}
		})
	})
}

// cgroupEvents runs script, a command of sh -c whose $0 is prog and
// whose $1... are args, in a cgroup of its own, traces p:tick of prog and
// work:call of its library in the cgroup, and returns the events by
// process. It fails t unless each process had a tick and a call for 1,
// 2 and 3, in order, and no hit was skipped.
func cgroupEvents(t *testing.T, prog, script string, args ...string) map[uint32][]string {
	t.Helper()
	if cg, err := launch.NewCgroup("attach-test-probe-*"); err != nil {
		t.Skipf("requires a writable cgroup v2 (%v)", err)
	} else {
		cg.Remove()
	}
	ctx := context.Background()
	lib := filepath.Join(filepath.Dir(prog), "libwork.so")
	cmd, err := launch.Start(append([]string{"sh", "-c", script, prog}, args...), &launch.Options{OwnCgroup: "attach-test-"})
	if err != nil {
		t.Fatal(err)
	}
	defer cmd.End(nil, nil)
	tr, err := Open(ctx, specs(t, prog+":p:tick", lib+":work:call"), &Options{Command: cmd, Dlopen: true, Backend: BackendBPF})
	if err != nil {
		t.Fatal(err)
	}
	got := make(map[uint32][]string)
	err = tr.Run(ctx, func(ev *Event) error {
		got[ev.PID] = append(got[ev.PID], text(ev))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"p:tick [1]", "work:call [10]", "p:tick [2]", "work:call [20]", "p:tick [3]", "work:call [30]"}
	for pid, evs := range got {
		if !slices.Equal(evs, want) {
			t.Errorf("events of process %d %q, want %q", pid, evs, want)
		}
	}
	if n := tr.Skipped(); n != 0 {
		t.Errorf("Skipped() = %d, want 0", n)
	}
	return got
}

// TestByAddressRefused checks that, by address, a PIE traced by path in
// every process is refused by BackendBPF as what needs BPF cookies, and
// traced by BackendAuto with the tracefs backend, saying why.
func TestByAddressRefused(t *testing.T) {
	testenv.RequireUprobes(t)
	prog := buildProg(t)
	bpfhook.NoCookies.Store(true)
	defer bpfhook.NoCookies.Store(false)
	ss := specs(t, prog+":p:tick")
	_, err := Open(context.Background(), ss, &Options{Backend: BackendBPF})
	if !errors.Is(err, bpf.ErrNoCookies) || !errors.Is(err, bpf.ErrNotSupported) {
		t.Fatalf("Open(PIE by path, BackendBPF) = %v, want bpf.ErrNoCookies and bpf.ErrNotSupported", err)
	}
	var warned []error
	tr, err := Open(context.Background(), ss, &Options{Warn: func(err error) { warned = append(warned, err) }})
	if err != nil {
		t.Fatalf("Open(PIE by path, BackendAuto): %v", err)
	}
	defer tr.Close()
	var fb *Fallback
	if len(warned) != 1 || !errors.As(warned[0], &fb) || !errors.Is(fb, bpf.ErrNoCookies) {
		t.Fatalf("BackendAuto warned %v, want one *Fallback for bpf.ErrNoCookies", warned)
	}
	if _, ok := tr.src.(*tracefsEvents); !ok {
		t.Errorf("BackendAuto traces with %T, want the tracefs backend", tr.src)
	}
}

// waitMaps waits until process pid maps the code of a file named name:
// the loader maps a library whole first, then its code.
func waitMaps(t *testing.T, pid int, name string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
		b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/maps")
		for l := range strings.Lines(string(b)) {
			if f := strings.Fields(l); len(f) == 6 && f[1] == "r-xp" && strings.HasSuffix(f[5], "/"+name) {
				return
			}
		}
	}
	t.Fatalf("process %d did not map %s within 10s", pid, name)
}

// kernelBefore reports whether the running kernel is older than
// major.minor.
func kernelBefore(major, minor int) bool {
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		return false
	}
	var ma, mi int
	fmt.Sscanf(unix.ByteSliceToString(u.Release[:]), "%d.%d", &ma, &mi)
	return ma < major || ma == major && mi < minor
}

// TestByAddressSaid checks that BackendAuto says it traces with the BPF
// program by address, and that a file the process does not map, whose
// address no follower will learn, is named.
func TestByAddressSaid(t *testing.T) {
	testenv.RequireUprobes(t)
	bpfhook.NoCookies.Store(true)
	defer bpfhook.NoCookies.Store(false)
	prog := buildProg(t)
	cmd := exec.Command(demo, "0", "10")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer cmd.Process.Kill()
	waitMaps(t, cmd.Process.Pid, filepath.Base(demo))
	var warned []string
	lib := filepath.Join(filepath.Dir(prog), "libwork.so")
	tr, err := Open(context.Background(), specs(t, "demo:tick", lib+":work:call"), &Options{PID: cmd.Process.Pid, Warn: func(err error) { warned = append(warned, err.Error()) }})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	want := []string{
		"kernel without BPF cookies (Linux 5.15): tracing with the BPF backend, which tells the probe sites apart by their address",
		lib + ": not mapped by process " + strconv.Itoa(cmd.Process.Pid) + " yet: on a kernel without BPF cookies, which tells the probe sites apart by their address, its probes are not traced",
	}
	if !slices.Equal(warned, want) {
		t.Errorf("warned %q, want %q", warned, want)
	}
}
