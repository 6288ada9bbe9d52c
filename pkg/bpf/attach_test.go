package bpf

import (
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/sdtkit/sdtkit/internal/testenv"

	"golang.org/x/sys/unix"

	"github.com/sdtkit/sdtkit/internal/testdemo"
	"github.com/sdtkit/sdtkit/pkg/argspec"
	"github.com/sdtkit/sdtkit/pkg/filter"
	"github.com/sdtkit/sdtkit/pkg/stapsdt"
	"github.com/sdtkit/sdtkit/pkg/symbolize"
)

// demo is a private copy of the demo fixture: its probes are attached by
// path, which the tests of other packages must not see.
var demo string

func TestMain(m *testing.M) { testdemo.Main(m, &demo) }

func requireRoot(t *testing.T) {
	t.Helper()
	testenv.RequireUprobes(t)
}

func requireAMD64(t *testing.T) {
	t.Helper()
	if runtime.GOARCH != "amd64" {
		t.Skipf("requires amd64 (fixtures are x86-64), not %s", runtime.GOARCH)
	}
}

// modes are the two ways of attaching, each with both programs, and
// each as on a kernel without BPF cookies, which tells the sites apart
// by their address, as subtests.
var modes = []mode{
	{"uprobe_multi", false, false, false, false},
	{"uprobe", true, false, false, false},
	{"uprobe_multi/numbers", false, true, false, false},
	{"uprobe/numbers", true, true, false, false},
	{"uprobe_multi/by-address", false, false, true, false},
	{"uprobe/by-address", true, false, true, false},
	{"uprobe/numbers/by-address", true, true, true, false},
	{"uprobe/old", true, false, true, true},
	{"uprobe/numbers/old", true, true, true, true},
}

// A mode is a way of attaching: one uprobe_multi link or a uprobe per
// site, the program that reads strings or the one that does not, the
// sites told apart by cookie or by address, and, by address, with the
// builds for kernels without BPF cookies (old).
type mode struct {
	name      string
	perSite   bool
	noStrings bool
	noCookies bool
	old       bool
}

// options returns o with the options of the mode.
func (m mode) options(o Options) Options {
	o.PerSite, o.NoStrings, o.noCookies, o.oldBuild = m.perSite, m.noStrings, m.noCookies, m.old
	return o
}

// load loads the program for a mode and closes it at the end of the test.
func load(t *testing.T, opts Options) *Program {
	t.Helper()
	if opts.FlushInterval == 0 {
		opts.FlushInterval = 20 * time.Millisecond
	}
	if !opts.PerSite && kernelBefore(6, 6) {
		t.Skip("requires kernel 6.6 (due to missing uprobe_multi)")
	}
	if opts.noCookies && kernelBefore(5, 15) {
		t.Skip("tells the sites apart by address, as every mode does on a kernel without BPF cookies")
	}
	p, err := Load(&opts)
	if errors.Is(err, ErrNotSupported) && filtering(&opts) && kernelBefore(5, 15) {
		t.Skipf("requires kernel 5.15 (due to missing BPF cookies: %v)", err)
	}
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	t.Cleanup(func() { p.Close() })
	if opts.noCookies && !p.ByAddress() {
		t.Fatal("Load with noCookies: ByAddress() = false")
	}
	if !opts.noCookies && p.ByAddress() != kernelBefore(5, 15) {
		t.Fatalf("ByAddress() = %v on Linux %s", p.ByAddress(), kernelRelease())
	}
	if !opts.PerSite && !p.multi {
		if kernelBefore(6, 6) {
			t.Skip("requires kernel 6.6 (due to missing uprobe_multi)")
		}
		t.Fatal("Load chose per-site uprobes on a kernel with uprobe_multi")
	}
	return p
}

// filtering reports whether o has the program evaluate filters.
func filtering(o *Options) bool {
	return o.Filtering || slices.ContainsFunc(o.Filters, func(f *filter.Program) bool { return f != nil })
}

// sites returns the probe sites of path with their specs, strings
// read for the arguments strs gives.
func sites(t *testing.T, path string, strs func(p *stapsdt.Site) ArgMask) ([]Site, *stapsdt.File) {
	t.Helper()
	f, err := stapsdt.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	syms, err := symbolize.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	var ss []Site
	for i := range f.Sites {
		p := &f.Sites[i]
		opts := &SpecOptions{Symbols: syms}
		if strs != nil {
			opts.Strings = strs(p)
		}
		spec, errs := NewSpec(uint32(i), p.PC, argspec.ParseArgs(p.Args, f.Machine), opts)
		if errs != nil {
			t.Fatalf("NewSpec(%s:%s %q): %v", p.Provider, p.Name, p.Args, errs)
		}
		ss = append(ss, Site{Offset: p.PCOffset, RefCtrOffset: p.SemaphoreOffset, Spec: spec})
	}
	return ss, f
}

// events returns a channel fed with the events of p until it is closed.
func events(t *testing.T, p *Program) <-chan Event {
	ch := make(chan Event, 1024)
	go func() {
		defer close(ch)
		for {
			var ev Event
			if err := p.Read(&ev); err != nil {
				if !errors.Is(err, ErrClosed) {
					t.Errorf("Read: %v", err)
				}
				return
			}
			ch <- ev
		}
	}()
	return ch
}

// collect returns the events of process pid from ch, waiting until there
// are n of them or no more come.
func collect(t *testing.T, ch <-chan Event, pid int, n int) []Event {
	t.Helper()
	var evs []Event
	timeout := time.After(5 * time.Second)
	for len(evs) < n {
		select {
		case ev, ok := <-ch:
			if !ok {
				return evs
			}
			if int(ev.PID) == pid {
				evs = append(evs, ev)
			}
		case <-timeout:
			t.Errorf("got %d events of pid %d, want %d", len(evs), pid, n)
			return evs
		}
	}
	return evs
}

func run(t *testing.T, name string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(name, args...)
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return cmd
}

func TestDemo(t *testing.T) {
	requireRoot(t)
	requireAMD64(t)
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			p := load(t, m.options(Options{}))
			ss, f := sites(t, demo, func(p *stapsdt.Site) ArgMask {
				if p.Name == "start" && !m.noStrings {
					return 1 << 1 // argv[0]
				}
				return 0
			})
			if err := p.Attach(demo, ss); err != nil {
				t.Fatalf("Attach: %v", err)
			}
			ch := events(t, p)
			cmd := run(t, demo, "5", "10")
			evs := collect(t, ch, cmd.Process.Pid, 11)

			var ticks, negs []int64
			for _, ev := range evs {
				pr := f.Sites[ev.Probe]
				if ev.TID != ev.PID || ev.Comm != "demo" || ev.Time.Before(time.Now().Add(-time.Minute)) || ev.Time.After(time.Now()) {
					t.Errorf("event %+v: bad pid, tid, comm or time", ev)
				}
				switch {
				case pr.Name == "start":
					if len(ev.Args) != 2 {
						t.Fatalf("start: %d args, want 2", len(ev.Args))
					}
					if a := ev.Args[0]; a.Kind != Int || a.Int() != 3 {
						t.Errorf("start argc = %+v, want Int 3", a)
					}
					if a := ev.Args[1]; m.noStrings && (a.Kind != Uint || a.Bits == 0) {
						t.Errorf("start argv[0] = %+v, want a Uint address", a)
					} else if a := ev.Args[1]; !m.noStrings && (a.Kind != String || a.Str != demo || a.Bits == 0 || a.Truncated) {
						t.Errorf("start argv[0] = %+v, want String %q", a, demo)
					}
				case ev.Site == 1:
					ticks = append(ticks, ev.Args[0].Int())
				case ev.Site == 2:
					negs = append(negs, ev.Args[0].Int())
				}
			}
			if want := []int64{1, 2, 3, 4, 5}; !equal(ticks, want) {
				t.Errorf("tick site 1 = %v, want %v", ticks, want)
			}
			// The semaphore raised by the attachment enables the second site.
			if want := []int64{-1, -2, -3, -4, -5}; !equal(negs, want) {
				t.Errorf("tick site 2 = %v, want %v", negs, want)
			}
			if n, err := p.Lost(); n != 0 || err != nil {
				t.Errorf("Lost() = %d, %v, want 0, nil", n, err)
			}
		})
	}
}

// kernelRelease returns the release of the running kernel.
func kernelRelease() string {
	var u unix.Utsname
	unix.Uname(&u)
	return unix.ByteSliceToString(u.Release[:])
}

func equal(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// waitExec waits until process pid runs path: right after Start it may
// still be the forked child, whose memory holds none of path's mappings.
func waitExec(t *testing.T, pid int, path string) {
	t.Helper()
	want, err := filepath.Abs(path)
	if err == nil {
		want, err = filepath.EvalSymlinks(want)
	}
	if err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join("/proc", strconv.Itoa(pid), "exe")
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
		if got, err := os.Readlink(exe); err == nil && got == want {
			return
		}
	}
	t.Fatalf("process %d did not start %s within 10s", pid, path)
}

// startDemo starts the demo firing its probes every 10 ms until the test
// ends, and returns once it runs.
func startDemo(t *testing.T) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(demo, "0", "10")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	waitExec(t, cmd.Process.Pid, demo)
	return cmd
}

// TestSemaphore checks that attaching raises the semaphores of a running
// process, one count per site, and Close lowers them again.
func TestSemaphore(t *testing.T) {
	requireRoot(t)
	requireAMD64(t)
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			ss, f := sites(t, demo, nil)
			cmd := startDemo(t)
			// Its semaphores are there to read once it has mapped
			// the demo, after execve names it.
			testdemo.WaitRunning(t, cmd.Process.Pid, demo)
			mem, err := os.Open(filepath.Join("/proc", strconv.Itoa(cmd.Process.Pid), "mem"))
			if err != nil {
				t.Fatal(err)
			}
			defer mem.Close()
			// demo is not PIE: the run-time address is the link-time one.
			sema := func() (start, tick uint16) {
				var b [2]byte
				for i, v := range []*uint16{&start, &tick} {
					if _, err := mem.ReadAt(b[:], int64(f.Sites[i].Semaphore)); err != nil {
						t.Fatal(err)
					}
					*v = binary.NativeEndian.Uint16(b[:])
				}
				return
			}
			if s, k := sema(); s != 0 || k != 0 {
				t.Errorf("before Attach: semaphores start=%d tick=%d, want 0 0", s, k)
			}
			o := m.options(Options{})
			p, err := Load(&o)
			if err != nil {
				t.Fatal(err)
			}
			if err := p.Attach(demo, ss); err != nil {
				p.Close()
				t.Fatal(err)
			}
			if s, k := sema(); s != 1 || k != 2 {
				t.Errorf("attached: semaphores start=%d tick=%d, want 1 2", s, k)
			}
			if err := p.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
			if s, k := sema(); s != 0 || k != 0 {
				t.Errorf("after Close: semaphores start=%d tick=%d, want 0 0", s, k)
			}
		})
	}
}

// TestNoStrings checks that the program without strings refuses a site
// that reads one, and attaches nothing then.
func TestNoStrings(t *testing.T) {
	requireRoot(t)
	requireAMD64(t)
	p := load(t, Options{NoStrings: true})
	ss, _ := sites(t, demo, func(p *stapsdt.Site) ArgMask {
		if p.Name == "start" {
			return 1 << 1
		}
		return 0
	})
	if err := p.Attach(demo, ss); !errors.Is(err, ErrNoStrings) {
		t.Fatalf("Attach(string site) = %v, want ErrNoStrings", err)
	}
	run(t, demo, "5", "10")
	if n := p.Pending(); n != 0 || p.spec(0) != nil {
		t.Errorf("after a refused Attach and 11 hits: %d bytes of events, spec(0) = %v, want none", n, p.spec(0))
	}
}
