package eventtext

import (
	"testing"
	"time"
)

func TestClock(t *testing.T) {
	const first = 1718000000_000120000
	for _, tt := range []struct {
		style TimeStyle
		ts    []int64
		want  []string
	}{
		{TimeRel, []int64{first, first + 1_250_009_999, first - 2_000}, []string{"0.000000", "1.250009", "-0.000002"}},
		{TimeNone, []int64{first}, []string{""}},
	} {
		c := Clock{Style: tt.style}
		for i, ts := range tt.ts {
			if got := string(c.AppendTime(nil, ts)); got != tt.want[i] {
				t.Errorf("style %d: AppendTime(%d) = %q, want %q", tt.style, ts, got, tt.want[i])
			}
		}
	}
	// The time of day is local; a time before 1970 takes the second before.
	c := Clock{Style: TimeAbs}
	for _, ts := range []int64{first, first + 1e9, -1} {
		want := time.Unix(0, ts).Format("15:04:05.000000")
		if got := string(c.AppendTime(nil, ts)); got != want {
			t.Errorf("abs: AppendTime(%d) = %q, want %q", ts, got, want)
		}
	}
}

func TestParseTimeStyle(t *testing.T) {
	for s, want := range map[string]TimeStyle{"rel": TimeRel, "abs": TimeAbs, "none": TimeNone} {
		if got, err := ParseTimeStyle(s); got != want || err != nil {
			t.Errorf("ParseTimeStyle(%q) = %d, %v, want %d", s, got, err, want)
		}
	}
	if _, err := ParseTimeStyle("utc"); err == nil {
		t.Errorf("ParseTimeStyle(utc) = nil error")
	}
}
