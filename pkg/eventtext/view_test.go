package eventtext

import (
	"bytes"
	"strings"
	"testing"

	"github.com/sdtkit/sdtkit/pkg/ndjson"
)

// A value wider than its column widens the column, and the header is
// written again above its line: every line is aligned with the header
// above it, the lines before it stay as written. Widths count
// characters, not bytes.
func TestViewGrows(t *testing.T) {
	type ev struct{ comm, provider, name string }
	for _, tt := range []struct {
		name   string
		events []ev
		want   string
	}{
		{"comm", []ev{{"a", "p", "n"}, {"a-thread-name-of-20", "p", "n"}, {"b", "p", "n"}}, "" +
			"PID     TID     COMM            PROBE                    ARGS\n" +
			"1       1       a               p:n                      -1\n" +
			"PID     TID     COMM                PROBE                    ARGS\n" +
			"1       1       a-thread-name-of-20 p:n                      -1\n" +
			"1       1       b                   p:n                      -1\n"},
		{"probe of 25", []ev{{"a", "p", "n"}, {"a", "provider", "name_of_sixteen_"}, {"a", "p", "n"}}, "" +
			"PID     TID     COMM            PROBE                    ARGS\n" +
			"1       1       a               p:n                      -1\n" +
			"PID     TID     COMM            PROBE                     ARGS\n" +
			"1       1       a               provider:name_of_sixteen_ -1\n" +
			"1       1       a               p:n                       -1\n"},
		{"first probe long", []ev{{"a", "libc_with_a_long_provider", "memory_sbrk_more"}, {"a", "p", "n"}, {"a", "libc", "memory_sbrk_less"}}, "" +
			"PID     TID     COMM            PROBE                                      ARGS\n" +
			"1       1       a               libc_with_a_long_provider:memory_sbrk_more -1\n" +
			"1       1       a               p:n                                        -1\n" +
			"1       1       a               libc:memory_sbrk_less                      -1\n"},
		{"characters", []ev{{"café", "prövider", "nämé_of_fifteen"}, {"a", "p", "n"}}, "" +
			"PID     TID     COMM            PROBE                    ARGS\n" +
			"1       1       café            prövider:nämé_of_fifteen -1\n" +
			"1       1       a               p:n                      -1\n"},
	} {
		var b strings.Builder
		v := NewView(&b, TimeNone)
		for _, e := range tt.events {
			v.WriteEvent(&ndjson.Event{PID: 1, TID: 1, Comm: e.comm, Provider: e.provider, Name: e.name, Args: []ndjson.Value{{Kind: ndjson.Int, Int: -1}}}, nil)
		}
		if b.String() != tt.want {
			t.Errorf("%s: view =\n%s\nwant\n%s", tt.name, b.String(), tt.want)
		}
	}
}

func TestViewStack(t *testing.T) {
	var out bytes.Buffer
	v := NewView(&out, TimeNone)
	e := &ndjson.Event{PID: 7, TID: 7, Comm: "calls", Provider: "calls", Name: "hit", Args: []ndjson.Value{ndjson.UintValue(1)},
		UStack: []ndjson.Frame{
			{Addr: 0x401136, Sym: "inner", Off: 8, File: "/usr/bin/calls", FileOffset: 0x1136},
			{Addr: 0x7f00001000, File: "/lib/x86_64-linux-gnu/libc.so.6", FileOffset: 0x27000},
			{Addr: 0x1234, Sym: "jit\x1b[31m", Off: 0},
			{Addr: 0x5678},
		}}
	if err := v.WriteEvent(e, nil); err != nil {
		t.Fatal(err)
	}
	_, body, _ := strings.Cut(out.String(), "\n") // past the header
	want := "7       7       calls           calls:hit                1\n" +
		"        inner+0x8 [calls]\n" +
		"        0x7f00001000 [libc.so.6+0x27000]\n" +
		"        \"jit\\x1b[31m\"+0x0\n" + // quoted: no raw control bytes
		"        0x5678\n"
	if body != want {
		t.Errorf("view:\n%q\nwant:\n%q", body, want)
	}
}
