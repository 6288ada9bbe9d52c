package main

import (
	"bytes"
	"errors"
	"flag"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/sdtkit/sdtkit/internal/cli"
	"github.com/sdtkit/sdtkit/pkg/bpf"
)

const demo = "../../pkg/stapsdt/testdata/demo"

func TestParseArgs(t *testing.T) {
	for _, tt := range []struct {
		args   []string
		want   error
		stderr string
	}{
		{[]string{"-n", "3", "x:p:q"}, nil, ""},
		{[]string{"x:p:q", "-n", "3", "-d", "1s", "y:p:*(str,_)"}, nil, ""},
		{[]string{"-p", "1", "p:q"}, nil, ""},
		{[]string{"-h"}, flag.ErrHelp, "usage: sdtattach"},
		{[]string{}, cli.ErrUsage, "no PROBE"},
		{[]string{"p:q"}, cli.ErrUsage, "PROVIDER:NAME needs -p PID"},
		{[]string{"-p", "0", "p:q"}, cli.ErrUsage, "not a process ID"},
		{[]string{"-c", "./prog 7", "p:q", "x:p:r"}, nil, ""},
		{[]string{"p:q", "-c", "prog", "--cmd-stdout", "out"}, nil, ""},
		{[]string{"-c", " ", "p:q"}, cli.ErrUsage, "-c: empty command"},
		{[]string{"-c", "prog", "-p", "1", "p:q"}, cli.ErrUsage, "-c and -p exclude each other"},
		{[]string{"-c", "prog", "--attach-only", "p:q"}, cli.ErrUsage, "-c and --attach-only exclude each other"},
		{[]string{"--cmd-stdout", "out", "x:p:q"}, cli.ErrUsage, "--cmd-stdout needs -c"},
		{[]string{"-d", "-1s", "x:p:q"}, cli.ErrUsage, "not a positive duration"},
		{[]string{"--strlen", "300", "x:p:q"}, cli.ErrUsage, "--strlen 300: not in [1, 254]"},
		{[]string{"--bufsize", "1048576", "x:p:q"}, nil, ""},
		{[]string{"--bufsize", "5000", "x:p:q"}, cli.ErrUsage, "--bufsize 5000: not a power of two"},
		{[]string{"--bufsize", "1024", "x:p:q"}, cli.ErrUsage, "--bufsize 1024: not a power of two of at least the page size"},
		{[]string{"--bufsize", "1099511627776", "x:p:q"}, cli.ErrUsage, "--bufsize 1099511627776: more than the largest ring buffer, 1073741824 (1 GiB)"},
		{[]string{"--bufsize", "1073741824", "x:p:q"}, nil, ""},
		{[]string{"x:p:q(int)"}, cli.ErrUsage, `unknown type "int"`},
		{[]string{"-x", "x:p:q"}, cli.ErrUsage, "flag provided but not defined"},
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

func TestParseArgsFlagsAfterProbes(t *testing.T) {
	c, err := parseArgs([]string{"x:p:q", "-n", "3", "y:p:r", "--types", "f.d"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.count != 3 || c.typesFile != "f.d" || len(c.specs) != 2 || c.specs[1].Path != "y" {
		t.Errorf("parseArgs = %+v", c)
	}
}

func TestRunWithoutPrivilege(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("requires a user other than root")
	}
	err := run([]string{demo + ":demo:tick"}, io.Discard, io.Discard)
	if !errors.Is(err, bpf.ErrPermission) {
		t.Errorf("run as euid %d = %v, want %v", os.Geteuid(), err, bpf.ErrPermission)
	}
}
