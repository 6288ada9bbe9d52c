/*
Package metrics serves the in-kernel aggregates of package attach as
Prometheus metrics, with github.com/prometheus/client_golang: it is what
sdtattach --listen is made of.

An Exporter is a prometheus.Collector. On every scrape it calls
Options.Collect, an attach.Aggregator's Collect, which ends an interval
and empties the kernel's maps, and adds the records of that interval to
totals it keeps since it was made: the counters only grow for as long as
the probes stay attached, whatever processes come and go, and every hit
is in exactly one interval, so in the totals once. Scrapes, and Update,
collect one at a time, and a scrape that waited for a collection begun
after it arrived shows what that one read without collecting again, so
that scrapes that queue cost one collection per turn of the queue.
Reading the maps at the scrape, rather than keeping a copy fed on a
timer, shows each scrape the hits until that scrape, and costs nothing
between scrapes.

	e := metrics.New(&metrics.Options{Collect: ag.Collect, By: agg.By})
	srv, err := metrics.NewServer(e, nil)
	...
	err = srv.Serve(ln)

A Server serves /metrics; an Exporter can be registered with a registry
of one's own as well.

# Metrics

Every series has the labels provider, probe (the probe's name) and binary
(the file the probe is in, as sdtattach shows it: aggregate.Record.File);
those of a --count, --hist, --stats or latency END also have one label per
--by key, named as the key is (pid, comm, arg0, a --types field), but
with the prefix key_ for a name that the labels above or arg take, that
Prometheus gives a meaning (le, quantile, and the names that begin with
__), or that begins with a digit: a field le is the label key_le. Two
keys whose label names are then the same, such as the fields le and
key_le, are an error of LabelNames, and of registering the Exporter.
--hist and --stats add arg, the value's key (arg0, a field).

	sdt_probe_hits_total                counter    --count: hits
	sdt_probe_value                     histogram  --hist: the values, in the log2 buckets below;
	                                               _sum is NaN (the kernel keeps no sum of a
	                                               histogram: --stats has it)
	sdt_probe_value_stats               summary    --stats: _count and _sum of the values
	sdt_probe_value_min, _max           gauge      --stats: least and greatest value since attached
	sdt_probe_latency_seconds           histogram  --latency, per END probe: the time from START to END
	sdt_probe_latency_unmatched_total   counter    --latency, per END probe: ENDs that found no START
	sdt_probe_latency_starts_total      counter    --latency, per START probe: its hits
	sdt_probe_latency_pending           gauge      --latency, per START probe: STARTs waiting at the scrape
	sdt_probe_lost_total                counter    hits not counted: the kernel's map of keys was full
	                                               (sdtattach --max-keys), or of STARTs waiting
	sdt_probe_unread_total              counter    hits whose value or key could not be read
	sdt_series, sdt_series_limit        gauge      with --by: key values kept, and the most kept

The families a probe can have before its first hit are there from the
start at 0, so that a rate over the first hits counts them: see
Exporter.Add.

# Buckets

The buckets are those of bpftrace's hist() and of package aggregate,
[2**k, 2**(k+1)), with le, which Prometheus reads as inclusive, set to the
greatest integer each holds: -1 (the negative values), 0, 1, 3, 7, ...,
2**63-1, then +Inf (unsigned values from 2**63). The values are integers,
so that v <= 2**(k+1)-1 is exactly v < 2**(k+1); an le of 2**(k+1) would
count a value of 2**(k+1) in a bucket it is not in. Latencies are
integers of nanoseconds, and their le the same bounds divided by 1e9:
0.004194303 is "at most 4194303 ns". histogram_quantile interpolates
within these bounds. Every series has every bucket, so that their rates
line up across hosts.

# Labels and their number

Label values are as the aggregate records write them (Key.Format): a
thread name or string that could be misread is Go-quoted, so that no
control byte or invalid UTF-8 reaches a dashboard raw; provider, probe and
binary are as they are when printable, Go-quoted otherwise. client_golang
escapes the rest of the exposition.

Options.MaxSeries (DefaultMaxSeries, 10000) bounds the key values kept,
all probes together: past it, what a new key value counts is added to its
probe's series whose key labels are empty, which no key value is written
as ({pid=""} in PromQL), so that a probe's totals stay exact while its
detail is cut. sdt_series tells how close to the limit an exporter is.
The kernel's own bound, sdtattach --max-keys, is per interval: what it
turns away is in sdt_probe_lost_total.

The series of a pid or tid key value is dropped once that process or
thread no longer exists (/proc/ID is gone) and a scrape has shown every
hit it made: a scrape, of whichever scraper, shows the last of them at
least once, however many intervals (Update) end between two scrapes,
and the next interval after that scrape drops the series. Until then it
counts against MaxSeries. A process ID the kernel gives again to a new
process while the old one's series is still kept continues it.

# Serving

A Server bounds what clients can hold (ServerOptions): at most 16
connections served at once, where the one idle the longest is closed to
make room for the next and, when none is idle, more wait to be accepted;
10s to read a request; 1m from a request to the end of its response; 30s
for a connection to send its next request before it is closed, so that a
scraper at intervals longer than that connects anew for each scrape. A
scrape that fails is logged, and answered with status 500 and the
error's message; a panic in Options.Collect is such an error, its stack
trace kept from the client.
*/
package metrics
