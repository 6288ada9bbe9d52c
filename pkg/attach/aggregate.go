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
	"github.com/sdtkit/sdtkit/pkg/dlopen"
	"github.com/sdtkit/sdtkit/pkg/dtrace"
	"github.com/sdtkit/sdtkit/pkg/filter"
	"github.com/sdtkit/sdtkit/pkg/ndjson"
	"github.com/sdtkit/sdtkit/pkg/probe"
	"github.com/sdtkit/sdtkit/pkg/probespec"
)

// An Aggregation asks Plan.Aggregate to count hits, or draw a histogram
// or keep stats of a value, in the kernel, per probe and key.
type Aggregation struct {
	Mode Mode
	// Of is the value of Hist and Stats: an argument or a
	// --types field that is a number.
	Of aggregate.Key
	// By are the keys to group by, at most MaxKeyParts: pid, tid,
	// comm, arguments and fields, numbers or strings, and the user
	// stack (ustack), which takes the BPF backend: the kernel walks it
	// by its frame pointers and keeps each distinct stack in a map of
	// MaxKeys stacks, or, with Options.UStackCopy, the program copies
	// the top of the stack into an event at each hit, which is unwound
	// by .eh_frame and folded in this process (see AggregateEvents);
	// records carry it symbolized.
	By []aggregate.Key
	// StackDepth is the most frames kept of a stack of By, up to
	// MaxStack (if 0).
	StackDepth int
	// MaxKeys is the most entries an interval keeps
	// (DefaultMaxKeys if 0), and the most STARTs of a latency that
	// wait for their END.
	MaxKeys int

	// Start and End select, for Latency, the probes of the plan
	// whose hits start and end a pair, by provider and name
	// (probespec.Spec.Match): each probe must be one or the other, or
	// both. By is read at ENDs.
	Start, End probespec.Spec
	// Pair is the key STARTs and ENDs pair by, for Latency: pid,
	// tid (if zero), comm, an argument or a field, a number or a string.
	Pair aggregate.Key
}

// pairKey returns the key STARTs and ENDs pair by.
func (a *Aggregation) pairKey() aggregate.Key {
	if a.Pair == (aggregate.Key{}) {
		return aggregate.Key{Kind: aggregate.KeyTID}
	}
	return a.Pair
}

// spelled returns a pattern of --latency as a record names it:
// PROVIDER:NAME, or NAME for a pattern of any provider.
func spelled(s probespec.Spec) string {
	if s.AnyProvider {
		return s.Name
	}
	return s.Provider + ":" + s.Name
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

// ErrNeitherStartNorEnd is the Err of a KeyError of a probe of a latency
// that neither its START nor its END selects; the Key is START,END.
var ErrNeitherStartNorEnd = errors.New("the probe is neither START nor END")

// probeArgs is how the Aggregation reads each probe, and how its key's
// values are shown.
type probeArgs struct {
	bpf   bpf.AggProbe
	types []probespec.Type // by key part
}

// startOnly reports whether the probe's hits are STARTs of a latency and
// not ENDs: their entries have no key parts.
func (pa *probeArgs) startOnly() bool { return pa.bpf.Start && !pa.bpf.End }

// CheckAggregation reports the first key or value of a that a probe of
// the plan does not have as a *KeyError: an argument past the probe's
// last, a field that its --types declaration lacks, a string as the value
// of a histogram or stats.
func (p *Plan) CheckAggregation(a *Aggregation) error {
	_, err := p.aggProbes(a)
	return err
}

func (p *Plan) aggProbes(a *Aggregation) ([]probeArgs, error) {
	if p.opts.UStack > 0 && !a.ByStack() {
		return nil, errors.New("user stacks (Options.UStack) are taken when streaming or grouping by them, not otherwise when aggregating")
	}
	if len(a.By) > bpf.MaxKeyParts || len(a.By) == bpf.MaxKeyParts && a.hiddenPID() {
		return nil, &KeyError{Key: a.By[len(a.By)-1].String(), Err: fmt.Errorf("more than %d keys (with ustack, the pid is one)", bpf.MaxKeyParts)}
	}
	if a.Mode == Latency && a.pairKey().Kind == aggregate.KeyUStack {
		return nil, &KeyError{Key: "ustack", Err: aggregate.ErrStackPair}
	}
	if a.StackDepth < 0 || a.StackDepth > MaxStack {
		return nil, fmt.Errorf("stack depth %d not in [1, %d]", a.StackDepth, MaxStack)
	}
	hasValue := a.Mode == Hist || a.Mode == Stats
	if hasValue && a.Of == (aggregate.Key{}) {
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
		pa, err := a.probeArgs(s)
		if err != nil {
			return nil, err
		}
		probes[i] = pa
	}
	// When following, the START or END may be in a library loaded later.
	if a.Mode == Latency && !p.following() {
		return probes, checkRoles(a, probes)
	}
	return probes, nil
}

// probeArgs returns how the probe of site s is aggregated, or the
// *KeyError of a key or value it lacks.
func (a *Aggregation) probeArgs(s *Site) (probeArgs, error) {
	var pa probeArgs
	if a.Mode == Latency {
		if err := latencyProbe(a, s, &pa); err != nil {
			return pa, err
		}
		if pa.startOnly() {
			return pa, nil // no key is read at STARTs
		}
	}
	if a.Mode == Hist || a.Mode == Stats {
		j, t, err := argOf(a.Of, s)
		if err == nil && t.Kind == probespec.String {
			err = errors.New("a string, not a number")
		}
		if err != nil {
			return pa, &KeyError{Key: a.Of.String(), Probe: s.Probe, Err: err}
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
				return pa, &KeyError{Key: k.String(), Probe: s.Probe, Err: err}
			}
			x, t = keyArg(j, typ), typ
		}
		pa.bpf.Parts = append(pa.bpf.Parts, x)
		pa.types = append(pa.types, t)
	}
	if a.hiddenPID() {
		pa.bpf.Parts = append(pa.bpf.Parts, bpf.AggArg{})
	}
	return pa, nil
}

// latencyProbe sets the role of the probe of site s in a latency, and
// the argument of its pairing key.
func latencyProbe(a *Aggregation, s *Site, pa *probeArgs) error {
	pr := s.Probe
	pa.bpf.Start, pa.bpf.End = a.Start.Match(pr.Provider, pr.Name), a.End.Match(pr.Provider, pr.Name)
	if !pa.bpf.Start && !pa.bpf.End {
		return &KeyError{Key: spelled(a.Start) + "," + spelled(a.End), Probe: pr, Err: ErrNeitherStartNorEnd}
	}
	k := a.pairKey()
	if k.Kind != aggregate.KeyArg && k.Kind != aggregate.KeyField {
		return nil
	}
	j, t, err := argOf(k, s)
	if err != nil {
		return &KeyError{Key: k.String(), Probe: pr, Err: err}
	}
	pa.bpf.Pair = keyArg(j, t)
	return nil
}

// checkRoles reports a latency without a START or an END probe.
func checkRoles(a *Aggregation, probes []probeArgs) error {
	var start, end bool
	for _, pa := range probes {
		start, end = start || pa.bpf.Start, end || pa.bpf.End
	}
	switch {
	case !start:
		return &KeyError{Key: spelled(a.Start), Err: errors.New("START matches no probe attached")}
	case !end:
		return &KeyError{Key: spelled(a.End), Err: errors.New("END matches no probe attached")}
	}
	return nil
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
			return 0, probespec.Type{}, filter.ErrNoFields
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

// keyArg returns how argument j of type t is read as a part of a key: a
// number, or the string it points to.
func keyArg(j int, t probespec.Type) bpf.AggArg {
	x := numberArg(j, t)
	x.String = t.Kind == probespec.String
	return x
}

// numberArg returns how argument j of type t is read as a number.
func numberArg(j int, t probespec.Type) bpf.AggArg {
	x := bpf.AggArg{Index: j}
	if t.Kind == probespec.Int {
		x.Size, x.Signed = t.Size, t.Signed
	}
	return x
}

// Aggregate aggregates the hits of every site of the plan as a says,
// after CheckAggregation, with the backend of Options.Backend: in the
// kernel with BPF, or, with uprobe events, in this process from their
// events (see AggregateEvents). By the user stack with
// Options.UStackCopy, the BPF program streams the events with a copy of
// the top of the stack, unwound and folded in this process. On error
// nothing stays attached.
func (p *Plan) Aggregate(a *Aggregation) (*Aggregator, error) {
	if err := p.CheckAggregation(a); err != nil {
		return nil, err
	}
	if a.ByStack() {
		if p.opts.Backend == BackendTracefs {
			return p.aggregateStacks(a, p.attachTracefs)
		}
		if p.opts.UStackCopy > 0 {
			return p.aggregateStacks(a, func() (*Tracer, error) { return p.attachBPF(a) })
		}
		return p.aggregateBPF(a)
	}
	return withBackend(p, func() (*Aggregator, error) { return p.aggregateBPF(a) }, func() (*Aggregator, error) {
		src, err := p.openTracefs(nil)
		if err != nil {
			return nil, err
		}
		ag, err := p.AggregateEvents(a, src)
		if err != nil {
			src.Close()
			return nil, err
		}
		return ag, nil
	})
}

// aggregateStacks aggregates by stacks that the kernel cannot group:
// those that the BPF program copies at each hit (Options.UStackCopy),
// unwound here, and those of uprobe events, whose perf events take them.
// It streams the events that attach gives, with their stacks, and folds
// them (see AggregateEvents). Hits lost in the BPF program's full ring
// buffer count as lost hits of their probes, as the kernel's entries
// count theirs; those of the tracefs backend's perf buffers, whose
// probe is not known, as Skipped.
func (p *Plan) aggregateStacks(a *Aggregation, attach func() (*Tracer, error)) (*Aggregator, error) {
	p.opts.UStack = cmp.Or(a.StackDepth, p.opts.UStack, MaxStack)
	t, err := attach()
	if err != nil {
		return nil, err
	}
	ag, err := p.AggregateEvents(a, t)
	if err != nil {
		t.Close()
		return nil, err
	}
	return ag, nil
}

// aggregateBPF loads the BPF program that aggregates in the kernel and
// attaches it to every site of the plan.
func (p *Plan) aggregateBPF(a *Aggregation) (*Aggregator, error) {
	probes, err := p.aggProbes(a)
	if err != nil {
		return nil, err
	}
	ba := &bpf.Aggregation{Mode: a.Mode.bpfMode(), MaxKeys: a.MaxKeys, StackDepth: a.StackDepth}
	if a.Mode == Latency {
		ba.Pair = partKind(a.pairKey())
		ba.PairString = p.mayBeString(a.pairKey())
	}
	for _, k := range a.By {
		ba.Parts = append(ba.Parts, partKind(k))
		ba.Strings = append(ba.Strings, p.mayBeString(k))
	}
	if a.hiddenPID() {
		ba.Parts = append(ba.Parts, bpf.PartPID)
	}
	for _, pa := range probes {
		ba.Probes = append(ba.Probes, pa.bpf)
	}
	o := &p.opts
	maxSites, maxProbes := p.room()
	prog, err := bpf.Load(&bpf.Options{
		MaxSites:   maxSites,
		StringSize: o.StringSize,
		PID:        o.pidFilter(),
		Cgroup:     p.cgroup,
		InProcess:  o.InProcess,
		Filters:    p.filters,
		MaxProbes:  maxProbes,
		Filtering:  o.Filter != nil,
		Aggregate:  ba,
	})
	if err != nil {
		return nil, err
	}
	follow := p.newFollower(prog, a.ByStack())
	if err := p.attachTo(prog); err != nil {
		follow.Stop()
		return nil, err
	}
	p.noteByAddress(prog, follow)
	ag := &Aggregator{src: bpfSource{prog}, prog: prog, plan: p, agg: *a, probes: probes, dlopen: follow, stopping: make(chan struct{}), closing: make(chan struct{})}
	if a.ByStack() {
		// The process runs once attached (Options.Command): its
		// program is mapped by now.
		ag.stacks = newStackNamer(o.PID, o.DebugDirs)
	}
	if follow != nil {
		p.follow(follow, prog, ag)
	}
	stopOnExit(o, ag.closing, ag.Stop)
	return ag, nil
}

// mayBeString reports whether the key k may be a string at a probe of a
// library loaded later (Options.Dlopen), to make room for one: when a
// PROVIDER:NAME specification types argument k as a string, or
// Options.Types has a string argument of that number or name.
func (p *Plan) mayBeString(k aggregate.Key) bool {
	if !p.following() || k.Kind != aggregate.KeyArg && k.Kind != aggregate.KeyField {
		return false
	}
	for _, s := range p.specs {
		if s.Path == "" && k.Kind == aggregate.KeyArg && k.Arg < len(s.Types) && s.Types[k.Arg].Kind == probespec.String {
			return true
		}
	}
	if p.opts.Types == nil {
		return false
	}
	for _, pv := range p.opts.Types.Providers {
		for _, q := range pv.Probes {
			for j, arg := range q.Args {
				if (k.Kind == aggregate.KeyArg && j == k.Arg || k.Kind == aggregate.KeyField && arg.Name == k.Field) &&
					argType(dtrace.Classify(arg.Type)).Kind == probespec.String {
					return true
				}
			}
		}
	}
	return false
}

// prepare gives the program how probe id, whose sites are like s, is
// aggregated and filtered, before they are attached (see grower).
func (a *Aggregator) prepare(id int, s *Site) error {
	pa, err := a.agg.probeArgs(s)
	if err != nil {
		return err
	}
	f, err := compileFor(a.plan.opts.Filter, s)
	if err != nil {
		return err
	}
	if err := a.prog.AddProbe(id, &pa.bpf, f); err != nil {
		return err
	}
	a.plan.mu.Lock()
	defer a.plan.mu.Unlock()
	for len(a.probes) < id {
		a.probes = append(a.probes, probeArgs{}) // of probes without sites
	}
	a.probes = append(a.probes, pa)
	return nil
}

func (a *Aggregator) publish([]*Site)   {}
func (a *Aggregator) unpublish([]*Site) {}

// remapped reads the maps of process pid again for its stacks, when
// grouping by them (see grower).
func (a *Aggregator) remapped(pid int) {
	if a.stacks != nil {
		a.stacks.see(pid)
	}
}

// An aggSource is where the entries of an Aggregator come from: the BPF
// program that aggregates in the kernel, or events folded as it would.
type aggSource interface {
	// collect ends the interval and gives fn its entries, as
	// bpf.Program.Collect does.
	collect(fn func(*bpf.AggEntry)) error
	// detach ends the hits.
	detach() error
	// skipped is the number of hits not counted, not even as lost.
	skipped() uint64
	// ringLost is the number of hits counted as lost whose events a
	// full ring buffer dropped.
	ringLost() uint64
	close() error
}

// bpfSource is the BPF program that aggregates.
type bpfSource struct{ prog *bpf.Program }

func (b bpfSource) collect(fn func(*bpf.AggEntry)) error { return b.prog.Collect(fn) }
func (b bpfSource) detach() error                        { return b.prog.Detach() }
func (b bpfSource) close() error                         { return b.prog.Close() }

func (b bpfSource) ringLost() uint64 { return 0 }

func (b bpfSource) skipped() uint64 {
	n, _ := b.prog.Skipped()
	return n
}

func partKind(k aggregate.Key) bpf.PartKind {
	switch k.Kind {
	case aggregate.KeyPID:
		return bpf.PartPID
	case aggregate.KeyTID:
		return bpf.PartTID
	case aggregate.KeyComm:
		return bpf.PartComm
	case aggregate.KeyUStack:
		return bpf.PartUStack
	}
	return bpf.PartArg
}

// An Aggregator counts the hits of attached probe sites in the kernel.
// Collect returns what an interval counted and starts the next; hits
// are never lost between intervals, nor counted twice. Stop detaches,
// after which a last Collect returns the rest; Close releases
// everything.
type Aggregator struct {
	src    aggSource
	prog   *bpf.Program // nil when src folds events (Plan.AggregateEvents)
	plan   *Plan
	agg    Aggregation
	probes []probeArgs // by probe number; guarded by plan.mu
	// dlopen, when not nil, follows the libraries the process loads;
	// Stop ends it before detaching.
	dlopen *dlopen.Follower
	// stacks symbolizes the stacks of a.By; nil when not grouped by one.
	stacks *stackNamer

	stopOnce  sync.Once
	stopping  chan struct{}
	closeOnce sync.Once
	closing   chan struct{}
	detachErr error
	closeErr  error
}

// Plan returns what the Aggregator attached.
func (a *Aggregator) Plan() *Plan { return a.plan }

// InKernel reports whether the hits are counted in the kernel, by the
// BPF program, rather than folded here from events: Skipped then counts
// hits of an unknown site or with no room left to count them as lost,
// where a folder's are events lost in a full ring buffer that no probe's
// lost hits count.
func (a *Aggregator) InKernel() bool { return a.prog != nil }

// Stop detaches every site, which lowers the semaphores raised for them.
// It is called by the Aggregator itself when the process of Options.PID
// exits. Calling it again does nothing.
func (a *Aggregator) Stop() {
	a.stopOnce.Do(func() {
		// No site is added once detached.
		a.dlopen.Stop()
		a.detachErr = a.src.detach()
		close(a.stopping)
	})
}

// Stopped returns a channel that is closed when Stop is called.
func (a *Aggregator) Stopped() <-chan struct{} { return a.stopping }

// Skipped returns the number of hits that were not counted for another
// reason than a full map (see the Skipped of package bpf's Program); 0 in all but
// pathological cases.
func (a *Aggregator) Skipped() uint64 {
	n := a.src.skipped()
	return n
}

// RingLost returns how many of the hits the records count as lost were
// lost in a full ring buffer rather than to a full map of keys: those of
// the events of a BPF program folded here (by the stacks it copies); 0
// when the kernel counts the hits.
func (a *Aggregator) RingLost() uint64 { return a.src.ringLost() }

// Close detaches every site, if Stop has not, and releases the program.
func (a *Aggregator) Close() error {
	a.closeOnce.Do(func() {
		close(a.closing)
		a.Stop()
		a.closeErr = a.src.close()
	})
	return errors.Join(a.detachErr, a.closeErr)
}

// Collect ends the interval and returns its records, stamped with now:
// per probe in the order of Plan.Probes, a record per key in the order
// of aggregate.Group.Compare (for a latency, the START record first),
// then the probe's lost hits if the map was full. Keys that counted
// nothing have no record.
func (a *Aggregator) Collect(now time.Time) ([]aggregate.Record, error) {
	c := collection{a: a, now: now.UnixNano(), recs: make(map[group]*aggregate.Record), hists: make(map[group]*aggregate.Histogram)}
	if err := a.src.collect(c.add); err != nil {
		return nil, err
	}
	return c.records(), nil
}

// A group is what one record counts.
type group struct {
	probe uint32
	start bool // the START record of a latency
	by    string
}

// collection turns the entries of an interval into records.
type collection struct {
	a     *Aggregator
	now   int64
	recs  map[group]*aggregate.Record
	hists map[group]*aggregate.Histogram
}

// record returns the record of the entry's group, made on first use.
func (c *collection) record(e *bpf.AggEntry) (*aggregate.Record, group) {
	a := c.a
	pr, pa := a.plan.Probes[e.Probe], &a.probes[e.Probe]
	r := &aggregate.Record{TS: c.now, Provider: pr.Provider, Name: pr.Name, File: pr.Target.Name}
	g := group{probe: e.Probe}
	switch {
	case e.Lost:
		g.by = "\xff" // no key's values are this
		r.Lost = e.Count
	case a.agg.Mode == Latency && (e.Starts || e.Pending || e.Unread && pa.startOnly()):
		g.start = true
	default:
		for i, k := range a.agg.By {
			var v ndjson.Value
			if k.Kind == aggregate.KeyUStack {
				v = a.stacks.value(e, e.Parts[i].Bits, e.Parts[a.agg.pidPart()].Bits)
			} else {
				v = (&Arg{Type: pa.types[i]}).Value(e.Parts[i])
			}
			r.By = append(r.By, aggregate.KeyValue{Key: k, Value: v})
		}
		g.by = r.Group().By
	}
	if old := c.recs[g]; old != nil {
		return old, g
	}
	c.recs[g] = r
	return r, g
}

func (c *collection) add(e *bpf.AggEntry) {
	// The probes grow as libraries are loaded (Options.Dlopen); each is
	// added before its sites are attached, so before its first hit.
	c.a.plan.mu.Lock()
	defer c.a.plan.mu.Unlock()
	if int(e.Probe) >= len(c.a.plan.Probes) || int(e.Probe) >= len(c.a.probes) {
		return
	}
	r, g := c.record(e)
	mode := c.a.agg.Mode
	switch {
	case e.Lost:
	case e.Unread:
		r.Unread += e.Count
	case e.Pending:
		r.Pending += e.Count
	case e.Starts:
		r.Count += e.Count
	case e.Unmatched:
		r.Unmatched += e.Count
	case mode == Hist || mode == Latency:
		h := c.hists[g]
		if h == nil {
			h = new(aggregate.Histogram)
			c.hists[g] = h
		}
		h.AddCount(e.Bucket, e.Count)
		if mode == Latency {
			c.addStats(r, e)
		} else {
			r.Count += e.Count
		}
	case mode == Stats:
		c.addStats(r, e)
	default:
		r.Count += e.Count
	}
}

func (c *collection) addStats(r *aggregate.Record, e *bpf.AggEntry) {
	st := aggregate.Stats{Count: r.Count, Sum: r.Sum, Min: r.Min, Max: r.Max}
	st.Merge(aggregate.Stats{Count: e.Count, Sum: e.Sum, Min: e.Min, Max: e.Max})
	r.Count, r.Sum, r.Min, r.Max, r.Mean = st.Count, st.Sum, st.Min, st.Max, st.Mean()
}

// records returns the records, in order, with what they are of.
func (c *collection) records() []aggregate.Record {
	agg := &c.a.agg
	gs := make([]group, 0, len(c.recs))
	for g, r := range c.recs {
		gs = append(gs, g)
		if r.Lost > 0 {
			continue
		}
		agg.describe(r, g.start)
		if h := c.hists[g]; h != nil {
			r.Buckets = h.Buckets()
		}
	}
	recs := c.recs
	slices.SortFunc(gs, func(x, y group) int {
		return cmp.Or(cmp.Compare(x.probe, y.probe), cmp.Compare(recs[x].Lost, recs[y].Lost),
			-boolCompare(x.start, y.start), recs[x].Group().Compare(recs[y].Group()))
	})
	out := make([]aggregate.Record, len(gs))
	for i, g := range gs {
		out[i] = *recs[g]
	}
	return out
}

// describe sets what a record that counted hits is of: the value of a
// histogram or stats, or the pairing key and the other probe of a
// latency's START record (start) or END record.
func (a *Aggregation) describe(r *aggregate.Record, start bool) {
	switch a.Mode {
	case Hist:
		r.Hist = a.Of
	case Stats:
		r.Stats = a.Of
	case Latency:
		r.Latency, r.Start = a.pairKey(), start
		if start {
			r.To = spelled(a.End)
		} else {
			r.From = spelled(a.Start)
		}
	}
}

// Empty returns a record of no hits per probe of the plan, in the order
// of Plan.Probes, each as Collect describes the probe's records (two for
// a probe that both starts and ends a latency, the START's first): what a
// consumer that must know every series before its first hit starts from.
func (a *Aggregator) Empty() []aggregate.Record {
	a.plan.mu.Lock()
	defer a.plan.mu.Unlock()
	var recs []aggregate.Record
	for _, p := range a.plan.Probes {
		r := aggregate.Record{Provider: p.Provider, Name: p.Name, File: p.Target.Name}
		if a.agg.Mode != Latency {
			a.agg.describe(&r, false)
			recs = append(recs, r)
			continue
		}
		for _, start := range []bool{true, false} {
			role := a.agg.End
			if start {
				role = a.agg.Start
			}
			if role.Match(p.Provider, p.Name) {
				s := r
				a.agg.describe(&s, start)
				recs = append(recs, s)
			}
		}
	}
	return recs
}

func boolCompare(x, y bool) int {
	switch {
	case x == y:
		return 0
	case x:
		return 1
	}
	return -1
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
