package aggregate

import (
	"strings"
	"testing"
)

// The records of one interval make one summary, merged by group; a new
// interval writes the summary before it, headed by its time.
func TestSummary(t *testing.T) {
	var s Summary
	var out strings.Builder
	for _, line := range []string{
		`{"ts":1,"provider":"p","name":"a","count":3}`,
		`{"ts":1,"provider":"p","name":"b","count":1}`,
		`{"ts":1,"provider":"p","name":"a","count":2}`,
		`{"ts":2,"provider":"p","name":"a","count":7,"unread":1}`,
	} {
		r, err := ParseRecord([]byte(line))
		if err != nil {
			t.Fatalf("ParseRecord(%s) = %v", line, err)
		}
		if err := s.Add(&out, r); err != nil {
			t.Fatal(err)
		}
	}
	first := out.String()
	if s.Written() != 1 || !strings.Contains(first, "p:a") || !strings.Contains(first, "5") || strings.Contains(first, "7") {
		t.Errorf("after the second interval began: %d summaries written:\n%s", s.Written(), first)
	}
	if err := s.Write(&out, true); err != nil {
		t.Fatal(err)
	}
	if rest := strings.TrimPrefix(out.String(), first); s.Written() != 2 || !strings.Contains(rest, "7") || s.Unread != 1 {
		t.Errorf("last summary (%d written, %d unread):\n%s", s.Written(), s.Unread, rest)
	}
}
