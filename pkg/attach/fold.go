package attach

import (
	"cmp"
	"encoding/binary"
	"errors"
	"io"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/sdtkit/sdtkit/pkg/aggregate"
	"github.com/sdtkit/sdtkit/pkg/argspec"
	"github.com/sdtkit/sdtkit/pkg/bpf"
	"github.com/sdtkit/sdtkit/pkg/hit"
)

// An EventSource streams the events of the sites of a plan, following
// the protocol of Tracer: a Tracer, or the tracer of a backend without
// BPF (package tracefs).
type EventSource interface {
	Read(ev *Event) error
	Stop()
	Close() error
	// Lost and Skipped count the hits that made no event.
	Lost() uint64
	Skipped() uint64
}

// reorderWindow is how long a folder of a latency holds events back
// beyond the source's flush interval, so that it pairs them in time
// order: a source with a ring buffer per CPU gives them in time order
// per CPU only.
const reorderWindow = 50 * time.Millisecond

// AggregateEvents aggregates the events src streams, in this process,
// into the records Plan.Aggregate has the kernel keep, entry for entry:
// for a backend that cannot aggregate in the kernel. src must stream the
// sites of p, with Options.Filter applied (see Plan.Passes); Stop stops
// it and Close closes it. Events are folded as they come, but for a
// latency, whose STARTs and ENDs pair in time order: those are held back
// for the source's flush interval and reorderWindow, and sorted. The
// probes of sites src adds to the plan as it follows the libraries its
// process loads are folded from their first event. The events src lost
// in its ring buffer count as lost hits of their probes where src tells
// them by probe (Tracer.LostByProbe), as Skipped otherwise. By the user
// stack, the events must carry their stacks (Options.UStack): a stack is
// told apart by its addresses and process, as the kernel's map of stacks
// tells them, and records of the same symbolized stack are one.
// Libraries loaded later are not followed by a source that does not
// follow them.
func (p *Plan) AggregateEvents(a *Aggregation, src EventSource) (*Aggregator, error) {
	if a.ByStack() && p.opts.UStack == 0 {
		return nil, &KeyError{Key: "ustack", Err: ErrNoStacks}
	}
	probes, err := p.aggProbes(a)
	if err != nil {
		return nil, err
	}
	f := &folder{
		src:     src,
		mode:    a.Mode,
		pair:    partKind(a.pairKey()),
		probes:  probes,
		maxKeys: cmp.Or(a.MaxKeys, bpf.DefaultMaxKeys),
		strSize: cmp.Or(p.opts.StringSize, bpf.DefaultStringSize),
		window:  cmp.Or(p.opts.FlushInterval, DefaultFlushInterval) + reorderWindow,
		entries: make(map[string]*bpf.AggEntry),
		lost:    make(map[uint32]uint64),
		starts:  make(map[string]foldStart),
		done:    make(chan struct{}),
	}
	for _, k := range a.By {
		f.kinds = append(f.kinds, partKind(k))
	}
	ag := &Aggregator{src: f, plan: p, agg: *a, probes: slices.Clone(probes), stopping: make(chan struct{}), closing: make(chan struct{})}
	f.ag = ag
	if a.ByStack() {
		f.stacks = newFoldStacks(f.maxKeys, a.StackDepth)
		if t, ok := src.(*Tracer); ok && t.syms != nil {
			ag.stacks = namerOf(t.syms) // whose maps the Tracer reads again as they change
			// A stack seen first is placed in its process's maps then,
			// aside, which reads them again for an address they lack
			// while the process may still run: its records are
			// symbolized later, maybe once it has exited.
			f.stacks.seen = warmer(t.syms, f.done)
		} else {
			ag.stacks = newStackNamer(p.opts.PID, p.opts.DebugDirs)
		}
	}
	if a.hiddenPID() {
		f.kinds = append(f.kinds, bpf.PartPID)
	}
	go f.run()
	stopOnExit(&p.opts, ag.closing, ag.Stop)
	return ag, nil
}

// A folder folds events into the entries the aggregating BPF program
// (pkg/bpf/agg.bpf.c) would have kept: an aggSource.
type folder struct {
	src     EventSource
	mode    Mode
	kinds   []bpf.PartKind // of the key's parts
	pair    bpf.PartKind   // of the pairing key of a latency
	ag      *Aggregator    // whose records the entries make
	probes  []probeArgs
	padded  map[int]bool // of probes added, not seen yet
	maxKeys int
	strSize int
	window  time.Duration
	stacks  *foldStacks // of the key ustack

	mu      sync.Mutex
	entries map[string]*bpf.AggEntry // of the interval, by key (entryKey)
	// lost counts by probe the hits that found the entries full and
	// the events src lost in its ring buffer (see takeRingLost).
	lost map[uint32]uint64
	// ringSeen is what src lost by probe (Tracer.LostByProbe) as counted
	// in lost so far, and ringLostSum its sum.
	ringSeen    []uint64
	ringLostSum uint64
	starts      map[string]foldStart // the STARTs waiting, by pairing key
	late        []Event              // of a latency: held back, by time
	stopped     bool
	done        chan struct{} // closed once src is drained and every event folded
	readErr     error
	scratch     []byte
	partsBuf    []hit.Value
}

// A foldStart is a START waiting for its END.
type foldStart struct {
	ts    int64
	probe uint32
}

// Entry kinds, in the key of an entry.
const (
	entryHits = iota
	entryUnread
	entryUnmatched
	entryStarts
)

func (f *folder) run() {
	defer close(f.done)
	var ev Event
	for {
		err := f.src.Read(&ev)
		if err != nil {
			f.mu.Lock()
			if !errors.Is(err, io.EOF) {
				f.readErr = err
			}
			f.foldLate(time.Time{}) // all of them
			f.mu.Unlock()
			return
		}
		f.mu.Lock()
		if f.mode == Latency {
			f.hold(&ev)
			f.foldLate(ev.Time.Add(-f.window))
		} else {
			f.fold(&ev)
		}
		f.mu.Unlock()
	}
}

// hold keeps a copy of ev among the late events, in time order.
func (f *folder) hold(ev *Event) {
	c := *ev
	c.Args = slices.Clone(ev.Args)
	c.Stack = slices.Clone(ev.Stack)
	i := len(f.late)
	for i > 0 && f.late[i-1].Time.After(c.Time) {
		i--
	}
	f.late = slices.Insert(f.late, i, c)
}

// foldLate folds the late events up to the time given, all of them for
// the zero time.
func (f *folder) foldLate(upTo time.Time) {
	n := 0
	for n < len(f.late) && (upTo.IsZero() || !f.late[n].Time.After(upTo)) {
		f.fold(&f.late[n])
		f.late[n] = Event{} // its strings go with it
		n++
	}
	// Resliced, not copied: an append that outgrows the array copies
	// the events left, once.
	f.late = f.late[n:]
}

// fold counts the hit of ev as the BPF program counts it.
func (f *folder) fold(ev *Event) {
	if ev.Site == nil || (ev.Site.ProbeIndex >= len(f.probes) || f.padded[ev.Site.ProbeIndex]) && !f.grow(ev.Site) {
		return
	}
	pa := &f.probes[ev.Site.ProbeIndex]
	probe := uint32(ev.Site.ProbeIndex)
	switch f.mode {
	case Latency:
		f.pairHit(ev, pa, probe)
	case Hist, Stats:
		v, sign, ok := f.number(ev, pa.bpf.Value)
		parts := f.parts(ev, pa)
		switch {
		case !ok:
			f.add(probe, entryUnread, 0, parts, 0)
		case f.mode == Hist:
			f.add(probe, entryHits, bucketOf(v, sign), parts, 0)
		default:
			f.add(probe, entryHits, 0, parts, int64(v))
		}
	default:
		f.add(probe, entryHits, 0, f.parts(ev, pa), 0)
	}
}

// grow adds the probe of site s, added to the plan since the folder was
// made (Options.Dlopen), to the probes folded and to those of the
// Aggregator's records.
func (f *folder) grow(s *Site) bool {
	pa, err := f.ag.agg.probeArgs(s)
	if err != nil {
		return false // not attached (see bpfEvents.prepare)
	}
	i := s.ProbeIndex
	for len(f.probes) <= i {
		if f.padded == nil {
			f.padded = make(map[int]bool)
		}
		f.padded[len(f.probes)] = true
		f.probes = append(f.probes, probeArgs{})
	}
	f.probes[i] = pa
	delete(f.padded, i)
	mu := &f.ag.plan.mu
	mu.Lock()
	defer mu.Unlock()
	for len(f.ag.probes) <= i {
		f.ag.probes = append(f.ag.probes, probeArgs{})
	}
	f.ag.probes[i] = pa
	return true
}

// pairHit handles a hit of a latency as agg.bpf.c's pair and aggregate
// do.
func (f *folder) pairHit(ev *Event, pa *probeArgs, probe uint32) {
	start, end := pa.bpf.Start, pa.bpf.End
	k, ok := f.part(ev, f.pair, pa.bpf.Pair)
	if !ok {
		if end {
			f.add(probe, entryUnread, 0, f.parts(ev, pa), 0)
		} else {
			f.add(probe, entryUnread, 0, nil, 0)
		}
		return
	}
	key := string(appendValue(nil, k))
	now := ev.Time.UnixNano()
	var t int64
	if end {
		if w, ok := f.starts[key]; ok {
			t = w.ts
			delete(f.starts, key)
		}
	}
	if start {
		if _, ok := f.starts[key]; ok || len(f.starts) < f.maxKeys {
			f.starts[key] = foldStart{ts: now, probe: probe}
			f.add(probe, entryStarts, 0, nil, 0)
		} else {
			f.lost[probe]++
		}
	}
	switch {
	case !end:
	case t != 0 && now >= t:
		v := uint64(now - t)
		f.add(probe, entryHits, aggregate.BucketUint(v), f.parts(ev, pa), int64(v))
	case start: // an END that is a START too only waits
	default:
		f.add(probe, entryUnmatched, 0, f.parts(ev, pa), 0)
	}
}

// parts returns the key's parts of ev, in a buffer reused by the next
// call.
func (f *folder) parts(ev *Event, pa *probeArgs) []hit.Value {
	if pa.startOnly() {
		return nil // no key is read at STARTs
	}
	f.partsBuf = f.partsBuf[:0]
	for i, kind := range f.kinds {
		var x bpf.AggArg
		if i < len(pa.bpf.Parts) {
			x = pa.bpf.Parts[i]
		}
		v, ok := f.part(ev, kind, x)
		if !ok {
			v = hit.Value{Kind: hit.NotRead, Size: 8}
		}
		f.partsBuf = append(f.partsBuf, v)
	}
	return f.partsBuf
}

// part reads one part of a key, as read_part does.
func (f *folder) part(ev *Event, kind bpf.PartKind, x bpf.AggArg) (hit.Value, bool) {
	switch kind {
	case bpf.PartPID:
		return hit.Value{Kind: hit.Uint, Bits: uint64(ev.PID), Size: 8}, true
	case bpf.PartTID:
		return hit.Value{Kind: hit.Uint, Bits: uint64(ev.TID), Size: 8}, true
	case bpf.PartComm:
		return hit.Value{Kind: hit.String, Str: ev.Comm}, true
	case bpf.PartUStack:
		return f.stacks.part(ev), true
	}
	if x.String {
		if x.Index < 0 || x.Index >= len(ev.Args) || ev.Args[x.Index].Kind != hit.String {
			return hit.Value{}, false
		}
		s := ev.Args[x.Index].Str
		if len(s) > f.strSize {
			s = s[:f.strSize]
		}
		return hit.Value{Kind: hit.String, Str: s}, true
	}
	v, sign, ok := f.number(ev, x)
	if !ok {
		return hit.Value{}, false
	}
	kind2 := hit.Uint
	if sign {
		kind2 = hit.Int
	}
	return hit.Value{Kind: kind2, Bits: v, Size: 8}, true
}

// number reads argument x of ev as a number, as read_num does: with the
// sign its note gives it, unless x gives a size and sign.
func (f *folder) number(ev *Event, x bpf.AggArg) (v uint64, sign, ok bool) {
	if x.Index < 0 || x.Index >= len(ev.Args) {
		return 0, false, false
	}
	a := &ev.Args[x.Index]
	switch a.Kind {
	case hit.NotRead, hit.String:
		return 0, false, false
	}
	v, sign = a.Bits, a.Kind == hit.Int
	if x.Size > 0 {
		v, sign = argspec.Extend(v, x.Size, x.Signed), x.Signed
	}
	return v, sign, true
}

func bucketOf(v uint64, sign bool) int {
	if sign {
		return aggregate.BucketInt(int64(v))
	}
	return aggregate.BucketUint(v)
}

// add counts one hit in the entry of the key given, adding v to its
// stats; a new key that finds MaxKeys entries counts as lost.
func (f *folder) add(probe uint32, kind byte, bucket int, parts []hit.Value, v int64) {
	b := f.scratch[:0]
	b = binary.LittleEndian.AppendUint32(b, probe)
	b = append(b, kind, byte(bucket))
	for _, p := range parts {
		b = appendValue(b, p)
	}
	f.scratch = b
	e := f.entries[string(b)]
	if e == nil {
		if len(f.entries) >= f.maxKeys {
			f.lost[probe]++
			return
		}
		e = &bpf.AggEntry{Probe: probe, Bucket: bucket, Parts: slices.Clone(parts),
			Unread: kind == entryUnread, Unmatched: kind == entryUnmatched, Starts: kind == entryStarts}
		if i := slices.Index(f.kinds, bpf.PartUStack); i >= 0 && i < len(parts) {
			e.Stack, e.StackErr = f.stacks.stack(parts[i])
		}
		f.entries[string(b)] = e
	}
	st := aggregate.Stats{Count: e.Count, Sum: e.Sum, Min: e.Min, Max: e.Max}
	st.Add(v)
	e.Count, e.Sum, e.Min, e.Max = st.Count, st.Sum, st.Min, st.Max
}

// appendValue appends what tells v apart from other values.
func appendValue(b []byte, v hit.Value) []byte {
	b = append(b, byte(v.Kind))
	if v.Kind == hit.String {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(v.Str)))
		return append(b, v.Str...)
	}
	return binary.LittleEndian.AppendUint64(b, v.Bits)
}

// collect gives fn the entries of the interval, its lost hits and the
// STARTs waiting, as bpf.Program.Collect does, and starts the next. Once
// stopped, it waits until every event is folded.
func (f *folder) collect(fn func(*bpf.AggEntry)) error {
	f.mu.Lock()
	stopped := f.stopped
	f.mu.Unlock()
	if stopped {
		<-f.done
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if !stopped && f.mode == Latency {
		f.foldLate(time.Now().Add(-f.window))
	}
	for _, e := range f.entries {
		fn(e)
	}
	f.takeRingLost()
	for p, n := range f.lost {
		fn(&bpf.AggEntry{Probe: p, Lost: true, Count: n})
	}
	if f.mode == Latency {
		pending := make(map[uint32]uint64)
		for _, w := range f.starts {
			pending[w.probe]++
		}
		for _, p := range slices.Sorted(maps.Keys(pending)) {
			fn(&bpf.AggEntry{Probe: p, Pending: true, Count: pending[p]})
		}
	}
	clear(f.entries)
	clear(f.lost)
	return f.readErr
}

func (f *folder) detach() error {
	f.mu.Lock()
	f.stopped = true
	f.mu.Unlock()
	f.src.Stop()
	return nil
}

// takeRingLost counts the events src lost since it was last called as
// lost hits of their probes, when src tells its losses by probe: those of
// a probe added to the plan whose hits have not been folded yet wait
// until one is.
func (f *folder) takeRingLost() {
	s, ok := f.src.(probeLosses)
	if !ok {
		return
	}
	for p, n := range s.LostByProbe() {
		if p >= len(f.probes) {
			break
		}
		if f.padded[p] {
			continue
		}
		for len(f.ringSeen) <= p {
			f.ringSeen = append(f.ringSeen, 0)
		}
		if n > f.ringSeen[p] {
			f.lost[uint32(p)] += n - f.ringSeen[p]
			f.ringLostSum += n - f.ringSeen[p]
			f.ringSeen[p] = n
		}
	}
}

func (f *folder) ringLost() uint64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.ringLostSum
}

// skipped is the number of hits of no entry: those src skipped, and the
// events it lost that no probe's lost hits count.
func (f *folder) skipped() uint64 {
	counted := f.ringLost()
	lost := f.src.Lost()
	return lost - min(counted, lost) + f.src.Skipped()
}

func (f *folder) close() error { return f.src.Close() }
