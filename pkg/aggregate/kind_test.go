package aggregate

import "testing"

func TestRecordKind(t *testing.T) {
	tid := Key{Kind: KeyTID}
	arg0 := Key{Kind: KeyArg}
	for _, tt := range []struct {
		r    Record
		want Kind
	}{
		{Record{Count: 3}, KindCount},
		{Record{}, KindCount},
		{Record{Hist: arg0, Count: 2}, KindHist},
		{Record{Stats: arg0, Count: 2}, KindStats},
		{Record{Latency: tid, From: "p:a", Count: 1}, KindLatency},
		{Record{Latency: tid, Start: true, To: "p:b", Count: 1}, KindStarts},
		{Record{Lost: 4}, KindLost},
		{Record{Latency: tid, Start: true, Lost: 4}, KindLost},
		{Record{Hist: arg0, Count: 1, Lost: 4}, KindHist},
	} {
		if got := tt.r.Kind(); got != tt.want {
			t.Errorf("%+v.Kind() = %v, want %v", tt.r, got, tt.want)
		}
	}
	if s := Kind(99).String(); s != "Kind(99)" {
		t.Errorf("Kind(99).String() = %q", s)
	}
}
