package bpf

import (
	"fmt"
	"slices"
	"testing"

	"github.com/sdtkit/sdtkit/pkg/filter"
	"github.com/sdtkit/sdtkit/pkg/stapsdt"
)

// Probes added after loading, as libraries loaded later bring them, are
// counted as those loaded with the program: a string key part the
// program was told to make room for, a filter, lost entries; what has no
// room is refused.
func TestAddProbe(t *testing.T) {
	requireRoot(t)
	requireAMD64(t)
	e, err := filter.Parse("arg0 > 3")
	if err != nil {
		t.Fatal(err)
	}
	above3, err := e.Compile(&filter.Probe{Args: []filter.Arg{{Size: 8, Signed: true}}})
	if err != nil {
		t.Fatal(err)
	}
	p := load(t, Options{MaxProbes: 3, Filtering: true, Aggregate: &Aggregation{
		Mode: AggCount, Parts: []PartKind{PartPID, PartArg}, Strings: []bool{false, true}}})
	noArg := AggArg{Index: -1}
	for _, tt := range []struct {
		id  int
		agg AggProbe
		f   *filter.Program
	}{
		{0, AggProbe{Parts: []AggArg{{}, {Index: 1, String: true}}}, nil}, // start: argv[0]
		{1, AggProbe{Parts: []AggArg{{}, {Index: 0, Size: 8, Signed: true}}}, above3},
		{2, AggProbe{Parts: []AggArg{{}, noArg}}, nil},
	} {
		if err := p.AddProbe(tt.id, &tt.agg, tt.f); err != nil {
			t.Fatalf("AddProbe(%d): %v", tt.id, err)
		}
	}
	for _, bad := range []int{1, 3} {
		if err := p.AddProbe(bad, &AggProbe{}, nil); err == nil {
			t.Errorf("AddProbe(%d): no error", bad)
		}
	}
	ss, _ := sites(t, demo, func(s *stapsdt.Site) ArgMask {
		if s.Name == "start" {
			return 1 << 1
		}
		return 0
	})
	if err := p.Attach(demo, ss); err != nil {
		t.Fatalf("Attach: %v", err)
	}
	pid := uint64(run(t, demo, "5", "10").Process.Pid)
	var got []string
	err = p.Collect(func(e *AggEntry) {
		if e.Lost || e.Parts[0].Bits != pid {
			return
		}
		got = append(got, fmt.Sprintf("probe %d count %d %s", e.Probe, e.Count, e.Parts[1].String()))
	})
	if err != nil {
		t.Fatalf("Collect: %v", err)
	}
	slices.Sort(got)
	want := []string{
		fmt.Sprintf("probe 0 count 1 %q at 0x0", demo),
		"probe 1 count 1 4",
		"probe 1 count 1 5",
		"probe 2 count 5 <not read>",
	}
	if !slices.Equal(got, want) {
		t.Errorf("entries:\n%q\nwant\n%q", got, want)
	}

	// A string part where the key has room for a number, a filter for a
	// program without any.
	num := load(t, Options{MaxProbes: 2, Aggregate: &Aggregation{Mode: AggCount, Parts: []PartKind{PartArg}}})
	if err := num.AddProbe(0, &AggProbe{Parts: []AggArg{{Index: 1, String: true}}}, nil); err == nil {
		t.Error("AddProbe of a string part in a number's room: no error")
	}
	if err := num.AddProbe(0, &AggProbe{}, above3); err == nil {
		t.Error("AddProbe of a filter without Filtering: no error")
	}
}
