package bpf

import (
	"encoding/binary"
	"testing"
)

// benchRecord lays out a struct event as the BPF program submits it for a
// probe with three 8-byte signed register arguments, like the bench:hit
// probe of scripts/bench-loop.c.
func benchRecord(i uint64) []byte {
	b := make([]byte, eventHeaderSize)
	le := binary.LittleEndian
	le.PutUint64(b[0:], 5e9+i)
	le.PutUint32(b[8:], 4242)
	le.PutUint32(b[12:], 4242)
	le.PutUint32(b[16:], uint32(i%2))
	le.PutUint32(b[20:], 0) // site
	le.PutUint32(b[24:], 0) // probe
	le.PutUint16(b[28:], 3) // nargs
	copy(b[40:56], "bench-loop\x00")
	le.PutUint64(b[56:], i)
	le.PutUint64(b[64:], 2*i)
	le.PutUint64(b[72:], 3*i)
	return b
}

// BenchmarkDecodeEvent decodes ring-buffer records of a 3-argument probe
// into Events, as Read does; events/s is per core.
func BenchmarkDecodeEvent(b *testing.B) {
	var spec Spec
	spec.raw.Nargs = 3
	for i := range 3 {
		spec.raw.Args[i] = usdtArg{Size: 8, Flags: flagSigned}
	}
	specs := func(site uint32) *Spec {
		if site == 0 {
			return &spec
		}
		return nil
	}
	recs := make([][]byte, 64)
	for i := range recs {
		recs[i] = benchRecord(uint64(i))
	}
	var ev Event
	var raw usdtEvent
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if err := decodeEvent(recs[i%len(recs)], &raw, specs, 1.7e18, &ev); err != nil {
			b.Fatal(err)
		}
		i++
	}
	if len(ev.Args) != 3 || ev.Args[0].Kind != Int {
		b.Fatalf("decoded %+v", ev)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}
