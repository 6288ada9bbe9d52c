package termtext

import "testing"

func TestAppend(t *testing.T) {
	for _, tt := range []struct {
		in, want, printable string
	}{
		{"server", "server", "server"},
		{"été", "été", "été"},
		{"", `""`, ""},
		{"?", `"?"`, "?"},
		{"Web Content", `"Web Content"`, "Web Content"},
		{`say "hi"`, `"say \"hi\""`, `say "hi"`},
		{`a\b`, `"a\\b"`, `a\b`},
		{"\x1b]0;owned\a", `"\x1b]0;owned\a"`, `"\x1b]0;owned\a"`},
		{"tab\there", `"tab\there"`, `"tab\there"`},
		{"line\nbreak", `"line\nbreak"`, `"line\nbreak"`},
		{"del\x7f", `"del\x7f"`, `"del\x7f"`},
		{"bad\xffutf8", `"bad\xffutf8"`, `"bad\xffutf8"`},
		{"é\xff", `"é\xff"`, `"é\xff"`},
		{"c1\u009b31m", `"c1\u009b31m"`, `"c1\u009b31m"`},
		{"sep\u2028", `"sep\u2028"`, `"sep\u2028"`},
		{"bidi\u202e", `"bidi\u202e"`, `"bidi\u202e"`},
		{"nbsp\u00a0", `"nbsp\u00a0"`, `"nbsp\u00a0"`},
		// Checks go on past the first character beyond ASCII.
		{"é b", `"é b"`, "é b"},
		{"é\x1b", `"é\x1b"`, `"é\x1b"`},
	} {
		if got := string(Append(nil, tt.in)); got != tt.want {
			t.Errorf("Append(%q) = %s, want %s", tt.in, got, tt.want)
		}
		if got := String(tt.in); got != tt.want {
			t.Errorf("String(%q) = %s, want %s", tt.in, got, tt.want)
		}
		if got := string(AppendPrintable(nil, tt.in)); got != tt.printable {
			t.Errorf("AppendPrintable(%q) = %s, want %s", tt.in, got, tt.printable)
		}
	}
}
