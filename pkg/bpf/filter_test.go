package bpf

import (
	"errors"
	"testing"

	"github.com/sdtkit/sdtkit/pkg/filter"
)

// Every program loads with filters, which the verifier checks with the
// interpreter; their hits are checked by the script tests.
func TestLoadFilters(t *testing.T) {
	requireRoot(t)
	e, err := filter.Parse(`(arg0 > -3 && comm == "dem*") || !(arg1 == "x" || tid != 7)`)
	if err != nil {
		t.Fatal(err)
	}
	f, err := e.Compile(&filter.Probe{Args: []filter.Arg{{Size: 4, Signed: true}, {String: true}}})
	if err != nil {
		t.Fatal(err)
	}
	filters := []*filter.Program{f, nil}
	for _, o := range []Options{
		{Filters: filters},
		{Filters: filters, NoStrings: true},
		{Filters: filters, PerSite: true},
		{Filters: filters, Aggregate: &Aggregation{Mode: AggCount, Probes: make([]AggProbe, 2)}},
		{Filters: filters, Aggregate: &Aggregation{Mode: AggHist, Parts: []PartKind{PartComm, PartArg}, Probes: make([]AggProbe, 2)}},
		// The largest key, of strings, and stats: the most stack.
		{Filters: filters, StringSize: maxKeySize - keyHeader - 8, Aggregate: &Aggregation{Mode: AggStats, Parts: []PartKind{PartArg},
			Probes: []AggProbe{{Parts: []AggArg{{Index: 1, String: true}}}, {Parts: []AggArg{{Index: 1, String: true}}}}}},
	} {
		load(t, o)
	}
	// The builds for kernels without BPF cookies have no room for
	// the interpreter: refused before their verifier is asked.
	if _, err := Load(&Options{Filters: filters, noCookies: true, oldBuild: true}); !errors.Is(err, ErrNotSupported) {
		t.Errorf("Load(filters, the builds without BPF cookies) = %v, want ErrNotSupported", err)
	}
}
