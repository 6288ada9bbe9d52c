package main

import (
	"bytes"
	"errors"
	"fmt"
	"log"
	"testing"

	"github.com/sdtkit/sdtkit/pkg/attach"
	"github.com/sdtkit/sdtkit/pkg/filter"
	"github.com/sdtkit/sdtkit/pkg/probe"
)

func TestSummary(t *testing.T) {
	plan := &attach.Plan{Probes: []*probe.Probe{{Target: &probe.Target{Name: "prog"}, Provider: "p", Name: "q"}}}
	for _, tt := range []struct {
		events, lost, skipped uint64
		want                  string
	}{
		{5, 0, 0, "sdtattach: 5 events, 0 lost\nsdtattach: prog:p:q: 5 events\n"},
		{5, 2, 0, "sdtattach: 5 events, 2 lost\nsdtattach: prog:p:q: 5 events\n"},
		{5, 0, 3, "sdtattach: 5 events, 0 lost\n" +
			"sdtattach: 3 probe hits made no event (nested more than 4 deep on a CPU, or of an unknown site)\n" +
			"sdtattach: prog:p:q: 5 events\n"},
	} {
		var buf bytes.Buffer
		n := &attach.Streamed{Events: tt.events, Lost: tt.lost, Skipped: tt.skipped, ByProbe: []uint64{5}}
		summary(log.New(&buf, "sdtattach: ", 0), n, plan)
		if got := buf.String(); got != tt.want {
			t.Errorf("summary(%d events, %d lost, %d skipped) = %q, want %q", tt.events, tt.lost, tt.skipped, got, tt.want)
		}
	}
}

// TestFlagWords checks that errors of the engine are given the words of
// sdtattach's flags, wherever they are in a message.
func TestFlagWords(t *testing.T) {
	ke := &attach.KeyError{Key: "a:b,a:c", Err: attach.ErrNeitherStartNorEnd}
	for _, tt := range []struct {
		err  error
		want string
	}{
		{ke, "--latency a:b,a:c: the probe is neither START nor END"},
		{fmt.Errorf("lib.so: p:q: not attached: %w", ke), "lib.so: p:q: not attached: --latency a:b,a:c: the probe is neither START nor END"},
		{fmt.Errorf("name: %w", filter.ErrNoFields), "name: the probe has no fields (--types does not declare it)"},
		{errors.New("other"), "other"},
	} {
		if got := flagWords(tt.err); got != tt.want {
			t.Errorf("flagWords(%q) = %q, want %q", tt.err, got, tt.want)
		}
	}
}
