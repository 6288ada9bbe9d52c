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
		{"pid", "pid"}, {"tid", "tid"}, {"comm", "comm"}, {"arg0", "arg0"}, {"arg12", "arg12"},
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
