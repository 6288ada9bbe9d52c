package bpf

import (
	"fmt"
	"math/bits"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/sdtkit/sdtkit/pkg/stapsdt"
)

// aggDemo runs the demo, aggregated by a, and returns the entries of its
// hits as text, sorted, and what a second Collect found. The key has the
// pid first, which tells the demo's hits from those of other tests.
func aggDemo(t *testing.T, m mode, a *Aggregation) (first, second []string) {
	t.Helper()
	withPID := *a
	withPID.Parts = append([]PartKind{PartPID}, a.Parts...)
	withPID.Probes = nil
	for _, p := range a.Probes {
		p.Parts = append([]AggArg{{}}, p.Parts...)
		withPID.Probes = append(withPID.Probes, p)
	}
	p := load(t, m.options(Options{Aggregate: &withPID}))
	ss, _ := sites(t, demo, func(p *stapsdt.Site) ArgMask {
		if p.Name == "start" {
			return 1 << 1 // argv[0]
		}
		return 0
	})
	if err := p.Attach(demo, ss); err != nil {
		t.Fatalf("Attach: %v", err)
	}
	cmd := run(t, demo, "5", "10")
	pid := uint64(cmd.Process.Pid)
	text := func() []string {
		var got []string
		err := p.Collect(func(e *AggEntry) {
			if e.Lost || e.Parts[0].Bits != pid {
				return
			}
			var parts []string
			for _, v := range e.Parts[1:] {
				if v.Kind == Uint && v.Bits == pid {
					parts = append(parts, "PID")
					continue
				}
				parts = append(parts, v.Kind.String()+":"+v.String())
			}
			s := fmt.Sprintf("probe %d bucket %d count %d [%s]", e.Probe, e.Bucket, e.Count, strings.Join(parts, " "))
			if a.Mode == AggStats {
				s += fmt.Sprintf(" sum %d min %d max %d", e.Sum, e.Min, e.Max)
			}
			if e.Lost || e.Unread {
				s += fmt.Sprintf(" lost %v unread %v", e.Lost, e.Unread)
			}
			got = append(got, s)
		})
		if err != nil {
			t.Fatalf("Collect: %v", err)
		}
		slices.Sort(got)
		return got
	}
	return text(), text()
}

func TestAggregate(t *testing.T) {
	requireRoot(t)
	requireAMD64(t)
	arg0 := AggArg{Index: 0}
	for _, tt := range []struct {
		name string
		a    Aggregation
		want []string
	}{
		{
			"count by pid and comm",
			Aggregation{Mode: AggCount, Parts: []PartKind{PartPID, PartComm}, Probes: make([]AggProbe, 3)},
			[]string{
				`probe 0 bucket 0 count 1 [PID string:"demo" at 0x0]`,
				`probe 1 bucket 0 count 5 [PID string:"demo" at 0x0]`,
				`probe 2 bucket 0 count 5 [PID string:"demo" at 0x0]`,
			},
		},
		{
			// bpftrace's hist() buckets: 3 in [2, 4); 1 in [1]; 2 and 3
			// in [2, 4); 4 and 5 in [4, 8); the negative values in the
			// first.
			"hist of arg0",
			Aggregation{Mode: AggHist, Probes: []AggProbe{{Value: arg0}, {Value: arg0}, {Value: arg0}}},
			[]string{
				"probe 0 bucket 3 count 1 []",
				"probe 1 bucket 2 count 1 []",
				"probe 1 bucket 3 count 2 []",
				"probe 1 bucket 4 count 2 []",
				"probe 2 bucket 0 count 5 []",
			},
		},
		{
			"stats of arg0 by a string and a number",
			Aggregation{Mode: AggStats, Parts: []PartKind{PartArg}, Probes: []AggProbe{
				{Value: arg0, Parts: []AggArg{{Index: 1, String: true}}},
				{Value: arg0, Parts: []AggArg{{Index: 0, Size: 1}}},
				{Value: AggArg{Index: 0, Size: 1, Signed: false}, Parts: []AggArg{{Index: 5}}},
			}},
			[]string{
				`probe 0 bucket 0 count 1 [string:"` + demo + `" at 0x0] sum 3 min 3 max 3`,
				`probe 1 bucket 0 count 1 [uint:1] sum 1 min 1 max 1`,
				`probe 1 bucket 0 count 1 [uint:2] sum 2 min 2 max 2`,
				`probe 1 bucket 0 count 1 [uint:3] sum 3 min 3 max 3`,
				`probe 1 bucket 0 count 1 [uint:4] sum 4 min 4 max 4`,
				`probe 1 bucket 0 count 1 [uint:5] sum 5 min 5 max 5`,
				// -1..-5 as bytes: 255..251; the probe has no arg5.
				`probe 2 bucket 0 count 5 [not read:<not read>] sum 1265 min 251 max 255`,
			},
		},
	} {
		for _, m := range aggModes() {
			t.Run(tt.name+"/"+m.name, func(t *testing.T) {
				first, second := aggDemo(t, m, &tt.a)
				if !slices.Equal(first, tt.want) {
					t.Errorf("Collect:\n%s\nwant\n%s", strings.Join(first, "\n"), strings.Join(tt.want, "\n"))
				}
				if len(second) != 0 {
					t.Errorf("second Collect: %q, want nothing", second)
				}
			})
		}
	}
}

// TestAggregateLatency pairs the demo's ticks: each tick(i) is followed
// at once by tick(-i), then the demo sleeps 10 ms.
func TestAggregateLatency(t *testing.T) {
	requireRoot(t)
	requireAMD64(t)
	tick, untick := AggProbe{Start: true}, AggProbe{End: true}
	for _, tt := range []struct {
		name string
		a    Aggregation
		// pairs, unmatched ENDs, STARTs and STARTs pending at the end.
		pairs, unmatched, starts, pending uint64
		// the least and greatest latency allowed
		min, max int64
	}{
		// Nothing runs between a tick and its untick but what preempts
		// the thread (5.3 ms seen on a loaded 2-core machine), well
		// below the 10 ms sleep between an untick and the next tick.
		{"tick to untick by tid", Aggregation{Mode: AggLatency, Probes: []AggProbe{{}, tick, untick}},
			5, 0, 5, 0, 1, 9e6},
		// The first tick finds no untick; the last untick waits.
		{"untick to tick by pid", Aggregation{Mode: AggLatency, Pair: PartPID, Probes: []AggProbe{{}, untick, tick}},
			4, 1, 5, 1, 10e6, 1e9},
		// i and -i never pair.
		{"tick to untick by arg0", Aggregation{Mode: AggLatency, Pair: PartArg, Probes: []AggProbe{
			{}, {Start: true, Pair: AggArg{Index: 0}}, {End: true, Pair: AggArg{Index: 0}}}},
			0, 5, 5, 5, 0, 0},
		// A probe that is both pairs with itself: 9 ticks after 10 ticks,
		// the first fires no pair and the last waits.
		{"tick to tick by comm", Aggregation{Mode: AggLatency, Pair: PartComm, Probes: []AggProbe{
			{}, {Start: true, End: true}, {Start: true, End: true}}},
			9, 0, 10, 1, 1, 1e9},
	} {
		for _, m := range aggModes() {
			t.Run(tt.name+"/"+m.name, func(t *testing.T) {
				a := tt.a
				a.Parts = []PartKind{PartPID}
				a.Probes = slices.Clone(a.Probes)
				for i := range a.Probes {
					a.Probes[i].Parts = []AggArg{{}}
				}
				p, cmd := runAggregated(t, m, &a, "10")
				pid := uint64(cmd.Process.Pid)
				var pairs, unmatched, starts, pending uint64
				lo, hi := int64(1<<62), int64(-1)
				err := p.Collect(func(e *AggEntry) {
					switch {
					case e.Pending:
						pending += e.Count
					case e.Starts:
						starts += e.Count
					case len(e.Parts) != 1 || e.Parts[0].Bits != pid:
						// another process, or a key that is not read at ENDs
					case e.Unmatched:
						unmatched += e.Count
					case e.Lost, e.Unread:
						t.Errorf("entry %+v", *e)
					default:
						pairs += e.Count
						lo, hi = min(lo, e.Min), max(hi, e.Max)
						if bucketOf(e.Min) != e.Bucket || bucketOf(e.Max) != e.Bucket {
							t.Errorf("bucket %d holds [%d, %d]", e.Bucket, e.Min, e.Max)
						}
					}
				})
				if err != nil {
					t.Fatalf("Collect: %v", err)
				}
				if pairs != tt.pairs || unmatched != tt.unmatched || starts != tt.starts || pending != tt.pending {
					t.Errorf("pairs %d, unmatched %d, starts %d, pending %d; want %d, %d, %d, %d",
						pairs, unmatched, starts, pending, tt.pairs, tt.unmatched, tt.starts, tt.pending)
				}
				if tt.pairs > 0 && (lo < tt.min || hi > tt.max) {
					t.Errorf("latencies in [%d, %d] ns, want in [%d, %d]", lo, hi, tt.min, tt.max)
				}
			})
		}
	}
}

// aggModes are the modes of the aggregating program, which reads
// strings always.
func aggModes() []mode {
	var ms []mode
	for _, m := range modes {
		if !m.noStrings {
			ms = append(ms, m)
		}
	}
	return ms
}

// bucketOf returns the log2 bucket of a latency, numbered as package
// aggregate numbers them.
func bucketOf(v int64) int {
	if v == 0 {
		return 1
	}
	return bits.Len64(uint64(v)) + 1
}

// TestAggregateLost checks that the hits that find the map full are
// counted as lost for their own probe.
func TestAggregateLost(t *testing.T) {
	requireRoot(t)
	requireAMD64(t)
	arg0 := AggArg{Index: 0}
	for _, tt := range []struct {
		name string
		a    Aggregation
		want map[uint32]uint64 // lost hits by probe
	}{
		// One key: the start's, then 5 ticks and 5 unticks by value.
		{"count by arg0", Aggregation{Mode: AggCount, MaxKeys: 1, Parts: []PartKind{PartArg},
			Probes: []AggProbe{{Parts: []AggArg{arg0}}, {Parts: []AggArg{arg0}}, {Parts: []AggArg{arg0}}}},
			map[uint32]uint64{1: 5, 2: 5}},
		// One START waits, the other 4 are lost; the ENDs never pair
		// and find the map full of the STARTs' count.
		{"latency by arg0", Aggregation{Mode: AggLatency, MaxKeys: 1, Pair: PartArg,
			Probes: []AggProbe{{}, {Start: true, Pair: arg0}, {End: true, Pair: arg0}}},
			map[uint32]uint64{1: 4, 2: 5}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p, _ := runAggregated(t, mode{name: "uprobe_multi"}, &tt.a, "1")
			got := make(map[uint32]uint64)
			err := p.Collect(func(e *AggEntry) {
				if e.Lost {
					got[e.Probe] += e.Count
				}
			})
			if err != nil {
				t.Fatalf("Collect: %v", err)
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) { // maps print sorted
				t.Errorf("lost by probe %v, want %v", got, tt.want)
			}
		})
	}
}

// runAggregated attaches a program aggregating as a says to every site
// of the demo and runs it: 5 ticks, ms milliseconds apart.
func runAggregated(t *testing.T, m mode, a *Aggregation, ms string) (*Program, *exec.Cmd) {
	t.Helper()
	p := load(t, m.options(Options{Aggregate: a}))
	ss, _ := sites(t, demo, nil)
	if err := p.Attach(demo, ss); err != nil {
		t.Fatalf("Attach: %v", err)
	}
	return p, run(t, demo, "5", ms)
}

// TestAggregateCount counts the demo's hits by probe alone, the plain
// count that takes the probe id from the cookie: its sites attached in
// two calls, the first sites last, so that no site's number is its probe
// id.
func TestAggregateCount(t *testing.T) {
	requireRoot(t)
	requireAMD64(t)
	want := []string{"probe 0 count 1", "probe 1 count 5", "probe 2 count 5"}
	for _, m := range aggModes() {
		t.Run(m.name, func(t *testing.T) {
			p := load(t, m.options(Options{Aggregate: &Aggregation{Mode: AggCount, Probes: make([]AggProbe, 3)}}))
			ss, _ := sites(t, demo, nil)
			if len(ss) != 3 {
				t.Fatalf("demo has %d sites, want 3", len(ss))
			}
			for _, part := range [][]Site{ss[1:], ss[:1]} {
				if err := p.Attach(demo, part); err != nil {
					t.Fatalf("Attach: %v", err)
				}
			}
			run(t, demo, "5", "1")
			for i, want := range [][]string{want, nil} {
				var got []string
				err := p.Collect(func(e *AggEntry) {
					got = append(got, fmt.Sprintf("probe %d count %d", e.Probe, e.Count))
					if e.Lost || e.Unread || e.Bucket != 0 {
						t.Errorf("Collect %d: probe %d lost %v unread %v bucket %d, want a count", i, e.Probe, e.Lost, e.Unread, e.Bucket)
					}
				})
				if err != nil {
					t.Fatalf("Collect: %v", err)
				}
				slices.Sort(got)
				if !slices.Equal(got, want) {
					t.Errorf("Collect %d: %q, want %q", i, got, want)
				}
			}
		})
	}
}
