package aggregate

import (
	"strings"
	"testing"

	"github.com/sdtkit/sdtkit/pkg/ndjson"
)

func TestBucketLabel(t *testing.T) {
	for _, tt := range []struct {
		v    ndjson.Value
		want string
	}{
		{ndjson.Value{Kind: ndjson.Int, Int: -3}, "(..., 0)"},
		{ndjson.Value{Kind: ndjson.Uint, Uint: 0}, "[0]"},
		{ndjson.Value{Kind: ndjson.Uint, Uint: 1}, "[1]"},
		{ndjson.Value{Kind: ndjson.Uint, Uint: 3}, "[2, 4)"},
		{ndjson.Value{Kind: ndjson.Uint, Uint: 1000}, "[512, 1K)"},
		{ndjson.Value{Kind: ndjson.Uint, Uint: 1024}, "[1K, 2K)"},
		{ndjson.Value{Kind: ndjson.Uint, Uint: 3 << 20}, "[2M, 4M)"},
		{ndjson.Value{Kind: ndjson.Uint, Uint: 1<<64 - 1}, "[8E, 16E)"},
		{ndjson.Value{Kind: ndjson.String, Str: "0x10"}, "[16, 32)"},
		{ndjson.Value{Kind: ndjson.Number, Str: "2.5"}, "[2, 4)"},
		{ndjson.Value{Kind: ndjson.Number, Str: "1e400"}, "[8E, 16E)"},
	} {
		var h Histogram
		if !h.AddValue(tt.v) {
			t.Errorf("AddValue(%v) = false", tt.v)
			continue
		}
		var b strings.Builder
		h.WriteTo(&b)
		if got, _, _ := strings.Cut(b.String(), " "); got != strings.Fields(tt.want)[0] || !strings.HasPrefix(b.String(), tt.want) {
			t.Errorf("AddValue(%v) drew %q, want bucket %q", tt.v, b.String(), tt.want)
		}
	}
	var h Histogram
	for _, v := range []ndjson.Value{{}, {Kind: ndjson.String, Str: "x"}} {
		if h.AddValue(v) {
			t.Errorf("AddValue(%v) = true, want false", v)
		}
	}
}

func TestHistogramWriteTo(t *testing.T) {
	var h Histogram
	for _, v := range []uint64{1, 2, 3, 3, 9} {
		h.AddUint(v)
	}
	var b strings.Builder
	h.WriteTo(&b)
	want := "" +
		"[1]                    1 |@@@@@@@@@@@@@@@@@                                   |\n" +
		"[2, 4)                 3 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n" +
		"[4, 8)                 0 |                                                    |\n" +
		"[8, 16)                1 |@@@@@@@@@@@@@@@@@                                   |\n"
	if b.String() != want {
		t.Errorf("WriteTo =\n%s\nwant\n%s", b.String(), want)
	}
}
