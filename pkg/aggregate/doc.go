// Package aggregate counts probe hits, draws log2 histograms of their
// values and pairs them into latencies, grouped by keys, the way sdtfmt
// summarizes the events of sdtattach. It holds the one definition of the
// buckets and keys that every sdtkit summary uses, whether its counts come
// from decoded events or from the maps of a BPF program, so that the two
// agree bucket for bucket and key for key.
//
// # Buckets
//
// A Histogram has the buckets of bpftrace's hist(): NumBuckets of them,
// numbered as bpftrace numbers them.
//
//	bucket  values              label
//	0       [-2**63, 0)         (..., 0)
//	1       [0, 1)              [0]
//	2       [1, 2)              [1]
//	3       [2, 4)              [2, 4)
//	k       [2**(k-2), 2**(k-1))
//	12      [1024, 2048)        [1K, 2K)
//	64      [2**62, 2**63)      [4E, 8E)
//	65      [2**63, 2**64)      [8E, 16E)
//
// BucketInt places a signed value as bpftrace does; BucketUint places an
// unsigned one, which differs only from 2**63 on: bpftrace takes every
// value for an int64 and counts those as negative, where an argument the
// probe declares unsigned has them in bucket 65. BucketValue places an
// argument or field of a decoded event. Bounds gives the values a bucket
// holds, lo inclusive and hi exclusive, and Label its name as bpftrace
// prints it.
//
// A Histogram is filled by value (AddInt, AddUint, AddValue) or by bucket
// (AddCount, for counts a BPF program kept per bucket). Its WriteTo draws
// it as bpftrace does, and Buckets lists the buckets that hold values as
// an aggregate record carries them:
//
//	"buckets":[{"lo":0,"hi":1,"count":1},{"lo":2,"hi":4,"count":2}]
//
// # Keys and groups
//
// A Key picks the value to group by, or to draw a histogram of, out of
// an event: pid, tid, comm, ustack (the user stack), argN or a field
// name of sdtattach --types, as ParseKey reads them. Keys are comparable
// values. Key.Format writes a key's value as the summaries show it (a
// thread name as the terminal can show it safely, a stack as its frames
// innermost first, "inner+0xc < outer+0x1e < main+0x2a", other values as
// ndjson.Value.String does), whether it comes from an event or from a
// BPF map. A stack's value is the JSON array of its frames, as events
// carry them (StackValue, StackFrames).
//
// A Group is what one count, histogram or set of stats is kept for: a
// probe and the written value of the key grouped by. Groups are
// comparable, so that they key maps, and ordered by Group.Compare:
// provider, name, then the key's value, integers by number and before
// other values.
//
// # Stats and latencies
//
// Stats keeps the count, sum, least and greatest of values, and their
// mean as integers divide it. A Latency pairs the hits of a START probe
// with those of an END probe by a key (the thread, unless told otherwise)
// and keeps a Histogram and Stats of the time between them in
// nanoseconds, the slowest pairs, the ENDs that found no START
// (Unmatched) and the STARTs still waiting for their END (Pending).
//
// # Records
//
// sdtattach --count, --hist, --stats and --latency aggregate in the kernel and write
// a Record per probe and key per interval, one JSON object per line:
//
//	{"ts":1718000000123456789,"provider":"fire","name":"hit","by":{"pid":42},"count":1000000}
//	{"ts":...,"provider":"fire","name":"hit","hist":"arg0","count":3,
//	 "buckets":[{"lo":0,"hi":1,"count":1},{"lo":2,"hi":4,"count":2}]}
//	{"ts":...,"provider":"fire","name":"hit","stats":"arg0","count":3,"sum":6,"min":1,"max":3,"mean":2}
//	{"ts":...,"provider":"fire","name":"hit","lost":5}
//	{"ts":...,"provider":"app","name":"begin","latency":"tid","to":"app:end","count":6,"pending":1}
//	{"ts":...,"provider":"app","name":"end","latency":"tid","from":"app:begin","count":5,"unmatched":1,
//	 "buckets":[{"lo":4194304,"hi":8388608,"count":5}],"sum":23000000,"min":4400000,"max":4800000,"mean":4600000}
//
// The fields, in this order:
//
//	ts        the end of the interval, in nanoseconds since the Unix epoch;
//	          the records of one interval have the same ts
//	provider  the probe's provider
//	name      the probe's name, as in its note
//	hist      a histogram: the key of the value drawn (argN or a field)
//	stats     stats: the key of the value (argN or a field)
//	latency   a latency: the key its STARTs and ENDs pair by
//	from      in the record of a latency's END probe: the START pattern
//	to        in the record of a latency's START probe: the END pattern
//	by        the keys grouped by, in the order given, and their values:
//	          a number, a string (comm, a string argument), for ustack
//	          the frames of the user stack, innermost first, as events
//	          carry them ([{"addr":...,"sym":"inner","off":12,"file":...},
//	          ...]), or null when it could not be read (for ustack, taken);
//	          absent when not grouped
//	count     the hits; for a histogram or stats, the values counted;
//	          for a latency's END, the pairs it ended
//	unread    hits whose value could not be read, left out of count;
//	          absent when 0
//	pending   a latency's START: the STARTs waiting at the interval's end
//	unmatched a latency's END: the ENDs that found no START waiting
//	buckets   a histogram's (or a latency END's, in ns) buckets that hold values, in order, as
//	          Histogram.Buckets gives them (lo inclusive, hi exclusive)
//	sum, min, max, mean
//	          stats (of a latency END's latencies), when count > 0; mean
//	          as Stats.Mean computes it
//	lost      in a record of its own per probe: hits that were not
//	          counted because the map of keys was full
//
// AppendJSON writes a Record, ParseRecord reads one back, and
// Record.Group and Record.Histogram turn it into what the writers below
// take. Package event's reader tells these lines apart (KindAggregate,
// and KindLost for lost).
//
// # Text
//
// WriteCounts, WriteHistograms, WriteStats and Latency.WriteText write a
// summary as sdtfmt -c, --hist and --latency do, and a Summary the records
// of an interval the same way; see sdtfmt's
// documentation for the layout. The first three take several keys to
// group by, whose values a Group holds separated by NUL bytes.
package aggregate
