package stacks_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/sdtkit/sdtkit/pkg/aggregate"
	"github.com/sdtkit/sdtkit/pkg/ndjson"
	"github.com/sdtkit/sdtkit/pkg/stacks"
	"github.com/sdtkit/sdtkit/pkg/symbolize"
)

const (
	prog = "/usr/bin/prog"
	libc = "/usr/lib/x86_64-linux-gnu/libc.so.6"
)

// frame makes a frame of prog at address addr, in function sym.
func frame(addr uint64, sym string) symbolize.Frame {
	return symbolize.Frame{Addr: addr, Sym: sym, Off: addr & 0xf, File: prog, FileOffset: addr - 0x400000, BuildID: "5e1f00aa"}
}

// twoPaths is two paths to one probe, counted 700 and 300, one of them
// through a frame of libc with no symbol and an address in no file; the
// second stack at other addresses of the same functions as the first.
func twoPaths() *stacks.Set {
	var s stacks.Set
	main, outer, other, inner := frame(0x401190, "main"), frame(0x401150, "outer"), frame(0x401170, "other"), frame(0x40112c, "inner")
	start := symbolize.Frame{Addr: 0x7f3a1c02a1ca, File: libc, FileOffset: 0x2a1ca}
	jit := symbolize.Frame{Addr: 0x7f0000001000}
	for range 7 {
		s.Add([]symbolize.Frame{inner, outer, main, start}, 100)
	}
	s.Add([]symbolize.Frame{inner, other, jit, main, start}, 200)
	main2, inner2 := frame(0x401194, "main"), frame(0x401130, "inner")
	s.Add([]symbolize.Frame{inner2, other, jit, main2, start}, 100)
	return &s
}

func TestWriteFolded(t *testing.T) {
	for _, tt := range []struct {
		name   string
		stacks [][]symbolize.Frame
		counts []int64
		want   string
	}{
		{"empty", nil, nil, ""},
		{"one frame", [][]symbolize.Frame{{frame(0x401000, "main")}}, []int64{3}, "main 3\n"},
		{"root first", [][]symbolize.Frame{{frame(0x401010, "c"), frame(0x401020, "b"), frame(0x401030, "a")}}, []int64{1}, "a;b;c 1\n"},
		{"names with spaces and semicolons", [][]symbolize.Frame{
			{frame(0x401010, "std::vector<int, std::allocator<int> >::push_back(int const&)"), frame(0x401030, "weird;name")},
		}, []int64{2}, "weird:name;std::vector<int, std::allocator<int> >::push_back(int const&) 2\n"},
		{"frames without symbols", [][]symbolize.Frame{
			{{Addr: 0x7f0000001000}, {Addr: 0x7f3a1c02a1ca, File: libc, FileOffset: 0x2a1ca}},
		}, []int64{5}, "libc.so.6+0x2a1ca;0x7f0000001000 5\n"},
		{"same names at other addresses merged", [][]symbolize.Frame{
			{frame(0x401010, "b"), frame(0x401030, "a")},
			{frame(0x401014, "b"), frame(0x401030, "a")},
			{frame(0x401014, "c"), frame(0x401030, "a")},
		}, []int64{1, 2, 4}, "a;b 3\na;c 4\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var s stacks.Set
			for i, st := range tt.stacks {
				s.Add(st, tt.counts[i])
			}
			var b bytes.Buffer
			if err := s.WriteFolded(&b); err != nil {
				t.Fatal(err)
			}
			if b.String() != tt.want {
				t.Errorf("WriteFolded = %q, want %q", b.String(), tt.want)
			}
		})
	}
}

func TestProfile(t *testing.T) {
	s := twoPaths()
	var b bytes.Buffer
	if err := s.WritePprof(&b); err != nil {
		t.Fatal(err)
	}
	if _, err := gzip.NewReader(bytes.NewReader(b.Bytes())); err != nil {
		t.Fatalf("WritePprof wrote no gzip stream: %v", err)
	}
	p, err := profile.Parse(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.SampleType) != 1 || p.SampleType[0].Type != "hits" || p.SampleType[0].Unit != "count" {
		t.Errorf("SampleType = %v, want hits/count", p.SampleType)
	}
	var total int64
	for _, smp := range p.Sample {
		total += smp.Value[0]
	}
	if total != 1000 {
		t.Errorf("samples count %d, want 1000", total)
	}
	files := map[string]*profile.Mapping{}
	for _, m := range p.Mapping {
		files[m.File] = m
	}
	if m := files[prog]; m == nil || m.BuildID != "5e1f00aa" || !m.HasFunctions || m.Start != 0x40112c || m.Limit != 0x401195 || m.Offset != 0x112c {
		t.Errorf("mapping of %s = %+v, want build-id 5e1f00aa, [0x40112c, 0x401195) at offset 0x112c, with functions", prog, m)
	}
	if len(p.Mapping) != 2 {
		t.Errorf("%d mappings, want prog and libc", len(p.Mapping))
	}
	// One function a name, one location an address.
	if len(p.Function) != 6 || len(p.Location) != 8 {
		t.Errorf("%d functions, %d locations, want 6 and 8", len(p.Function), len(p.Location))
	}
}

// TestPprofTop checks the profile as go tool pprof reads it.
func TestPprofTop(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("requires go (%v)", err)
	}
	path := filepath.Join(t.TempDir(), "stacks.pb.gz")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := twoPaths().WritePprof(f); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(goTool, "tool", "pprof", "-top", "-symbolize=none", "-nodecount=100", path)
	cmd.Stderr = io.Discard
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go tool pprof -top: %v\n%s", err, out)
	}
	// Columns: flat flat% sum% cum cum% name.
	type row struct{ flat, cum int64 }
	got := map[string]row{}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) < 6 {
			continue
		}
		flat, err1 := strconv.ParseInt(f[0], 10, 64)
		cum, err2 := strconv.ParseInt(f[3], 10, 64)
		if err1 != nil || err2 != nil {
			continue
		}
		got[strings.Join(f[5:], " ")] = row{flat, cum}
	}
	for name, want := range map[string]row{
		"inner":             {1000, 1000},
		"outer":             {0, 700},
		"other":             {0, 300},
		"0x7f0000001000":    {0, 300},
		"main":              {0, 1000},
		"libc.so.6+0x2a1ca": {0, 1000},
	} {
		if got[name] != want {
			t.Errorf("go tool pprof -top: %s flat %d cum %d, want %d %d\n%s", name, got[name].flat, got[name].cum, want.flat, want.cum, out)
		}
	}
}

func TestAddEvent(t *testing.T) {
	var s stacks.Set
	frames := []ndjson.Frame{{Addr: 0x10, Sym: "inner", File: "/bin/p"}, {Addr: 0x20, Sym: "main", File: "/bin/p"}}
	for _, tt := range []struct {
		e    ndjson.Event
		want bool
	}{
		{ndjson.Event{}, false},
		{ndjson.Event{UStack: []ndjson.Frame{}}, false},
		{ndjson.Event{UStack: frames}, true},
		{ndjson.Event{UStack: frames}, true},
	} {
		if got := s.AddEvent(&tt.e); got != tt.want {
			t.Errorf("AddEvent(%d frames) = %v, want %v", len(tt.e.UStack), got, tt.want)
		}
	}
	var b strings.Builder
	if err := s.WriteFolded(&b); err != nil {
		t.Fatal(err)
	}
	if want := "main;inner 2\n"; s.Len() != 1 || b.String() != want {
		t.Errorf("%d stacks, folded %q, want 1 and %q", s.Len(), b.String(), want)
	}
}

// Records of sdtattach --by ustack count by their stack, as many as they
// hold; those without a stack do not, and a stream's events add to them.
func TestAddRecord(t *testing.T) {
	var s stacks.Set
	frames := []ndjson.Frame{{Addr: 0x10, Sym: "inner", File: "/bin/p"}, {Addr: 0x20, Sym: "main", File: "/bin/p"}}
	ustack := aggregate.Key{Kind: aggregate.KeyUStack}
	pid := aggregate.KeyValue{Key: aggregate.Key{Kind: aggregate.KeyPID}, Value: ndjson.UintValue(7)}
	for _, tt := range []struct {
		name string
		r    aggregate.Record
		want bool
	}{
		{"no key", aggregate.Record{Count: 5}, false},
		{"pid", aggregate.Record{By: []aggregate.KeyValue{pid}, Count: 5}, false},
		{"stack not taken", aggregate.Record{By: []aggregate.KeyValue{{Key: ustack}}, Count: 5}, false},
		{"lost", aggregate.Record{Lost: 5}, false},
		{"stack", aggregate.Record{By: []aggregate.KeyValue{{Key: ustack, Value: aggregate.StackValue(frames)}, pid}, Count: 700}, true},
		{"stack of a histogram", aggregate.Record{Hist: aggregate.Key{Kind: aggregate.KeyArg}, By: []aggregate.KeyValue{pid, {Key: ustack, Value: aggregate.StackValue(frames[1:])}}, Count: 300}, true},
	} {
		if got := s.AddRecord(&tt.r); got != tt.want {
			t.Errorf("AddRecord(%s) = %v, want %v", tt.name, got, tt.want)
		}
	}
	s.AddEvent(&ndjson.Event{UStack: frames})
	var b strings.Builder
	if err := s.WriteFolded(&b); err != nil {
		t.Fatal(err)
	}
	if want := "main 300\nmain;inner 701\n"; b.String() != want {
		t.Errorf("folded %q, want %q", b.String(), want)
	}
}
