package main

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sdtkit/sdtkit/internal/termtext"
	"github.com/sdtkit/sdtkit/pkg/event"
)

// slowest is how many of the slowest pairs --latency lists.
const slowest = 10

// latencySpec is --latency START,END[,KEY].
type latencySpec struct {
	start, end pattern
	key        *key
}

func parseLatency(s string) (*latencySpec, error) {
	parts := strings.Split(s, ",")
	if len(parts) < 2 || len(parts) > 3 {
		return nil, errors.New("want START,END[,KEY]")
	}
	var l latencySpec
	var err error
	if l.start, err = parseProbe(parts[0]); err != nil {
		return nil, fmt.Errorf("%s: %w", shown(parts[0]), err)
	}
	if l.end, err = parseProbe(parts[1]); err != nil {
		return nil, fmt.Errorf("%s: %w", shown(parts[1]), err)
	}
	l.key = &key{kind: keyTID}
	if len(parts) == 3 {
		if l.key, err = parseKey(parts[2]); err != nil {
			return nil, fmt.Errorf("%s: %w", shown(parts[2]), err)
		}
	}
	return &l, nil
}

// A start is an event waiting for its END.
type start struct {
	ts, pid, tid int64
	comm         string
}

// A pair is a START and its END.
type pair struct {
	start
	key string
	d   int64 // ns
}

// latencyAgg is --latency.
type latencyAgg struct {
	spec      *latencySpec
	clock     *clock
	open      map[string]start
	h         hist
	n         uint64
	sum       int64
	min, max  int64
	slow      []pair // slowest first
	unmatched uint64 // ENDs without a START
}

func newLatencyAgg(c *config, clk *clock) *latencyAgg {
	return &latencyAgg{spec: c.latency, clock: clk, open: make(map[string]start)}
}

func (a *latencyAgg) event(e *event.Event) {
	isStart := a.spec.start.match(e.Provider, e.Name)
	isEnd := a.spec.end.match(e.Provider, e.Name)
	if !isStart && !isEnd {
		return
	}
	k := a.spec.key.text(e)
	if isEnd {
		if s, ok := a.open[k]; ok {
			delete(a.open, k)
			a.add(pair{start: s, key: k, d: e.TS - s.ts})
			return
		}
		if !isStart {
			a.unmatched++
			return
		}
	}
	// A second START for the same key replaces the first.
	a.open[k] = start{e.TS, e.PID, e.TID, e.Comm}
}

func (a *latencyAgg) add(p pair) {
	a.h.addInt(p.d)
	if a.n == 0 || p.d < a.min {
		a.min = p.d
	}
	if a.n == 0 || p.d > a.max {
		a.max = p.d
	}
	a.n++
	a.sum += p.d
	i, _ := slices.BinarySearchFunc(a.slow, p.d, func(q pair, d int64) int {
		if q.d > d {
			return -1
		}
		return 1 // after equal latencies: the earlier pair stays first
	})
	if i < slowest {
		a.slow = slices.Insert(a.slow, i, p)
		if len(a.slow) > slowest {
			a.slow = a.slow[:slowest]
		}
	}
}

func (a *latencyAgg) report(w io.Writer) error {
	s := a.spec
	fmt.Fprintf(w, "%s -> %s by %s: pairs %d, latency in ns\n", s.start.text(), s.end.text(), s.key, a.n)
	if a.n > 0 {
		a.h.write(w)
		fmt.Fprintf(w, "\nmin %v  avg %v  max %v\n", time.Duration(a.min), time.Duration(a.sum/int64(a.n)), time.Duration(a.max))
	}
	if a.unmatched > 0 || len(a.open) > 0 {
		fmt.Fprintf(w, "%d END without START, %d START without END yet\n", a.unmatched, len(a.open))
	}
	if len(a.slow) > 0 {
		io.WriteString(w, "\n")
		a.writeSlowest(w)
	}
	a.h, a.n, a.sum, a.slow, a.unmatched = hist{}, 0, 0, a.slow[:0], 0
	return nil
}

// writeSlowest lists the slowest pairs with the START event's time,
// process and key.
func (a *latencyAgg) writeSlowest(w io.Writer) error {
	withTime := a.clock.style != timeNone
	withKey := a.spec.key.kind == keyArg || a.spec.key.kind == keyField
	head := []string{"LATENCY"}
	right := []bool{true}
	if withTime {
		head, right = append(head, "START"), append(right, false)
	}
	head, right = append(head, "PID", "TID", "COMM"), append(right, false, false, false)
	if withKey {
		head = append(head, strings.ToUpper(a.spec.key.String()))
	}
	t := columns{right: right}
	t.row(head...)
	for _, p := range a.slow {
		r := []string{time.Duration(p.d).String()}
		if withTime {
			r = append(r, string(a.clock.appendTime(nil, p.ts)))
		}
		r = append(r, strconv.FormatInt(p.pid, 10), strconv.FormatInt(p.tid, 10), termtext.String(p.comm))
		if withKey {
			r = append(r, p.key)
		}
		t.row(r...)
	}
	return t.write(w)
}

func (a *latencyAgg) warnings() []string { return nil }
