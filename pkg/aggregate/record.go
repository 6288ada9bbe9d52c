package aggregate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/sdtkit/sdtkit/internal/jsonenc"
	"github.com/sdtkit/sdtkit/pkg/ndjson"
)

// A Record is one line of sdtattach's in-kernel aggregations: what one
// interval counted for one probe and key. See "Records" in the package
// documentation for its JSON.
type Record struct {
	TS             int64 // the end of the interval, in Unix nanoseconds
	Provider, Name string
	// File, when known, is the file the probe is in, as package attach
	// names it (probe.Target.Name), which tells probes of the same name
	// in different files apart. The JSON does not carry it.
	File string
	// Hist, for a histogram, and Stats, for stats, name the value they
	// are of; both are the zero Key for a count.
	Hist, Stats Key
	// By are the keys grouped by and their values, in the order of
	// sdtattach --by.
	By    []KeyValue
	Count uint64 // hits, or the values of Buckets or Stats
	// Unread counts the hits whose value could not be read, which Count
	// leaves out.
	Unread  uint64
	Buckets []Bucket // Hist: those that hold values, in order
	// Sum, Min, Max and Mean are those of Stats, when Count > 0.
	Sum, Min, Max, Mean int64
	// Lost, in a record that has no other count, says that Lost hits of
	// the probe were not counted: the map of keys was full (or, for a
	// START of a latency, the map of STARTs waiting).
	Lost uint64

	// Latency, in the records of a latency, is the key STARTs and ENDs
	// pair by. The record of an END probe (Start false) holds the pairs
	// it ended: Count, Buckets and the stats of their latencies in
	// nanoseconds, From (the START pattern) and the ENDs Unmatched. The
	// record of a START probe holds its hits in Count, To (the END
	// pattern) and the STARTs Pending when the interval ended.
	Latency            Key
	Start              bool
	From, To           string
	Unmatched, Pending uint64
}

// A KeyValue is a key grouped by and its value: an integer, a string,
// a stack (see StackValue), or null when it could not be read.
type KeyValue struct {
	Key   Key
	Value ndjson.Value
}

// keySep separates the values of several keys in Group.By.
const keySep = "\x00"

// Group returns the group of the record: its probe, and its key's
// values as Key.Format writes them.
func (r *Record) Group() Group {
	g := Group{Provider: r.Provider, Name: r.Name}
	vals := make([]string, len(r.By))
	for i, kv := range r.By {
		vals[i] = kv.Key.Format(kv.Value)
	}
	g.By = strings.Join(vals, keySep)
	return g
}

// Keys returns the keys of By.
func (r *Record) Keys() []Key {
	keys := make([]Key, len(r.By))
	for i, kv := range r.By {
		keys[i] = kv.Key
	}
	return keys
}

// Histogram returns the histogram of Buckets; false for a bucket whose
// bounds are not those of a bucket.
func (r *Record) Histogram() (*Histogram, bool) {
	h := new(Histogram)
	for _, b := range r.Buckets {
		i, ok := b.Index()
		if !ok {
			return nil, false
		}
		h.AddCount(i, b.Count)
	}
	return h, true
}

// StatsOf returns the stats of the record.
func (r *Record) StatsOf() Stats {
	return Stats{Count: r.Count, Sum: r.Sum, Min: r.Min, Max: r.Max}
}

// AppendJSON appends the record's JSON, with no newline.
func (r *Record) AppendJSON(b []byte) []byte {
	b = append(b, `{"ts":`...)
	b = strconv.AppendInt(b, r.TS, 10)
	b = append(b, `,"provider":`...)
	b = jsonenc.AppendString(b, r.Provider)
	b = append(b, `,"name":`...)
	b = jsonenc.AppendString(b, r.Name)
	if r.Hist != (Key{}) {
		b = append(b, `,"hist":`...)
		b = jsonenc.AppendString(b, r.Hist.String())
	}
	if r.Stats != (Key{}) {
		b = append(b, `,"stats":`...)
		b = jsonenc.AppendString(b, r.Stats.String())
	}
	if r.Latency != (Key{}) {
		b = append(b, `,"latency":`...)
		b = jsonenc.AppendString(b, r.Latency.String())
		if r.Start {
			b = append(b, `,"to":`...)
			b = jsonenc.AppendString(b, r.To)
		} else {
			b = append(b, `,"from":`...)
			b = jsonenc.AppendString(b, r.From)
		}
	}
	if len(r.By) > 0 {
		b = append(b, `,"by":{`...)
		for i, kv := range r.By {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonenc.AppendString(b, kv.Key.String())
			b = append(b, ':')
			b = appendValue(b, kv.Value)
		}
		b = append(b, '}')
	}
	if r.Lost > 0 && r.Count == 0 && r.Unread == 0 {
		b = append(b, `,"lost":`...)
		return append(strconv.AppendUint(b, r.Lost, 10), '}')
	}
	b = append(b, `,"count":`...)
	b = strconv.AppendUint(b, r.Count, 10)
	if r.Unread > 0 {
		b = append(b, `,"unread":`...)
		b = strconv.AppendUint(b, r.Unread, 10)
	}
	latency := r.Latency != (Key{})
	switch {
	case latency && r.Start:
		b = append(b, `,"pending":`...)
		b = strconv.AppendUint(b, r.Pending, 10)
	case latency:
		b = append(b, `,"unmatched":`...)
		b = strconv.AppendUint(b, r.Unmatched, 10)
	}
	if (r.Hist != (Key{}) || latency) && !r.Start {
		b = appendBuckets(b, r.Buckets)
	}
	if (r.Stats != (Key{}) || latency && !r.Start) && r.Count > 0 {
		for _, f := range []struct {
			name string
			v    int64
		}{{"sum", r.Sum}, {"min", r.Min}, {"max", r.Max}, {"mean", r.Mean}} {
			b = append(b, `,"`...)
			b = append(b, f.name...)
			b = append(b, `":`...)
			b = strconv.AppendInt(b, f.v, 10)
		}
	}
	return append(b, '}')
}

// appendBuckets appends the field "buckets".
func appendBuckets(b []byte, buckets []Bucket) []byte {
	b = append(b, `,"buckets":[`...)
	for i, bk := range buckets {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"lo":`...)
		b = append(b, bk.Lo...)
		b = append(b, `,"hi":`...)
		b = append(b, bk.Hi...)
		b = append(b, `,"count":`...)
		b = strconv.AppendUint(b, bk.Count, 10)
		b = append(b, '}')
	}
	return append(b, ']')
}

// appendValue appends a key's value: a number, a string, or null.
func appendValue(b []byte, v ndjson.Value) []byte {
	switch v.Kind {
	case ndjson.Uint:
		return strconv.AppendUint(b, v.Uint, 10)
	case ndjson.Int:
		return strconv.AppendInt(b, v.Int, 10)
	case ndjson.String:
		return jsonenc.AppendString(b, v.Str)
	case ndjson.Number, ndjson.JSON:
		return append(b, v.Str...)
	}
	return append(b, "null"...)
}

// A RecordWriter writes records as NDJSON, one per line, and counts the
// hits they hold and those they report lost.
type RecordWriter struct {
	w    io.Writer
	buf  []byte
	Hits uint64 // Count, Unread and Unmatched of the records written
	Lost uint64
}

// NewRecordWriter returns a RecordWriter that writes to w.
func NewRecordWriter(w io.Writer) *RecordWriter { return &RecordWriter{w: w} }

// Write writes recs, a line each, in writes of 64 KiB or more to the
// underlying writer but the last: those of an interval reach a reader
// once Write returns, and without a write per line.
func (rw *RecordWriter) Write(recs []Record) error {
	rw.buf = rw.buf[:0]
	for i := range recs {
		r := &recs[i]
		rw.Hits, rw.Lost = rw.Hits+r.Count+r.Unread+r.Unmatched, rw.Lost+r.Lost
		rw.buf = append(r.AppendJSON(rw.buf), '\n')
		if len(rw.buf) >= 64<<10 || i == len(recs)-1 {
			if _, err := rw.w.Write(rw.buf); err != nil {
				return err
			}
			rw.buf = rw.buf[:0]
		}
	}
	return nil
}

// MarshalJSON returns AppendJSON's JSON.
func (r *Record) MarshalJSON() ([]byte, error) { return r.AppendJSON(nil), nil }

// recordJSON is the JSON of a Record, as it is decoded.
type recordJSON struct {
	TS       *int64          `json:"ts"`
	Provider *string         `json:"provider"`
	Name     *string         `json:"name"`
	Hist     string          `json:"hist"`
	Stats    string          `json:"stats"`
	By       json.RawMessage `json:"by"`
	Count    *uint64         `json:"count"`
	Unread   uint64          `json:"unread"`
	Buckets  []Bucket        `json:"buckets"`
	Sum      int64           `json:"sum"`
	Min      int64           `json:"min"`
	Max      int64           `json:"max"`
	Mean     int64           `json:"mean"`
	Lost     *uint64         `json:"lost"`

	Latency   string  `json:"latency"`
	From      string  `json:"from"`
	To        *string `json:"to"`
	Unmatched uint64  `json:"unmatched"`
	Pending   uint64  `json:"pending"`
}

// ErrNotRecord is the error of ParseRecord for JSON that is no Record.
var ErrNotRecord = errors.New("not an aggregate record")

// UnmarshalJSON decodes a record as AppendJSON writes it.
func (r *Record) UnmarshalJSON(b []byte) error {
	var j recordJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	if j.Provider == nil || j.Name == nil || j.TS == nil || (j.Count == nil) == (j.Lost == nil) {
		return fmt.Errorf("%w: want ts, provider, name, and count or lost", ErrNotRecord)
	}
	*r = Record{TS: *j.TS, Provider: *j.Provider, Name: *j.Name, Unread: j.Unread, Buckets: j.Buckets,
		Sum: j.Sum, Min: j.Min, Max: j.Max, Mean: j.Mean,
		From: j.From, Start: j.To != nil, Unmatched: j.Unmatched, Pending: j.Pending}
	if j.To != nil {
		r.To = *j.To
	}
	if j.Count != nil {
		r.Count = *j.Count
	} else {
		r.Lost = *j.Lost
	}
	var err error
	if j.Hist != "" {
		if r.Hist, err = ParseKey(j.Hist); err != nil {
			return fmt.Errorf("hist %q: %w", j.Hist, err)
		}
	}
	if j.Stats != "" {
		if r.Stats, err = ParseKey(j.Stats); err != nil {
			return fmt.Errorf("stats %q: %w", j.Stats, err)
		}
	}
	if j.Latency != "" {
		if r.Latency, err = ParseKey(j.Latency); err != nil {
			return fmt.Errorf("latency %q: %w", j.Latency, err)
		}
	}
	for _, bk := range r.Buckets {
		if _, ok := bk.Index(); !ok {
			return fmt.Errorf("bucket [%s, %s): not a log2 bucket", bk.Lo, bk.Hi)
		}
	}
	if len(j.By) > 0 && string(j.By) != "null" {
		r.By, err = parseBy(j.By)
	}
	return err
}

// parseBy decodes the object "by", keeping the order of its keys.
func parseBy(b []byte) ([]KeyValue, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, errors.New(`"by": want an object`)
	}
	var kvs []KeyValue
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf(`"by": %w`, err)
		}
		name := t.(string)
		k, err := ParseKey(name)
		if err != nil {
			return nil, fmt.Errorf(`"by": %q: %w`, name, err)
		}
		if k.Kind == KeyUStack {
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return nil, fmt.Errorf(`"by": %w`, err)
			}
			v, err := parseStack(raw)
			if err != nil {
				return nil, fmt.Errorf(`"by": "ustack": %w`, err)
			}
			kvs = append(kvs, KeyValue{k, v})
			continue
		}
		if t, err = dec.Token(); err != nil {
			return nil, fmt.Errorf(`"by": %w`, err)
		}
		var v ndjson.Value
		switch t := t.(type) {
		case nil:
		case string:
			v = ndjson.Value{Kind: ndjson.String, Str: t}
		case json.Number:
			v = numberValue(string(t))
		default:
			return nil, fmt.Errorf(`"by": %q: want a number, a string or null`, name)
		}
		kvs = append(kvs, KeyValue{k, v})
	}
	return kvs, nil
}

// numberValue returns a JSON number as package ndjson reads it.
func numberValue(s string) ndjson.Value {
	if u, err := strconv.ParseUint(s, 10, 64); err == nil {
		return ndjson.Value{Kind: ndjson.Uint, Uint: u}
	}
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return ndjson.Value{Kind: ndjson.Int, Int: i}
	}
	return ndjson.Value{Kind: ndjson.Number, Str: s}
}

// ParseRecord decodes one line of sdtattach's aggregations.
func ParseRecord(line []byte) (*Record, error) {
	var r Record
	if err := r.UnmarshalJSON(line); err != nil {
		return nil, err
	}
	return &r, nil
}
