package main

import (
	"io"
	"testing"
	"time"

	"github.com/sdtkit/sdtkit/pkg/attach"
	"github.com/sdtkit/sdtkit/pkg/bpf"
	"github.com/sdtkit/sdtkit/pkg/probe"
	"github.com/sdtkit/sdtkit/pkg/probespec"
)

// BenchmarkOutputEvent writes events of a 3-argument probe as NDJSON, the
// path every event takes from the ring buffer to standard output (after
// decoding, which package bpf benchmarks); events/s is per core.
func BenchmarkOutputEvent(b *testing.B) {
	p := &probe.Probe{Target: &probe.Target{Name: "/usr/local/bin/bench-loop"}, Provider: "bench", Name: "hit"}
	s := &attach.Site{Probe: p}
	for _, raw := range []string{"-8@%rax", "-8@%rdx", "-8@%rcx"} {
		s.Args = append(s.Args, attach.Arg{Type: probespec.Type{}, Raw: raw})
	}
	plan := &attach.Plan{Probes: []*probe.Probe{p}, Sites: []*attach.Site{s}}
	out := newOutput(io.Discard, plan)
	ev := attach.Event{Site: s, Event: bpf.Event{
		Time: time.Unix(1_795_000_000, 0), PID: 4242, TID: 4242, CPU: 1, Comm: "bench-loop",
		Args: make([]bpf.Value, 3),
	}}
	b.ReportAllocs()
	var i uint64
	for b.Loop() {
		ev.Time = ev.Time.Add(1375)
		for j := range ev.Args {
			ev.Args[j] = bpf.Value{Kind: bpf.Int, Bits: i * uint64(j+1), Size: 8}
		}
		if err := out.event(&ev); err != nil {
			b.Fatal(err)
		}
		i++
	}
	if err := out.flush(); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}
