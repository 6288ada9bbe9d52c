package main

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/sdtkit/sdtkit/internal/cli"
)

// bigLine reads as a JSON string of n bytes on one line, then rest,
// without holding them.
type bigLine struct {
	n    int
	rest io.Reader
}

func (b *bigLine) Read(p []byte) (int, error) {
	if b.n == 0 {
		return b.rest.Read(p)
	}
	k := min(len(p), b.n)
	for i := range k {
		p[i] = 'x'
	}
	if b.n == k {
		p[0], p[k-1] = '"', '\n'
	}
	b.n -= k
	return k, nil
}

// A 100 MB line is reported and skipped in memory that does not grow
// with it; the events after it are formatted.
func TestRunLongLine(t *testing.T) {
	var stdout, stderr bytes.Buffer
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	err := run(nil, &bigLine{n: 100 << 20, rest: strings.NewReader(events)}, &stdout, &stderr)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, cli.ErrFailed) {
		t.Errorf("run = %v, want %v", err, cli.ErrFailed)
	}
	if want := "sdtfmt: line 1: longer than 1048576 bytes; skipped\n"; stderr.String() != want {
		t.Errorf("stderr = %q, want %q", stderr.String(), want)
	}
	if !strings.Contains(stdout.String(), "demo:end") {
		t.Errorf("stdout = %q, want the events after the long line", stdout.String())
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 16<<20 {
		t.Errorf("run allocated %d bytes for a 100 MB line, want at most 16 MiB", got)
	}
}
