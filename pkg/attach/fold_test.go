package attach

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sdtkit/sdtkit/pkg/aggregate"
	"github.com/sdtkit/sdtkit/pkg/hit"
	"github.com/sdtkit/sdtkit/pkg/probe"
	"github.com/sdtkit/sdtkit/pkg/probespec"
)

// fakeSource streams the events given, then io.EOF once stopped.
type fakeSource struct {
	mu      sync.Mutex
	events  []Event
	stopped chan struct{}
	lost    uint64
}

func (s *fakeSource) Read(ev *Event) error {
	for stopped := false; ; stopped = true {
		s.mu.Lock()
		if len(s.events) > 0 {
			*ev = s.events[0]
			s.events = s.events[1:]
			s.mu.Unlock()
			return nil
		}
		s.mu.Unlock()
		if stopped {
			return io.EOF
		}
		<-s.stopped
	}
}

func (s *fakeSource) Stop() {
	select {
	case <-s.stopped:
	default:
		close(s.stopped)
	}
}

func (s *fakeSource) Close() error    { s.Stop(); return nil }
func (s *fakeSource) Lost() uint64    { return s.lost }
func (s *fakeSource) Skipped() uint64 { return 0 }

// foldPlan is a plan of two probes, a:start and a:end, of one signed
// 8-byte argument each.
func foldPlan() *Plan {
	p := &Plan{opts: Options{FlushInterval: time.Millisecond}}
	tg := &probe.Target{Name: "/bin/a"}
	for i, name := range []string{"start", "end"} {
		pr := &probe.Probe{Target: tg, Provider: "a", Name: name}
		p.Probes = append(p.Probes, pr)
		p.Sites = append(p.Sites, &Site{Probe: pr, ProbeIndex: i, Args: []Arg{{Type: probespec.Type{Kind: probespec.Int, Size: 8, Signed: true}}}})
	}
	return p
}

// hitAt is an event of site site at time ms (in milliseconds), of thread
// tid, with argument v, or with an argument not read for unread.
func hitAt(p *Plan, site int, ms int64, tid uint32, v int64, unread bool) Event {
	a := hit.Value{Kind: hit.Int, Bits: uint64(v), Size: 8}
	if unread {
		a = hit.Value{Kind: hit.NotRead, Size: 8}
	}
	return Event{Event: hit.Event{Time: time.Unix(0, ms*int64(time.Millisecond)), PID: 1, TID: tid, Args: []hit.Value{a}}, Site: p.Sites[site]}
}

// The events a source streams are folded into the records the BPF
// program would have counted: counts by key, a histogram and stats with
// a value that could not be read, a latency whose START comes after its
// END, a map of keys that fills up.
func TestAggregateEvents(t *testing.T) {
	arg0 := aggregate.Key{Kind: aggregate.KeyArg, Arg: 0}
	tid := aggregate.Key{Kind: aggregate.KeyTID}
	p := foldPlan()
	for _, tt := range []struct {
		name   string
		agg    Aggregation
		events func(p *Plan) []Event
		want   []string
	}{
		{
			"count by arg0",
			Aggregation{Mode: Count, By: []aggregate.Key{arg0}},
			func(p *Plan) []Event {
				return []Event{hitAt(p, 0, 1, 7, 5, false), hitAt(p, 0, 2, 7, 5, false), hitAt(p, 0, 3, 7, -1, false), hitAt(p, 1, 4, 7, 0, true)}
			},
			[]string{
				`{"provider":"a","name":"start","by":{"arg0":-1},"count":1}`,
				`{"provider":"a","name":"start","by":{"arg0":5},"count":2}`,
				`{"provider":"a","name":"end","by":{"arg0":null},"count":1}`,
			},
		},
		{
			"hist and stats of arg0, one unread",
			Aggregation{Mode: Stats, Of: arg0},
			func(p *Plan) []Event {
				return []Event{hitAt(p, 0, 1, 7, 5, false), hitAt(p, 0, 2, 7, -3, false), hitAt(p, 0, 3, 7, 0, true)}
			},
			[]string{`{"provider":"a","name":"start","stats":"arg0","count":2,"unread":1,"sum":2,"min":-3,"max":5,"mean":1}`},
		},
		{
			// Thread 7's START at 10 ms comes after its END at 12 ms:
			// held back, they pair in time order. Thread 8's END has no
			// START; thread 9's START waits.
			"latency in time order",
			Aggregation{Mode: Latency, Start: probespec.Spec{Provider: "a", Name: "start"}, End: probespec.Spec{Provider: "a", Name: "end"}},
			func(p *Plan) []Event {
				return []Event{hitAt(p, 1, 12, 7, 0, false), hitAt(p, 0, 10, 7, 0, false), hitAt(p, 1, 13, 8, 0, false), hitAt(p, 0, 14, 9, 0, false)}
			},
			[]string{
				`{"provider":"a","name":"start","latency":"tid","to":"a:end","count":2,"pending":1}`,
				`{"provider":"a","name":"end","latency":"tid","from":"a:start","count":1,"unmatched":1,"buckets":[{"lo":1048576,"hi":2097152,"count":1}],"sum":2000000,"min":2000000,"max":2000000,"mean":2000000}`,
			},
		},
		{
			"full map",
			Aggregation{Mode: Count, By: []aggregate.Key{tid}, MaxKeys: 2},
			func(p *Plan) []Event {
				return []Event{hitAt(p, 0, 1, 7, 0, false), hitAt(p, 0, 2, 8, 0, false), hitAt(p, 0, 3, 9, 0, false), hitAt(p, 0, 4, 7, 0, false), hitAt(p, 1, 5, 10, 0, false)}
			},
			[]string{
				`{"provider":"a","name":"start","by":{"tid":7},"count":2}`,
				`{"provider":"a","name":"start","by":{"tid":8},"count":1}`,
				`{"provider":"a","name":"start","lost":1}`,
				`{"provider":"a","name":"end","lost":1}`,
			},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			src := &fakeSource{events: tt.events(p), stopped: make(chan struct{}), lost: 3}
			ag, err := p.AggregateEvents(&tt.agg, src)
			if err != nil {
				t.Fatal(err)
			}
			defer ag.Close()
			ag.Stop()
			got := collectJSON(t, ag)
			if !slices.Equal(got, tt.want) {
				t.Errorf("records:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
			if n := ag.Skipped(); n != 3 {
				t.Errorf("Skipped() = %d, want the source's 3 lost", n)
			}
		})
	}
}

func ExamplePlan_AggregateEvents() {
	p := foldPlan()
	src := &fakeSource{stopped: make(chan struct{}), events: []Event{hitAt(p, 0, 1, 7, 5, false), hitAt(p, 1, 2, 7, 5, false)}}
	ag, _ := p.AggregateEvents(&Aggregation{Mode: Count}, src)
	defer ag.Close()
	ag.Stop()
	recs, _ := ag.Collect(time.Unix(0, 0))
	for _, r := range recs {
		fmt.Println(r.Provider, r.Name, r.Count)
	}
	// Output:
	// a start 1
	// a end 1
}

// The probes a source adds to the plan as it follows the libraries its
// process loads are folded from their first event, the later ones of
// them first.
func TestAggregateEventsGrown(t *testing.T) {
	p := foldPlan()
	tg := &probe.Target{Name: "/lib/b.so"}
	var sites []*Site
	for i, name := range []string{"b1", "b2"} {
		pr := &probe.Probe{Target: tg, Provider: "b", Name: name}
		sites = append(sites, &Site{Probe: pr, ProbeIndex: 2 + i, Args: []Arg{{Type: probespec.Type{Kind: probespec.Int, Size: 8, Signed: true}}}})
	}
	arg0 := aggregate.Key{Kind: aggregate.KeyArg, Arg: 0}
	src := &fakeSource{stopped: make(chan struct{})}
	ag, err := p.AggregateEvents(&Aggregation{Mode: Count, By: []aggregate.Key{arg0}}, src)
	if err != nil {
		t.Fatal(err)
	}
	defer ag.Close()
	p.mu.Lock()
	p.Probes = append(p.Probes, sites[0].Probe, sites[1].Probe)
	p.Sites = append(p.Sites, sites...)
	p.mu.Unlock()
	ev := func(site, v int) Event { return hitAt(p, site, 1, 7, int64(v), false) }
	src.mu.Lock()
	src.events = []Event{ev(0, 1), ev(3, 2), ev(2, 3), ev(3, 2)}
	src.mu.Unlock()
	ag.Stop()
	got := collectJSON(t, ag)
	want := []string{
		`{"provider":"a","name":"start","by":{"arg0":1},"count":1}`,
		`{"provider":"b","name":"b1","by":{"arg0":3},"count":1}`,
		`{"provider":"b","name":"b2","by":{"arg0":2},"count":2}`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("records:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// collectJSON ends ag's interval at time 0 and returns its records as
// JSON, without their time.
func collectJSON(t *testing.T, ag *Aggregator) []string {
	t.Helper()
	recs, err := ag.Collect(time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range recs {
		got = append(got, strings.Replace(string(r.AppendJSON(nil)), `"ts":0,`, "", 1))
	}
	return got
}
