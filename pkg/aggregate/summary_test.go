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

// Latency records render as sdtfmt --latency writes its own: the START
// record's pending STARTs go with the one latency, the END probe's
// records of an interval are merged, whatever the order of the probes.
func TestSummaryLatency(t *testing.T) {
	var s Summary
	var out strings.Builder
	for _, line := range []string{
		`{"ts":1,"provider":"app","name":"end","latency":"tid","from":"app:begin","count":1,"unmatched":1,"buckets":[{"lo":4194304,"hi":8388608,"count":1}],"sum":4400000,"min":4400000,"max":4400000,"mean":4400000}`,
		`{"ts":1,"provider":"app","name":"end","latency":"tid","from":"app:begin","count":1,"unmatched":0,"buckets":[{"lo":16777216,"hi":33554432,"count":1}],"sum":17000000,"min":17000000,"max":17000000,"mean":17000000}`,
		`{"ts":1,"provider":"app","name":"begin","latency":"tid","to":"app:end","count":3,"pending":1}`,
	} {
		r, err := ParseRecord([]byte(line))
		if err != nil {
			t.Fatalf("ParseRecord(%s) = %v", line, err)
		}
		if err := s.Add(&out, r); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Write(&out, false); err != nil {
		t.Fatal(err)
	}
	want := `app:begin -> app:end by tid: pairs 2, latency in ns
[4M, 8M)               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|
[8M, 16M)              0 |                                                    |
[16M, 32M)             1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|

min 4.4ms  avg 10.7ms  max 17ms
1 END without START, 1 START without END yet
`
	if got := out.String(); got != want {
		t.Errorf("summary:\n%s\nwant\n%s", got, want)
	}
}
