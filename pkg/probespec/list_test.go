package probespec

import (
	"slices"
	"testing"
)

func TestSplitList(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want []string
	}{
		{"", []string{""}},
		{"a,b", []string{"a", "b"}},
		{"a,b,tid", []string{"a", "b", "tid"}},
		{"p:{a,b},p:c", []string{"p:{a,b}", "p:c"}},
		{"./x:p:s(str,u32),./x:p:e(_,s64),arg0", []string{"./x:p:s(str,u32)", "./x:p:e(_,s64)", "arg0"}},
		{"p:{a,{b,c}},d", []string{"p:{a,{b,c}}", "d"}},
		{"a},b", []string{"a}", "b"}},
		{"a{,b", []string{"a{,b"}},
		{",", []string{"", ""}},
	} {
		if got := SplitList(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("SplitList(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
