package main

import (
	"io"
	"slices"
	"testing"
)

// TestParseArgsStap checks the command lines of systemtap's dtrace that
// makefiles use, and that sdtgen's own still mean what they did.
func TestParseArgsStap(t *testing.T) {
	t.Setenv("CPP", "gcc -E")
	for _, tt := range []struct {
		args []string
		mode mode
		out  string
		spec string
		cpp  []string
	}{
		{[]string{"-G", "-s", "p.d", "-o", "x.o", "a.o", "b.o"}, modeObject, "x.o", "p.d", nil},
		{[]string{"-G", "-s", "p.d", "a.o", "-o", "x.o", "-fPIC"}, modeObject, "x.o", "p.d", nil},
		{[]string{"-G", "-64", "-x", "nolibelf", "-s", "dir/p.d"}, modeObject, "p.o", "dir/p.d", nil},
		{[]string{"-h", "-s", "dir/probes.x.d"}, modeHeader, "probes.x.h", "dir/probes.x.d", nil},
		{[]string{"-h", "-s", "p.d", "-o", "p.h"}, modeHeader, "p.h", "p.d", nil},
		{[]string{"-C", "-I", "-Iinc", "-DN=1", "-h", "-s", "p.d"}, modeHeader, "p.h", "p.d", []string{"gcc", "-E", "-I", "-Iinc", "-DN=1"}},
		// sdtgen's own: -h to standard output, a program.
		{[]string{"-h", "p.d"}, modeHeader, "", "p.d", nil},
		{[]string{"-G", "-o", "x.o", "p.d"}, modeObject, "x.o", "p.d", nil},
		{[]string{"-o", "prog", "p.d", "--pie"}, modeProgram, "prog", "p.d", nil},
		{[]string{"-o", "prog", "-s", "p.d"}, modeProgram, "prog", "p.d", nil},
		{[]string{"-h", "--", "-p.d"}, modeHeader, "", "-p.d", nil},
	} {
		c, err := parseArgs(tt.args, io.Discard)
		if err != nil {
			t.Errorf("parseArgs(%q) = %v", tt.args, err)
			continue
		}
		if c.mode != tt.mode || c.out != tt.out || c.spec.name != tt.spec || !slices.Equal(c.spec.cpp, tt.cpp) {
			t.Errorf("parseArgs(%q) = mode %v, -o %q, spec %q, cpp %q; want %v, %q, %q, %q",
				tt.args, c.mode, c.out, c.spec.name, c.spec.cpp, tt.mode, tt.out, tt.spec, tt.cpp)
		}
	}
}

func TestParseArgsStapErrors(t *testing.T) {
	for _, args := range [][]string{
		{"-o", "prog", "-s", "p.d", "a.o"}, // objects only with -h or -G
		{"-h", "-s", "p.d", "-DN=1"},       // -D without -C
		{"-h", "p.d", "q.d"},               // two specs
		{"-G", "p.d"},                      // sdtgen's -G needs -o
		{"-h", "-s", "p.d", "--pie"},
	} {
		if _, err := parseArgs(args, io.Discard); err == nil {
			t.Errorf("parseArgs(%q) = nil error, want a usage error", args)
		}
	}
}

func TestStapOptions(t *testing.T) {
	rest, cpp := stapOptions([]string{"-G", "-32", "-x", "-o", "-s", "p.d", "-I.", "-DX", "-fpic", "--", "-Dy"})
	if want := []string{"-G", "-s", "p.d", "--", "-Dy"}; !slices.Equal(rest, want) {
		t.Errorf("stapOptions: rest %q, want %q", rest, want)
	}
	if want := []string{"-I.", "-DX"}; !slices.Equal(cpp, want) {
		t.Errorf("stapOptions: cpp %q, want %q", cpp, want)
	}
}
