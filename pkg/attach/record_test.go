package attach

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/sdtkit/sdtkit/pkg/hit"
	"github.com/sdtkit/sdtkit/pkg/ndjson"
	"github.com/sdtkit/sdtkit/pkg/probe"
	"github.com/sdtkit/sdtkit/pkg/probespec"
)

func TestArgValue(t *testing.T) {
	typ := func(s string) probespec.Type {
		spec, err := probespec.Parse("p:q(" + s + ")")
		if err != nil {
			t.Fatal(err)
		}
		return spec.Types[0]
	}
	neg1 := hit.Value{Kind: hit.Int, Bits: ^uint64(0), Size: 4}
	for _, tt := range []struct {
		v    hit.Value
		typ  string
		want any
	}{
		{neg1, "", int64(-1)},
		{neg1, "u32", uint64(0xffffffff)},
		{neg1, "u8", uint64(0xff)},
		{neg1, "s16", int64(-1)},
		{neg1, "u64", uint64(1<<64 - 1)},
		{neg1, "hex", "0xffffffff"},
		{hit.Value{Kind: hit.Uint, Bits: 1<<64 - 1, Size: 8}, "", uint64(1<<64 - 1)},
		{hit.Value{Kind: hit.Uint, Bits: 0x80, Size: 1}, "s8", int64(-128)},
		{hit.Value{Kind: hit.Uint, Bits: 0x1f, Size: 8}, "hex", "0x1f"},
		{hit.Value{Kind: hit.String, Bits: 0x1000, Size: 8, Str: "hi"}, "str", "hi"},
		{hit.Value{Kind: hit.NotRead, Size: 8}, "str", nil},
		{hit.Value{Kind: hit.NotRead, Size: 8}, "", nil},
		{hit.Value{Kind: hit.Float, Bits: 0x3ff8000000000000, Size: 8}, "", 1.5},
	} {
		var ty probespec.Type
		if tt.typ != "" {
			ty = typ(tt.typ)
		}
		want, err := json.Marshal(tt.want)
		if err != nil {
			t.Fatal(err)
		}
		a := Arg{Type: ty}
		if got := a.Value(tt.v).AppendJSON(nil); string(got) != string(want) {
			t.Errorf("Arg{%q}.Value(%+v) = %s, want %s", tt.typ, tt.v, got, want)
		}
	}
}

func TestRecord(t *testing.T) {
	p := &probe.Probe{Target: &probe.Target{Name: "prog"}, Provider: "p", Name: "q"}
	plain := &Site{Probe: p, Args: []Arg{{}, {Type: probespec.Type{Kind: probespec.Drop}}, {Type: probespec.Type{Kind: probespec.String}}}}
	named := &Site{Probe: p, Fields: true, Args: []Arg{{Name: "n"}, {Type: probespec.Type{Kind: probespec.String}, Name: "s"}}}
	empty := &Site{Probe: p, Fields: true}
	ev := Event{Site: plain, Event: hit.Event{Time: time.Unix(1, 5), PID: 10, TID: 11, CPU: 1, Comm: "c", Args: []hit.Value{
		{Kind: hit.Int, Bits: uint64(1<<64 - 7), Size: 4},
		{Kind: hit.Uint, Bits: 9, Size: 8},
		{Kind: hit.String, Str: "long", Truncated: true, Size: 8},
	}}}
	var rec ndjson.Event
	var lines []string
	write := func() {
		ev.Record(&rec)
		lines = append(lines, string(ndjson.AppendEvent(nil, &rec)))
	}
	write()
	ev.Site, ev.Args = named, []hit.Value{{Kind: hit.NotRead, Size: 8}, {Kind: hit.String, Str: "<x>", Size: 8}}
	write()
	ev.Site, ev.Args = plain, ev.Args[:0]
	write()
	ev.Site = empty
	write()
	want := []string{
		`{"ts":1000000005,"pid":10,"tid":11,"comm":"c","cpu":1,"provider":"p","name":"q","args":[-7,"long"],"truncated":[1]}` + "\n",
		`{"ts":1000000005,"pid":10,"tid":11,"comm":"c","cpu":1,"provider":"p","name":"q","args":[null,"<x>"],"fields":{"n":null,"s":"<x>"}}` + "\n",
		`{"ts":1000000005,"pid":10,"tid":11,"comm":"c","cpu":1,"provider":"p","name":"q","args":[]}` + "\n",
		`{"ts":1000000005,"pid":10,"tid":11,"comm":"c","cpu":1,"provider":"p","name":"q","args":[],"fields":{}}` + "\n",
	}
	for i := range want {
		if lines[i] != want[i] {
			t.Errorf("record %d:\n%s\nwant\n%s", i, lines[i], want[i])
		}
	}
}

// An argument that could not be read is reported the first time for
// each site, and not at all when planning reported it.
func TestNoteUnread(t *testing.T) {
	p := &probe.Probe{Target: &probe.Target{Name: "prog"}, Provider: "p", Name: "q"}
	sites := []*Site{
		{Probe: p, Args: []Arg{{Raw: "8@%rax"}, {Raw: "8@(%rdx)"}}},
		{Probe: p, Args: []Arg{{Raw: "8@%rax"}, {Raw: "8@(%rcx)"}}, Reported: 1 << 1},
	}
	var warnings []error
	tr := newBPFEvents(&Plan{Sites: sites, opts: Options{Warn: func(err error) { warnings = append(warnings, err) }}})
	notRead := []hit.Value{{Kind: hit.Uint, Size: 8}, {Kind: hit.NotRead, Size: 8}}
	for range 3 {
		for i, s := range sites {
			ev := &Event{Site: s, Event: hit.Event{Site: uint32(i), PID: 7, Args: notRead}}
			tr.noteUnread(ev, tr.plan.opts.Warn)
		}
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0].Error(), `prog: p:q: arg1 "8@(%rdx)" could not be read (pid 7)`) {
		t.Errorf("warnings = %v, want one of arg1 of the first site", errors.Join(warnings...))
	}
}
