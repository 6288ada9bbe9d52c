package cli

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"syscall"
	"testing"
	"time"
)

func TestStatus(t *testing.T) {
	var buf bytes.Buffer
	log.SetOutput(&buf)
	log.SetFlags(0)
	log.SetPrefix("tool: ")
	t.Cleanup(func() { log.SetOutput(os.Stderr); log.SetPrefix("") })
	for _, tt := range []struct {
		err     error
		want    int
		printed string
	}{
		{nil, 0, ""},
		{flag.ErrHelp, 0, ""},
		{ErrUsage, 2, ""},
		{fmt.Errorf("bad flag: %w", ErrUsage), 2, ""},
		{ErrFailed, 1, ""},
		{ExitStatus(7), 7, ""},
		{fmt.Errorf("-c: %w", ExitStatus(143)), 143, ""},
		{errors.New("open x: no such file"), 1, "tool: open x: no such file\n"},
		{errors.Join(errors.New("x: bad note"), errors.New("x: 3 more")), 1, "tool: x: bad note\ntool: x: 3 more\n"},
	} {
		buf.Reset()
		if got := Status(tt.err); got != tt.want || buf.String() != tt.printed {
			t.Errorf("Status(%v) = %d, printed %q; want %d, %q", tt.err, got, buf.String(), tt.want, tt.printed)
		}
	}
}

func TestParse(t *testing.T) {
	for _, tt := range []struct {
		args   []string
		want   error
		stderr string
	}{
		{[]string{"-v", "x"}, nil, ""},
		{[]string{"-h"}, flag.ErrHelp, "usage: tool\n  -v\tbe verbose\n"},
		{[]string{"-x"}, ErrUsage, "flag provided but not defined: -x\nusage: tool\n"},
	} {
		var stderr bytes.Buffer
		fs := FlagSet("tool", "usage: tool\n", &stderr)
		fs.Bool("v", false, "be verbose")
		if err := Parse(fs, tt.args); !errors.Is(err, tt.want) || (err == nil) != (tt.want == nil) {
			t.Errorf("Parse(%q) = %v, want %v", tt.args, err, tt.want)
		}
		if !bytes.HasPrefix(stderr.Bytes(), []byte(tt.stderr)) {
			t.Errorf("Parse(%q) printed %q, want it to start with %q", tt.args, stderr.String(), tt.stderr)
		}
	}
}

func TestInterrupts(t *testing.T) {
	ctx, further, stop := Interrupts()
	defer stop()
	before := further()
	syscall.Kill(os.Getpid(), syscall.SIGPIPE) // caught: nothing happens
	syscall.Kill(os.Getpid(), syscall.SIGHUP)
	<-ctx.Done()
	if got := context.Cause(ctx).Error(); got != "hangup signal received" {
		t.Errorf("cause = %q", got)
	}
	select {
	case <-before:
	default:
		t.Error("a channel of further not closed by the signal after it")
	}
	after := further()
	select {
	case <-after:
		t.Fatal("a channel of further closed by the signal before it")
	case <-time.After(20 * time.Millisecond):
	}
	syscall.Kill(os.Getpid(), syscall.SIGTERM)
	select {
	case <-after:
	case <-time.After(5 * time.Second):
		t.Fatal("a channel of further not closed by the next signal")
	}
}
