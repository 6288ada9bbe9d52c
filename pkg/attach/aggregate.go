package attach

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/sdtkit/sdtkit/pkg/aggregate"
	"github.com/sdtkit/sdtkit/pkg/bpf"
	"github.com/sdtkit/sdtkit/pkg/probe"
	"github.com/sdtkit/sdtkit/pkg/probespec"
)

// An Aggregation asks Plan.Aggregate to count hits, or draw a histogram
// or keep stats of a value, in the kernel, per probe and key.
type Aggregation struct {
	Mode bpf.AggMode
	// Of is the value of bpf.AggHist and bpf.AggStats: an argument or a
	// --types field that is a number.
	Of aggregate.Key
	// By are the keys to group by, at most bpf.MaxKeyParts: pid, tid,
	// comm, arguments and fields, numbers or strings.
	By []aggregate.Key
	// MaxKeys is the most entries an interval keeps
	// (bpf.DefaultMaxKeys if 0); see bpf.Aggregation.
	MaxKeys int
}

// A KeyError reports a key or value of an Aggregation that a probe does
// not have, or that cannot serve as asked.
type KeyError struct {
	Key   string       // as given: "arg5", "path"
	Probe *probe.Probe // nil for an error of the key alone
	Err   error
}

func (e *KeyError) Error() string {
	if e.Probe == nil {
		return fmt.Sprintf("%s: %v", e.Key, e.Err)
	}
	return fmt.Sprintf("%s: %s:%v: %v", e.Key, e.Probe.Target.Name, e.Probe, e.Err)
}

func (e *KeyError) Unwrap() error { return e.Err }

// probeArgs is how the Aggregation reads each probe, and how its key's
// values are shown.
type probeArgs struct {
	bpf   bpf.AggProbe
	types []probespec.Type // by key part
}

// CheckAggregation reports the first key or value of a that a probe of
// the plan does not have as a *KeyError: an argument past the probe's
// last, a field that its --types declaration lacks, a string as the value
// of a histogram or stats.
func (p *Plan) CheckAggregation(a *Aggregation) error {
	_, err := p.aggProbes(a)
	return err
}

func (p *Plan) aggProbes(a *Aggregation) ([]probeArgs, error) {
	if len(a.By) > bpf.MaxKeyParts {
		return nil, &KeyError{Key: a.By[bpf.MaxKeyParts].String(), Err: fmt.Errorf("more than %d keys", bpf.MaxKeyParts)}
	}
	if a.Mode != bpf.AggCount && a.Of == (aggregate.Key{}) {
		return nil, errors.New("a histogram or stats without a value")
	}
	first := make([]*Site, len(p.Probes))
	for _, s := range p.Sites {
		if first[s.ProbeIndex] == nil {
			first[s.ProbeIndex] = s
		}
	}
	probes := make([]probeArgs, len(p.Probes))
	for i, s := range first {
		if s == nil {
			continue // no site attached
		}
		pa := &probes[i]
		if a.Mode != bpf.AggCount {
			j, t, err := argOf(a.Of, s)
			if err == nil && t.Kind == probespec.String {
				err = errors.New("a string, not a number")
			}
			if err != nil {
				return nil, &KeyError{Key: a.Of.String(), Probe: s.Probe, Err: err}
			}
			pa.bpf.Value = numberArg(j, t)
		}
		for _, k := range a.By {
			var x bpf.AggArg
			var t probespec.Type
			switch k.Kind {
			case aggregate.KeyComm:
				t.Kind = probespec.String
			case aggregate.KeyArg, aggregate.KeyField:
				j, typ, err := argOf(k, s)
				if err != nil {
					return nil, &KeyError{Key: k.String(), Probe: s.Probe, Err: err}
				}
				x, t = numberArg(j, typ), typ
				x.String = typ.Kind == probespec.String
			}
			pa.bpf.Parts = append(pa.bpf.Parts, x)
			pa.types = append(pa.types, t)
		}
	}
	return probes, nil
}

// argOf returns the argument that key k names at site s, and its type.
func argOf(k aggregate.Key, s *Site) (int, probespec.Type, error) {
	switch k.Kind {
	case aggregate.KeyArg:
		if len(s.Args) == 0 {
			return 0, probespec.Type{}, errors.New("the probe has no arguments")
		}
		if k.Arg >= len(s.Args) {
			return 0, probespec.Type{}, fmt.Errorf("the probe has %d arguments (arg0 to arg%d)", len(s.Args), len(s.Args)-1)
		}
		return k.Arg, s.Args[k.Arg].Type, nil
	case aggregate.KeyField:
		if !s.Fields {
			return 0, probespec.Type{}, errors.New("the probe has no fields (--types does not declare it)")
		}
		var names []string
		for j, a := range s.Args {
			if a.Name == k.Field {
				return j, a.Type, nil
			}
			names = append(names, a.Name)
		}
		return 0, probespec.Type{}, fmt.Errorf("no such field (the probe has %s)", strings.Join(names, ", "))
	}
	return 0, probespec.Type{}, errors.New("not an argument or a field")
}

// numberArg returns how argument j of type t is read as a number.
func numberArg(j int, t probespec.Type) bpf.AggArg {
	x := bpf.AggArg{Index: j}
	if t.Kind == probespec.Int {
		x.Size, x.Signed = t.Size, t.Signed
	}
	return x
}

// Aggregate loads the BPF program that aggregates in the kernel and
// attaches it to every site of the plan, after CheckAggregation. On
// error nothing stays attached.
func (p *Plan) Aggregate(a *Aggregation) (*Aggregator, error) {
	probes, err := p.aggProbes(a)
	if err != nil {
		return nil, err
	}
	ba := &bpf.Aggregation{Mode: a.Mode, MaxKeys: a.MaxKeys}
	for _, k := range a.By {
		ba.Parts = append(ba.Parts, partKind(k))
	}
	for _, pa := range probes {
		ba.Probes = append(ba.Probes, pa.bpf)
	}
	o := &p.opts
	prog, err := bpf.Load(&bpf.Options{
		MaxSites:   len(p.Sites),
		StringSize: o.StringSize,
		PID:        o.PID,
		InProcess:  o.InProcess,
		Filters:    p.filters,
		Aggregate:  ba,
	})
	if err != nil {
		return nil, err
	}
	if err := p.attachTo(prog); err != nil {
		return nil, err
	}
	ag := &Aggregator{prog: prog, plan: p, agg: *a, probes: probes, stopping: make(chan struct{}), closing: make(chan struct{})}
	stopOnExit(o.PID, ag.closing, ag.Stop)
	return ag, nil
}

func partKind(k aggregate.Key) bpf.PartKind {
	switch k.Kind {
	case aggregate.KeyPID:
		return bpf.PartPID
	case aggregate.KeyTID:
		return bpf.PartTID
	case aggregate.KeyComm:
		return bpf.PartComm
	}
	return bpf.PartArg
}

// An Aggregator counts the hits of attached probe sites in the kernel.
// Collect returns what an interval counted and starts the next; hits
// are never lost between intervals, nor counted twice. Stop detaches,
// after which a last Collect returns the rest; Close releases
// everything.
type Aggregator struct {
	prog   *bpf.Program
	plan   *Plan
	agg    Aggregation
	probes []probeArgs

	stopOnce  sync.Once
	stopping  chan struct{}
	closeOnce sync.Once
	closing   chan struct{}
	detachErr error
	closeErr  error
}

// Plan returns what the Aggregator attached.
func (a *Aggregator) Plan() *Plan { return a.plan }

// Stop detaches every site, which lowers the semaphores raised for them.
// It is called by the Aggregator itself when the process of Options.PID
// exits. Calling it again does nothing.
func (a *Aggregator) Stop() {
	a.stopOnce.Do(func() {
		a.detachErr = a.prog.Detach()
		close(a.stopping)
	})
}

// Stopped returns a channel that is closed when Stop is called.
func (a *Aggregator) Stopped() <-chan struct{} { return a.stopping }

// Skipped returns the number of hits that were not counted for another
// reason than a full map (see bpf.Program.Skipped); 0 in all but
// pathological cases.
func (a *Aggregator) Skipped() uint64 {
	n, _ := a.prog.Skipped()
	return n
}

// Close detaches every site, if Stop has not, and releases the program.
func (a *Aggregator) Close() error {
	a.closeOnce.Do(func() {
		close(a.closing)
		a.Stop()
		a.closeErr = a.prog.Close()
	})
	return errors.Join(a.detachErr, a.closeErr)
}

// Collect ends the interval and returns its records, stamped with now:
// per probe in the order of Plan.Probes, a record per key in the order
// of aggregate.Group.Compare, then the probe's lost hits if the map was
// full. Keys that counted nothing have no record.
func (a *Aggregator) Collect(now time.Time) ([]aggregate.Record, error) {
	type group struct {
		probe uint32
		by    string
	}
	recs := make(map[group]*aggregate.Record)
	var hists map[group]*aggregate.Histogram
	if a.agg.Mode == bpf.AggHist {
		hists = make(map[group]*aggregate.Histogram)
	}
	err := a.prog.Collect(func(e *bpf.AggEntry) {
		if int(e.Probe) >= len(a.plan.Probes) {
			return
		}
		pr := a.plan.Probes[e.Probe]
		r := &aggregate.Record{TS: now.UnixNano(), Provider: pr.Provider, Name: pr.Name}
		if e.Lost {
			r.Lost = e.Count
			recs[group{e.Probe, "\xff"}] = r // no key's values are this
			return
		}
		for i, v := range e.Parts {
			r.By = append(r.By, aggregate.KeyValue{Key: a.agg.By[i], Value: (&Arg{Type: a.probes[e.Probe].types[i]}).Value(v)})
		}
		g := group{e.Probe, r.Group().By}
		if old := recs[g]; old != nil {
			r = old
		} else {
			recs[g] = r
		}
		switch {
		case e.Unread:
			r.Unread += e.Count
		case a.agg.Mode == bpf.AggHist:
			h := hists[g]
			if h == nil {
				h = new(aggregate.Histogram)
				hists[g] = h
			}
			h.AddCount(e.Bucket, e.Count)
			r.Count += e.Count
		case a.agg.Mode == bpf.AggStats:
			st := aggregate.Stats{Count: r.Count, Sum: r.Sum, Min: r.Min, Max: r.Max}
			st.Merge(aggregate.Stats{Count: e.Count, Sum: e.Sum, Min: e.Min, Max: e.Max})
			r.Count, r.Sum, r.Min, r.Max, r.Mean = st.Count, st.Sum, st.Min, st.Max, st.Mean()
		default:
			r.Count += e.Count
		}
	})
	if err != nil {
		return nil, err
	}
	gs := make([]group, 0, len(recs))
	for g, r := range recs {
		gs = append(gs, g)
		switch a.agg.Mode {
		case bpf.AggHist:
			r.Hist = a.agg.Of
			if h := hists[g]; h != nil {
				r.Buckets = h.Buckets()
			}
		case bpf.AggStats:
			r.Stats = a.agg.Of
		}
		if r.Lost > 0 {
			r.Hist, r.Stats = aggregate.Key{}, aggregate.Key{}
		}
	}
	slices.SortFunc(gs, func(x, y group) int {
		return cmp.Or(cmp.Compare(x.probe, y.probe), cmp.Compare(recs[x].Lost, recs[y].Lost), recs[x].Group().Compare(recs[y].Group()))
	})
	out := make([]aggregate.Record, len(gs))
	for i, g := range gs {
		out[i] = *recs[g]
	}
	return out, nil
}

// Run collects the records of every interval, every d if d > 0, and
// gives them to emit, until ctx is done, Stop is called or the process
// of Options.PID exits, or emit fails; then it stops and gives emit the
// records of the last interval, which hold every hit until the sites
// were detached. The error is that of Collect or emit.
func (a *Aggregator) Run(ctx context.Context, d time.Duration, emit func([]aggregate.Record) error) error {
	var tick <-chan time.Time
	if d > 0 {
		t := time.NewTicker(d)
		defer t.Stop()
		tick = t.C
	}
	var err error
	for done := false; !done && err == nil; {
		select {
		case now := <-tick:
			var recs []aggregate.Record
			if recs, err = a.Collect(now); err == nil {
				err = emit(recs)
			}
		case <-ctx.Done():
			done = true
		case <-a.stopping:
			done = true
		}
	}
	a.Stop()
	recs, cerr := a.Collect(time.Now())
	if cerr == nil {
		cerr = emit(recs)
	}
	return cmp.Or(err, cerr)
}
