package aggregate

import "testing"

func TestStats(t *testing.T) {
	var a, b, none Stats
	for _, v := range []int64{5, -3, 10} {
		a.Add(v)
	}
	if want := (Stats{Count: 3, Sum: 12, Min: -3, Max: 10}); a != want {
		t.Errorf("Stats after 5, -3, 10 = %+v, want %+v", a, want)
	}
	if a.Mean() != 4 || none.Mean() != 0 {
		t.Errorf("Mean() = %d, %d for no values, want 4, 0", a.Mean(), none.Mean())
	}
	b.Add(20)
	b.Merge(none)
	b.Merge(a)
	if want := (Stats{Count: 4, Sum: 32, Min: -3, Max: 20}); b != want {
		t.Errorf("Merge = %+v, want %+v", b, want)
	}
	none.Merge(b)
	if none != b {
		t.Errorf("Merge into empty = %+v, want %+v", none, b)
	}
}
