package stapsdt

import (
	"errors"
	"testing"
)

func TestNameErrors(t *testing.T) {
	bad, more := errors.New("bad note"), errors.New("3 more")
	for _, tt := range []struct {
		err  error
		want string
		is   []error
	}{
		{nil, "", nil},
		{bad, "/lib/x.so: bad note", []error{bad}},
		{errors.Join(bad, more), "/lib/x.so: bad note\n/lib/x.so: 3 more", []error{bad, more}},
	} {
		got := nameErrors("/lib/x.so", tt.err)
		if (got == nil) != (tt.want == "") || got != nil && got.Error() != tt.want {
			t.Errorf("nameErrors(%q) = %v, want %q", tt.err, got, tt.want)
		}
		for _, e := range tt.is {
			if !errors.Is(got, e) {
				t.Errorf("nameErrors(%q) does not wrap %q", tt.err, e)
			}
		}
	}
}
