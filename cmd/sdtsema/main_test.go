package main

import (
	"bytes"
	"errors"
	"flag"
	"strings"
	"testing"
	"time"

	"github.com/sdtkit/sdtkit/internal/cli"
)

func TestParseArgs(t *testing.T) {
	for _, tt := range []struct {
		args   string
		err    error
		action action
		dur    time.Duration
		all    bool
	}{
		{"-p 1 p:q", nil, show, 0, false},
		{"-p 1 --inc p:q", nil, inc, 0, false},
		{"-p 1 --dec /bin/x:p:q", nil, dec, 0, false},
		{"-p 1 --hold --for 2s p:q", nil, hold, 2 * time.Second, false},
		{"--all --inc /bin/x:p:*", nil, inc, 0, true},
		{"-h", flag.ErrHelp, 0, 0, false},
		{"p:q", cli.ErrUsage, 0, 0, false},
		{"-p 1", cli.ErrUsage, 0, 0, false},
		{"-p 0 p:q", cli.ErrUsage, 0, 0, false},
		{"-p 1 --all /bin/x:p:q", cli.ErrUsage, 0, 0, false},
		{"-p 1 --inc --dec p:q", cli.ErrUsage, 0, 0, false},
		{"-p 1 --for 1s p:q", cli.ErrUsage, 0, 0, false},
		{"-p 1 --hold --for -1s p:q", cli.ErrUsage, 0, 0, false},
		{"--all --inc p:q", cli.ErrUsage, 0, 0, false},
		{"-p 1 p:q(int)", cli.ErrUsage, 0, 0, false},
		{"-p 1 nocolon", cli.ErrUsage, 0, 0, false},
		{"-x", cli.ErrUsage, 0, 0, false},
	} {
		var stderr bytes.Buffer
		c, err := parseArgs(strings.Fields(tt.args), &stderr)
		if !errors.Is(err, tt.err) {
			t.Errorf("parseArgs(%q) = %v, want %v (stderr %q)", tt.args, err, tt.err, stderr.String())
			continue
		}
		if err != nil {
			continue
		}
		if c.action != tt.action || c.dur != tt.dur || c.all != tt.all {
			t.Errorf("parseArgs(%q) = action %d, for %v, all %v, want %d, %v, %v", tt.args, c.action, c.dur, c.all, tt.action, tt.dur, tt.all)
		}
	}
}

func TestRunNoProcess(t *testing.T) {
	var stdout, stderr bytes.Buffer
	err := run([]string{"-p", "2147483647", "--inc", "p:q"}, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "process 2147483647: no such process") {
		t.Errorf("run(-p 2147483647) = %v, want no such process", err)
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout = %q, want nothing", stdout.String())
	}
}
