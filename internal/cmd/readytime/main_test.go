package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/sdtkit/sdtkit/internal/cli"
)

func TestRun(t *testing.T) {
	// The ready line comes 0.2 s before the exit: ready must be measured
	// at the line, exit at the end.
	var out, errw bytes.Buffer
	err := run([]string{"-runs", "3", "-warmup", "0", "-match", "^ready$",
		"sh", "-c", "echo starting; echo ready; sleep 0.2; echo done"}, &out, &errw)
	if err != nil {
		t.Fatalf("run: %v (stderr %q)", err, errw.String())
	}
	var r result
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("output %q: %v", out.String(), err)
	}
	if r.Runs != 3 || r.Line != "ready" {
		t.Errorf("runs %d, line %q; want 3, \"ready\"", r.Runs, r.Line)
	}
	if r.Ready.Min > r.Ready.Median || r.Ready.Median > r.Ready.Max {
		t.Errorf("ready %+v: not ordered", r.Ready)
	}
	if r.Exit.Min-r.Ready.Max < 0.15 {
		t.Errorf("ready %+v, exit %+v: want the exit 0.2 s after the ready line", r.Ready, r.Exit)
	}
}

func TestRunStderr(t *testing.T) {
	var out, errw bytes.Buffer
	err := run([]string{"-runs", "1", "-warmup", "0", "-stderr", "-match", "Attaching",
		"sh", "-c", "echo noise; echo 'Attaching 1 probe...' >&2"}, &out, &errw)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if !strings.Contains(out.String(), `"line":"Attaching 1 probe..."`) {
		t.Errorf("output %q: want the stderr line", out.String())
	}
}

func TestRunErrors(t *testing.T) {
	for _, tt := range []struct {
		name string
		args []string
		want string // in the error
	}{
		{"no line", []string{"-runs", "1", "-warmup", "0", "-match", "^ready$", "sh", "-c", "echo other"}, "exited without a matching line"},
		{"failure", []string{"-runs", "1", "-warmup", "0", "sh", "-c", "echo ready; echo broken >&2; exit 3"}, "exit status 3: broken"},
		{"warmup failure", []string{"-runs", "1", "sh", "-c", "exit 1"}, "warmup run 1"},
		{"no command", []string{"-runs", "1", "/nonexistent/tool"}, "no such file"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out, errw bytes.Buffer
			err := run(tt.args, &out, &errw)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("run: %v, want an error containing %q", err, tt.want)
			}
			if out.Len() != 0 {
				t.Errorf("stdout %q on error", out.String())
			}
		})
	}
}

func TestUsage(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"-runs", "0", "true"},
		{"-match", "(", "true"},
		{"-bogus", "true"},
	} {
		var out, errw bytes.Buffer
		if err := run(args, &out, &errw); !errors.Is(err, cli.ErrUsage) {
			t.Errorf("run(%q): %v, want a usage error", args, err)
		}
	}
}

func TestSummarize(t *testing.T) {
	for _, tt := range []struct {
		in   []float64
		want stats
	}{
		{[]float64{3}, stats{3, 3, 3}},
		{[]float64{3, 1, 2}, stats{1, 2, 3}},
		{[]float64{4, 1, 3, 2}, stats{1, 2.5, 4}},
	} {
		if got := summarize(tt.in); got != tt.want {
			t.Errorf("summarize(%v) = %+v, want %+v", tt.in, got, tt.want)
		}
	}
}
