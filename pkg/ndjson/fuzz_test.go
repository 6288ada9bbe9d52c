package ndjson

import (
	"bytes"
	stdjson "encoding/json"
	"errors"
	"reflect"
	"testing"
)

// FuzzParse checks the scanner against encoding/json and against the
// encoder: it accepts only valid JSON, rejects valid JSON only for what
// the line holds (never as a syntax error), and what it reads from a line
// the encoder wrote is written again the same. The seeds are in
// testdata/fuzz.
func FuzzParse(f *testing.F) {
	f.Fuzz(func(t *testing.T, line []byte) {
		var e Event
		kind, err := Parse(line, &e)
		valid := stdjson.Valid(line)
		switch {
		case err == nil && !valid:
			t.Fatalf("Parse(%q) = %v, nil; encoding/json: not valid JSON", line, kind)
		case errors.Is(err, errSyntax) && valid:
			t.Fatalf("Parse(%q) = %v; encoding/json: valid JSON", line, err)
		case err != nil:
			return
		}
		if kind != KindEvent && kind != KindLost {
			return
		}
		// Invalid UTF-8 is written as U+FFFD, so what is read from a
		// written line is what is written again.
		out := appendRecord(kind, &e)
		var e2, e3 Event
		if k, err := Parse(out, &e2); err != nil || k != kind {
			t.Fatalf("Parse(%q) = %v, %v; it was written from %q", out, k, err, line)
		}
		out2 := appendRecord(kind, &e2)
		if k, err := Parse(out2, &e3); err != nil || k != kind || !reflect.DeepEqual(e2, e3) || !bytes.Equal(appendRecord(kind, &e3), out2) {
			t.Fatalf("%q reads as %+v, written as %q, which reads as %+v, %v", out, e2, out2, e3, err)
		}
	})
}

func appendRecord(kind Kind, e *Event) []byte {
	if kind == KindLost {
		return AppendLost(nil, e.Lost)
	}
	return AppendEvent(nil, e)
}
