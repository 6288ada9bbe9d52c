package aggregate

import (
	"bytes"
	"strings"
	"testing"
)

// writes records the calls of Write.
type writes struct {
	bytes.Buffer
	n int
}

func (w *writes) Write(b []byte) (int, error) { w.n++; return w.Buffer.Write(b) }

// A RecordWriter writes the records of a call at once, in 64 KiB pieces
// when there are many, and counts their hits and losses.
func TestRecordWriter(t *testing.T) {
	for _, tt := range []struct {
		records, writes int
	}{{0, 0}, {3, 1}, {2000, 3}} {
		var w writes
		rw := NewRecordWriter(&w)
		recs := make([]Record, tt.records)
		for i := range recs {
			recs[i] = Record{Provider: "p", Name: strings.Repeat("n", 40), Count: 2, Lost: 1}
		}
		if err := rw.Write(recs); err != nil {
			t.Fatal(err)
		}
		if got := strings.Count(w.String(), "\n"); got != tt.records || w.n != tt.writes {
			t.Errorf("%d records: %d lines in %d writes, want %d writes", tt.records, got, w.n, tt.writes)
		}
		if rw.Hits != uint64(2*tt.records) || rw.Lost != uint64(tt.records) {
			t.Errorf("%d records: Hits %d, Lost %d", tt.records, rw.Hits, rw.Lost)
		}
	}
}
