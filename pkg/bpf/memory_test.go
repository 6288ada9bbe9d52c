package bpf

import (
	"errors"
	"testing"

	"github.com/cilium/ebpf"
)

// TestMapMemory checks that the memory of the maps grows with the
// CPUs by no more than the package's documentation says, and that an
// aggregation's largest key count is not allocated in advance per CPU:
// the figures of the README and of the package's Memory section.
func TestMapMemory(t *testing.T) {
	requireRoot(t)
	if kernelBefore(6, 4) {
		t.Skip("requires kernel 6.4 (map_mem_usage, by which a map's fdinfo says what it uses)")
	}
	ncpu, err := ebpf.PossibleCPU()
	if err != nil {
		t.Fatal(err)
	}
	const (
		kib   = 1 << 10
		small = 64 * kib // .rodata, filters, counters, probes, hash tables' heads
	)
	count := &Aggregation{Mode: AggCount, Probes: []AggProbe{{}}}
	byPID := &Aggregation{Mode: AggCount, Parts: []PartKind{PartPID}, Probes: []AggProbe{{}}}
	const keys = 1<<20 - 1 // and a lost entry of the probe: 2^20 buckets
	stats := &Aggregation{Mode: AggStats, Probes: []AggProbe{{}}, MaxKeys: keys}
	latency := &Aggregation{Mode: AggLatency, Probes: []AggProbe{{}, {}}}
	byStack := &Aggregation{Mode: AggCount, Parts: []PartKind{PartUStack, PartPID}, Probes: []AggProbe{{}}, MaxKeys: 4096 - 1, StackDepth: 64}
	for _, tt := range []struct {
		name   string
		opts   Options
		fixed  uint64 // sized by the options
		perCPU uint64
	}{
		// A ring buffer's pages are listed in an array of 8 bytes a
		// page, and its header pages.
		{"stream", Options{}, DefaultRingSize*101/100 + DefaultMaxSites*304, 17 * kib},
		{"stream 64 MiB", Options{RingSize: 64 << 20, MaxSites: 100}, (64<<20)*101/100 + 100*304, 18 * kib},
		// Room in each of the 4 scratch slots for the largest copy of
		// the stack, whatever the copy asked for; a ring that holds
		// CopyRingEvents copies.
		{"stream with stack copies", Options{UStackCopy: DefaultStackCopy}, 64<<20*101/100 + DefaultMaxSites*304, 84 * kib},
		{"numbers", Options{NoStrings: true}, DefaultRingSize*101/100 + DefaultMaxSites*304, 1 * kib},
		// Counts without a key are an array of a cache line per CPU.
		{"count", Options{Aggregate: count}, DefaultMaxSites * 304, 2 * kib},
		{"count by pid", Options{Aggregate: byPID}, DefaultMaxSites*304 + 2*16*16384, 2 * kib},
		// 2^20 keys of 32 bytes per CPU allocated in advance would be
		// 32 MiB a CPU: only the buckets are.
		{"stats of 2^20 keys", Options{Aggregate: stats}, DefaultMaxSites*304 + 2*16*(keys+1), 2 * kib},
		{"latency", Options{Aggregate: latency}, DefaultMaxSites*304 + 2*16*16384 + DefaultMaxKeys*96, 2 * kib},
		// The map of stacks is allocated whole: a bucket's pointer, and
		// per stack a 16-byte header and its frames.
		{"count by stack", Options{Aggregate: byStack}, DefaultMaxSites*304 + 2*8*8192 + 4096*8 + 4096*(16+64*8), 2 * kib},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Load(&tt.opts)
			if errors.Is(err, ErrNotSupported) {
				t.Skip(err)
			}
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			got, err := p.MapMemory()
			if err != nil {
				t.Fatal(err)
			}
			bound := tt.fixed + small + uint64(ncpu)*tt.perCPU
			t.Logf("%d bytes on %d CPUs, bound %d", got, ncpu, bound)
			if got > bound {
				t.Errorf("maps take %d bytes on %d CPUs, more than %d + %d + %d per CPU", got, ncpu, tt.fixed, small, tt.perCPU)
			}
			if got < tt.fixed*99/100 {
				t.Errorf("maps take %d bytes, less than the %d asked for: MapMemory misses a map", got, tt.fixed)
			}
		})
	}
}
