package aggregate

import (
	"errors"
	"testing"
)

func TestParseLatency(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want LatencySpec
		err  error
	}{
		{"a:b,a:c", LatencySpec{Start: "a:b", End: "a:c"}, nil},
		{"a:b,a:c,arg0", LatencySpec{Start: "a:b", End: "a:c", Pair: Key{Kind: KeyArg, Arg: 0}}, nil},
		{"app:{a,b},app:c,pid", LatencySpec{Start: "app:{a,b}", End: "app:c", Pair: Key{Kind: KeyPID}}, nil},
		{"p:q(str,u32),p:r", LatencySpec{Start: "p:q(str,u32)", End: "p:r"}, nil},
		{"a:b,a:b", LatencySpec{Start: "a:b", End: "a:b"}, nil},
		{"a:b", LatencySpec{}, ErrLatencySyntax},
		{"a:b,a:c,pid,tid", LatencySpec{}, ErrLatencySyntax},
		{"a:b,a:c,ustack", LatencySpec{}, ErrStackPair},
		{"", LatencySpec{}, ErrLatencySyntax},
	} {
		got, err := ParseLatency(tt.in)
		if got != tt.want || !errors.Is(err, tt.err) || (tt.err == nil) != (err == nil) {
			t.Errorf("ParseLatency(%q) = %+v, %v, want %+v, %v", tt.in, got, err, tt.want, tt.err)
		}
	}
	if _, err := ParseLatency("a:b,a:c,bad key"); err == nil {
		t.Error(`ParseLatency("a:b,a:c,bad key"): no error`)
	}
}
