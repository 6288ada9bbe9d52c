package testchain

import (
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	full := func(caller string) []string {
		return []string{"leaf", "lib_inner", "lib_mid", "middle", caller, "main", "", "__libc_start_main", "_start"}
	}
	hits := func(mod func(i int, st []string) []string) [][]string {
		var stacks [][]string
		for i := range Hits {
			caller := "outer"
			if i >= 7 {
				caller = "other"
			}
			stacks = append(stacks, mod(i, full(caller)))
		}
		return stacks
	}
	same := func(i int, st []string) []string { return st }
	for _, tt := range []struct {
		name   string
		stacks [][]string
		want   string // in the error; "" for none
	}{
		{"right", hits(same), ""},
		{"one short", hits(same)[1:], "9 stacks, want 10"},
		{"short of _start", hits(func(i int, st []string) []string {
			if i == 3 {
				return st[:len(st)-2]
			}
			return st
		}), "stack 3: leaf;lib_inner;lib_mid;middle;outer;main;, which stops short of _start"},
		{"frames lost", hits(func(i int, st []string) []string { return append(st[:1], st[3:]...) }), "stack 0: leaf;middle;outer"},
		{"callers", hits(func(i int, st []string) []string {
			st[4] = "outer"
			return st
		}), "want outer 7 times and other 3 times"},
		{"no stacks", make([][]string, Hits), "stack 9: , want"},
	} {
		err := Check(tt.stacks)
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("%s: Check() = %v, want %q", tt.name, err, tt.want)
		}
	}
}
