package aggregate

import (
	"testing"
	"time"

	"github.com/sdtkit/sdtkit/pkg/ndjson"
)

func TestLatency(t *testing.T) {
	type hit struct {
		ts, tid    int64
		start, end bool
	}
	for _, tt := range []struct {
		name      string
		hits      []hit
		pairs     []time.Duration // slowest first
		unmatched uint64
		pending   uint64
	}{
		{"pairs by thread", []hit{{0, 1, true, false}, {5, 2, true, false}, {10, 1, false, true}, {25, 2, false, true}}, []time.Duration{20, 10}, 0, 0},
		{"end without start", []hit{{10, 1, false, true}}, nil, 1, 0},
		{"start never ended", []hit{{10, 1, true, false}, {20, 2, false, true}}, nil, 1, 1},
		{"second start replaces the first", []hit{{0, 1, true, false}, {4, 1, true, false}, {10, 1, false, true}}, []time.Duration{6}, 0, 0},
		{"one probe both start and end", []hit{{0, 1, true, true}, {3, 1, true, true}, {10, 1, true, true}}, []time.Duration{3}, 0, 1},
		{"other probes", []hit{{0, 1, false, false}}, nil, 0, 0},
		{"slowest kept", []hit{
			{0, 1, true, false}, {1, 1, false, true},
			{0, 2, true, false}, {3, 2, false, true},
			{0, 3, true, false}, {2, 3, false, true},
			{0, 4, true, false}, {3, 4, false, true},
		}, []time.Duration{3, 3, 2}, 0, 0},
	} {
		l := NewLatency(Key{}, 3)
		for _, h := range tt.hits {
			l.Event(&ndjson.Event{TS: h.ts, PID: 9, TID: h.tid, Comm: "c"}, h.start, h.end)
		}
		var got []time.Duration
		for _, p := range l.Slowest {
			got = append(got, p.Latency)
		}
		if len(got) != len(tt.pairs) || l.Unmatched != tt.unmatched || l.Pending != tt.pending {
			t.Errorf("%s: slowest %v, unmatched %d, pending %d; want %v, %d, %d", tt.name, got, l.Unmatched, l.Pending, tt.pairs, tt.unmatched, tt.pending)
			continue
		}
		for i := range got {
			if got[i] != tt.pairs[i] {
				t.Errorf("%s: slowest %v, want %v", tt.name, got, tt.pairs)
				break
			}
		}
	}
}

// The slowest of equal latencies is the earlier pair, and a Reset keeps
// the STARTs waiting.
func TestLatencyOrderAndReset(t *testing.T) {
	l := NewLatency(Key{Kind: KeyArg, Arg: 0}, 10)
	ev := func(ts int64, id uint64) *ndjson.Event {
		return &ndjson.Event{TS: ts, TID: int64(id), Args: []ndjson.Value{{Kind: ndjson.Uint, Uint: id}}}
	}
	l.Event(ev(0, 1), true, false)
	l.Event(ev(1, 2), true, false)
	l.Event(ev(5, 1), false, true)
	l.Event(ev(6, 2), false, true)
	l.Event(ev(7, 3), true, false)
	if len(l.Slowest) != 2 || l.Slowest[0].Key != "1" || l.Slowest[1].Key != "2" {
		t.Fatalf("Slowest = %+v, want the pair of key 1, then of key 2", l.Slowest)
	}
	if s := l.Stats; s.Count != 2 || s.Sum != 10 || l.Hist.Count(BucketInt(5)) != 2 {
		t.Errorf("Stats = %+v, Hist bucket of 5 = %d, want 2 pairs of 5ns", s, l.Hist.Count(BucketInt(5)))
	}
	l.Reset()
	if l.Stats.Count != 0 || l.Hist.Total() != 0 || len(l.Slowest) != 0 || l.Pending != 1 {
		t.Errorf("after Reset: %d pairs, %d in histogram, %d slowest, %d pending; want 0, 0, 0, 1", l.Stats.Count, l.Hist.Total(), len(l.Slowest), l.Pending)
	}
	l.Event(ev(10, 3), false, true)
	if l.Stats.Count != 1 || l.Stats.Max != 3 {
		t.Errorf("a START from before Reset did not pair: %+v", l.Stats)
	}
}
