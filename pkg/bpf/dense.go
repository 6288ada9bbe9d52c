package bpf

import (
	"fmt"

	"github.com/cilium/ebpf"
)

// denseHist is agg.bpf.c's DENSE_HIST: the counters of a probe's
// histogram, buckets 0 to 65, then the hits whose value was not read.
const denseHist = 67

// maxDense bounds the bytes of the array of counters, all CPUs
// together; an aggregation that would need more keeps hashes.
const maxDense = 1 << 20

// denseLayout is where the counters of an aggregation without key parts,
// AggCount or AggHist, lie when they are in an array rather than in
// generations that are hashes (agg.bpf.c's dense_add): an entry per CPU,
// keyed by the CPU's number, of stride counters, buckets for each probe
// id.
type denseLayout struct {
	stride  int // a multiple of 8, so that CPUs share no cache line
	buckets int
	ncpu    int
}

// newDenseLayout returns the layout of the counters of a, with room for
// nprobes probe ids on ncpu CPUs, or nil when a keeps its entries in a
// hash: it has key parts, or values other than counts, or too many.
func newDenseLayout(a *Aggregation, nprobes, ncpu int) *denseLayout {
	if len(a.Parts) > 0 {
		return nil
	}
	buckets := 1
	switch a.Mode {
	case AggCount:
	case AggHist:
		buckets = denseHist
	default:
		return nil
	}
	stride := (nprobes*buckets + 7) &^ 7
	if stride*8*ncpu > maxDense {
		return nil
	}
	return &denseLayout{stride: stride, buckets: buckets, ncpu: ncpu}
}

// setSpec sizes counts, the spec of agg.bpf.c's map of counters, for d.
func (d *denseLayout) setSpec(counts *ebpf.MapSpec) {
	counts.ValueSize = uint32(8 * d.stride)
	counts.MaxEntries = uint32(d.ncpu)
}

// denseCounts is the map of counters of a dense aggregation and what
// they summed to when last read. The program only adds to them: what
// they grew by since is what an interval counted, so that they are read
// with no switch of generations and never emptied.
type denseCounts struct {
	*denseLayout
	m    *ebpf.Map
	last []uint64 // by counter, over the CPUs
}

func newDenseCounts(d *denseLayout, m *ebpf.Map) *denseCounts {
	return &denseCounts{denseLayout: d, m: m, last: make([]uint64, d.stride)}
}

// collect calls fn with each counter that grew since the last call, by
// how much it grew, summed over the CPUs. A hit counted while the CPUs
// are read is in this interval or in the next one, not in both. The
// AggEntry is reused between calls.
func (d *denseCounts) collect(mode AggMode, fn func(*AggEntry)) error {
	sums := make([]uint64, d.stride)
	vals := make([]uint64, d.stride)
	for cpu := range d.ncpu {
		if err := d.m.Lookup(uint32(cpu), &vals); err != nil {
			return fmt.Errorf("counters of cpu %d: %w", cpu, err)
		}
		for i, v := range vals {
			sums[i] += v
		}
	}
	var e AggEntry
	for i, sum := range sums {
		n := sum - d.last[i]
		if n == 0 {
			continue
		}
		// Min and Max as decode leaves them for counts.
		e = AggEntry{Parts: e.Parts[:0], Probe: uint32(i / d.buckets), Count: n, Min: int64(^uint64(1 << 63)), Max: int64(-1 << 63)}
		if mode == AggHist {
			if b := i % d.buckets; b == denseHist-1 {
				e.Unread = true
			} else {
				e.Bucket = b
			}
		}
		fn(&e)
	}
	d.last = sums
	return nil
}
