package metrics

import (
	"math"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sdtkit/sdtkit/pkg/aggregate"
)

// The names of the metric families; see the package documentation.
const (
	HitsTotal      = "sdt_probe_hits_total"
	Value          = "sdt_probe_value"
	ValueStats     = "sdt_probe_value_stats"
	ValueMin       = "sdt_probe_value_min"
	ValueMax       = "sdt_probe_value_max"
	LatencySeconds = "sdt_probe_latency_seconds"
	UnmatchedTotal = "sdt_probe_latency_unmatched_total"
	StartsTotal    = "sdt_probe_latency_starts_total"
	Pending        = "sdt_probe_latency_pending"
	LostTotal      = "sdt_probe_lost_total"
	UnreadTotal    = "sdt_probe_unread_total"
	Series         = "sdt_series"
	SeriesLimit    = "sdt_series_limit"
)

var help = map[string]string{
	HitsTotal:      "Probe hits counted in the kernel.",
	Value:          "Values of a probe argument, in the log2 buckets of bpftrace's hist(); no sum is kept.",
	ValueStats:     "Count and sum of the values of a probe argument.",
	ValueMin:       "Least value of a probe argument since the probes were attached.",
	ValueMax:       "Greatest value of a probe argument since the probes were attached.",
	LatencySeconds: "Time from a START probe hit to the next END probe hit of the same key, by END probe.",
	UnmatchedTotal: "END probe hits that found no START waiting.",
	StartsTotal:    "START probe hits of a latency.",
	Pending:        "START probe hits waiting for their END.",
	LostTotal:      "Probe hits not counted because the kernel's map of keys was full.",
	UnreadTotal:    "Probe hits whose value or key could not be read.",
	Series:         "Key values kept, all probes together.",
	SeriesLimit:    "Key values kept at most; the hits of more are counted in the series whose key labels are empty.",
}

// send sends the metrics of every series, and of the Exporter itself.
func (e *Exporter) send(ch chan<- prometheus.Metric) {
	probeNames := []string{"provider", "probe", "binary"}
	keyNames := append(append([]string(nil), probeNames...), e.keyNames...)
	argNames := append(append(append([]string(nil), probeNames...), "arg"), e.keyNames...)
	desc := func(name string, labels []string) *prometheus.Desc {
		return prometheus.NewDesc(name, help[name], labels, nil)
	}
	// Errors, which only a bug would make, fail the scrape rather than
	// panic in it.
	put := func(m prometheus.Metric, err error) {
		if err != nil {
			m = prometheus.NewInvalidMetric(prometheus.NewInvalidDesc(err), err)
		}
		ch <- m
	}
	var (
		hits      = desc(HitsTotal, keyNames)
		value     = desc(Value, argNames)
		stats     = desc(ValueStats, argNames)
		vmin      = desc(ValueMin, argNames)
		vmax      = desc(ValueMax, argNames)
		latency   = desc(LatencySeconds, keyNames)
		unmatched = desc(UnmatchedTotal, keyNames)
	)
	for _, k := range e.order {
		s := e.series[k]
		s.shown = true
		switch s.kind {
		case kindCount:
			put(prometheus.NewConstMetric(hits, prometheus.CounterValue, float64(s.count), s.labels...))
		case kindHist:
			put(prometheus.NewConstHistogram(value, s.count, math.NaN(), cumulative(&s.buckets, 1), s.labels...))
		case kindStats:
			put(prometheus.NewConstSummary(stats, s.count, s.sum, nil, s.labels...))
			if s.count > 0 {
				put(prometheus.NewConstMetric(vmin, prometheus.GaugeValue, float64(s.min), s.labels...))
				put(prometheus.NewConstMetric(vmax, prometheus.GaugeValue, float64(s.max), s.labels...))
			}
		case kindLatency:
			put(prometheus.NewConstHistogram(latency, s.count, s.sum/1e9, cumulative(&s.buckets, 1e9), s.labels...))
			put(prometheus.NewConstMetric(unmatched, prometheus.CounterValue, float64(s.unmatched), s.labels...))
		}
	}
	var (
		lost    = desc(LostTotal, probeNames)
		unread  = desc(UnreadTotal, probeNames)
		starts  = desc(StartsTotal, probeNames)
		pending = desc(Pending, probeNames)
	)
	for _, k := range e.porder {
		p := e.probes[k]
		put(prometheus.NewConstMetric(lost, prometheus.CounterValue, float64(p.lost), p.labels...))
		if p.counted || p.start {
			put(prometheus.NewConstMetric(unread, prometheus.CounterValue, float64(p.unread), p.labels...))
		}
		if p.start {
			put(prometheus.NewConstMetric(starts, prometheus.CounterValue, float64(p.starts), p.labels...))
			put(prometheus.NewConstMetric(pending, prometheus.GaugeValue, float64(p.pending), p.labels...))
		}
	}
	if len(e.keyNames) > 0 {
		put(prometheus.NewConstMetric(desc(Series, nil), prometheus.GaugeValue, float64(e.keyed)))
		put(prometheus.NewConstMetric(desc(SeriesLimit, nil), prometheus.GaugeValue, float64(e.maxSeries)))
	}
}

// cumulative returns the buckets as Prometheus counts them: per
// inclusive upper bound, divided by per (1e9 for nanoseconds as
// seconds), the values up to it. The last bucket is the +Inf one, which
// the count makes.
func cumulative(b *[aggregate.NumBuckets]uint64, per float64) map[float64]uint64 {
	m := make(map[float64]uint64, aggregate.NumBuckets-1)
	var n uint64
	for i := range aggregate.NumBuckets - 1 {
		n += b[i]
		m[upper(i)/per] = n
	}
	return m
}
