//go:build linux && (amd64 || arm64)

package sdt

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/sdtkit/sdtkit/pkg/stapsdt"
	"golang.org/x/sys/unix"
)

func newLoaded(t *testing.T, name string, probes map[string][]Type) (*Provider, map[string]*Probe) {
	t.Helper()
	p, err := NewProvider(name)
	if err != nil {
		t.Fatal(err)
	}
	got := make(map[string]*Probe)
	for n, args := range probes {
		pr, err := p.AddProbe(n, args...)
		if err != nil {
			t.Fatal(err)
		}
		got[n] = pr
	}
	if err := p.Load(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p, got
}

// mapsOf returns the lines of /proc/self/maps naming file.
func mapsOf(t *testing.T, file string) []string {
	t.Helper()
	b, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasSuffix(l, " "+file) || strings.HasSuffix(l, " "+file+" (deleted)") {
			lines = append(lines, l)
		}
	}
	return lines
}

// eachNop runs test once with probes placed on the 1-byte nop and, on
// amd64, once on the 5-byte nop, whatever the kernel.
func eachNop(t *testing.T, test func(t *testing.T, want stapsdt.Insn)) {
	saved := longNops
	t.Cleanup(func() { longNops = saved })
	t.Run("nop", func(t *testing.T) {
		longNops = func() bool { return false }
		test(t, stapsdt.InsnNop)
	})
	if host.longNop != nil {
		t.Run("nop5", func(t *testing.T) {
			longNops = func() bool { return true }
			test(t, stapsdt.InsnNop5)
		})
	}
}

// TestLongNops checks that Load places probes on the 5-byte nop on amd64
// exactly where the kernel has the uprobe system call.
func TestLongNops(t *testing.T) {
	p, _ := newLoaded(t, "tlong", map[string][]Type{"q": {Int64}})
	f, err := stapsdt.Open(p.Path())
	if err != nil {
		t.Fatal(err)
	}
	want := stapsdt.InsnNop
	if runtime.GOARCH == "amd64" {
		_, _, errno := unix.RawSyscall(336, 0, 0, 0) // uprobe, since Linux 6.18
		t.Logf("uprobe system call: %v", errno)
		if errno == unix.ENXIO {
			want = stapsdt.InsnNop5
		}
	}
	if len(f.Sites) != 1 || f.Sites[0].Insn != want {
		t.Fatalf("sites %+v, want one on %v", f.Sites, want)
	}
}

func TestLoadNotes(t *testing.T) { eachNop(t, testLoadNotes) }

func testLoadNotes(t *testing.T, insn stapsdt.Insn) {
	p, probes := newLoaded(t, "tprov", map[string][]Type{
		"request": {Int64, String, Int32},
		"bytes":   {Int8, Uint8, Int16, Uint16},
		"none":    nil,
	})
	maps := mapsOf(t, "/memfd:tprov")
	if len(maps) != 2 || !strings.Contains(maps[0], " r-xp ") || !strings.Contains(maps[1], " rw-p ") {
		t.Fatalf("maps of the object:\n%s\nwant an r-xp and an rw-p mapping", strings.Join(maps, "\n"))
	}
	f, err := stapsdt.Open(p.Path())
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Sites) != 3 {
		t.Fatalf("%d probes in %s, want 3", len(f.Sites), p.Path())
	}
	want := map[string]string{
		"request": map[string]string{"amd64": "-8@%rdi 8@%rsi -4@%edx", "arm64": "-8@x0 8@x1 -4@x2"}[runtime.GOARCH],
		"bytes":   map[string]string{"amd64": "-1@%dil 1@%sil -2@%dx 2@%cx", "arm64": "-1@x0 1@x1 -2@x2 2@x3"}[runtime.GOARCH],
		"none":    "",
	}
	for _, sp := range f.Sites {
		if sp.Provider != "tprov" || sp.Args != want[sp.Name] || sp.Insn != insn {
			t.Errorf("probe %s:%s args %q on %v, want tprov:%s %q on %v", sp.Provider, sp.Name, sp.Args, sp.Insn, sp.Name, want[sp.Name], insn)
		}
		st := probes[sp.Name].st.Load()
		if uintptr(unsafe.Pointer(st.stub))-uintptr(sp.PCOffset) != uintptr(unsafe.Pointer(st.sema))-uintptr(sp.SemaphoreOffset) {
			t.Errorf("%s: function and semaphore not where the note says", sp.Name)
		}
	}
}

// poke writes b at the address of ptr through /proc/self/mem, as a
// tracer does, through page protections.
func poke(t *testing.T, ptr unsafe.Pointer, b []byte) {
	t.Helper()
	mem, err := os.OpenFile("/proc/self/mem", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("cannot open /proc/self/mem: %v", err)
	}
	defer mem.Close()
	if _, err := mem.WriteAt(b, int64(uintptr(ptr))); err != nil {
		t.Fatalf("write /proc/self/mem: %v", err)
	}
}

func TestEnabled(t *testing.T) { eachNop(t, testEnabled) }

func testEnabled(t *testing.T, insn stapsdt.Insn) {
	_, probes := newLoaded(t, "tenabled", map[string][]Type{"a": {Int64}, "b": {Int64}})
	a, b := probes["a"], probes["b"]
	if a.Enabled() || b.Enabled() {
		t.Fatal("enabled with no tracer")
	}
	st := a.st.Load()
	// A tracer using the semaphore raises it; another may not.
	sema := unsafe.Pointer(st.sema)
	poke(t, sema, []byte{1, 0})
	if !a.Enabled() || b.Enabled() {
		t.Errorf("semaphore of a raised: a %v b %v, want true false", a.Enabled(), b.Enabled())
	}
	poke(t, sema, []byte{0, 0})
	if a.Enabled() {
		t.Error("enabled after the semaphore went back to 0")
	}
	// A uprobe without semaphore replaces the nop by a breakpoint.
	stub := unsafe.Pointer(st.stub)
	orig := make([]byte, len(host.breakpoint))
	copy(orig, unsafe.Slice((*byte)(stub), len(host.breakpoint)))
	poke(t, stub, host.breakpoint)
	if !a.Enabled() || b.Enabled() {
		t.Errorf("breakpoint in a: a %v b %v, want true false", a.Enabled(), b.Enabled())
	}
	poke(t, stub, orig)
	if a.Enabled() {
		t.Error("enabled after the nop was restored")
	}
	if insn != stapsdt.InsnNop5 {
		return
	}
	// The kernel turns a 5-byte nop it optimizes into a call.
	poke(t, stub, []byte{0xe8, 0x10, 0x20, 0x30, 0x40})
	if !a.Enabled() || b.Enabled() {
		t.Errorf("call in a: a %v b %v, want true false", a.Enabled(), b.Enabled())
	}
	poke(t, stub, []byte{0x0f, 0x1f, 0x44, 0x00, 0x00})
	if a.Enabled() {
		t.Error("enabled after the nop5 was restored")
	}
}

func TestFireErrors(t *testing.T) {
	p, err := NewProvider("terr")
	if err != nil {
		t.Fatal(err)
	}
	pr, err := p.AddProbe("q", Int32, String)
	if err != nil {
		t.Fatal(err)
	}
	if err := pr.Fire(1, "x"); !errors.Is(err, ErrNotLoaded) {
		t.Errorf("Fire before Load: %v, want ErrNotLoaded", err)
	}
	if err := p.Load(); err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for _, tt := range []struct {
		args  []any
		index int
	}{
		{[]any{1}, -1},
		{[]any{1, "x", 3}, -1},
		{[]any{"x", "x"}, 0},
		{[]any{1, 2}, 1},
		{[]any{1.5, "x"}, 0},
		{[]any{nil, "x"}, 0},
	} {
		var ae *ArgError
		err := pr.Fire(tt.args...)
		if !errors.As(err, &ae) || ae.Index != tt.index {
			t.Errorf("Fire(%v) = %v, want an ArgError for argument %d", tt.args, err, tt.index)
		} else if want := fmt.Sprintf(": arg%d: ", tt.index); tt.index >= 0 && !strings.Contains(err.Error(), want) {
			t.Errorf("Fire(%v) = %q, want it to name the argument %q", tt.args, err, want)
		}
	}
	for _, args := range [][]any{{int8(-1), "s"}, {uint64(1 << 63), []byte("b")}, {true, ""}, {uintptr(7), "x"}} {
		if err := pr.Fire(args...); err != nil {
			t.Errorf("Fire(%v): %v", args, err)
		}
	}
	if _, err := p.AddProbe("late"); !errors.Is(err, ErrLoaded) {
		t.Errorf("AddProbe while loaded: %v, want ErrLoaded", err)
	}
	if err := p.Load(); !errors.Is(err, ErrLoaded) {
		t.Errorf("second Load: %v, want ErrLoaded", err)
	}
}

func TestNames(t *testing.T) {
	for _, tt := range []struct {
		name string
		ok   bool
	}{
		{"app", true}, {"_x9", true}, {"A_b", true},
		{"", false}, {"9a", false}, {"a:b", false}, {"a-b", false}, {"a b", false}, {strings.Repeat("a", 129), false},
	} {
		_, err := NewProvider(tt.name)
		if (err == nil) != tt.ok {
			t.Errorf("NewProvider(%q): %v, want ok %v", tt.name, err, tt.ok)
		}
	}
	p, _ := NewProvider("names")
	if _, err := p.AddProbe("a", make([]Type, MaxArgs+1)...); err == nil {
		t.Error("AddProbe with 13 arguments succeeded")
	}
	if _, err := p.AddProbe("a", Type(0)); err == nil {
		t.Error("AddProbe with an unknown type succeeded")
	}
	if _, err := p.AddProbe("a"); err != nil {
		t.Fatal(err)
	}
	if _, err := p.AddProbe("a"); err == nil {
		t.Error("AddProbe of a probe twice succeeded")
	}
}

// countFDs returns the number of open file descriptors.
func countFDs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}

func TestLoadCloseCycles(t *testing.T) {
	p, err := NewProvider("tcycle")
	if err != nil {
		t.Fatal(err)
	}
	pr, err := p.AddProbe("q", Int64)
	if err != nil {
		t.Fatal(err)
	}
	fds := countFDs(t)
	for i := range 100 {
		if err := p.Load(); err != nil {
			t.Fatal(err)
		}
		if n := len(mapsOf(t, "/memfd:tcycle")); n != 2 {
			t.Fatalf("cycle %d: %d mappings of the object, want 2", i, n)
		}
		if err := pr.Fire(int64(i)); err != nil {
			t.Fatal(err)
		}
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
		if n := len(mapsOf(t, "/memfd:tcycle")); n != 0 {
			t.Fatalf("cycle %d: %d mappings of the object after Close, want 0", i, n)
		}
		if pr.Enabled() {
			t.Fatal("enabled after Close")
		}
	}
	if n := countFDs(t); n != fds {
		t.Errorf("%d descriptors open after 100 cycles, %d before", n, fds)
	}
	if err := p.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	// Probes added between cycles grow the object into a new space.
	for i := range 40 {
		if _, err := p.AddProbe("grow" + strings.Repeat("x", i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.Load(); err != nil {
		t.Fatal(err)
	}
	f, err := stapsdt.Open(p.Path())
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Sites) != 41 {
		t.Errorf("%d probes after growing, want 41", len(f.Sites))
	}
	p.Close()
}

func TestManyProviders(t *testing.T) {
	var ps []*Provider
	var probes []*Probe
	for i := range 50 {
		name := "many" + strings.Repeat("m", i%5) + string(rune('a'+i%26)) + string(rune('a'+i/26))
		p, _ := newLoaded(t, name, map[string][]Type{"q": {Int64}})
		ps = append(ps, p)
		probes = append(probes, p.Probes()[0])
	}
	for i, pr := range probes {
		if err := pr.Fire(i); err != nil {
			t.Fatal(err)
		}
		if pr.Enabled() {
			t.Errorf("%s enabled", pr)
		}
	}
	for _, p := range ps {
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestConcurrent fires from many goroutines while the provider is closed
// and loaded again; run it with -race.
func TestConcurrent(t *testing.T) {
	p, probes := newLoaded(t, "tconc", map[string][]Type{"q": {Int64, String}})
	q := probes["q"]
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				q.Enabled()
				if err := q.Fire(i, "s"); err != nil && !errors.Is(err, ErrNotLoaded) {
					t.Errorf("goroutine %d: %v", g, err)
					return
				}
			}
		}()
	}
	for range 50 {
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
		if err := p.Load(); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	wg.Wait()
}

func TestBuildMachines(t *testing.T) {
	p, _ := NewProvider("cross")
	pr, _ := p.AddProbe("q", Int8, Uint16, Int32, Uint64, String)
	for _, m := range []struct {
		name string
		m    machine
		long bool
		args string
		insn stapsdt.Insn
	}{
		{"amd64", amd64Machine, false, "-1@%dil 2@%si -4@%edx 8@%rcx 8@%r8", stapsdt.InsnNop},
		{"amd64 nop5", amd64Machine, true, "-1@%dil 2@%si -4@%edx 8@%rcx 8@%r8", stapsdt.InsnNop5},
		{"arm64", arm64Machine, false, "-1@x0 2@x1 -4@x2 8@x3 8@x4", stapsdt.InsnNop},
	} {
		img, err := build("cross", []*Probe{pr}, m.m, 0x10000, m.long)
		if err != nil {
			t.Fatal(err)
		}
		f, err := stapsdt.NewFile(bytes.NewReader(img.bytes))
		if err != nil {
			t.Fatal(err)
		}
		if len(f.Sites) != 1 || f.Sites[0].Args != m.args || f.Machine != m.m.elf || f.Sites[0].Insn != m.insn {
			t.Errorf("%s: probes %+v, want one with %q on %v", m.name, f.Sites, m.args, m.insn)
		}
		if img.rw.off%0x10000 != 0 || img.sites[0].sema%4 != 0 || img.sites[0].fn%16 != 0 {
			t.Errorf("%s: data at %#x, semaphore at %#x, function at %#x: misaligned", m.name, img.rw.off, img.sites[0].sema, img.sites[0].fn)
		}
		if m.name == "arm64" && binary.LittleEndian.Uint32(img.bytes[img.sites[0].fn:]) != 0xd503201f {
			t.Errorf("arm64: no nop at the function")
		}
	}
	if _, err := build("cross", []*Probe{pr}, arm64Machine, 0x10000, true); err == nil {
		t.Error("arm64 with a long nop: no error")
	}
}

// TestTempFile loads through a temporary file where no memfd can be had,
// and removes it on Close.
func TestTempFile(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	defer func(f func(string, int) (int, error)) { memfdCreate = f }(memfdCreate)
	memfdCreate = func(string, int) (int, error) { return -1, unix.ENOSYS }
	p, probes := newLoaded(t, "ttemp", map[string][]Type{"q": {Int64, String}})
	path := p.Path()
	if filepath.Dir(path) != os.Getenv("TMPDIR") || !strings.HasPrefix(filepath.Base(path), "ttemp-") {
		t.Errorf("object at %s, want a ttemp-* file in $TMPDIR", path)
	}
	if n := len(mapsOf(t, path)); n != 2 {
		t.Errorf("%d mappings of %s, want 2", n, path)
	}
	f, err := stapsdt.Open(path)
	if err != nil || len(f.Sites) != 1 {
		t.Fatalf("probes of %s: %v", path, err)
	}
	if err := probes["q"].Fire(1, "x"); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s after Close: %v, want it removed", path, err)
	}
	if n := len(mapsOf(t, path)); n != 0 {
		t.Errorf("%d mappings of %s after Close", n, path)
	}
}

// mapped reports whether addr is mapped in this process.
func mapped(t *testing.T, addr uintptr) bool {
	b, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		var start, end uintptr
		if _, err := fmt.Sscanf(l, "%x-%x", &start, &end); err == nil && start <= addr && addr < end {
			return true
		}
	}
	return false
}

// TestSpaceReleased checks that the address space reserved for a Provider
// is released once the Provider is unreachable.
func TestSpaceReleased(t *testing.T) {
	// Made on a goroutine that ends, so that no stack of this one can
	// keep the Provider reachable (a slot the race detector's build
	// keeps live did once).
	addrc := make(chan uintptr, 1)
	errc := make(chan error, 1)
	go func() {
		p, err := NewProvider("tgone")
		if err == nil {
			_, err = p.AddProbe("q")
		}
		if err == nil {
			err = p.Load()
		}
		if err == nil {
			err = p.Close()
		}
		if err != nil {
			errc <- err
			return
		}
		addrc <- uintptr(p.space.addr)
	}()
	var addr uintptr
	select {
	case err := <-errc:
		t.Fatal(err)
	case addr = <-addrc:
	}
	if !mapped(t, addr) {
		t.Fatal("reserved space not mapped after Close")
	}
	for i := 0; i < 500 && mapped(t, addr); i++ {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if mapped(t, addr) {
		t.Error("reserved space still mapped after the Provider went")
	}
}
