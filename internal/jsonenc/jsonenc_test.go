package jsonenc

import (
	"bytes"
	"encoding/binary"
	stdjson "encoding/json"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	json "github.com/goccy/go-json"
)

// marshal is what the JSON encoder the commands used before writes.
func marshal(t testing.TB, v any) string {
	b, err := json.MarshalWithOption(v, json.DisableHTMLEscape())
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestAppendString(t *testing.T) {
	strs := []string{"", "plain", `a"b\c`, `q"uote`, `back\slash`, "tab\tnl\ncr\r", "\x00\x01\x1f\x7f", "<&>",
		"é€𝄞", "ünïcödé ✓", "\u2028\u2029", "bad\xff\xfe", "bad\xffutf8\xc3", "cut\xe2\x82", "\xed\xa0\x80",
		"-4@-4(%rbp) 8@seq_iter.6(%rip)"}
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		b := make([]byte, r.IntN(20))
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		strs = append(strs, string(b))
	}
	for _, s := range strs {
		got := AppendString(nil, s)
		if want := marshal(t, s); string(got) != want {
			t.Errorf("AppendString(%q) = %s, want %s", s, got, want)
		}
		// And encoding/json reads back what it would have written.
		want, _ := stdjson.Marshal(s)
		var back, wantBack string
		if err := stdjson.Unmarshal(got, &back); err != nil {
			t.Errorf("AppendString(%q) = %s, not valid JSON: %v", s, got, err)
			continue
		}
		stdjson.Unmarshal(want, &wantBack)
		if back != wantBack {
			t.Errorf("AppendString(%q) decodes to %q, want %q (encoding/json: %s)", s, back, wantBack, want)
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
		if got := string(AppendFloat(nil, f)); got != want {
			t.Errorf("AppendFloat(%v) = %s, want %s", f, got, want)
		}
	}
}

func BenchmarkAppendString(b *testing.B) {
	for _, s := range []string{"/usr/lib/jvm/temurin-25-jdk-amd64/lib/server/libjvm.so", "-4@%edx 8@-24(%rbp) 8@g_counter(%rip)", "hotspot", "tab\there"} {
		b.Run(strconv.Itoa(len(s)), func(b *testing.B) {
			var buf []byte
			for b.Loop() {
				buf = AppendString(buf[:0], s)
			}
		})
	}
}

// unsafe8 agrees with safe on every byte value in every position, next to
// bytes of every kind.
func TestUnsafe8(t *testing.T) {
	for _, fill := range []byte{'a', 0, '"', '\\', 0x1f, 0x7f, 0x80, 0xff} {
		for pos := range 8 {
			for c := range 256 {
				b := bytes.Repeat([]byte{fill}, 8)
				b[pos] = byte(c)
				got := unsafe8(binary.LittleEndian.Uint64(b)) == 0
				if want := safe[c] && safe[fill]; got != want {
					t.Errorf("unsafe8(%q) == 0 is %v, want %v", b, got, want)
				}
			}
		}
	}
}
