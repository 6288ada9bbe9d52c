package main

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	json "github.com/goccy/go-json"

	"github.com/sdtkit/sdtkit/internal/cli"
)

const demo = "../../pkg/stapsdt/testdata/demo"

func TestIsPattern(t *testing.T) {
	for _, tt := range []struct {
		arg  string
		pid  bool
		want bool
	}{
		{"node:http__*", false, true},
		{"gc*", false, true},
		{"tick", true, true},
		// A bare name is a file when it resolves as a command or a
		// library, and a pattern on NAME otherwise.
		{"nosuchfile", false, true},
		{"gc__start", false, true},
		{"sh", false, false},
		{demo, false, false},
		{demo, true, true},
	} {
		if got := isPattern(tt.arg, tt.pid); got != tt.want {
			t.Errorf("isPattern(%q, %v) = %v, want %v", tt.arg, tt.pid, got, tt.want)
		}
	}
}

func TestRunExitKinds(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad")
	if err := os.WriteFile(bad, []byte("not elf"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		args       []string
		want       error
		stdoutRows int
		stderr     string
	}{
		{[]string{demo}, nil, 3, ""},
		{[]string{demo, "demo:tick"}, nil, 2, ""},
		{[]string{demo, "*:st*"}, nil, 1, ""},
		// A pattern that matches nothing is an error with the closest probes.
		{[]string{demo, "nomatch:*"}, cli.ErrFailed, 0, "sdtlist: nomatch:*: no probe nomatch:* in " + demo + "; near matches: demo:start, demo:tick"},
		{[]string{demo, "tikc"}, cli.ErrFailed, 0, "sdtlist: tikc: no probe tikc in " + demo + "; near matches: demo:tick"},
		{[]string{demo, "demo:tick", "nomatch"}, cli.ErrFailed, 2, "sdtlist: nomatch: no probe nomatch in"},
		{[]string{demo, "demo:{tick,start}"}, nil, 3, ""},
		{[]string{demo, "st{art,op}"}, nil, 1, ""},
		{[]string{"nosuchword"}, cli.ErrFailed, 0, "sdtlist: nosuchword: no such file, command or library"},
		// bpftrace's listing forms.
		{[]string{"usdt:" + demo + ":*"}, nil, 3, ""},
		{[]string{"usdt:" + demo + ":demo:tick"}, nil, 2, ""},
		{[]string{demo + ":st*"}, nil, 1, ""},
		{[]string{"usdt:" + demo + ":nomatch"}, cli.ErrFailed, 0, "no probe nomatch in " + demo},
		{[]string{"usdt:nosuchcmd:p:q"}, cli.ErrFailed, 0, "sdtlist: nosuchcmd: no such command in $PATH"},
		{[]string{bad, demo}, cli.ErrFailed, 3, "sdtlist: " + bad + ": not an ELF file"},
		{[]string{dir, demo}, cli.ErrFailed, 3, "is a directory"},
		{[]string{"-h"}, flag.ErrHelp, 0, "usage: sdtlist"},
		{[]string{"-x", demo}, cli.ErrUsage, 0, "flag provided but not defined"},
		{[]string{}, cli.ErrUsage, 0, "no FILE and no -p PID"},
		{[]string{"-p", "-3"}, cli.ErrUsage, 0, "not a process ID"},
		{[]string{"-p", "1", demo}, cli.ErrUsage, 0, "with -p, arguments are PROVIDER:NAME patterns"},
		{[]string{demo, "[x:y"}, cli.ErrUsage, 0, `"[x:y": bad glob "[x" in PROVIDER`},
		// Patterns that could never match.
		{[]string{demo, "::"}, cli.ErrUsage, 0, `sdtlist: "::": a pattern is PROVIDER:NAME, NAME or usdt:PROVIDER:NAME`},
		{[]string{demo, "a:b:c:d:e"}, cli.ErrUsage, 0, "a pattern is PROVIDER:NAME"},
		{[]string{demo, "usdt:a:b:c:d"}, cli.ErrUsage, 0, "a pattern is PROVIDER:NAME"},
		{[]string{"-p", "1", "prog:demo:tick"}, cli.ErrUsage, 0, "a pattern is PROVIDER:NAME"},
	} {
		var stdout, stderr bytes.Buffer
		err := run(tt.args, &stdout, &stderr)
		if !errors.Is(err, tt.want) {
			t.Errorf("run(%q) = %v, want %v", tt.args, err, tt.want)
		}
		if rows := strings.Count(stdout.String(), "\n"); rows != tt.stdoutRows {
			t.Errorf("run(%q) wrote %d lines, want %d:\n%s", tt.args, rows, tt.stdoutRows, stdout.String())
		}
		if !strings.Contains(stderr.String(), tt.stderr) || (tt.stderr == "" && stderr.Len() > 0) {
			t.Errorf("run(%q) stderr = %q, want %q", tt.args, stderr.String(), tt.stderr)
		}
	}
}

func TestNDJSONFields(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if err := run([]string{demo, "demo:start"}, &stdout, &stderr); err != nil {
		t.Fatalf("run: %v (%s)", err, stderr.String())
	}
	var got map[string]any
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatalf("output %q is not JSON: %v", stdout.String(), err)
	}
	for k, want := range map[string]any{
		"file": demo, "provider": "demo", "name": "start",
		"pc": float64(0x4010a8), "base": float64(0x402004), "semaphore": float64(0x404020),
		"args": "-4@%ebx 8@0(%r13)", "pc_offset": float64(0x10a8), "semaphore_offset": float64(0x3020),
	} {
		if got[k] != want {
			t.Errorf("field %s = %v, want %v", k, got[k], want)
		}
	}
	argv, _ := got["argv"].([]any)
	if len(argv) != 2 {
		t.Fatalf("argv = %v, want 2 elements", got["argv"])
	}
	a1, _ := argv[1].(map[string]any)
	for k, want := range map[string]any{"size": float64(8), "signed": false, "kind": "memory", "location": "(%r13)", "reg": "r13", "reg_offset": float64(16), "offset": float64(0)} {
		if a1[k] != want {
			t.Errorf("argv[1].%s = %v, want %v", k, a1[k], want)
		}
	}
	for _, k := range []string{"pid", "addr", "armed", "note_pc", "pc_error"} {
		if _, ok := got[k]; ok {
			t.Errorf("field %s present in a file listing", k)
		}
	}
}

func TestTable(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if err := run([]string{"-t", demo}, &stdout, &stderr); err != nil {
		t.Fatalf("run: %v (%s)", err, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "FILE") {
		t.Fatalf("table = %q, want a header and 3 rows", stdout.String())
	}
	col := strings.Index(lines[0], "ARGS")
	for _, l := range lines[1:] {
		if len(l) < col || l[col-1] != ' ' || l[col] == ' ' {
			t.Errorf("row %q is not aligned with the ARGS column at %d", l, col)
		}
	}
	if !strings.Contains(lines[1], "s32@%ebx u64@(%r13)") || !strings.Contains(lines[1], "0x4010a8") {
		t.Errorf("row %q, want the start probe with typed arguments", lines[1])
	}
}
