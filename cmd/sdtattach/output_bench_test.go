package main

import (
	"io"
	"log"
	"testing"
	"time"

	"github.com/sdtkit/sdtkit/bpf"
	"github.com/sdtkit/sdtkit/pkg/probespec"
)

// BenchmarkOutputEvent is the reader's cost of writing one event of a
// 3-argument probe (two integers and a string) as NDJSON.
func BenchmarkOutputEvent(b *testing.B) {
	p := &probe{target: &target{name: "prog"}, provider: "bench", name: "loop"}
	s := &site{probe: p, args: []argPlan{{}, {}, {typ: probespec.Type{Kind: probespec.String}}}}
	o := newOutput(io.Discard, []*site{s}, log.New(io.Discard, "", 0))
	ev := bpf.Event{Time: time.Unix(1795313761, 382844216), PID: 21113, TID: 21117, CPU: 1, Comm: "bench-loop", Args: []bpf.Value{
		{Kind: bpf.Int, Bits: uint64(1<<64 - 123456), Size: 8},
		{Kind: bpf.Uint, Bits: 987654321, Size: 4},
		{Kind: bpf.String, Str: "/item/12345", Size: 8},
	}}
	b.ReportAllocs()
	for b.Loop() {
		if err := o.event(&ev); err != nil {
			b.Fatal(err)
		}
	}
}
