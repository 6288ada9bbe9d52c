package main

import (
	"slices"
	"testing"
)

func TestCommandArgs(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want []string
	}{
		{"./prog", []string{"./prog"}},
		{"  prog  7\tx ", []string{"prog", "7", "x"}},
		// No shell: quotes are kept, as bpftrace keeps them.
		{`sh -c "exit 3"`, []string{"sh", "-c", `"exit`, `3"`}},
		{"", nil},
	} {
		if got := commandArgs(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("commandArgs(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
