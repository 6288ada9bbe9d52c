package aggregate

import (
	"slices"
	"time"

	"github.com/sdtkit/sdtkit/pkg/ndjson"
)

// A Start is the hit of a START probe waiting for its END.
type Start struct {
	TS, PID, TID int64 // TS in Unix nanoseconds
	Comm         string
}

// A Pair is a START hit and the END hit of the same key after it.
type Pair struct {
	Start
	Key     string        // the key's value, as Key.Format writes it
	Latency time.Duration // END's time minus START's
}

// A Latency pairs the hits of a START probe with those of an END probe
// by a key, and keeps the time between them: each END pairs with the
// START of the same key value waiting, if any. NewLatency makes one that
// pairs events; one whose fields are set from pairs made elsewhere, such
// as in a BPF program, writes its text the same.
type Latency struct {
	Key Key

	Hist      Histogram // the latencies in ns
	Stats     Stats     // the latencies in ns
	Unmatched uint64    // ENDs with no START waiting
	Pending   uint64    // STARTs waiting for their END
	Slowest   []Pair    // the slowest pairs, slowest first, then earliest

	keep int
	open map[string]Start
}

// NewLatency returns a Latency that pairs by key, the thread for the zero
// Key, and keeps the slowest pairs up to the number given.
func NewLatency(key Key, slowest int) *Latency {
	if key == (Key{}) {
		key = Key{Kind: KeyTID}
	}
	return &Latency{Key: key, keep: slowest, open: make(map[string]Start)}
}

// Event takes a hit of the START probe (start), of the END probe (end),
// or of both, when one probe is the two. An END pairs with the START
// waiting for its key; an END that finds none is counted as Unmatched,
// unless it is a START too, which then waits. A START replaces the one
// its key has waiting.
func (l *Latency) Event(e *ndjson.Event, start, end bool) {
	if !start && !end {
		return
	}
	k := l.Key.Text(e)
	if end {
		if s, ok := l.open[k]; ok {
			delete(l.open, k)
			l.Pending = uint64(len(l.open))
			l.add(Pair{Start: s, Key: k, Latency: time.Duration(e.TS - s.TS)})
			return
		}
		if !start {
			l.Unmatched++
			return
		}
	}
	l.open[k] = Start{e.TS, e.PID, e.TID, e.Comm}
	l.Pending = uint64(len(l.open))
}

func (l *Latency) add(p Pair) {
	d := int64(p.Latency)
	l.Hist.AddInt(d)
	l.Stats.Add(d)
	i, _ := slices.BinarySearchFunc(l.Slowest, p.Latency, func(q Pair, d time.Duration) int {
		if q.Latency >= d {
			return -1 // after equal latencies: the earlier pair stays first
		}
		return 1
	})
	if i < l.keep {
		l.Slowest = slices.Insert(l.Slowest, i, p)
		if len(l.Slowest) > l.keep {
			l.Slowest = l.Slowest[:l.keep]
		}
	}
}

// Reset forgets the pairs and the unmatched ENDs, to start the next
// interval; the STARTs waiting go on waiting.
func (l *Latency) Reset() {
	l.Hist.Reset()
	l.Stats = Stats{}
	l.Unmatched = 0
	l.Slowest = l.Slowest[:0]
}
