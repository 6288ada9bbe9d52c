package main

import (
	"bytes"
	"errors"
	"flag"
	"strings"
	"testing"

	"github.com/sdtkit/sdtkit/internal/cli"
)

func TestParseArgs(t *testing.T) {
	for _, tt := range []struct {
		args   []string
		want   error
		stderr string
	}{
		{[]string{"-p", "1"}, nil, ""},
		{[]string{"-n", "-p", "1", "p:*", "q:r"}, nil, ""},
		{[]string{"-h"}, flag.ErrHelp, "usage: sdtrepair"},
		{[]string{}, cli.ErrUsage, "no -p PID"},
		{[]string{"-p", "0"}, cli.ErrUsage, "-p 0: not a process ID"},
		{[]string{"-p", "1", "./prog:p:q"}, cli.ErrUsage, `"./prog:p:q": give PROVIDER:NAME, without a path or types`},
		{[]string{"-p", "1", "p:q(str)"}, cli.ErrUsage, "without a path or types"},
		{[]string{"-p", "1", "a:b:c:d:e"}, cli.ErrUsage, "a:b:c:d:e"},
		{[]string{"-x"}, cli.ErrUsage, "flag provided but not defined"},
	} {
		var stderr bytes.Buffer
		_, err := parseArgs(tt.args, &stderr)
		if !errors.Is(err, tt.want) || tt.want == nil && err != nil {
			t.Errorf("parseArgs(%q) = %v, want %v", tt.args, err, tt.want)
		}
		if !strings.Contains(stderr.String(), tt.stderr) {
			t.Errorf("parseArgs(%q) stderr = %q, want %q in it", tt.args, stderr.String(), tt.stderr)
		}
	}
}

// TestRunNoProcess checks that a process that does not exist is an error
// naming it, with nothing on stdout.
func TestRunNoProcess(t *testing.T) {
	var stdout, stderr bytes.Buffer
	err := run([]string{"-p", "2147483647"}, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "process 2147483647") || stdout.Len() != 0 {
		t.Errorf("run(-p 2147483647) = %v, stdout %q, want an error naming the process and no output", err, stdout.String())
	}
}
