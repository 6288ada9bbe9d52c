package usdt_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/features"
	"github.com/cilium/ebpf/ringbuf"
	"github.com/cilium/ebpf/rlimit"

	"github.com/sdtkit/sdtkit/pkg/dtrace"
	"github.com/sdtkit/sdtkit/pkg/elfwriter"
	"github.com/sdtkit/sdtkit/pkg/fixture"
	"github.com/sdtkit/sdtkit/pkg/usdt"
)

// hit is struct hit of testdata/forms.bpf.c.
type hit struct {
	Cookie uint64
	Cnt    int32
	Pad    int32
	Val    [12]int64
	Err    [12]int32
	Size   [12]int32
	Str    [12][32]byte
}

// typedHit is what the program typed, of BPF_USDT, records.
type typedHit struct {
	A int64
	S [32]byte
}

func cstr(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}

const eopnotsupp = -95

// loadForms loads testdata/forms_bpfel.o, skipping where it cannot.
func loadForms(t *testing.T) *ebpf.Collection {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skipf("requires root (euid %d)", os.Geteuid())
	}
	if err := rlimit.RemoveMemlock(); err != nil {
		t.Fatal(err)
	}
	requireCookies(t)
	coll, err := loadCollection()
	if errors.Is(err, ebpf.ErrNotSupported) {
		t.Skipf("requires kernel 5.15 (due to missing BPF cookies or ring buffers): %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { coll.Close() })
	return coll
}

// requireCookies skips where the kernel has no BPF cookies, which the
// header needs.
func requireCookies(t *testing.T) {
	t.Helper()
	if err := features.HaveProgramHelper(ebpf.Kprobe, asm.FnGetAttachCookie); errors.Is(err, ebpf.ErrNotSupported) {
		t.Skipf("requires kernel 5.15 (due to missing BPF cookies): %v", err)
	}
}

// loadCollection loads testdata/forms_bpfel.o.
func loadCollection() (*ebpf.Collection, error) {
	spec, err := ebpf.LoadCollectionSpec("testdata/forms_bpfel.o")
	if err != nil {
		return nil, err
	}
	if features.HaveBPFLinkUprobeMulti() != nil {
		delete(spec.Programs, "forms_multi")
	}
	return ebpf.NewCollection(spec)
}

// The probes of the fixtures: q with an argument of every type sys/sdt.h
// passes, r with an int and a string for BPF_USDT.
const formsD = `provider p {
	probe q(int, char *, long, unsigned char, short, unsigned long long, double, float, signed char, unsigned int, long long, void *);
	probe r(int, char *);
};`

// TestForms reads every argument of every operand form of sdtgen's
// fixtures with bpf_usdt_arg, and compares it with the manifest's value,
// for the programs of this machine, x86-64 and i386 or arm64, PIE or
// not: two attachments of one program with cookies of their own, and one
// of a program of BPF_USDT.
func TestForms(t *testing.T) {
	coll := loadForms(t)
	providers, err := dtrace.Parse("p.d", []byte(formsD))
	if err != nil {
		t.Fatal(err)
	}
	forms := []fixture.Form{fixture.Reg, fixture.Mem, fixture.SIB, fixture.RIP, fixture.Imm, fixture.Float}
	arches := []string{runtime.GOARCH}
	if runtime.GOARCH == "amd64" {
		arches = append(arches, "386")
	}
	for _, arch := range arches {
		for _, typ := range []elfwriter.Type{elfwriter.Exec, elfwriter.PIE} {
			t.Run(fmt.Sprintf("%s/%v", arch, typ), func(t *testing.T) {
				prog, err := fixture.Generate(providers, fixture.Options{Arch: arch, Type: typ, Semaphores: true, Sites: 3, Forms: forms})
				if err != nil {
					t.Fatal(err)
				}
				path := filepath.Join(t.TempDir(), "forms")
				if err := os.WriteFile(path, prog.Bytes, 0o755); err != nil {
					t.Fatal(err)
				}
				testForms(t, coll, path, prog.Manifest)
			})
		}
	}
}

func testForms(t *testing.T, coll *ebpf.Collection, path string, m *fixture.Manifest) {
	var warned []string
	warn := func(err error) { warned = append(warned, err.Error()) }
	// Where the kernel has uprobe_multi links, a program of section
	// uprobe.multi takes the sites of p:r too, with a cookie of its own.
	nr := 3
	attachments := []struct {
		prog, name string
		cookie     uint64
	}{{"forms", "q", 42}, {"forms", "r", 7}, {"typed", "r", 0}}
	if coll.Programs["forms_multi"] != nil {
		attachments = append(attachments, struct {
			prog, name string
			cookie     uint64
		}{"forms_multi", "r", 9})
		nr = 6
	} else {
		t.Log("no uprobe_multi links (Linux 6.6): forms_multi left out")
	}
	for _, a := range attachments {
		o := &usdt.Options{Cookie: a.cookie, Warn: warn}
		if a.prog == "typed" {
			o.Specs = coll.Maps[usdt.SpecMap] // rather than by id
		}
		l, err := usdt.Attach(coll.Programs[a.prog], path, "p", a.name, o)
		if err != nil {
			t.Fatalf("Attach(%s, p:%s) = %v", a.prog, a.name, err)
		}
		defer l.Close()
		if l.Sites() != 3 {
			t.Errorf("Attach(%s, p:%s).Sites() = %d, want 3", a.prog, a.name, l.Sites())
		}
	}
	out, err := exec.Command(path, "3", "1").CombinedOutput()
	if errors.Is(err, syscall.ENOEXEC) {
		t.Skipf("requires a kernel that runs %s programs: %v %s", m.Machine, err, out)
	}
	if err != nil {
		t.Fatal(err)
	}
	// Fires only while the semaphores are raised.
	if want := "1 p:q p:q p:q p:r p:r p:r\n"; !strings.HasPrefix(string(out), want) {
		t.Fatalf("output %q, want it to begin with %q: semaphores not raised", out, want)
	}
	hits := readAll[hit](t, coll.Maps["hits"], 9+3*nr)
	typed := readAll[typedHit](t, coll.Maps["typed_hits"], 9)

	q, r := &m.Probes[0], &m.Probes[1]
	seen := make(map[uint64]int) // hits by cookie
	for _, h := range hits {
		p, n := q, seen[h.Cookie]
		seen[h.Cookie]++
		switch h.Cookie {
		case 42:
		case 7, 9:
			p = r
		default:
			t.Fatalf("bpf_usdt_cookie = %d, want 42, 7 or 9", h.Cookie)
		}
		k, s := n/len(p.Sites), &p.Sites[n%len(p.Sites)]
		if int(h.Cnt) != len(p.Args) {
			t.Errorf("p:%s: bpf_usdt_arg_cnt = %d, want %d", p.Name, h.Cnt, len(p.Args))
		}
		for i, want := range s.Values[k] {
			checkArg(t, fmt.Sprintf("p:%s site %#x iteration %d arg%d %s (%s)", p.Name, s.PC, k+1, i, s.Argv[i].Operand, s.Argv[i].Form), &h, i, p.Args[i], want)
		}
		if len(p.Args) < 12 && h.Err[len(p.Args)] != -2 {
			t.Errorf("p:%s: bpf_usdt_arg(%d) = %d, want -ENOENT", p.Name, len(p.Args), h.Err[len(p.Args)])
		}
	}
	for c, n := range seen {
		if n != 9 {
			t.Errorf("cookie %d: %d hits, want 9", c, n)
		}
	}
	for j, h := range typed {
		want := r.Sites[j%3].Values[j/3]
		if h.A != want[0].(int64) || cstr(h.S[:]) != want[1] {
			t.Errorf("BPF_USDT(typed, int a, char *s) hit %d: a=%d s=%q, want %v %q", j, h.A, cstr(h.S[:]), want[0], want[1])
		}
	}
	// The floating-point registers, and nothing else, and those read as
	// -EOPNOTSUPP.
	unread := 0
	for _, h := range hits {
		for _, e := range h.Err {
			if e == eopnotsupp {
				unread++
			}
		}
	}
	if (len(warned) == 0) != (unread == 0) {
		t.Errorf("%d arguments warned of, %d read as -EOPNOTSUPP", len(warned), unread)
	}
	for _, w := range warned {
		if !strings.Contains(w, "floating-point register") {
			t.Errorf("warned %s", w)
		}
	}
}

func checkArg(t *testing.T, what string, h *hit, i int, typ fixture.ArgType, want any) {
	t.Helper()
	if int(h.Size[i]) != typ.Size {
		t.Errorf("%s: bpf_usdt_arg_size = %d, want %d", what, h.Size[i], typ.Size)
	}
	if h.Err[i] == eopnotsupp && typ.Float {
		return // a floating-point register
	}
	if h.Err[i] != 0 {
		t.Errorf("%s: bpf_usdt_arg = %d, want 0", what, h.Err[i])
		return
	}
	v := h.Val[i]
	var got any
	switch want.(type) {
	case string:
		got = cstr(h.Str[i][:])
	case float64:
		if typ.Size == 4 {
			got = float64(math.Float32frombits(uint32(v)))
		} else {
			got = math.Float64frombits(uint64(v))
		}
	default:
		got = v
	}
	if got != want {
		t.Errorf("%s: bpf_usdt_arg = %v (%#x), want %v", what, got, v, want)
	}
}

// readAll reads n records of ring buffer m.
func readAll[T any](t *testing.T, m *ebpf.Map, n int) []T {
	t.Helper()
	rd, err := ringbuf.NewReader(m)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	var out []T
	for len(out) < n {
		rd.SetDeadline(time.Now().Add(5 * time.Second))
		rec, err := rd.Read()
		if err != nil {
			t.Fatalf("%s: %d records of %d: %v", m, len(out), n, err)
		}
		var v T
		if err := binary.Read(bytes.NewReader(rec.RawSample), binary.NativeEndian, &v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	rd.SetDeadline(time.Now().Add(50 * time.Millisecond))
	if _, err := rd.Read(); err == nil {
		t.Errorf("%s: more than %d records", m, n)
	}
	return out
}
