package cli

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"log"
	"testing"
)

func TestStatus(t *testing.T) {
	var buf bytes.Buffer
	log.SetOutput(&buf)
	log.SetFlags(0)
	t.Cleanup(func() { log.SetOutput(nil) })
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
		{errors.New("open x: no such file"), 1, "open x: no such file\n"},
	} {
		buf.Reset()
		if got := Status(tt.err); got != tt.want || buf.String() != tt.printed {
			t.Errorf("Status(%v) = %d, printed %q; want %d, %q", tt.err, got, buf.String(), tt.want, tt.printed)
		}
	}
}
