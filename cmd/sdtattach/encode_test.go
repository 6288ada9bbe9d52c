package main

import (
	"math"
	"math/rand/v2"
	"testing"

	json "github.com/goccy/go-json"
)

// The event encoder must write what the JSON encoder it replaces wrote.
func marshal(t testing.TB, v any) string {
	b, err := json.MarshalWithOption(v, json.DisableHTMLEscape())
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestAppendString(t *testing.T) {
	strs := []string{"", "plain", `a"b\c`, "tab\tnl\ncr\r", "\x00\x01\x1f\x7f", "<&>", "é€𝄞", "\u2028\u2029", "bad\xff\xfe", "cut\xe2\x82", "\xed\xa0\x80"}
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		b := make([]byte, r.IntN(20))
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		strs = append(strs, string(b))
	}
	for _, s := range strs {
		if got, want := string(appendString(nil, s)), marshal(t, s); got != want {
			t.Errorf("appendString(%q) = %s, want %s", s, got, want)
		}
	}
}

func TestAppendFloat(t *testing.T) {
	fs := []float64{0, 1, -1.5, 1e-6, 1e-7, 9.99e-7, 1e20, 1e21, 1.5e300, -2.5e-300, math.MaxFloat64, math.SmallestNonzeroFloat64, 123456789.125, -0.1}
	r := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		fs = append(fs, math.Float64frombits(r.Uint64()))
	}
	for _, f := range fs {
		want := "null"
		if !math.IsNaN(f) && !math.IsInf(f, 0) {
			want = marshal(t, f)
		}
		if got := string(appendFloat(nil, f)); got != want {
			t.Errorf("appendFloat(%v) = %s, want %s", f, got, want)
		}
	}
}
