package aggregate

import (
	"slices"
	"testing"

	"github.com/sdtkit/sdtkit/pkg/ndjson"
)

func TestParseKey(t *testing.T) {
	for _, tt := range []struct {
		arg  string
		want string // String of the key, or "" for an error
	}{
		{"pid", "pid"}, {"tid", "tid"}, {"comm", "comm"}, {"ustack", "ustack"}, {"arg0", "arg0"}, {"arg12", "arg12"},
		{"len", "len"}, {"arg", "arg"}, {"arg+1", ""}, {"a.b", ""}, {"", ""},
	} {
		k, err := ParseKey(tt.arg)
		got := ""
		if err == nil {
			got = k.String()
		}
		if got != tt.want {
			t.Errorf("ParseKey(%q) = %q, %v, want %q", tt.arg, got, err, tt.want)
		}
	}
}

func TestKeyText(t *testing.T) {
	e := &ndjson.Event{
		PID: 42, TID: 43, Comm: "a\x1b[2Jb", Provider: "demo", Name: "tick",
		Args:   []ndjson.Value{{Kind: ndjson.Int, Int: -1}, {Kind: ndjson.String, Str: "a b"}},
		Fields: []ndjson.Field{{Name: "len", Value: ndjson.Value{Kind: ndjson.Uint, Uint: 3}}},
	}
	for _, tt := range []struct {
		key  Key
		want string
	}{
		{Key{Kind: KeyPID}, "42"},
		{Key{Kind: KeyTID}, "43"},
		{Key{Kind: KeyComm}, `"a\x1b[2Jb"`},
		{Key{Kind: KeyArg, Arg: 0}, "-1"},
		{Key{Kind: KeyArg, Arg: 1}, `"a b"`},
		{Key{Kind: KeyArg, Arg: 2}, "?"},
		{Key{Kind: KeyField, Field: "len"}, "3"},
		{Key{Kind: KeyField, Field: "nope"}, "?"},
		{Key{}, "?"},
	} {
		if got := tt.key.Text(e); got != tt.want {
			t.Errorf("Key %q Text = %q, want %q", tt.key, got, tt.want)
		}
	}
}

func TestGroupCompare(t *testing.T) {
	gs := []Group{
		{"b", "x", ""}, {"a", "y", "10"}, {"a", "y", "comm"}, {"a", "y", "-2"}, {"a", "y", "9"}, {"a", "x", "z"},
	}
	slices.SortFunc(gs, Group.Compare)
	want := []Group{
		{"a", "x", "z"}, {"a", "y", "-2"}, {"a", "y", "9"}, {"a", "y", "10"}, {"a", "y", "comm"}, {"b", "x", ""},
	}
	if !slices.Equal(gs, want) {
		t.Errorf("sorted groups = %v, want %v", gs, want)
	}
}

func TestGroupOf(t *testing.T) {
	e := &ndjson.Event{PID: 7, Provider: "p\n", Name: "n"}
	if got, want := GroupOf(e, Key{}), (Group{"p\n", "n", ""}); got != want {
		t.Errorf("GroupOf(no key) = %v, want %v", got, want)
	}
	g := GroupOf(e, Key{Kind: KeyPID})
	if want := (Group{"p\n", "n", "7"}); g != want {
		t.Errorf("GroupOf(pid) = %v, want %v", g, want)
	}
	if got, want := g.Probe(), `"p\n":n`; got != want {
		t.Errorf("Probe() = %s, want %s", got, want)
	}
}

// A stack's value, as events and records carry it, reads innermost frame
// first, each by its symbol, file or address, and is "?" when it could
// not be taken.
func TestFormatStack(t *testing.T) {
	k := Key{Kind: KeyUStack}
	for _, tt := range []struct {
		v    ndjson.Value
		want string
	}{
		{StackValue([]ndjson.Frame{
			{Addr: 0x40112c, Sym: "inner", Off: 0xc, File: "/usr/bin/prog"},
			{Addr: 0x7f3a1c02a1ca, File: "/usr/lib/libc.so.6", FileOffset: 0x2a1ca},
			{Addr: 0x7f00aa},
		}), "inner+0xc < libc.so.6+0x2a1ca < 0x7f00aa"},
		{StackValue([]ndjson.Frame{{Addr: 1, Sym: "a\nb"}}), `"a\nb+0x0"`},
		{ndjson.Value{}, "?"},
		{ndjson.Value{Kind: ndjson.String, Str: "main"}, "?"},
	} {
		if got := k.Format(tt.v); got != tt.want {
			t.Errorf("Format(%v) = %q, want %q", tt.v, got, tt.want)
		}
	}
	e := ndjson.Event{UStack: []ndjson.Frame{{Addr: 0x40112c, Sym: "inner", Off: 0xc}}}
	if got := k.Text(&e); got != "inner+0xc" {
		t.Errorf("Text of an event's stack = %q, want inner+0xc", got)
	}
	if got := k.Text(&ndjson.Event{}); got != "?" {
		t.Errorf("Text of an event without a stack = %q, want ?", got)
	}
}
