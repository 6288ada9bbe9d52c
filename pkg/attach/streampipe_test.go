package attach

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/sdtkit/sdtkit/pkg/hit"
	"github.com/sdtkit/sdtkit/pkg/probe"
	"github.com/sdtkit/sdtkit/pkg/probespec"
)

// fakeEvents is a source of n events of two probes, whose next Read
// waits every wait events when buffering is set (a ring buffer that
// runs dry), and which loses lost events.
type fakeEvents struct {
	sites     []*Site
	n, i      int
	wait      int
	buffering bool
	lost      uint64
	stopped   chan struct{}
	stop      sync.Once
}

// strs are the strings of fakeEvents, made once.
var strs = func() []string {
	s := make([]string, 100)
	for i := range s {
		s[i] = fmt.Sprint("s", i)
	}
	return s
}()

func newFakeEvents(n, wait int, buffering bool) *fakeEvents {
	p := &probe.Probe{Target: &probe.Target{Name: "prog"}, Provider: "p", Name: "a"}
	q := &probe.Probe{Target: &probe.Target{Name: "prog"}, Provider: "p", Name: "b"}
	return &fakeEvents{
		sites: []*Site{
			{Probe: p, Args: []Arg{{}, {Type: probespec.Type{Kind: probespec.String}}}},
			{Probe: q, ProbeIndex: 1, Fields: true, Args: []Arg{{Name: "x"}}},
		},
		n: n, wait: wait, buffering: buffering, lost: 7, stopped: make(chan struct{}),
	}
}

func (f *fakeEvents) Read(ev *Event) error {
	if f.i == f.n {
		return io.EOF
	}
	i := f.i
	f.i++
	ev.Site = f.sites[i%2]
	ev.Event.Site = uint32(i % 2)
	ev.Time, ev.PID, ev.TID, ev.CPU, ev.Comm = time.Unix(0, int64(i)), 10, 10+uint32(i%3), uint32(i%2), "prog"
	ev.Args = ev.Args[:0]
	ev.Args = append(ev.Args, hit.Value{Kind: hit.Int, Bits: uint64(i), Size: 8})
	if i%2 == 0 {
		ev.Args = append(ev.Args, hit.Value{Kind: hit.String, Str: strs[i%len(strs)], Size: 8})
	}
	return nil
}

func (f *fakeEvents) Buffered() bool {
	if !f.buffering {
		panic("Buffered called on a source that is not buffering")
	}
	return f.i%f.wait != 0
}
func (f *fakeEvents) Stop()                    { f.stop.Do(func() { close(f.stopped) }) }
func (f *fakeEvents) Stopped() <-chan struct{} { return f.stopped }
func (f *fakeEvents) Close() error             { f.Stop(); return nil }
func (f *fakeEvents) Lost() uint64             { return f.lost }
func (f *fakeEvents) Skipped() uint64          { return 0 }

// serialEvents hides Buffered, so that Stream encodes on one core.
type serialEvents struct{ *fakeEvents }

func (serialEvents) Buffered() {}

func fakeTracer(src source, f *fakeEvents) *Tracer {
	return &Tracer{src: src, plan: &Plan{Probes: []*probe.Probe{f.sites[0].Probe, f.sites[1].Probe}, opts: Options{FlushInterval: time.Hour}}}
}

// TestStreamParallel checks that the events Stream encodes on several
// cores come out as on one, in the order read, counted the same.
func TestStreamParallel(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("one core: Stream encodes serially")
	}
	for _, tt := range []struct {
		n, wait int
		max     uint64
	}{
		{0, 1, 0}, {1, 1, 0}, {1000, 1, 0}, {1000, 3, 0}, {10000, 10000, 0},
		{5000, 700, 0}, {5000, 300, 1234}, {100, 1000, 100}, {100, 1, 1},
	} {
		t.Run(fmt.Sprint(tt.n, "/", tt.wait, "/", tt.max), func(t *testing.T) {
			f := newFakeEvents(tt.n, tt.wait, false)
			var want bytes.Buffer
			wantN, err := fakeTracer(serialEvents{f}, f).Stream(context.Background(), &want, tt.max)
			if err != nil {
				t.Fatal(err)
			}
			f = newFakeEvents(tt.n, tt.wait, true)
			tr := fakeTracer(f, f)
			if encoders(tr.src) == 0 {
				t.Fatal("a buffering source is streamed serially")
			}
			var got bytes.Buffer
			gotN, err := tr.Stream(context.Background(), &got, tt.max)
			if err != nil {
				t.Fatal(err)
			}
			if got.String() != want.String() {
				t.Errorf("parallel output differs from serial:\n%.300s\nwant:\n%.300s", got.String(), want.String())
			}
			if fmt.Sprint(*gotN) != fmt.Sprint(*wantN) {
				t.Errorf("counts %+v, want %+v", *gotN, *wantN)
			}
			lines := bytes.Count(want.Bytes(), []byte("\n"))
			wantLines := tt.n + 1 // and {"lost":7}
			if tt.max > 0 && int(tt.max) < tt.n {
				wantLines = int(tt.max) + 1
			}
			if lines != wantLines {
				t.Errorf("%d lines, want %d", lines, wantLines)
			}
		})
	}
}

// failWriter fails after n bytes.
type failWriter struct{ n int }

var errFull = errors.New("disk full")

func (w *failWriter) Write(b []byte) (int, error) {
	if len(b) > w.n {
		return 0, errFull
	}
	w.n -= len(b)
	return len(b), nil
}

// TestStreamParallelWriteError checks that a failed write ends the
// stream with its error, and that the reader does not wait forever for
// the writer.
func TestStreamParallelWriteError(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("one core: Stream encodes serially")
	}
	f := newFakeEvents(1_000_000, 500, true)
	_, err := fakeTracer(f, f).Stream(context.Background(), &failWriter{n: 100 << 10}, 0)
	if !errors.Is(err, errFull) {
		t.Fatalf("Stream: %v, want %v", err, errFull)
	}
	if f.i == f.n {
		t.Errorf("read all %d events after the writer failed", f.n)
	}
}

// BenchmarkStreamEvents streams events of a source that always has the
// next one ready through Stream, on one core (serial) and with
// encoders on the others (parallel): the user-space side's rate when
// many producers fill the ring buffer.
func BenchmarkStreamEvents(b *testing.B) {
	for _, mode := range []string{"serial", "parallel"} {
		b.Run(mode, func(b *testing.B) {
			f := newFakeEvents(b.N, 1<<30, mode == "parallel")
			var src source = f
			if mode == "serial" {
				src = serialEvents{f}
			}
			b.ReportAllocs()
			b.ResetTimer()
			if _, err := fakeTracer(src, f).Stream(context.Background(), io.Discard, 0); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
		})
	}
}
