package termtext

import (
	"bytes"
	"testing"
)

func TestWriter(t *testing.T) {
	for _, tt := range []struct {
		in, want string
	}{
		{"sdtlist: plain text\n", "sdtlist: plain text\n"},
		{"tab\tand newline\n", "tab\tand newline\n"},
		{"prov\x1b[31mider", `prov\x1b[31mider`},
		{"bell\a cr\r del\x7f", `bell\x07 cr\x0d del\x7f`},
		{"café ✓", "café ✓"},
		{"c1 \u009b x", `c1 \u009b x`},
		{"line\u2028sep", `line\u2028sep`},
		{"bad \xff\xfe utf8", `bad \xff\xfe utf8`},
		{"bidi \u202e", `bidi \u202e`},
	} {
		var b bytes.Buffer
		n, err := NewWriter(&b).Write([]byte(tt.in))
		if err != nil || n != len(tt.in) || b.String() != tt.want {
			t.Errorf("Write(%q) = %d, %v, wrote %q, want %d, nil, %q", tt.in, n, err, b.String(), len(tt.in), tt.want)
		}
	}
}
