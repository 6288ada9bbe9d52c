package main

import (
	"bytes"
	"errors"
	"flag"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sdtkit/sdtkit/internal/cli"
)

const events = `{"ts":1000000000,"pid":42,"tid":42,"comm":"demo","cpu":0,"provider":"demo","name":"start","args":[7]}
{"ts":1000250000,"pid":42,"tid":42,"comm":"demo","cpu":0,"provider":"demo","name":"end","args":[7]}
`

func TestRunExitKinds(t *testing.T) {
	for _, tt := range []struct {
		args   []string
		stdin  string
		want   error
		stdout string
		stderr string
	}{
		{nil, events, nil, "demo:end", ""},
		{nil, events + "junk\n", cli.ErrFailed, "demo:end", "sdtfmt: line 3: invalid character"},
		{nil, events + `{"provider":"demo"`, cli.ErrFailed, "demo:end", "sdtfmt: line 3 (truncated): "},
		{[]string{"-c"}, events + `{"lost":2}` + "\n", nil, "demo:end", "sdtfmt: lost 2 events"},
		{[]string{"nosuchfile", "-"}, events, cli.ErrFailed, "demo:end", "sdtfmt: open nosuchfile: no such file"},
		{[]string{"-h"}, "", flag.ErrHelp, "", "usage: sdtfmt"},
		{[]string{"-x"}, "", cli.ErrUsage, "", "flag provided but not defined"},
		{[]string{"--time", "utc"}, "", cli.ErrUsage, "", "--time utc: want abs, rel or none"},
		{[]string{"-c", "--hist", "arg0"}, "", cli.ErrUsage, "", "exclude each other"},
		{[]string{"--hist", "a.b"}, "", cli.ErrUsage, "", "--hist a.b: want pid"},
		{[]string{"--latency", "start"}, "", cli.ErrUsage, "", "want START,END[,KEY]"},
		{[]string{"--latency", "a,b", "--by", "pid"}, "", cli.ErrUsage, "", "--by does not apply"},
		{[]string{"--interval", "1s"}, "", cli.ErrUsage, "", "--interval needs"},
		{[]string{"-c", "-f", "x=%d"}, "", cli.ErrUsage, "", "-f formats the per-event view"},
		{[]string{"--folded", "-c"}, "", cli.ErrUsage, "", "exclude each other"},
		{[]string{"--folded", "--by", "pid"}, "", cli.ErrUsage, "", "--by does not apply to --folded"},
		{[]string{"--folded", "--interval", "1s"}, "", cli.ErrUsage, "", "--interval needs"},
		{[]string{"--pprof", ""}, "", cli.ErrUsage, "", "--pprof: no FILE"},
		{[]string{"--folded"}, events, nil, "", "sdtfmt: 2 events carry no stack"},
		{[]string{"--pprof", "/nonexistent/dir/p.pb.gz"}, events, cli.ErrFailed, "", "--pprof: open /nonexistent/dir/p.pb.gz"},
		{[]string{"-f", "x=%z"}, "", cli.ErrUsage, "unknown verb", "unknown verb"},
		// Empty values are rejected, not taken for the flag left out.
		{[]string{"--hist", ""}, "", cli.ErrUsage, "", `--hist "": want pid, tid, comm, ustack, argN or a field name`},
		{[]string{"-c", "--by", ""}, "", cli.ErrUsage, "", `--by "": want pid`},
		{[]string{"--latency", ""}, "", cli.ErrUsage, "", `--latency "": want START,END[,KEY]`},
		{[]string{"--time", ""}, "", cli.ErrUsage, "", `--time "": want abs, rel or none`},
		{[]string{"-c", "--interval", "0s"}, "", cli.ErrUsage, "", "--interval 0s: not a positive duration"},
		// Probe patterns that could match no probe.
		{[]string{"--latency", ",b"}, "", cli.ErrUsage, "", `--latency ,b: "": empty NAME; a pattern is PROVIDER:NAME`},
		{[]string{"--latency", "a,b,"}, "", cli.ErrUsage, "", `--latency a,b,: "": want pid`},
		{[]string{"--latency", "p:,b"}, "", cli.ErrUsage, "", "p:: empty NAME; a pattern is PROVIDER:NAME"},
		{[]string{"-f", "p:q:r=%d"}, "", cli.ErrUsage, "", "p:q:r: a pattern is PROVIDER:NAME"},
		{[]string{"-f", ":q=%d"}, "", cli.ErrUsage, "", ":q: empty PROVIDER; a pattern is PROVIDER:NAME"},
	} {
		var stdout, stderr bytes.Buffer
		err := run(tt.args, strings.NewReader(tt.stdin), &stdout, &stderr)
		if !errors.Is(err, tt.want) || !strings.Contains(stdout.String(), tt.stdout) && tt.want != cli.ErrUsage || !strings.Contains(stderr.String(), tt.stderr) {
			t.Errorf("run(%q) = %v\nstdout:\n%s\nstderr:\n%s\nwant %v, stdout with %q, stderr with %q", tt.args, err, &stdout, &stderr, tt.want, tt.stdout, tt.stderr)
		}
		if tt.want == cli.ErrUsage && stdout.Len() > 0 {
			t.Errorf("run(%q) wrote %q on stdout", tt.args, &stdout)
		}
	}
}

// syncBuffer is a bytes.Buffer the --interval ticker may write to while
// the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestInterval feeds events through a pipe that stays open: the counts
// must appear every interval, not only at the end of the input.
func TestInterval(t *testing.T) {
	pr, pw := io.Pipe()
	var stdout syncBuffer
	done := make(chan error)
	go func() { done <- run([]string{"-c", "--interval", "20ms"}, pr, &stdout, io.Discard) }()
	io.WriteString(pw, events)
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(stdout.String(), "demo:start") {
		if time.Now().After(deadline) {
			t.Fatalf("no counts after 5s; stdout:\n%s", stdout.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	pw.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	out := stdout.String()
	if !strings.HasPrefix(out, "[") || strings.Count(out, "demo:start") != 1 {
		t.Errorf("stdout:\n%s\nwant one report of demo:start headed by [HH:MM:SS]", out)
	}
}

// TestStreaming checks that the per-event view writes each event before
// the next one arrives.
func TestStreaming(t *testing.T) {
	pr, pw := io.Pipe()
	var stdout syncBuffer
	done := make(chan error)
	go func() { done <- run(nil, pr, &stdout, io.Discard) }()
	first, _, _ := strings.Cut(events, "\n")
	io.WriteString(pw, first+"\n")
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(stdout.String(), "demo:start") {
		if time.Now().After(deadline) {
			t.Fatalf("event not shown after 5s while the input stays open; stdout:\n%s", stdout.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	pw.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
