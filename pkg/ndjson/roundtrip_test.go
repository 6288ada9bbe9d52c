package ndjson

import (
	"bytes"
	stdjson "encoding/json"
	"io"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	json "github.com/goccy/go-json"
)

// What an encoder writes, the decoder reads back as it was: events with
// values of every kind, lost counts, sites with and without live state,
// semaphores.

func TestEventRoundTrip(t *testing.T) {
	for _, tt := range []struct {
		name string
		e    Event
		line string
		want *Event // when not e: Hex, Float and invalid UTF-8 read back as written
	}{
		{"integers", Event{
			TS: 1718000000123456789, PID: 42, TID: 43, Comm: "demo", CPU: 1, Provider: "demo", Name: "tick",
			Args: []Value{UintValue(0), UintValue(7), UintValue(1<<64 - 1), IntValue(-1), IntValue(math.MinInt64), IntValue(math.MaxInt64), {}},
		}, `{"ts":1718000000123456789,"pid":42,"tid":43,"comm":"demo","cpu":1,"provider":"demo","name":"tick","args":[0,7,18446744073709551615,-1,-9223372036854775808,9223372036854775807,null]}`, nil},
		{"no arguments", Event{TS: -5, Provider: "p", Name: "n"},
			`{"ts":-5,"pid":0,"tid":0,"comm":"","cpu":0,"provider":"p","name":"n","args":[]}`, nil},
		{"numbers", Event{Provider: "p", Name: "n",
			Args: []Value{{Kind: Number, Str: "1.5"}, {Kind: Number, Str: "-2.5e-7"}, {Kind: Number, Str: "1e400"}, {Kind: Number, Str: "18446744073709551616"}},
		}, `{"ts":0,"pid":0,"tid":0,"comm":"","cpu":0,"provider":"p","name":"n","args":[1.5,-2.5e-7,1e400,18446744073709551616]}`, nil},
		{"floats", Event{Provider: "p", Name: "n",
			Args: []Value{FloatValue(1.5), FloatValue(-0.1), FloatValue(1e21), FloatValue(1e-7), FloatValue(123456789), FloatValue(math.NaN()), FloatValue(math.Inf(-1))},
		}, `{"ts":0,"pid":0,"tid":0,"comm":"","cpu":0,"provider":"p","name":"n","args":[1.5,-0.1,1e+21,1e-7,123456789,null,null]}`,
			&Event{Provider: "p", Name: "n",
				Args: []Value{{Kind: Number, Str: "1.5"}, {Kind: Number, Str: "-0.1"}, {Kind: Number, Str: "1e+21"}, {Kind: Number, Str: "1e-7"}, UintValue(123456789), {}, {}},
			}},
		{"strings", Event{Comm: "a \"b\"\\", Provider: "p\x1b[31m", Name: "n\u2028",
			Args: []Value{StringValue(""), StringValue("tab\tnl\ncr\r\b\f"), StringValue("\x00\x01\x1f\x7f"), StringValue("<&>"), StringValue("é€𝄞\u2029"), StringValue("/var/lib/data/base/16384")},
		}, `{"ts":0,"pid":0,"tid":0,"comm":"a \"b\"\\","cpu":0,"provider":"p\u001b[31m","name":"n\u2028","args":["","tab\tnl\ncr\r\b\f","\u0000\u0001\u001f` + "\x7f" + `","<&>","é€𝄞\u2029","/var/lib/data/base/16384"]}`, nil},
		{"invalid UTF-8", Event{Provider: "p", Name: "n", Args: []Value{StringValue("bad\xff\xfe"), StringValue("cut\xe2\x82")}},
			`{"ts":0,"pid":0,"tid":0,"comm":"","cpu":0,"provider":"p","name":"n","args":["bad\ufffd\ufffd","cut\ufffd\ufffd"]}`,
			&Event{Provider: "p", Name: "n", Args: []Value{StringValue("bad\ufffd\ufffd"), StringValue("cut\ufffd\ufffd")}}},
		{"hex", Event{Provider: "p", Name: "n", Args: []Value{HexValue(0x1f), HexValue(0), HexValue(1<<64 - 1)}},
			`{"ts":0,"pid":0,"tid":0,"comm":"","cpu":0,"provider":"p","name":"n","args":["0x1f","0x0","0xffffffffffffffff"]}`,
			&Event{Provider: "p", Name: "n", Args: []Value{StringValue("0x1f"), StringValue("0x0"), StringValue("0xffffffffffffffff")}}},
		{"objects", Event{Provider: "p", Name: "n", Args: []Value{{Kind: JSON, Str: `{"a":[1,"x"]}`}, {Kind: JSON, Str: "true"}, {Kind: JSON, Str: "[]"}}},
			`{"ts":0,"pid":0,"tid":0,"comm":"","cpu":0,"provider":"p","name":"n","args":[{"a":[1,"x"]},true,[]]}`, nil},
		{"fields", Event{Provider: "p", Name: "n",
			Args:   []Value{UintValue(3), StringValue("/x"), {}},
			Fields: []Field{{"len", UintValue(3)}, {"path", StringValue("/x")}, {"a \"q\"", Value{}}},
		}, `{"ts":0,"pid":0,"tid":0,"comm":"","cpu":0,"provider":"p","name":"n","args":[3,"/x",null],"fields":{"len":3,"path":"/x","a \"q\"":null}}`, nil},
		{"no fields declared", Event{Provider: "p", Name: "n", Fields: []Field{}},
			`{"ts":0,"pid":0,"tid":0,"comm":"","cpu":0,"provider":"p","name":"n","args":[],"fields":{}}`, nil},
		{"truncated", Event{Provider: "p", Name: "n", Args: []Value{StringValue("abc"), UintValue(1), StringValue("def")}, Fields: []Field{{"s", StringValue("abc")}, {"n", UintValue(1)}, {"t", StringValue("def")}}, Truncated: []int{0, 2}},
			`{"ts":0,"pid":0,"tid":0,"comm":"","cpu":0,"provider":"p","name":"n","args":["abc",1,"def"],"fields":{"s":"abc","n":1,"t":"def"},"truncated":[0,2]}`, nil},
		{"ustack", Event{Provider: "p", Name: "n", UStack: []Frame{
			{Addr: 0x401136, Sym: "inner", Off: 0, File: "/usr/bin/prog", FileOffset: 0x1136, BuildID: "5e1f"},
			{Addr: 0x7f0000001000, File: "/lib/libc.so.6", FileOffset: 0x1000},
			{Addr: 7},
		}}, `{"ts":0,"pid":0,"tid":0,"comm":"","cpu":0,"provider":"p","name":"n","args":[],"ustack":[{"addr":4198710,"sym":"inner","off":0,"file":"/usr/bin/prog","file_offset":4406,"build_id":"5e1f"},{"addr":139637976731648,"file":"/lib/libc.so.6","file_offset":4096},{"addr":7}]}`, nil},
		{"empty ustack", Event{Provider: "p", Name: "n", UStack: []Frame{}},
			`{"ts":0,"pid":0,"tid":0,"comm":"","cpu":0,"provider":"p","name":"n","args":[],"ustack":[]}`, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			line := AppendEvent(nil, &tt.e)
			if string(line) != tt.line+"\n" {
				t.Errorf("AppendEvent =\n%s want\n%s", line, tt.line)
			}
			if !stdjson.Valid(line) {
				t.Errorf("AppendEvent = %s, not valid JSON", line)
			}
			want := &tt.e
			if tt.want != nil {
				want = tt.want
			}
			var got Event
			if k, err := Parse(line, &got); err != nil || k != KindEvent || !reflect.DeepEqual(&got, want) {
				t.Errorf("Parse(AppendEvent(e)) = %v, %+v, %v, want %+v", k, got, err, want)
			}
			// The same bytes as github.com/goccy/go-json writes.
			var g goccyEvent
			toGoccy(&g, &tt.e)
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(&g); err != nil || buf.String() != string(line) {
				t.Errorf("goccy/go-json writes %s, %v; AppendEvent %s", buf.Bytes(), err, line)
			}
		})
	}
}

func TestLostRoundTrip(t *testing.T) {
	for _, n := range []uint64{0, 1, 12, 1<<64 - 1} {
		line := AppendLost(nil, n)
		var e Event
		if k, err := Parse(line, &e); err != nil || k != KindLost || e.Lost != n {
			t.Errorf("Parse(%s) = %v, lost %d, %v, want KindLost, %d", line, k, e.Lost, err, n)
		}
		if want, _ := json.Marshal(struct {
			Lost uint64 `json:"lost"`
		}{n}); string(line) != string(want)+"\n" {
			t.Errorf("AppendLost(%d) = %s, want %s", n, line, want)
		}
	}
}

// A Reader reusing one Event gives each event the Fields it was written
// with: nil, empty or not.
func TestReaderFields(t *testing.T) {
	events := []Event{
		{Provider: "p", Name: "typed", Args: []Value{UintValue(1)}, Fields: []Field{{"x", UintValue(1)}}},
		{Provider: "p", Name: "untyped", Args: []Value{UintValue(2)}},
		{Provider: "p", Name: "typed", Args: []Value{UintValue(3)}, Fields: []Field{{"x", UintValue(3)}}},
		{Provider: "p", Name: "none", Fields: []Field{}},
		{Provider: "p", Name: "untyped", Args: []Value{StringValue("s")}, Truncated: []int{0}},
		{Provider: "p", Name: "untyped"},
	}
	var in []byte
	for i := range events {
		in = AppendEvent(in, &events[i])
	}
	r := NewReader(bytes.NewReader(in))
	var e Event
	for i := range events {
		want := &events[i]
		if k, err := r.Read(&e); err != nil || k != KindEvent {
			t.Fatalf("Read = %v, %v", k, err)
		}
		// Args and Truncated keep their room: empty is not nil.
		if len(e.Args) == 0 && len(want.Args) == 0 {
			e.Args = want.Args
		}
		if len(e.Truncated) == 0 && len(want.Truncated) == 0 {
			e.Truncated = want.Truncated
		}
		if !reflect.DeepEqual(&e, want) {
			t.Errorf("event %d = %+v, want %+v", i, e, *want)
		}
	}
}

// Reading events allocates only for string values, whether they have
// fields or not.
func TestReaderAllocs(t *testing.T) {
	events := []Event{
		{Provider: "p", Name: "typed", Comm: "c", Args: []Value{UintValue(1), IntValue(-2)}, Fields: []Field{{"x", UintValue(1)}, {"y", IntValue(-2)}}},
		{Provider: "p", Name: "untyped", Comm: "c", Args: []Value{UintValue(2), {Kind: Number, Str: "1.5"}}},
		{Provider: "p", Name: "typed", Comm: "c", Args: []Value{StringValue("s"), UintValue(3)}, Fields: []Field{{"x", StringValue("s")}, {"y", UintValue(3)}}, Truncated: []int{0}},
	}
	read := func(rounds int) float64 {
		var in []byte
		for range rounds {
			for i := range events {
				in = AppendEvent(in, &events[i])
			}
		}
		return testing.AllocsPerRun(10, func() {
			r := NewReader(bytes.NewReader(in))
			var e Event
			for {
				if _, err := r.Read(&e); err == io.EOF {
					break
				} else if err != nil {
					t.Fatal(err)
				}
			}
		})
	}
	// Per round of 3 events: the Number's text, and the string twice (in
	// args and fields).
	const want = 3
	if got := (read(200) - read(100)) / 100; got > want {
		t.Errorf("reading allocates %.2f times per round of 3 events, want %d", got, want)
	}
}

// sites returns sites with arguments of every kind, with and without
// live state.
func sites() []Site {
	argv := []SiteArg{
		{Raw: "-4@%edx", Size: 4, Signed: true, Kind: "register", Location: "%edx", Reg: "rdx", RegOffset: 96},
		{Raw: "8@-24(%rbp)", Size: 8, Kind: "memory", Location: "-24(%rbp)", Reg: "rbp", RegOffset: 32, Offset: -24},
		{Raw: "-8@%eax", Size: 8, Signed: true, Kind: "register", Location: "%eax", Reg: "eax", RegOffset: 80, RegHigh: "edx"},
		{Raw: "8f@%xmm0", Size: 8, Float: true, Kind: "float_register", Location: "%xmm0", Reg: "xmm0", RegOffset: -1},
		{Raw: "4@$-5", Size: 4, Kind: "const", Location: "$-5", RegOffset: -1, Value: -5},
		{Raw: "4@arr(,%eax,4)", Size: 4, Kind: "sib", Location: "arr(,%eax,4)", RegOffset: -1, Index: "eax", Scale: 4, Symbol: "arr"},
		{Raw: "4@g@GOTOFF(%ebx)", Size: 4, Kind: "memory", Location: "g@GOTOFF(%ebx)", Reg: "ebx", RegOffset: 0, Symbol: "g", Reloc: "GOTOFF"},
		{Raw: "8@8+t@GOTOFF(%eax,%edx,4)", Size: 8, Kind: "sib", Location: "8+t@GOTOFF(%eax,%edx,4)", Reg: "eax", RegOffset: 80, Index: "edx", Scale: 4, Offset: 8, Symbol: "t", Reloc: "GOTOFF"},
		{Raw: "2@%fs", Size: 2, Kind: "register", Location: "%fs", Reg: "fs", RegOffset: -1},
		{Raw: "4@bad op", Size: 4, RegOffset: -1, Error: `unknown operand "bad op"`},
		{Raw: "x\"\\\x01\xff", RegOffset: -1, Error: "bad \x1b"},
	}
	v := uint64(3)
	zero := uint64(0)
	return []Site{
		{File: "/usr/bin/demo", Provider: "demo", Name: "tick", PC: 0x401136, Base: 0x402004, Args: "-4@%edx 8@-24(%rbp)",
			PCOffset: 0x1136, Insn: "nop", NotePC: 0x401136, Argv: argv[:2]},
		{File: "a \"b\"\\\x1b\u2028\xff.so", Provider: "p<&>", Name: "n", PC: 1, Base: 2, Semaphore: 0x4010, Args: "many",
			PCOffset: 3, SemaphoreOffset: 0x10, Insn: "nop+nop10", NotePC: 7, NoteSemaphore: 0x4010, Argv: argv},
		{File: "x.o", Provider: "p", Name: "n", PC: 5, NotePC: 5, Semaphore: 7, NoteSemaphore: 9, Args: "", Argv: []SiteArg{},
			PCError: "relocatable object", SemaphoreError: "semaphore at 0x7 is not 2-byte aligned"},
		// sdtlist -p: the states a site can be in.
		{File: "/proc/1/root/usr/bin/demo", Provider: "demo", Name: "tick", PC: 0x1136, NotePC: 0x1136, Argv: argv[:1],
			PID: 42, Addr: 0x55d0c0a01136},
		{File: "demo", Provider: "demo", Name: "tick", Semaphore: 0x4010, NoteSemaphore: 0x4010, Argv: argv[:1],
			PID: 42, Addr: 0x55d0c0a01136, Armed: true, Owners: []string{"uprobe_multi link 12 /usr/bin/demo:0x1136"}, SemaphoreAddr: 0x55d0c0a04010, SemaphoreValue: &v},
		{File: "demo", Provider: "demo", Name: "tick", Argv: argv[:1],
			PID: 42, Addr: 0x55d0c0a01136, Armed: true, Owners: []string{"uprobe_multi link 12 demo:0x1136", "perf_event pid 7 (bpftrace) fd 9 demo:0x1136"}},
		// The loader's hook.
		{File: "/usr/lib/ld-linux-x86-64.so.2", Name: "_dl_debug_state", PC: 0x2060, NotePC: 0x2060, PCOffset: 0x2060, Argv: []SiteArg{},
			PID: 42, Hook: "loader", Addr: 0x7f0000002060, Armed: true, Orphaned: true},
		{File: "demo", Provider: "demo", Name: "tick", Semaphore: 0x4010, NoteSemaphore: 0x4010, Argv: argv[:1],
			PID: 42, Addr: 1, Armed: true, Orphaned: true, SemaphoreAddr: 2, SemaphoreValue: &zero},
		{File: "demo", Provider: "demo", Name: "tick", Semaphore: 0x4010, NoteSemaphore: 0x4010, Argv: argv[:1],
			PID: 42, Addr: 1, Armed: true, OrphanedError: "cannot tell whether a uprobe owns it: permission denied", SemaphoreValueError: "semaphore offset 0x10 is not in a private writable mapping of the process"},
		{File: "demo", Provider: "demo", Name: "tick", Semaphore: 0x4010, NoteSemaphore: 0x4010, Argv: argv[:1],
			PID: 42, ArmedError: "pc offset 0x1136 is not mapped by the process", SemaphoreAddr: 2, SemaphoreValueError: "input/output error"},
	}
}

func TestSiteRoundTrip(t *testing.T) {
	for i, s := range sites() {
		line := AppendSite(nil, &s)
		if !stdjson.Valid(line) || bytes.Count(line, []byte("\n")) != 1 {
			t.Errorf("AppendSite(site %d) = %s, not one line of valid JSON", i, line)
		}
		if got := AppendSiteArgv(nil, &s, AppendArgv(nil, s.Argv)); !bytes.Equal(got, line) {
			t.Errorf("AppendSiteArgv(site %d) =\n%s want\n%s", i, got, line)
		}
		// Invalid UTF-8 reads back as U+FFFD.
		want := s
		want.Argv = slices.Clone(s.Argv)
		for j := range want.Argv {
			want.Argv[j].Raw = strings.ToValidUTF8(want.Argv[j].Raw, "\ufffd")
		}
		want.File = strings.ToValidUTF8(want.File, "\ufffd")
		got, err := ParseSite(line)
		if err != nil || !reflect.DeepEqual(got, &want) {
			t.Errorf("ParseSite(%s) = %+v, %v, want %+v", line, got, err, want)
		}
		var std Site
		if err := stdjson.Unmarshal(line, &std); err != nil || !reflect.DeepEqual(&std, got) {
			t.Errorf("encoding/json reads site %d as %+v, %v, want %+v", i, std, err, got)
		}
		var buf bytes.Buffer
		enc := stdjson.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil || !bytes.Equal(buf.Bytes(), line) {
			t.Errorf("encoding/json writes site %d as %s, %v, want %s", i, buf.Bytes(), err, line)
		}
		// The same bytes as github.com/goccy/go-json writes, but for the
		// order of a symbol operand's members.
		var g goccySite
		toGoccySite(&g, &s)
		buf.Reset()
		genc := json.NewEncoder(&buf)
		genc.SetEscapeHTML(false)
		if err := genc.Encode(&g); err != nil || buf.String() != string(line) {
			t.Errorf("goccy/go-json writes site %d as\n%s (%v), AppendSite as\n%s", i, buf.Bytes(), err, line)
		}
	}
}

// The members of a symbol operand come in their own order.
func TestSiteArgSymbol(t *testing.T) {
	a := SiteArg{Raw: "8@g_counter(%rip)", Size: 8, Kind: "symbol", Location: "g_counter(%rip)", Reg: "rip", RegOffset: 128, Symbol: "g_counter", Offset: 4}
	want := `[{"raw":"8@g_counter(%rip)","size":8,"signed":false,"kind":"symbol","location":"g_counter(%rip)","reg":"rip","reg_offset":128,"symbol":"g_counter","offset":4}]`
	if got := AppendArgv(nil, []SiteArg{a}); string(got) != want {
		t.Errorf("AppendArgv(%+v) = %s, want %s", a, got, want)
	}
	s := Site{Argv: []SiteArg{a}}
	if got, err := ParseSite(AppendSite(nil, &s)); err != nil || !reflect.DeepEqual(got, &s) {
		t.Errorf("ParseSite(AppendSite(s)) = %+v, %v, want %+v", got, err, s)
	}
}

func TestSemaphoreRoundTrip(t *testing.T) {
	for _, s := range []Semaphore{
		{PID: 42, File: "/usr/bin/demo", Provider: "demo", Name: "tick", Address: 0x55d0c0a04010, Offset: 0x3010, Sites: 3, Before: 0, After: 1},
		{PID: 1, File: "a \"b\"\\\x1b<&>", Provider: "p", Name: "n", Sites: 1, Before: 65535, After: 65535},
	} {
		line := AppendSemaphore(nil, &s)
		got, err := ParseSemaphore(line)
		if err != nil || *got != s {
			t.Errorf("ParseSemaphore(%s) = %+v, %v, want %+v", line, got, err, s)
		}
		b, err := json.MarshalWithOption(&s, json.DisableHTMLEscape())
		if err != nil || string(b)+"\n" != string(line) {
			t.Errorf("AppendSemaphore(%+v) = %s, want %s", s, line, b)
		}
	}
}
