package aggregate

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/sdtkit/sdtkit/pkg/ndjson"
)

func TestRecordJSON(t *testing.T) {
	pid, comm, arg1 := Key{Kind: KeyPID}, Key{Kind: KeyComm}, Key{Kind: KeyArg, Arg: 1}
	var h Histogram
	for _, v := range []int64{-5, 0, 1, 3, 3, 1 << 62} {
		h.AddInt(v)
	}
	h.AddUint(1 << 63)
	for _, tt := range []struct {
		r    Record
		want string
	}{
		{
			Record{TS: 1, Provider: "fire", Name: "hit", By: []KeyValue{{pid, ndjson.Value{Kind: ndjson.Uint, Uint: 42}}}, Count: 1000000},
			`{"ts":1,"provider":"fire","name":"hit","by":{"pid":42},"count":1000000}`,
		},
		{
			Record{TS: 2, Provider: "p", Name: "n", Count: 3},
			`{"ts":2,"provider":"p","name":"n","count":3}`,
		},
		{
			Record{TS: 3, Provider: "p", Name: "n", Hist: Key{Kind: KeyArg}, By: []KeyValue{
				{comm, ndjson.Value{Kind: ndjson.String, Str: "a \"b\""}},
				{arg1, ndjson.Value{Kind: ndjson.Int, Int: -1}},
				{Key{Kind: KeyField, Field: "path"}, ndjson.Value{}},
			}, Count: h.Total(), Unread: 2, Buckets: h.Buckets()},
			`{"ts":3,"provider":"p","name":"n","hist":"arg0","by":{"comm":"a \"b\"","arg1":-1,"path":null},"count":7,"unread":2,"buckets":[` +
				`{"lo":-9223372036854775808,"hi":0,"count":1},{"lo":0,"hi":1,"count":1},{"lo":1,"hi":2,"count":1},{"lo":2,"hi":4,"count":2},` +
				`{"lo":4611686018427387904,"hi":9223372036854775808,"count":1},{"lo":9223372036854775808,"hi":18446744073709551616,"count":1}]}`,
		},
		{
			Record{TS: 4, Provider: "p", Name: "n", Stats: Key{Kind: KeyField, Field: "len"}, Count: 2, Sum: -4, Min: -9223372036854775808, Max: 9223372036854775804, Mean: -2},
			`{"ts":4,"provider":"p","name":"n","stats":"len","count":2,"sum":-4,"min":-9223372036854775808,"max":9223372036854775804,"mean":-2}`,
		},
		{
			Record{TS: 5, Provider: "p", Name: "n", Stats: Key{Kind: KeyArg}, Unread: 1},
			`{"ts":5,"provider":"p","name":"n","stats":"arg0","count":0,"unread":1}`,
		},
		{
			Record{TS: 6, Provider: "p", Name: "n", Lost: 12},
			`{"ts":6,"provider":"p","name":"n","lost":12}`,
		},
		{
			Record{TS: 7, Provider: "app", Name: "begin", Latency: Key{Kind: KeyTID}, Start: true, To: "app:end", Count: 6, Pending: 1},
			`{"ts":7,"provider":"app","name":"begin","latency":"tid","to":"app:end","count":6,"pending":1}`,
		},
		{
			Record{TS: 8, Provider: "app", Name: "end", Latency: Key{Kind: KeyArg}, From: "begin", By: []KeyValue{{pid, ndjson.Value{Kind: ndjson.Uint, Uint: 42}}},
				Count: 2, Unmatched: 3, Buckets: []Bucket{{Lo: "4194304", Hi: "8388608", Count: 2}}, Sum: 9000000, Min: 4400000, Max: 4600000, Mean: 4500000},
			`{"ts":8,"provider":"app","name":"end","latency":"arg0","from":"begin","by":{"pid":42},"count":2,"unmatched":3,` +
				`"buckets":[{"lo":4194304,"hi":8388608,"count":2}],"sum":9000000,"min":4400000,"max":4600000,"mean":4500000}`,
		},
		{
			Record{TS: 10, Provider: "calls", Name: "hit", By: []KeyValue{
				{Key{Kind: KeyUStack}, StackValue([]ndjson.Frame{{Addr: 4198700, Sym: "inner", Off: 12, File: "/x/calls", FileOffset: 4396, BuildID: "5e1f"}, {Addr: 140000}})},
				{pid, ndjson.Value{Kind: ndjson.Uint, Uint: 42}},
			}, Count: 700},
			`{"ts":10,"provider":"calls","name":"hit","by":{"ustack":[{"addr":4198700,"sym":"inner","off":12,"file":"/x/calls","file_offset":4396,"build_id":"5e1f"},{"addr":140000}],"pid":42},"count":700}`,
		},
		{
			Record{TS: 11, Provider: "calls", Name: "hit", By: []KeyValue{{Key{Kind: KeyUStack}, ndjson.Value{}}}, Count: 3},
			`{"ts":11,"provider":"calls","name":"hit","by":{"ustack":null},"count":3}`,
		},
		{
			Record{TS: 9, Provider: "app", Name: "end", Latency: Key{Kind: KeyTID}, From: "app:begin", Unmatched: 1, Buckets: []Bucket{}},
			`{"ts":9,"provider":"app","name":"end","latency":"tid","from":"app:begin","count":0,"unmatched":1,"buckets":[]}`,
		},
	} {
		got := string(tt.r.AppendJSON(nil))
		if got != tt.want {
			t.Errorf("AppendJSON(%+v) =\n%s\nwant\n%s", tt.r, got, tt.want)
		}
		if !json.Valid([]byte(got)) {
			t.Errorf("AppendJSON(%+v) = %s: not valid JSON", tt.r, got)
		}
		back, err := ParseRecord([]byte(got))
		if err != nil {
			t.Errorf("ParseRecord(%s): %v", got, err)
			continue
		}
		if !reflect.DeepEqual(*back, tt.r) {
			t.Errorf("ParseRecord(%s) =\n%+v\nwant\n%+v", got, *back, tt.r)
		}
		// The events reader tells records from events.
		var e ndjson.Event
		if k, err := ndjson.Parse([]byte(got), &e); err != nil || (k != ndjson.KindAggregate && k != ndjson.KindLost) {
			t.Errorf("event.Parse(%s) = %v, %v, want KindAggregate or KindLost", got, k, err)
		}
	}
}

func TestParseRecordErrors(t *testing.T) {
	for _, tt := range []struct {
		line, want string
	}{
		{`{"ts":1,"provider":"p","name":"n"}`, "want ts, provider, name, and count or lost"},
		{`{"ts":1,"provider":"p","name":"n","count":1,"lost":1}`, "count or lost"},
		{`{"ts":1,"provider":"p","name":"n","count":1,"by":{"a.b":1}}`, `"a.b": want pid`},
		{`{"ts":1,"provider":"p","name":"n","count":1,"by":{"pid":[1]}}`, "want a number, a string or null"},
		{`{"ts":1,"provider":"p","name":"n","count":1,"by":[1]}`, "want an object"},
		{`{"ts":1,"provider":"p","name":"n","count":1,"by":{"ustack":"main"}}`, `"ustack": want an array of frames`},
		{`{"ts":1,"provider":"p","name":"n","count":1,"by":{"ustack":[{"sym":"main"}]}}`, `frame 0: want an array of frames, each with its addr`},
		{`{"ts":1,"provider":"p","name":"n","count":1,"hist":"arg0","buckets":[{"lo":3,"hi":4,"count":1}]}`, "not a log2 bucket"},
		{`{"ts":"x","provider":"p","name":"n","count":1}`, "cannot unmarshal"},
	} {
		_, err := ParseRecord([]byte(tt.line))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseRecord(%s) = %v, want an error with %q", tt.line, err, tt.want)
		}
	}
	if _, err := ParseRecord([]byte(`{"ts":1}`)); !errors.Is(err, ErrNotRecord) {
		t.Errorf("ParseRecord of no record = %v, want ErrNotRecord", err)
	}
}

func TestParseKeys(t *testing.T) {
	for _, tt := range []struct {
		arg, want string // want: the keys, or the error
	}{
		{"pid", "pid"},
		{"pid,comm,arg1,path", "pid comm arg1 path"},
		{"pid,", `"": want pid, tid, comm, ustack, argN or a field name`},
		{"pid,a-b", "a-b: want pid"},
		{"comm,comm", "comm: given twice"},
	} {
		keys, err := ParseKeys(tt.arg)
		var got string
		if err != nil {
			got = err.Error()
		} else {
			for i, k := range keys {
				if i > 0 {
					got += " "
				}
				got += k.String()
			}
		}
		if !strings.HasPrefix(got, tt.want) {
			t.Errorf("ParseKeys(%q) = %q, want %q", tt.arg, got, tt.want)
		}
	}
}

func TestWriteSeveralKeys(t *testing.T) {
	pid, comm := Key{Kind: KeyPID}, Key{Kind: KeyComm}
	g := func(by ...string) Group { return Group{Provider: "p", Name: "n", By: strings.Join(by, keySep)} }
	var b bytes.Buffer
	counts := map[Group]uint64{g("10", "b"): 1, g("9", "a"): 1, g("10", "a"): 5}
	if err := WriteCounts(&b, counts, pid, comm); err != nil {
		t.Fatal(err)
	}
	stats := map[Group]*Stats{g("10", "a"): {Count: 2, Sum: 5, Min: 1, Max: 4}, g("9", "a"): {}}
	if err := WriteStats(&b, stats, Key{Kind: KeyArg}, pid, comm); err != nil {
		t.Fatal(err)
	}
	want := `PROBE  PID  COMM  COUNT
p:n    10   a         5
p:n    9    a         1
p:n    10   b         1
stats of arg0
PROBE  PID  COMM  COUNT  SUM  MIN  MAX  MEAN
p:n    9    a         0    -    -    -     -
p:n    10   a         2    5    1    4     2
`
	if b.String() != want {
		t.Errorf("WriteCounts, WriteStats =\n%s\nwant\n%s", b.String(), want)
	}
}
