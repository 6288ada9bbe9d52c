package metrics_test

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/sdtkit/sdtkit/pkg/aggregate"
	"github.com/sdtkit/sdtkit/pkg/metrics"
	"github.com/sdtkit/sdtkit/pkg/ndjson"
)

var (
	pid  = aggregate.Key{Kind: aggregate.KeyPID}
	comm = aggregate.Key{Kind: aggregate.KeyComm}
	arg0 = aggregate.Key{Kind: aggregate.KeyArg}
	arg1 = aggregate.Key{Kind: aggregate.KeyArg, Arg: 1}
)

func intv(n int64) ndjson.Value  { return ndjson.IntValue(n) }
func strv(s string) ndjson.Value { return ndjson.Value{Kind: ndjson.String, Str: s} }

// rec returns a record of probe p:hit in /bin/app.
func rec(r aggregate.Record) aggregate.Record {
	r.Provider, r.Name, r.File = "p", "hit", "/bin/app"
	return r
}

// buckets returns the buckets of the values given.
func buckets(vs ...int64) []aggregate.Bucket {
	var h aggregate.Histogram
	for _, v := range vs {
		h.AddInt(v)
	}
	return h.Buckets()
}

// feed returns an Exporter whose Collect returns the intervals given,
// one a call, then nothing.
func feed(opts metrics.Options, intervals ...[]aggregate.Record) *metrics.Exporter {
	opts.Collect = func(time.Time) ([]aggregate.Record, error) {
		if len(intervals) == 0 {
			return nil, nil
		}
		recs := intervals[0]
		intervals = intervals[1:]
		return recs, nil
	}
	return metrics.New(&opts)
}

// scrape checks that a scrape of e shows want, of the metrics named.
func scrape(t *testing.T, e *metrics.Exporter, want string, names ...string) {
	t.Helper()
	if err := testutil.CollectAndCompare(e, strings.NewReader(want), names...); err != nil {
		t.Error(err)
	}
}

func TestCountsAddUp(t *testing.T) {
	by := func(p int64) []aggregate.KeyValue { return []aggregate.KeyValue{{Key: pid, Value: intv(p)}} }
	e := feed(metrics.Options{By: []aggregate.Key{pid}, Alive: func(int64) bool { return true }},
		[]aggregate.Record{
			rec(aggregate.Record{By: by(1), Count: 3}),
			rec(aggregate.Record{By: by(2), Count: 5}),
			rec(aggregate.Record{Lost: 2}),
		},
		[]aggregate.Record{rec(aggregate.Record{By: by(1), Count: 4})},
	)
	scrape(t, e, `
# HELP sdt_probe_hits_total Probe hits counted in the kernel.
# TYPE sdt_probe_hits_total counter
sdt_probe_hits_total{binary="/bin/app",pid="1",probe="hit",provider="p"} 3
sdt_probe_hits_total{binary="/bin/app",pid="2",probe="hit",provider="p"} 5
# HELP sdt_probe_lost_total Probe hits not counted because the kernel's map of keys was full.
# TYPE sdt_probe_lost_total counter
sdt_probe_lost_total{binary="/bin/app",probe="hit",provider="p"} 2
`, metrics.HitsTotal, metrics.LostTotal)
	// Each scrape collects once: the second adds 4, the third nothing.
	for range 2 {
		scrape(t, e, `
# HELP sdt_probe_hits_total Probe hits counted in the kernel.
# TYPE sdt_probe_hits_total counter
sdt_probe_hits_total{binary="/bin/app",pid="1",probe="hit",provider="p"} 7
sdt_probe_hits_total{binary="/bin/app",pid="2",probe="hit",provider="p"} 5
# HELP sdt_probe_lost_total Probe hits not counted because the kernel's map of keys was full.
# TYPE sdt_probe_lost_total counter
sdt_probe_lost_total{binary="/bin/app",probe="hit",provider="p"} 2
# HELP sdt_series Key values kept, all probes together.
# TYPE sdt_series gauge
sdt_series 2
`, metrics.HitsTotal, metrics.LostTotal, metrics.Series)
	}
}

func TestSameProbeTwoFiles(t *testing.T) {
	a := rec(aggregate.Record{Count: 1})
	b := rec(aggregate.Record{Count: 2})
	b.File = "/lib/libapp.so"
	e := feed(metrics.Options{}, []aggregate.Record{a, b})
	scrape(t, e, `
# HELP sdt_probe_hits_total Probe hits counted in the kernel.
# TYPE sdt_probe_hits_total counter
sdt_probe_hits_total{binary="/bin/app",probe="hit",provider="p"} 1
sdt_probe_hits_total{binary="/lib/libapp.so",probe="hit",provider="p"} 2
`, metrics.HitsTotal)
}

func TestExitedDropped(t *testing.T) {
	exited := map[int64]bool{}
	by := func(p int64) []aggregate.KeyValue { return []aggregate.KeyValue{{Key: pid, Value: intv(p)}} }
	e := feed(metrics.Options{By: []aggregate.Key{pid}, Alive: func(id int64) bool { return !exited[id] }},
		[]aggregate.Record{rec(aggregate.Record{By: by(10), Count: 1}), rec(aggregate.Record{By: by(20), Count: 1})},
		[]aggregate.Record{rec(aggregate.Record{By: by(20), Count: 2})},
	)
	scrape(t, e, `
# HELP sdt_probe_hits_total Probe hits counted in the kernel.
# TYPE sdt_probe_hits_total counter
sdt_probe_hits_total{binary="/bin/app",pid="10",probe="hit",provider="p"} 1
sdt_probe_hits_total{binary="/bin/app",pid="20",probe="hit",provider="p"} 1
`, metrics.HitsTotal)
	// Both exit; 20 counted hits before it did: its series shows them
	// once more, 10's goes.
	exited[10], exited[20] = true, true
	scrape(t, e, `
# HELP sdt_probe_hits_total Probe hits counted in the kernel.
# TYPE sdt_probe_hits_total counter
sdt_probe_hits_total{binary="/bin/app",pid="20",probe="hit",provider="p"} 3
# HELP sdt_series Key values kept, all probes together.
# TYPE sdt_series gauge
sdt_series 1
`, metrics.HitsTotal, metrics.Series)
	scrape(t, e, `
# HELP sdt_series Key values kept, all probes together.
# TYPE sdt_series gauge
sdt_series 0
`, metrics.HitsTotal, metrics.Series)
}

func TestMaxSeriesFolds(t *testing.T) {
	by := func(c string) []aggregate.KeyValue { return []aggregate.KeyValue{{Key: comm, Value: strv(c)}} }
	e := feed(metrics.Options{By: []aggregate.Key{comm}, MaxSeries: 2},
		[]aggregate.Record{
			rec(aggregate.Record{By: by("a"), Count: 1}),
			rec(aggregate.Record{By: by("b"), Count: 2}),
			rec(aggregate.Record{By: by("c"), Count: 3}),
			rec(aggregate.Record{By: by("d"), Count: 4}),
		},
		[]aggregate.Record{
			rec(aggregate.Record{By: by("a"), Count: 10}),
			rec(aggregate.Record{By: by("e"), Count: 20}),
		},
	)
	e.Update(time.Now())
	scrape(t, e, `
# HELP sdt_probe_hits_total Probe hits counted in the kernel.
# TYPE sdt_probe_hits_total counter
sdt_probe_hits_total{binary="/bin/app",comm="a",probe="hit",provider="p"} 11
sdt_probe_hits_total{binary="/bin/app",comm="b",probe="hit",provider="p"} 2
sdt_probe_hits_total{binary="/bin/app",comm="",probe="hit",provider="p"} 27
# HELP sdt_series Key values kept, all probes together.
# TYPE sdt_series gauge
sdt_series 2
# HELP sdt_series_limit Key values kept at most; the hits of more are counted in the series whose key labels are empty.
# TYPE sdt_series_limit gauge
sdt_series_limit 2
`, metrics.HitsTotal, metrics.Series, metrics.SeriesLimit)
}

func TestLabelValues(t *testing.T) {
	le := aggregate.Key{Kind: aggregate.KeyField, Field: "le"}
	r := aggregate.Record{
		Provider: "p\x1b[31m", Name: "hit", File: "/tmp/a b\n",
		By:    []aggregate.KeyValue{{Key: comm, Value: strv("x\x00y")}, {Key: le, Value: strv("say \"hi\"")}, {Key: arg1, Value: ndjson.Value{}}},
		Count: 1,
	}
	e := feed(metrics.Options{By: []aggregate.Key{comm, le, arg1}}, []aggregate.Record{r})
	scrape(t, e, `
# HELP sdt_probe_hits_total Probe hits counted in the kernel.
# TYPE sdt_probe_hits_total counter
sdt_probe_hits_total{arg1="?",binary="\"/tmp/a b\\n\"",comm="\"x\\x00y\"",key_le="\"say \\\"hi\\\"\"",probe="hit",provider="\"p\\x1b[31m\""} 1
`, metrics.HitsTotal)
}

func TestLabelName(t *testing.T) {
	for _, tt := range []struct {
		key  aggregate.Key
		want string
	}{
		{pid, "pid"},
		{comm, "comm"},
		{arg1, "arg1"},
		{aggregate.Key{Kind: aggregate.KeyField, Field: "size"}, "size"},
		{aggregate.Key{Kind: aggregate.KeyField, Field: "binary"}, "key_binary"},
		{aggregate.Key{Kind: aggregate.KeyField, Field: "quantile"}, "key_quantile"},
		{aggregate.Key{Kind: aggregate.KeyField, Field: "__name__"}, "key___name__"},
		{aggregate.Key{Kind: aggregate.KeyField, Field: "1st"}, "key_1st"},
	} {
		if got := metrics.LabelName(tt.key); got != tt.want {
			t.Errorf("LabelName(%v) = %q, want %q", tt.key, got, tt.want)
		}
	}
}

func TestStats(t *testing.T) {
	e := feed(metrics.Options{},
		[]aggregate.Record{rec(aggregate.Record{Stats: arg0, Count: 3, Sum: 6, Min: 1, Max: 3, Unread: 1})},
		[]aggregate.Record{rec(aggregate.Record{Stats: arg0, Count: 2, Sum: -10, Min: -7, Max: -3})},
	)
	e.Update(time.Now())
	scrape(t, e, `
# HELP sdt_probe_value_stats Count and sum of the values of a probe argument.
# TYPE sdt_probe_value_stats summary
sdt_probe_value_stats_sum{arg="arg0",binary="/bin/app",probe="hit",provider="p"} -4
sdt_probe_value_stats_count{arg="arg0",binary="/bin/app",probe="hit",provider="p"} 5
# HELP sdt_probe_value_min Least value of a probe argument since the probes were attached.
# TYPE sdt_probe_value_min gauge
sdt_probe_value_min{arg="arg0",binary="/bin/app",probe="hit",provider="p"} -7
# HELP sdt_probe_value_max Greatest value of a probe argument since the probes were attached.
# TYPE sdt_probe_value_max gauge
sdt_probe_value_max{arg="arg0",binary="/bin/app",probe="hit",provider="p"} 3
# HELP sdt_probe_unread_total Probe hits whose value or key could not be read.
# TYPE sdt_probe_unread_total counter
sdt_probe_unread_total{binary="/bin/app",probe="hit",provider="p"} 1
`, metrics.ValueStats, metrics.ValueMin, metrics.ValueMax, metrics.UnreadTotal)
}

// histText returns the text of a histogram of the buckets given, from
// their inclusive upper bound to the count up to it, the others having
// the count of the bound before them.
func histText(name, help, labels string, sum string, upTo map[string]uint64, count uint64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s histogram\n", name, help, name)
	var n uint64
	for i := range aggregate.NumBuckets - 1 {
		le := "-1"
		if i > 0 {
			le = strconv.FormatFloat(float64(uint64(1)<<(i-1)-1), 'g', -1, 64)
		}
		if strings.HasSuffix(name, "_seconds") {
			le = strconv.FormatFloat(float64(uint64(1)<<max(i-1, 0)-1)/1e9, 'g', -1, 64)
			if i == 0 {
				le = "-1e-09"
			}
		}
		if c, ok := upTo[le]; ok {
			n = c
		}
		fmt.Fprintf(&b, "%s_bucket{%s,le=%q} %d\n", name, labels, le, n)
	}
	fmt.Fprintf(&b, "%s_bucket{%s,le=\"+Inf\"} %d\n", name, labels, count)
	fmt.Fprintf(&b, "%s_sum{%s} %s\n%s_count{%s} %d\n", name, labels, sum, name, labels, count)
	return b.String()
}

func TestHist(t *testing.T) {
	e := feed(metrics.Options{},
		[]aggregate.Record{rec(aggregate.Record{Hist: arg0, Count: 6, Buckets: buckets(-5, 0, 1, 2, 3, 4)})},
		[]aggregate.Record{rec(aggregate.Record{Hist: arg0, Count: 3, Buckets: buckets(7, 8, 1<<62)})},
	)
	e.Update(time.Now())
	want := histText(metrics.Value, "Values of a probe argument, in the log2 buckets of bpftrace's hist(); no sum is kept.",
		`arg="arg0",binary="/bin/app",probe="hit",provider="p"`, "NaN",
		map[string]uint64{"-1": 1, "0": 2, "1": 3, "3": 5, "7": 7, "15": 8, "9.223372036854776e+18": 9}, 9)
	scrape(t, e, want, metrics.Value)
}

func TestLatency(t *testing.T) {
	tid := aggregate.Key{Kind: aggregate.KeyTID}
	start := func(count, pending uint64) aggregate.Record {
		r := rec(aggregate.Record{Latency: tid, Start: true, To: "p:end", Count: count, Pending: pending})
		r.Name = "begin"
		return r
	}
	end := func(unmatched uint64, ns ...int64) aggregate.Record {
		r := rec(aggregate.Record{Latency: tid, From: "p:begin", Count: uint64(len(ns)), Unmatched: unmatched, Buckets: buckets(ns...)})
		for _, v := range ns {
			r.Sum += v
		}
		r.Name = "end"
		return r
	}
	e := feed(metrics.Options{},
		[]aggregate.Record{start(3, 1), end(1, 4_400_000, 17_000_000)},
		[]aggregate.Record{end(0, 70_000_000)},
	)
	e.Update(time.Now())
	want := histText(metrics.LatencySeconds, "Time from a START probe hit to the next END probe hit of the same key, by END probe.",
		`binary="/bin/app",probe="end",provider="p"`, "0.0914",
		map[string]uint64{"0.008388607": 1, "0.033554431": 2, "0.134217727": 3}, 3)
	scrape(t, e, want+`
# HELP sdt_probe_latency_unmatched_total END probe hits that found no START waiting.
# TYPE sdt_probe_latency_unmatched_total counter
sdt_probe_latency_unmatched_total{binary="/bin/app",probe="end",provider="p"} 1
# HELP sdt_probe_latency_starts_total START probe hits of a latency.
# TYPE sdt_probe_latency_starts_total counter
sdt_probe_latency_starts_total{binary="/bin/app",probe="begin",provider="p"} 3
# HELP sdt_probe_latency_pending START probe hits waiting for their END.
# TYPE sdt_probe_latency_pending gauge
sdt_probe_latency_pending{binary="/bin/app",probe="begin",provider="p"} 0
`, metrics.LatencySeconds, metrics.UnmatchedTotal, metrics.StartsTotal, metrics.Pending)
}

func TestCollectError(t *testing.T) {
	errMap := errors.New("map read failed")
	e := metrics.New(&metrics.Options{Collect: func(time.Time) ([]aggregate.Record, error) { return nil, errMap }})
	if _, err := e.Update(time.Now()); !errors.Is(err, errMap) {
		t.Errorf("Update = %v, want %v", err, errMap)
	}
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(e)
	if _, err := reg.Gather(); err == nil || !strings.Contains(err.Error(), errMap.Error()) {
		t.Errorf("Gather error = %v, want one that says %q", err, errMap)
	}
}

// Records of no hits make the series known at 0 before the first hit;
// with keys, only those of the probe.
func TestSeeds(t *testing.T) {
	e := metrics.New(&metrics.Options{})
	e.Add([]aggregate.Record{rec(aggregate.Record{})})
	scrape(t, e, `
# HELP sdt_probe_hits_total Probe hits counted in the kernel.
# TYPE sdt_probe_hits_total counter
sdt_probe_hits_total{binary="/bin/app",probe="hit",provider="p"} 0
# HELP sdt_probe_lost_total Probe hits not counted because the kernel's map of keys was full.
# TYPE sdt_probe_lost_total counter
sdt_probe_lost_total{binary="/bin/app",probe="hit",provider="p"} 0
`, metrics.HitsTotal, metrics.LostTotal)

	e = metrics.New(&metrics.Options{By: []aggregate.Key{pid}})
	e.Add([]aggregate.Record{rec(aggregate.Record{})})
	scrape(t, e, `
# HELP sdt_probe_lost_total Probe hits not counted because the kernel's map of keys was full.
# TYPE sdt_probe_lost_total counter
sdt_probe_lost_total{binary="/bin/app",probe="hit",provider="p"} 0
# HELP sdt_series Key values kept, all probes together.
# TYPE sdt_series gauge
sdt_series 0
`, metrics.HitsTotal, metrics.LostTotal, metrics.Series)
}

// The series of a process that exits between two scrapes stays until a
// scrape has shown its last hit, however many intervals end before it,
// and goes at the interval after.
func TestExitedKeptUntilScraped(t *testing.T) {
	exited := map[int64]bool{}
	by := func(p int64) []aggregate.KeyValue { return []aggregate.KeyValue{{Key: pid, Value: intv(p)}} }
	e := feed(metrics.Options{By: []aggregate.Key{pid}, Alive: func(id int64) bool { return !exited[id] }},
		[]aggregate.Record{rec(aggregate.Record{By: by(10), Count: 1000}), rec(aggregate.Record{By: by(20), Count: 7})},
		[]aggregate.Record{rec(aggregate.Record{By: by(30), Count: 1000})},
	)
	// 10 and 20 count, then exit; so does 30 in the next interval, and
	// three more intervals end before the scrape.
	e.Update(time.Now())
	exited[10], exited[20] = true, true
	e.Update(time.Now())
	exited[30] = true
	for range 3 {
		e.Update(time.Now())
	}
	scrape(t, e, `
# HELP sdt_probe_hits_total Probe hits counted in the kernel.
# TYPE sdt_probe_hits_total counter
sdt_probe_hits_total{binary="/bin/app",pid="10",probe="hit",provider="p"} 1000
sdt_probe_hits_total{binary="/bin/app",pid="20",probe="hit",provider="p"} 7
sdt_probe_hits_total{binary="/bin/app",pid="30",probe="hit",provider="p"} 1000
# HELP sdt_series Key values kept, all probes together.
# TYPE sdt_series gauge
sdt_series 3
`, metrics.HitsTotal, metrics.Series)
	e.Update(time.Now())
	scrape(t, e, `
# HELP sdt_series Key values kept, all probes together.
# TYPE sdt_series gauge
sdt_series 0
`, metrics.HitsTotal, metrics.Series)
}

// A process that hits after the maps are read, then exits before the
// interval ends, keeps its series: those hits are read at the next
// interval, and added to what the series showed.
func TestExitedAfterRead(t *testing.T) {
	exited := map[int64]bool{}
	by := func(p int64) []aggregate.KeyValue { return []aggregate.KeyValue{{Key: pid, Value: intv(p)}} }
	intervals := [][]aggregate.Record{
		{rec(aggregate.Record{By: by(10), Count: 5})},
		nil, // 10 hits twice after this read, then exits
		{rec(aggregate.Record{By: by(10), Count: 2})},
	}
	e := metrics.New(&metrics.Options{
		By:    []aggregate.Key{pid},
		Alive: func(id int64) bool { return !exited[id] },
		Collect: func(time.Time) ([]aggregate.Record, error) {
			if len(intervals) == 0 {
				return nil, nil
			}
			recs := intervals[0]
			intervals = intervals[1:]
			if len(intervals) == 1 {
				exited[10] = true
			}
			return recs, nil
		},
	})
	want := func(n int) string {
		return fmt.Sprintf(`
# HELP sdt_probe_hits_total Probe hits counted in the kernel.
# TYPE sdt_probe_hits_total counter
sdt_probe_hits_total{binary="/bin/app",pid="10",probe="hit",provider="p"} %d
`, n)
	}
	scrape(t, e, want(5), metrics.HitsTotal)
	e.Update(time.Now())
	scrape(t, e, want(7), metrics.HitsTotal)
}

func TestLabelNames(t *testing.T) {
	field := func(name string) aggregate.Key { return aggregate.Key{Kind: aggregate.KeyField, Field: name} }
	for _, tt := range []struct {
		by      []aggregate.Key
		want    []string
		wantErr string
	}{
		{by: []aggregate.Key{pid, field("le"), arg1}, want: []string{"pid", "key_le", "arg1"}},
		{by: []aggregate.Key{field("key_le"), field("x")}, want: []string{"key_le", "x"}},
		{by: []aggregate.Key{field("le"), field("key_le")}, wantErr: "keys le and key_le would both be label key_le: le is renamed, as it is the label of Prometheus's histogram buckets; give one of them as argN"},
		{by: []aggregate.Key{field("key_quantile"), comm, field("quantile")}, wantErr: "keys quantile and key_quantile would both be label key_quantile: quantile is renamed, as it is the label of Prometheus's summary quantiles; give one of them as argN"},
		{by: []aggregate.Key{field("key_probe"), field("probe")}, wantErr: "keys probe and key_probe would both be label key_probe: probe is renamed, as it is a label of the exporter's own; give one of them as argN"},
		{by: []aggregate.Key{field("__x"), field("key___x")}, wantErr: "keys __x and key___x would both be label key___x: __x is renamed, as Prometheus keeps names that begin with __; give one of them as argN"},
		{by: []aggregate.Key{field("1st"), field("key_1st")}, wantErr: "keys 1st and key_1st would both be label key_1st: 1st is renamed, as a label name begins with a letter or _; give one of them as argN"},
		{by: []aggregate.Key{pid, {Kind: aggregate.KeyUStack}}, wantErr: "ustack: a stack is no Prometheus label (too many values, too long): aggregate by it without serving metrics"},
	} {
		got, err := metrics.LabelNames(tt.by)
		if tt.wantErr != "" {
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("LabelNames(%v) = %q, %v, want error %q", tt.by, got, err, tt.wantErr)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("LabelNames(%v) = %q, %v, want %q", tt.by, got, err, tt.want)
		}
	}
}

// An Exporter of colliding label names cannot be registered, and a scrape
// of it fails with the error rather than a panic.
func TestLabelCollision(t *testing.T) {
	le := aggregate.Key{Kind: aggregate.KeyField, Field: "le"}
	keyLe := aggregate.Key{Kind: aggregate.KeyField, Field: "key_le"}
	r := rec(aggregate.Record{By: []aggregate.KeyValue{{Key: le, Value: intv(1)}, {Key: keyLe, Value: intv(2)}}, Count: 1})
	e := feed(metrics.Options{By: []aggregate.Key{le, keyLe}}, []aggregate.Record{r})
	const msg = "keys le and key_le would both be label key_le"
	if err := prometheus.NewRegistry().Register(e); err == nil || !strings.Contains(err.Error(), msg) {
		t.Errorf("Register = %v, want an error that says %q", err, msg)
	}
	if _, err := e.Update(time.Now()); err == nil || !strings.Contains(err.Error(), msg) {
		t.Errorf("Update = %v, want an error that says %q", err, msg)
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(wrapped{e})
	if _, err := reg.Gather(); err == nil || !strings.Contains(err.Error(), msg) {
		t.Errorf("Gather error = %v, want one that says %q", err, msg)
	}
}

// A failed scrape answers 500 with the error, never a stack trace, also
// when Options.Collect panics.
func TestScrapeErrorNoTrace(t *testing.T) {
	le := aggregate.Key{Kind: aggregate.KeyField, Field: "le"}
	keyLe := aggregate.Key{Kind: aggregate.KeyField, Field: "key_le"}
	for _, tt := range []struct {
		name    string
		opts    metrics.Options
		wantMsg string
	}{
		{
			name: "panic",
			opts: metrics.Options{Collect: func(time.Time) ([]aggregate.Record, error) {
				var m map[string]int
				m["x"]++
				return nil, nil
			}},
			wantMsg: "metrics: collect: panic: assignment to entry in nil map",
		},
		{
			name: "labels",
			opts: metrics.Options{
				By: []aggregate.Key{le, keyLe},
				Collect: func(time.Time) ([]aggregate.Record, error) {
					return []aggregate.Record{rec(aggregate.Record{By: []aggregate.KeyValue{{Key: le, Value: intv(1)}, {Key: keyLe, Value: intv(2)}}, Count: 1})}, nil
				},
			},
			wantMsg: "keys le and key_le would both be label key_le",
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			// An unchecked registry of its own, as one that registers
			// the Exporter by hand would have.
			reg := prometheus.NewRegistry()
			reg.MustRegister(wrapped{metrics.New(&tt.opts)})
			rec := httptest.NewRecorder()
			promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorHandling: promhttp.HTTPErrorOnError}).
				ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
			body := rec.Body.String()
			traced := strings.Contains(body, "goroutine ") || strings.Contains(body, ".go:")
			if rec.Code != http.StatusInternalServerError || !strings.Contains(body, tt.wantMsg) || traced {
				t.Errorf("scrape = %d %q, want 500 with %q and no stack trace", rec.Code, body, tt.wantMsg)
			}
		})
	}
}

// wrapped is a collector of the Exporter's metrics that describes none,
// so that registering it passes whatever the labels.
type wrapped struct{ e *metrics.Exporter }

func (wrapped) Describe(chan<- *prometheus.Desc)      {}
func (w wrapped) Collect(ch chan<- prometheus.Metric) { w.e.Collect(ch) }

// Scrapes that queue behind a collection share the one collection after
// it, which began after they arrived, and show what it read.
func TestQueuedScrapesCollectOnce(t *testing.T) {
	release := make(chan struct{})
	var calls atomic.Int32
	e := metrics.New(&metrics.Options{Collect: func(time.Time) ([]aggregate.Record, error) {
		if calls.Add(1) == 1 {
			<-release
		}
		return []aggregate.Record{rec(aggregate.Record{Count: 1})}, nil
	}})
	reg := prometheus.NewRegistry()
	reg.MustRegister(e)
	hitsText := func(n int) string {
		return fmt.Sprintf(`
# HELP sdt_probe_hits_total Probe hits counted in the kernel.
# TYPE sdt_probe_hits_total counter
sdt_probe_hits_total{binary="/bin/app",probe="hit",provider="p"} %d
`, n)
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		if err := testutil.GatherAndCompare(reg, strings.NewReader(hitsText(1)), metrics.HitsTotal); err != nil {
			t.Errorf("first scrape: %v", err)
		}
	})
	for calls.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	const queued = 10
	for range queued {
		wg.Go(func() {
			if err := testutil.GatherAndCompare(reg, strings.NewReader(hitsText(2)), metrics.HitsTotal); err != nil {
				t.Errorf("queued scrape: %v", err)
			}
		})
	}
	time.Sleep(200 * time.Millisecond) // for them to queue
	close(release)
	wg.Wait()
	if n := calls.Load(); n != 2 {
		t.Errorf("%d scrapes, %d of them queued, collected %d times, want 2", 1+queued, queued, n)
	}
}
