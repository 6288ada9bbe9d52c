package cli

import (
	"flag"
	"io"
	"testing"
)

func TestUStack(t *testing.T) {
	for _, tt := range []struct {
		args        []string
		depth, copy int
		err         string
	}{
		{nil, 0, 0, ""},
		{[]string{"-ustack"}, 127, 0, ""},
		{[]string{"-ustack=fp"}, 127, 0, ""},
		{[]string{"-ustack=dwarf"}, 127, 8192, ""},
		{[]string{"-ustack=dwarf", "-ustack-size", "64"}, 127, 64, ""},
		{[]string{"-ustack-depth", "5"}, 5, 0, ""},
		{[]string{"-ustack-depth", "5", "-ustack"}, 5, 0, ""},
		{[]string{"-ustack-depth", "0"}, 0, 0, "--ustack-depth 0: not in [1, 127]"},
		{[]string{"-ustack-size", "64"}, 0, 0, "--ustack-size takes --ustack=dwarf"},
		{[]string{"-ustack=dwarf", "-ustack-size", "16384"}, 127, 16384, ""},
		{[]string{"-ustack=dwarf", "-ustack-size", "4"}, 0, 0, "--ustack-size 4: not in [8, 16384]"},
		{[]string{"-ustack=dwarf", "-ustack-size", "16385"}, 0, 0, "--ustack-size 16385: not in [8, 16384]"},
	} {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		var u UStack
		u.Flags(fs, 127, 8192, 16384)
		if err := fs.Parse(tt.args); err != nil {
			t.Fatalf("%q: %v", tt.args, err)
		}
		set := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		depth, copy, err := u.Check(set)
		if got := errText(err); got != tt.err || depth != tt.depth || copy != tt.copy {
			t.Errorf("%q: Check = %d, %d, %q; want %d, %d, %q", tt.args, depth, copy, got, tt.depth, tt.copy, tt.err)
		}
	}
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var u UStack
	u.Flags(fs, 127, 8192, 16384)
	if err := fs.Parse([]string{"-ustack=lbr"}); err == nil {
		t.Error("--ustack=lbr parsed")
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
