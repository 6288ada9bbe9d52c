package lru

import (
	"fmt"
	"testing"
)

func TestCache(t *testing.T) {
	c := New[string, int](10)
	for _, tt := range []struct {
		k    string
		cost int64
		kept bool
	}{
		{"a", 4, true},
		{"b", 4, true},
		{"a", 1, false}, // kept already
		{"huge", 11, false},
	} {
		if got := c.Add(tt.k, len(tt.k), tt.cost); got != tt.kept {
			t.Errorf("Add(%s, cost %d) = %v, want %v", tt.k, tt.cost, got, tt.kept)
		}
	}
	if _, ok := c.Get("a"); !ok { // a is now the most recently used
		t.Fatal("a not kept")
	}
	c.Add("c", 4, 4) // 12 > 10: b, the least recently used, goes
	if _, ok := c.Get("b"); ok {
		t.Error("b kept past the bound")
	}
	if got := fmt.Sprint(c.Len(), c.Cost()); got != "2 8" {
		t.Errorf("Len, Cost = %s, want 2 8", got)
	}
	c.Remove("a")
	if _, ok := c.Get("a"); ok || c.Cost() != 4 {
		t.Errorf("after Remove(a): a kept or cost %d, want 4", c.Cost())
	}
}
