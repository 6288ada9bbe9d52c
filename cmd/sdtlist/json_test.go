package main

import (
	"encoding/json"
	"testing"
)

func TestAppendString(t *testing.T) {
	for _, s := range []string{
		"", "plain", `q"uote`, `back\slash`, "tab\tnl\ncr\r", "\x00\x01\x1f\x7f",
		"ünïcödé ✓", "bad\xffutf8\xc3", "\u2028", "-4@-4(%rbp) 8@seq_iter.6(%rip)",
	} {
		got := appendString(nil, s)
		want, _ := json.Marshal(s)
		var back string
		if err := json.Unmarshal(got, &back); err != nil {
			t.Errorf("appendString(%q) = %s, not valid JSON: %v", s, got, err)
			continue
		}
		var wantBack string
		json.Unmarshal(want, &wantBack)
		if back != wantBack {
			t.Errorf("appendString(%q) decodes to %q, want %q (encoding/json: %s)", s, back, wantBack, want)
		}
	}
}
