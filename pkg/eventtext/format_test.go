package eventtext

import (
	"testing"

	"github.com/sdtkit/sdtkit/pkg/ndjson"
)

func TestFormat(t *testing.T) {
	e := &ndjson.Event{
		Provider: "demo", Name: "tick",
		Args: []ndjson.Value{
			{Kind: ndjson.Uint, Uint: 1<<64 - 1},
			{Kind: ndjson.Int, Int: -5},
			{Kind: ndjson.String, Str: "0x1f"},
			{Kind: ndjson.String, Str: "a b"},
			{},
		},
		Fields: []ndjson.Field{{Name: "len", Value: ndjson.Value{Kind: ndjson.Uint, Uint: 3}}},
	}
	for _, tt := range []struct {
		format, want string
	}{
		{"%d %d %d %s %d", "18446744073709551615 -5 31 a b ?"},
		{"%u %u", "18446744073709551615 18446744073709551611"},
		{"%x %x %x", "ffffffffffffffff fffffffffffffffb 1f"},
		{"%s %s %s %q", `18446744073709551615 -5 0x1f "a b"`},
		{"%q %q", `"18446744073709551615" "-5"`},
		{"len=%{len} 100%%", "len=3 100%"},
		{"%{nope}", "%!{nope}(MISSING)"},
		{"%d %d %d %d %d %d", "18446744073709551615 -5 31 %!d(\"a b\") ? %!d(MISSING)"},
		{"[%6d] [%-6d] [%06d]", "[18446744073709551615] [-5    ] [000031]"},
		{"%s %s %s [%05s]", `18446744073709551615 -5 0x1f [  a b]`},
		{"%s %s %s %s [%05d]", `18446744073709551615 -5 0x1f a b [    ?]`},
		{"%d%d[%06d]", "18446744073709551615-5[000031]"},
		{"%d[%06d]", "18446744073709551615[-00005]"},
	} {
		f, err := ParseFormat(tt.format)
		if err != nil {
			t.Errorf("ParseFormat(%q): %v", tt.format, err)
			continue
		}
		if got := string(f.Append(nil, e)); got != tt.want {
			t.Errorf("ParseFormat(%q).Append = %q, want %q", tt.format, got, tt.want)
		}
	}
}
