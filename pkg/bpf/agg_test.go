package bpf

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/sdtkit/sdtkit/pkg/stapsdt"
)

// aggDemo runs the demo, aggregated by a, and returns the entries of its
// hits as text, sorted, and what a second Collect found. The key has the
// pid first, which tells the demo's hits from those of other tests.
func aggDemo(t *testing.T, perSite bool, a *Aggregation) (first, second []string) {
	t.Helper()
	withPID := *a
	withPID.Parts = append([]PartKind{PartPID}, a.Parts...)
	withPID.Probes = nil
	for _, p := range a.Probes {
		p.Parts = append([]AggArg{{}}, p.Parts...)
		withPID.Probes = append(withPID.Probes, p)
	}
	p := load(t, Options{PerSite: perSite, Aggregate: &withPID})
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
		for _, perSite := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/perSite=%v", tt.name, perSite), func(t *testing.T) {
				first, second := aggDemo(t, perSite, &tt.a)
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
