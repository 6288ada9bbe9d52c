package metrics

import (
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sdtkit/sdtkit/pkg/aggregate"
	"github.com/sdtkit/sdtkit/pkg/ndjson"
)

// DefaultMaxSeries is the most key values an Exporter keeps when
// Options.MaxSeries is 0.
const DefaultMaxSeries = 10000

// Options configure an Exporter.
type Options struct {
	// Collect, when not nil, returns the records of the interval since
	// its last call, such as attach.Aggregator.Collect does. The
	// Exporter calls it on every scrape and from Update, one call at a
	// time, and adds what it returns.
	Collect func(now time.Time) ([]aggregate.Record, error)
	// By are the keys the records are grouped by, in their order: their
	// names are the label names of the keys' values.
	By []aggregate.Key
	// MaxSeries is the most key values kept, all probes together
	// (DefaultMaxSeries if 0). Past it, what the records of a new key
	// value count is added to the probe's series whose key labels are
	// empty, which no key value is written as.
	MaxSeries int
	// Alive reports whether the process or thread of a pid or tid key
	// value still exists; /proc/ID is looked up if nil. The series of
	// those that no longer do are dropped once a scrape has shown their
	// final values.
	Alive func(id int64) bool
}

// An Exporter keeps the aggregate records of every interval added up
// since it was made, and is a prometheus.Collector of them: counters
// that only grow for as long as the records keep coming, histograms
// with the log2 buckets of package aggregate, and gauges. Its methods
// may be called from several goroutines.
type Exporter struct {
	mu        sync.Mutex
	collect   func(now time.Time) ([]aggregate.Record, error)
	alive     func(id int64) bool
	maxSeries int
	keyNames  []string
	ids       []int // the indexes in By of the pid and tid keys
	err       error // of the label names of By

	begun  atomic.Uint64 // collections begun
	lastOK uint64        // the number of the last that succeeded

	series map[seriesKey]*series
	probes map[probeKey]*probeState
	keyed  int // series with key values, against maxSeries
	order  []seriesKey
	porder []probeKey
}

// New returns an Exporter with the options given (the defaults for nil).
func New(opts *Options) *Exporter {
	if opts == nil {
		opts = new(Options)
	}
	e := &Exporter{
		collect:   opts.Collect,
		alive:     opts.Alive,
		maxSeries: opts.MaxSeries,
		series:    make(map[seriesKey]*series),
		probes:    make(map[probeKey]*probeState),
	}
	if e.alive == nil {
		e.alive = procExists
	}
	if e.maxSeries <= 0 {
		e.maxSeries = DefaultMaxSeries
	}
	e.keyNames, e.err = LabelNames(opts.By)
	if e.err != nil {
		e.err = fmt.Errorf("metrics: %w", e.err)
	}
	for i, k := range opts.By {
		if k.Kind == aggregate.KeyPID || k.Kind == aggregate.KeyTID {
			e.ids = append(e.ids, i)
		}
	}
	return e
}

// procExists reports whether /proc/ID exists: a process, or a thread of
// one.
func procExists(id int64) bool {
	_, err := os.Stat("/proc/" + strconv.FormatInt(id, 10))
	return !errors.Is(err, os.ErrNotExist)
}

// Update calls Options.Collect and adds the records it returns, which
// it returns too; scrapes do the same. Calling it on a timer bounds how
// stale a scrape's values can be. The error is that of Collect, or that
// of LabelNames for Options.By.
func (e *Exporter) Update(now time.Time) ([]aggregate.Record, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.update(now)
}

func (e *Exporter) update(now time.Time) ([]aggregate.Record, error) {
	if e.err != nil {
		return nil, e.err
	}
	if e.collect == nil {
		return nil, nil
	}
	// Before the maps are read: a process found gone here made its
	// last hit before, so that what is read holds all of its hits.
	e.markExited()
	n := e.begun.Add(1)
	recs, err := e.collect(now)
	if err != nil {
		return nil, err
	}
	e.add(recs)
	e.lastOK = n
	return recs, nil
}

// Add adds the records of one interval: what they count is added to the
// totals, the STARTs pending of a latency are set to theirs (0 for a
// probe without a record), and the series of the pid and tid key values
// whose process or thread had exited before the call are dropped when a
// scrape has shown them since they last counted a hit, and these
// records count none.
//
// Records of no hits, one per probe, added before the first interval
// make the series known before the hits come, at 0, so that a rate
// over the first hits counts them: those of the probe (lost, unread)
// and, without Options.By, its count, histogram or stats. A record of
// no key values, when Options.By has keys, makes only the probe known.
func (e *Exporter) Add(recs []aggregate.Record) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.markExited()
	e.add(recs)
}

// markExited marks the series that a scrape has shown since their last
// hit and whose process or thread has exited: add drops those that its
// records leave without a hit. Those not yet shown are kept, whatever
// their process, so that every hit is in a scrape, however many
// intervals (Update) end between two scrapes.
func (e *Exporter) markExited() {
	if len(e.ids) == 0 {
		return
	}
	for _, k := range e.order {
		s := e.series[k]
		s.gone = s.shown && len(s.ids) > 0 && !e.allAlive(s.ids)
	}
}

func (e *Exporter) add(recs []aggregate.Record) {
	for _, p := range e.probes {
		p.pending = 0
	}
	for i := range recs {
		e.addRecord(&recs[i])
	}
	if len(e.ids) == 0 {
		return
	}
	kept := e.order[:0]
	for _, k := range e.order {
		if s := e.series[k]; s.gone && s.shown {
			delete(e.series, k)
			e.keyed--
			continue
		}
		kept = append(kept, k)
	}
	clear(e.order[len(kept):])
	e.order = kept
}

func (e *Exporter) allAlive(ids []int64) bool {
	for _, id := range ids {
		if !e.alive(id) {
			return false
		}
	}
	return true
}

// A probeKey is a probe, by the labels of its series.
type probeKey struct{ provider, name, file string }

// probeState is what is counted per probe rather than per key value.
type probeState struct {
	labels         []string // provider, probe, binary
	lost, unread   uint64
	starts         uint64 // hits of a latency's START probe
	pending        uint64
	start, counted bool // a START probe; one with other records
}

// A seriesKey is a probe and its key values as Group.By writes them;
// "" for the series that the values past MaxSeries are folded into.
type seriesKey struct {
	probeKey
	by string
}

// kind says what a series keeps.
type kind uint8

const (
	kindCount kind = iota
	kindHist
	kindStats
	kindLatency
)

type series struct {
	kind   kind
	labels []string // provider, probe, binary, [arg], key values
	ids    []int64  // the pid and tid values
	shown  bool     // by a scrape, since the last record that counted
	gone   bool     // its process or thread has exited (markExited)

	count     uint64 // hits, values or pairs
	buckets   [aggregate.NumBuckets]uint64
	sum       float64 // stats and latencies; float64 is 2**53 exact
	min, max  int64
	unmatched uint64
}

func (e *Exporter) probe(r *aggregate.Record) *probeState {
	k := probeKey{r.Provider, r.Name, r.File}
	p := e.probes[k]
	if p == nil {
		p = &probeState{labels: []string{label(r.Provider), label(r.Name), label(r.File)}}
		e.probes[k] = p
		e.porder = append(e.porder, k)
	}
	return p
}

func (e *Exporter) addRecord(r *aggregate.Record) {
	p := e.probe(r)
	if r.Lost > 0 {
		p.lost += r.Lost
		return
	}
	p.unread += r.Unread
	if r.Latency != (aggregate.Key{}) && r.Start {
		p.start = true
		p.starts += r.Count
		p.pending = r.Pending
		return
	}
	p.counted = true
	if len(r.By) == 0 && len(e.keyNames) > 0 {
		return // a record that only makes the probe known
	}
	s := e.seriesOf(r, p)
	s.shown = false
	switch s.kind {
	case kindCount:
		s.count += r.Count
	case kindHist:
		s.count += addBuckets(&s.buckets, r)
	case kindStats:
		if r.Count > 0 {
			if s.count == 0 || r.Min < s.min {
				s.min = r.Min
			}
			if s.count == 0 || r.Max > s.max {
				s.max = r.Max
			}
			s.count += r.Count
			s.sum += float64(r.Sum)
		}
	case kindLatency:
		s.count += addBuckets(&s.buckets, r)
		s.sum += float64(r.Sum)
		s.unmatched += r.Unmatched
	}
}

// addBuckets adds the buckets of r to b and returns the number of values
// they hold.
func addBuckets(b *[aggregate.NumBuckets]uint64, r *aggregate.Record) uint64 {
	var n uint64
	for _, bk := range r.Buckets {
		if i, ok := bk.Index(); ok {
			b[i] += bk.Count
			n += bk.Count
		}
	}
	return n
}

// seriesOf returns the series of r, made on first use, or that of the
// values past MaxSeries.
func (e *Exporter) seriesOf(r *aggregate.Record, p *probeState) *series {
	k := seriesKey{probeKey: probeKey{r.Provider, r.Name, r.File}}
	keyed := len(r.By) > 0
	if keyed {
		k.by = r.Group().By
	}
	if s := e.series[k]; s != nil {
		return s
	}
	if keyed && e.keyed >= e.maxSeries {
		k.by = ""
		if s := e.series[k]; s != nil {
			return s
		}
		keyed = false
	}
	s := &series{labels: append([]string(nil), p.labels...)}
	switch {
	case r.Latency != (aggregate.Key{}):
		s.kind = kindLatency
	case r.Hist != (aggregate.Key{}):
		s.kind = kindHist
		s.labels = append(s.labels, r.Hist.String())
	case r.Stats != (aggregate.Key{}):
		s.kind = kindStats
		s.labels = append(s.labels, r.Stats.String())
	}
	values := make([]string, len(e.keyNames))
	if keyed {
		for i, kv := range r.By {
			if i < len(values) {
				values[i] = kv.Key.Format(kv.Value)
			}
		}
		for _, i := range e.ids {
			if i < len(r.By) {
				if id, ok := idOf(r.By[i].Value); ok {
					s.ids = append(s.ids, id)
				}
			}
		}
		e.keyed++
	}
	s.labels = append(s.labels, values...)
	e.series[k] = s
	e.order = append(e.order, k)
	return s
}

// idOf returns the process or thread ID that a pid or tid key value
// is; false for one that was not read.
func idOf(v ndjson.Value) (int64, bool) {
	if v.Kind == ndjson.Uint && v.Uint <= math.MaxInt32 {
		return int64(v.Uint), true
	}
	return 0, false
}

// upper returns the inclusive upper bound of bucket i of the values
// below 2**63: -1 for the negative values, then 0, 1, 3, 7 and 2**k-1
// (the values are integers, so that v <= 2**k-1 is v < 2**k, the
// bucket's exclusive bound). Bucket NumBuckets-1, of the values from
// 2**63 on, is the +Inf bucket.
func upper(i int) float64 {
	if i == 0 {
		return -1
	}
	return math.Ldexp(1, i-1) - 1
}

// Describe sends no descriptor: the families and their labels depend on
// the records, which makes the Exporter an unchecked collector. When two
// keys of Options.By have the same label name, it sends a descriptor of
// that error, so that registering the Exporter fails with it.
func (e *Exporter) Describe(ch chan<- *prometheus.Desc) {
	if e.err != nil {
		ch <- prometheus.NewInvalidDesc(e.err)
	}
}

// Collect calls Options.Collect, adds its records, and sends the
// metrics of every series, which a scrape then has shown. A call that
// waited for a collection that began after it did, scrape or Update,
// sends the totals that one left without collecting again: they hold
// every hit until the call. An error, or a panic of Options.Collect, is
// sent as an invalid metric, which fails the scrape.
func (e *Exporter) Collect(ch chan<- prometheus.Metric) {
	// Scrapes that queue, as a flood of them does, collect once per
	// turn of the queue rather than once each, where each collection
	// waits for the kernel (attach.Aggregator.Collect).
	arrived := e.begun.Load()
	e.mu.Lock()
	defer e.mu.Unlock()
	// The registry turns a panic into an error that holds a stack trace,
	// which promhttp writes into the response: the client gets the
	// panic's value only.
	defer func() {
		if r := recover(); r != nil {
			err := fmt.Errorf("metrics: collect: panic: %v", r)
			ch <- prometheus.NewInvalidMetric(prometheus.NewInvalidDesc(err), err)
		}
	}()
	if e.lastOK <= arrived {
		if _, err := e.update(time.Now()); err != nil {
			ch <- prometheus.NewInvalidMetric(prometheus.NewInvalidDesc(err), err)
			return
		}
	}
	e.send(ch)
}
