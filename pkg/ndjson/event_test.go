package ndjson

import (
	"errors"
	"io"
	"math"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, tt := range []struct {
		line string
		kind Kind
		want Event
	}{
		{`{"ts":5,"pid":1,"tid":2,"comm":"a b","cpu":3,"provider":"p","name":"n","args":[]}`, KindEvent,
			Event{TS: 5, PID: 1, TID: 2, Comm: "a b", CPU: 3, Provider: "p", Name: "n"}},
		{`{"provider":"p","name":"n","args":[18446744073709551615,-9223372036854775808,0,-0,1.5,1e400,"0x1f","é\n",null,{"a":[1]},true]}`, KindEvent,
			Event{Provider: "p", Name: "n", Args: []Value{
				{Kind: Uint, Uint: 1<<64 - 1},
				{Kind: Int, Int: -1 << 63},
				{Kind: Uint},
				{Kind: Uint},
				{Kind: Number, Str: "1.5"},
				{Kind: Number, Str: "1e400"},
				{Kind: String, Str: "0x1f"},
				{Kind: String, Str: "é\n"},
				{Kind: Null},
				{Kind: JSON, Str: `{"a":[1]}`},
				{Kind: JSON, Str: "true"},
			}}},
		{` { "provider" : "p" , "name":"n", "extra":{"x":[1,{}]}, "fields":{"len":3,"path":"/x"}, "truncated":[1] } `, KindEvent,
			Event{Provider: "p", Name: "n", Fields: []Field{{"len", Value{Kind: Uint, Uint: 3}}, {"path", Value{Kind: String, Str: "/x"}}}, Truncated: []int{1}}},
		{`{"provider":"p","name":"n","fields":{}}`, KindEvent, Event{Provider: "p", Name: "n", Fields: []Field{}}},
		{`{"lost":12}`, KindLost, Event{Lost: 12}},
		{`{"file":"a.out","provider":"p","name":"n","pc":4198568,"args":"-4@%ebx","argv":[]}`, KindSite,
			Event{Provider: "p", Name: "n"}},
	} {
		var e Event
		kind, err := Parse([]byte(tt.line), &e)
		if err != nil || kind != tt.kind || !reflect.DeepEqual(e, tt.want) {
			t.Errorf("Parse(%s) = %v, %+v, %v, want %v, %+v", tt.line, kind, e, err, tt.kind, tt.want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, tt := range []struct {
		line, want string
	}{
		{`not json`, "invalid character"},
		{`{"provider":"p","name":"n"`, "end of JSON input"},
		{`{"provider":"p","name":"n"} x`, "invalid character"},
		{"{\"provider\":\"p\",\"name\":\"n\"}\x00", "invalid character"},
		{`{"provider":"p","name":"n","args":[01]}`, "invalid"},
		{`{"ts":1}`, ErrNotRecord.Error()},
		{`[1,2]`, "not a JSON object"},
		{`{"provider":"p","name":"n","pid":"42"}`, `"pid": want an integer`},
		{`{"provider":"p","name":"n","ts":1.5}`, `"ts": want an integer`},
		{`{"provider":7,"name":"n"}`, `"provider": want a string`},
		{`{"lost":-1}`, `"lost": want a count`},
		{`{"provider":"p","name":"n","fields":[1]}`, `"fields": want an object`},
		{`{"provider":"p","name":"n","truncated":[-1]}`, `"truncated": want an array of positions`},
		{`{"provider":"p","name":"n","truncated":3}`, `"truncated": want an array of positions`},
		{`{"provider":"p","name":"n","ustack":{}}`, `"ustack": want an array of frames`},
		{`{"provider":"p","name":"n","ustack":[1]}`, `"ustack": want an array of frames`},
		{`{"provider":"p","name":"n","ustack":[{"addr":-1}]}`, `"ustack": want frames of unsigned addr`},
		{`{"provider":"p","name":"n","ustack":[{"sym":1}]}`, `"ustack": want a string`},
	} {
		var e Event
		_, err := Parse([]byte(tt.line), &e)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Parse(%s) error = %v, want %q", tt.line, err, tt.want)
		}
	}
	var fe *FieldError
	if _, err := Parse([]byte(`{"provider":"p","name":"n","tid":null}`), new(Event)); !errors.As(err, &fe) || fe.Field != "tid" {
		t.Errorf("Parse(tid null) error = %v, want a *FieldError for tid", err)
	}
}

func TestReader(t *testing.T) {
	in := "{\"lost\":1}\n\n  \nbad\n" + `{"provider":"p","name":"` + strings.Repeat("n", 100_000) + "\"}\n" + `{"provider":"p","na`
	r := NewReader(strings.NewReader(in))
	var e Event
	var got []string
	for {
		k, err := r.Read(&e)
		if err == io.EOF {
			break
		}
		switch {
		case err != nil:
			got = append(got, err.Error()[:min(len(err.Error()), 20)])
		case k == KindLost:
			got = append(got, "lost")
		default:
			got = append(got, "event "+e.Provider+" "+e.Name[:3])
		}
	}
	want := []string{"lost", "line 4: invalid char", "event p nnn", "line 6 (truncated): "}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Read = %q, want %q", got, want)
	}
}

func TestValue(t *testing.T) {
	for _, tt := range []struct {
		v    Value
		text string
		u    uint64
		uok  bool
	}{
		{Value{Kind: Uint, Uint: 7}, "7", 7, true},
		{Value{Kind: Int, Int: -1}, "-1", 1<<64 - 1, true},
		{Value{Kind: String, Str: "0x1F"}, "0x1F", 31, true},
		{Value{Kind: String, Str: "a b"}, `"a b"`, 0, false},
		{Value{Kind: String, Str: ""}, `""`, 0, false},
		{Value{Kind: String, Str: "héllo"}, "héllo", 0, false},
		{Value{Kind: String, Str: "é b"}, `"é b"`, 0, false},
		{Value{Kind: String, Str: "\x1b[2J\u009b\u2028"}, `"\x1b[2J\u009b\u2028"`, 0, false},
		{Value{}, "?", 0, false},
		{Value{Kind: Number, Str: "2.5"}, "2.5", 0, false},
		{HexValue(31), "0x1f", 31, true},
		{FloatValue(2.5), "2.5", 0, false},
		{FloatValue(1e21), "1e+21", 0, false},
		{FloatValue(math.NaN()), "?", 0, false},
		{IntValue(-3), "-3", 1<<64 - 3, true},
		{Value{Kind: JSON, Str: `{"k":"a b"}`}, `{"k":"a b"}`, 0, false},
		{Value{Kind: JSON, Str: "[\"\u2028\u009b\xff\"]"}, `"[\"\u2028\u009b\xff\"]"`, 0, false},
	} {
		u, ok := tt.v.Uint64()
		if s := tt.v.String(); s != tt.text || u != tt.u || ok != tt.uok {
			t.Errorf("%+v: String, Uint64 = %q, %d, %v, want %q, %d, %v", tt.v, s, u, ok, tt.text, tt.u, tt.uok)
		}
	}
}

// longLine reads as n bytes of 'x' and a newline, then rest, without
// holding them.
type longLine struct {
	n    int
	rest string
}

func (l *longLine) Read(p []byte) (int, error) {
	if l.n > 0 {
		k := min(len(p), l.n)
		for i := range k {
			p[i] = 'x'
		}
		l.n -= k
		return k, nil
	}
	if l.n == 0 {
		p[0] = '\n'
		l.n = -1
		return 1, nil
	}
	if l.rest == "" {
		return 0, io.EOF
	}
	k := copy(p, l.rest)
	l.rest = l.rest[k:]
	return k, nil
}

// A line longer than MaxLineSize is skipped in bounded memory, and the
// lines after it are read as usual.
func TestReaderLineTooLong(t *testing.T) {
	for _, tt := range []struct {
		n    int
		want string
	}{
		{100 << 20, "line 1: longer than 1048576 bytes; skipped"},
		{MaxLineSize + 1, "line 1: longer than 1048576 bytes; skipped"},
		{MaxLineSize - 1, "line 1: invalid character 'x' looking for beginning of value"},
	} {
		r := NewReader(&longLine{n: tt.n, rest: "{\"lost\":3}\n"})
		var e Event
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := r.Read(&e)
		runtime.ReadMemStats(&after)
		var le *LineError
		if !errors.As(err, &le) || !strings.HasPrefix(err.Error(), tt.want[:min(len(tt.want), 30)]) {
			t.Errorf("Read of a %d-byte line = %v, want %s", tt.n, err, tt.want)
		}
		if tt.n > MaxLineSize && !errors.Is(err, ErrLineTooLong) {
			t.Errorf("Read of a %d-byte line = %v, want ErrLineTooLong", tt.n, err)
		}
		if got := after.TotalAlloc - before.TotalAlloc; got > 6*MaxLineSize {
			t.Errorf("Read of a %d-byte line allocated %d bytes, want at most %d", tt.n, got, 6*MaxLineSize)
		}
		if k, err := r.Read(&e); err != nil || k != KindLost || e.Lost != 3 || r.Line() != 2 {
			t.Errorf("Read after the long line = %v, %v, lost %d, line %d; want the lost record on line 2", k, err, e.Lost, r.Line())
		}
	}
}
