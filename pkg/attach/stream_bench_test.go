package attach

import (
	"bufio"
	"io"
	"testing"
	"time"

	"github.com/sdtkit/sdtkit/pkg/hit"
	"github.com/sdtkit/sdtkit/pkg/probe"
	"github.com/sdtkit/sdtkit/pkg/probespec"
)

// BenchmarkOutputEvent writes events of a 3-argument probe as NDJSON, the
// path every event takes from the ring buffer to standard output through Stream (after
// decoding, which package bpf benchmarks); events/s is per core.
func BenchmarkOutputEvent(b *testing.B) {
	p := &probe.Probe{Target: &probe.Target{Name: "/usr/local/bin/bench-loop"}, Provider: "bench", Name: "hit"}
	s := &Site{Probe: p}
	for _, raw := range []string{"-8@%rax", "-8@%rdx", "-8@%rcx"} {
		s.Args = append(s.Args, Arg{Type: probespec.Type{}, Raw: raw})
	}
	out := &streamer{bw: bufio.NewWriterSize(io.Discard, 64<<10)}
	ev := Event{Site: s, Event: hit.Event{
		Time: time.Unix(1_795_000_000, 0), PID: 4242, TID: 4242, CPU: 1, Comm: "bench-loop",
		Args: make([]hit.Value, 3),
	}}
	b.ReportAllocs()
	var i uint64
	for b.Loop() {
		ev.Time = ev.Time.Add(1375)
		for j := range ev.Args {
			ev.Args[j] = hit.Value{Kind: hit.Int, Bits: i * uint64(j+1), Size: 8}
		}
		if err := out.event(&ev); err != nil {
			b.Fatal(err)
		}
		i++
	}
	if err := out.bw.Flush(); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}
